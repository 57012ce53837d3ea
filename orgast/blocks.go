package orgast

// The element parsers for blocks, drawers, keywords, LaTeX environments,
// footnote definitions, fixed-width areas, rules and tables.

// captions records the values of the #+CAPTION: lines among the
// affiliated keywords in [pos, q). Org parses them, and
// org-update-radio-target-regexp finds radio targets there, though
// org-element-map does not look for links in them.
func (p *parser) captions(pos, q int) {
	for l := pos; l < q; l = p.nextLine(l) {
		i := p.skipSpTab(l, p.n) + 2
		if !p.at(i, "CAPTION") {
			continue
		}
		e := p.eol(l)
		j := i + 7
		if j < e && p.t[j] == '[' {
			for m := e - 1; m > j+1; m-- {
				if p.t[m] == ':' && p.t[m-1] == ']' {
					p.conts = append(p.conts, container{beg: j + 1, end: m - 1, kind: rsKeyword, node: -1, radioOnly: true})
					j = m
					break
				}
			}
		}
		if j < e && p.t[j] == ':' {
			p.conts = append(p.conts, container{beg: p.skipSpTab(j+1, e), end: e, kind: rsKeyword, node: -1, radioOnly: true})
		}
	}
}

// keywordElement parses "#+KEY: VALUE" at q.
func (p *parser) keywordElement(q, limit, begin int) element {
	return element{kind: kKeyword, begin: begin, line: q, end: p.endAfterBlank(p.nextLine(q), limit), cbeg: -1}
}

// latexBeginAt matches "^[ \t]*\\begin{\([A-Za-z0-9*]+\)}" and returns the
// environment's name, or "".
func (p *parser) latexBeginAt(q int) string {
	i := p.skipSpTab(q, p.n)
	if !p.atExact(i, `\begin{`) {
		return ""
	}
	j := i + 7
	k := j
	for k < p.n && (isAlnumASCII(p.t[k]) || p.t[k] == '*') {
		k++
	}
	if k == j || k >= p.n || p.t[k] != '}' {
		return ""
	}
	return p.str(j, k)
}

func (p *parser) latexElement(q, limit, begin int) element {
	name := p.latexBeginAt(q)
	endLine := p.latexEnd(name, q, limit)
	if endLine < 0 {
		p.problem(q, p.eol(q), SeverityWarning, "latex-unclosed", "This LaTeX environment has no \\end{"+name+"}, so Org reads it as a paragraph.")
		return p.paragraphElement(q, limit, begin)
	}
	return element{kind: kLatexEnvironment, begin: begin, line: q, end: p.endAfterBlank(p.nextLine(endLine), limit), cbeg: -1}
}

// drawerLine matches org-drawer-regexp: "^[ \t]*:\(\(?:\w\|[-_]\)+\):[ \t]*$".
func (p *parser) drawerLine(q int) bool {
	i := p.skipSpTab(q, p.n)
	if i >= p.n || p.t[i] != ':' {
		return false
	}
	e := p.eol(i)
	j := i + 1
	for j < e {
		r, n := p.runeAt(j)
		if !(isWord(r) || r == '-' || r == '_') {
			break
		}
		j += n
	}
	return j > i+1 && j < e && p.t[j] == ':' && p.skipSpTab(j+1, e) == e
}

func (p *parser) drawerElement(q, limit, begin int) element {
	endLine := p.drawerEnd(min(limit, p.eol(q))+1, limit)
	if endLine < 0 {
		p.problem(q, p.eol(q), SeverityWarning, "drawer-unclosed", "This drawer has no :END: line, so Org reads it as a paragraph.")
		return p.paragraphElement(q, limit, begin)
	}
	el := element{kind: kDrawer, begin: begin, line: q, cbeg: -1}
	if cb := p.nextLine(q); cb < endLine {
		el.cbeg, el.cend = cb, endLine
	}
	el.end = p.endAfterBlank(p.nextLine(endLine), limit)
	if name := p.str(p.skipSpTab(q, p.n)+1, p.eol(q)); len(name) >= 11 && upperASCII(name[:11]) == "PROPERTIES:" {
		p.problem(q, p.eol(q), SeverityWarning, "property-drawer-misplaced", "A property drawer counts only directly after a headline or its planning line (or at the top of the file); here Org reads it as an ordinary drawer.")
	}
	return el
}

func (p *parser) fixedWidthElement(q, limit, begin int) element {
	i := q
	for i < limit {
		j := p.skipSpTab(i, p.n)
		if !(j < p.n && p.t[j] == ':' && (j+1 >= p.n || p.t[j+1] == ' ' || p.t[j+1] == '\n')) {
			break
		}
		i = p.nextLine(i)
	}
	return element{kind: kFixedWidth, begin: begin, line: q, end: p.endAfterBlank(i, limit), cbeg: -1}
}

// blockElement parses "#+BEGIN_NAME" … "#+END_NAME" blocks.
func (p *parser) blockElement(k elemKind, name string, q, limit, begin int) element {
	endLine := p.blockEnd("_"+name, q, limit)
	if endLine < 0 {
		p.problem(q, p.eol(q), SeverityWarning, "block-unclosed", "This block has no #+END_"+name+" line, so Org reads it as a paragraph.")
		return p.paragraphElement(q, limit, begin)
	}
	el := element{kind: k, begin: begin, line: q, cbeg: -1}
	if cb := p.nextLine(q); cb < endLine || (k == kVerseBlock && cb <= endLine) {
		el.cbeg, el.cend = cb, endLine
	}
	el.end = p.endAfterBlank(p.nextLine(endLine), limit)
	return el
}

func (p *parser) dynamicBlockElement(q, limit, begin int) element {
	a := p.blockEnd("", q, limit)
	b := p.blockEnd(":", q, limit)
	endLine := a
	if endLine < 0 || (b >= 0 && b < endLine) {
		endLine = b
	}
	if endLine < 0 {
		p.problem(q, p.eol(q), SeverityWarning, "block-unclosed", "This dynamic block has no #+END: line, so Org reads it as a paragraph.")
		return p.paragraphElement(q, limit, begin)
	}
	el := element{kind: kDynamicBlock, begin: begin, line: q, cbeg: -1}
	if cb := p.nextLine(q); cb < endLine {
		el.cbeg, el.cend = cb, endLine
	}
	el.end = p.endAfterBlank(p.nextLine(endLine), limit)
	return el
}

// footnoteDefinitionAt matches "^\[fn:\([-_[:word:]]+\)\]" and returns
// the offset after the "]" (0 when there is no match).
func (p *parser) footnoteLabelEnd(q int) int {
	if !p.at(q, "[fn:") {
		return 0
	}
	j := q + 4
	for j < p.n {
		r, n := p.runeAt(j)
		if !(isWord(r) || r == '-' || r == '_') {
			break
		}
		j += n
	}
	if j == q+4 || j >= p.n || p.t[j] != ']' {
		return 0
	}
	return j + 1
}

func (p *parser) footnoteDefinitionAt(q int) bool { return p.footnoteLabelEnd(q) > 0 }

func (p *parser) footnoteDefinitionElement(q, limit, begin int) element {
	end := limit
	// The definition ends at the next definition (before its affiliated
	// keywords), at a headline, or after two blank lines.
	for l := p.nextLine(q); l < limit; l = p.nextLine(l) {
		if p.footnoteDefinitionAt(l) {
			k := p.prevLineStart(l)
			for k > q && p.affiliatedAt(k) {
				k = p.prevLineStart(k)
			}
			end = p.nextLine(k)
			break
		}
		if p.blankAt(l) && p.eol(l) < p.n {
			if l2 := p.nextLine(l); l2 < p.n && p.blankAt(l2) && p.eol(l2) < p.n && p.eol(l2) < limit {
				j := p.skipWS(p.eol(l2)+1, limit)
				if j == limit {
					end = limit
				} else {
					end = p.bol(j)
				}
				break
			}
		}
	}
	el := element{kind: kFootnoteDefinition, begin: begin, line: q, end: end, cbeg: -1}
	cb := p.skipWS(p.footnoteLabelEnd(q), end)
	switch {
	case cb >= end:
	case p.bol(cb) == q:
		el.cbeg = cb
	default:
		el.cbeg = p.bol(cb)
	}
	if el.cbeg >= 0 {
		el.cend = p.contentsEnd(end, 0)
	}
	return el
}

// horizontalRule is "[ \t]*-\{5,\}[ \t]*$".
func (p *parser) horizontalRule(q int) bool {
	i := p.skipSpTab(q, p.n)
	if i >= p.n || p.t[i] != '-' {
		return false
	}
	e := p.eol(i)
	j := i
	for j < e && p.t[j] == '-' {
		j++
	}
	return j-i >= 5 && p.skipSpTab(j, e) == e
}

// tableRule is "[ \t]*\+\(-+\+\)+[ \t]*$", a table.el rule line.
func (p *parser) tableRule(q int) bool {
	i := p.skipSpTab(q, p.n)
	if i >= p.n || p.t[i] != '+' {
		return false
	}
	e := p.eol(i)
	i++
	groups := 0
	for i < e && p.t[i] == '-' {
		for i < e && p.t[i] == '-' {
			i++
		}
		if i >= e || p.t[i] != '+' {
			return false
		}
		i++
		groups++
	}
	return groups > 0 && p.skipSpTab(i, e) == e
}

// tableElAt recognises a table.el table: a full rule line, not alone, and
// ending with a full rule.
func (p *parser) tableElAt(q, limit int) bool {
	if !p.tableRule(q) {
		return false
	}
	next := p.nextLine(q)
	if next >= limit {
		return false
	}
	// Find the first line from the next one on that does not start with
	// "+" or "|" (a blank line counts).
	for l := next; l < limit; l = p.nextLine(l) {
		i := p.skipSpTab(l, p.n)
		if i >= p.n || p.t[i] == '\n' || (p.t[i] != '+' && p.t[i] != '|') {
			if l == next {
				return false
			}
			return p.tableRule(p.prevLineStart(l))
		}
		if p.nextLine(l) >= limit || p.nextLine(l) == l {
			break
		}
	}
	// No such line before limit: the table runs to limit.
	last := p.bol(limit)
	if limit == last && limit > 0 {
		last = p.prevLineStart(limit)
	}
	return p.tableRule(last)
}

func (p *parser) tableElement(q, limit, begin int) element {
	i := p.skipSpTab(q, p.n)
	org := i < p.n && p.t[i] == '|'
	tableEnd := limit
	for l := p.nextLine(q); l < limit; l = p.nextLine(l) {
		j := p.skipSpTab(l, p.n)
		if j >= p.n || p.t[j] == '\n' || (p.t[j] != '|' && (org || p.t[j] != '+')) {
			tableEnd = l
			break
		}
	}
	if tableEnd > limit {
		tableEnd = limit
	}
	after := tableEnd
	for after < p.n && p.tblfmLine(after) {
		after = p.nextLine(after)
	}
	el := element{kind: kTable, begin: begin, line: q, end: p.endAfterBlank(after, limit), cbeg: -1}
	if org {
		el.cbeg, el.cend = q, tableEnd
	}
	return el
}

// tblfmLine is "[ \t]*#\+TBLFM: +\(.*\)[ \t]*$".
func (p *parser) tblfmLine(l int) bool {
	i := p.skipSpTab(l, p.n)
	return p.at(i, "#+TBLFM: ")
}

func (p *parser) tableRowElement(pos int) element {
	el := element{kind: kTableRow, begin: pos, line: pos, end: p.nextLine(pos), cbeg: -1}
	e := p.eol(pos)
	i := p.skipSpTab(pos, e)
	if i+1 < p.n && p.t[i] == '|' && p.t[i+1] == '-' {
		return el
	}
	bar := i
	for bar < p.n && p.t[bar] != '|' {
		bar++
	}
	if bar >= p.n {
		return el
	}
	el.cbeg = bar + 1
	el.cend = max(p.skipSpTabBack(p.eol(el.cbeg), el.cbeg), el.cbeg)
	return el
}
