package orgast

// Paragraphs: org-element-paragraph-parser and the separator lines that
// end a paragraph (org-element-paragraph-separate and its double checks).

// paragraphElement is org-element-paragraph-parser from q.
func (p *parser) paragraphElement(q, limit, begin int) element {
	stop := limit
	// The search for a separator starts at the end of the first line,
	// where "^[ \t]*$" matches when that line is empty: a paragraph there
	// (a greater block's contents can start with an empty line) is that
	// line alone, and the elements after it are read as such.
	if q < p.n && p.t[q] == '\n' {
		stop = q
	}
	for l := p.nextLine(q); stop == limit && l < limit; l = p.nextLine(l) {
		if p.paragraphEndsAt(l, limit) {
			stop = l
			break
		}
	}
	el := element{kind: kParagraph, begin: begin, line: q, cbeg: q}
	el.cend = p.contentsEnd(stop, q)
	if el.cend > limit { // (line-beginning-position 2) past a limit at end of text
		el.cend = limit
	}
	el.end = p.endAfterBlank(stop, limit)
	return el
}

// paragraphEndsAt reports whether line l ends the paragraph before it:
// org-element-paragraph-separate matches and the double checks agree.
func (p *parser) paragraphEndsAt(l, limit int) bool {
	if !p.paragraphSeparate(l) {
		return false
	}
	if p.drawerLine(l) {
		return p.drawerEnd(l, limit) >= 0
	}
	i := p.skipSpTab(l, p.n)
	if p.atExact(i, "#+") && p.at(i+2, "BEGIN_") {
		if e := p.nonSpaceRunEnd(i+8, p.n); e > i+8 {
			return p.blockEnd("_"+p.str(i+8, e), l, limit) >= 0
		}
	}
	if name := p.latexBeginAt(l); name != "" {
		return p.latexEnd(name, l, limit) >= 0
	}
	if p.atExact(i, "#+") {
		if name, ok := p.dualKeywordName(i + 2); ok {
			return upperASCII(name) == "CAPTION" || upperASCII(name) == "RESULTS"
		}
	}
	return true
}

// dualKeywordName matches "\(\S-+\)\[.*\]:" at j (after "#+").
func (p *parser) dualKeywordName(j int) (string, bool) {
	e := p.eol(j)
	run := p.nonSpaceRunEnd(j, e)
	// The name is the longest prefix of the run followed by "[" that a
	// later "]:" on the line closes.
	last := -1
	for k := e - 1; k > j; k-- {
		if p.t[k] == ':' && p.t[k-1] == ']' {
			last = k - 1
			break
		}
	}
	for k := run - 1; k > j; k-- {
		if p.t[k] == '[' && last > k {
			return p.str(j, k), true
		}
	}
	return "", false
}

// paragraphSeparate matches org-element-paragraph-separate at line start l.
func (p *parser) paragraphSeparate(l int) bool {
	t := p.t
	if l >= p.n {
		return true
	}
	switch t[l] {
	case '*':
		j := l
		for j < p.n && t[j] == '*' {
			j++
		}
		if j < p.n && t[j] == ' ' {
			return true
		}
	case '[':
		if p.footnoteDefinitionAt(l) {
			return true
		}
	case '%':
		if p.atExact(l, "%%(") {
			return true
		}
	}
	i := p.skipSpTab(l, p.n)
	if i >= p.n || t[i] == '\n' {
		return true
	}
	next := byte('\n')
	if i+1 < p.n {
		next = t[i+1]
	}
	switch t[i] {
	case '|':
		return true
	case '+':
		if p.tableRule(l) {
			return true
		}
	case '#':
		if next == ' ' || next == '\n' {
			return true
		}
		if next == '+' {
			if p.at(i+2, "BEGIN_") && p.nonSpaceRunEnd(i+8, p.n) > i+8 {
				return true
			}
			if p.keywordColon(i+2) > i+2 {
				return true
			}
			_, ok := p.dualKeywordName(i + 2)
			return ok
		}
	case ':':
		if next == ' ' || next == '\n' {
			return true
		}
		return p.drawerLine(l)
	case '-':
		if p.horizontalRule(l) {
			return true
		}
	case '\\':
		if p.latexBeginAt(l) != "" {
			return true
		}
	case 'C', 'c':
		if p.at(i, "CLOCK:") {
			return true
		}
	}
	// A list item: "[-+*]" or digits and "." or ")", then a blank or the end.
	j := i
	switch t[i] {
	case '-', '+', '*':
		j++
	default:
		for j < p.n && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		if j == i || j >= p.n || (t[j] != '.' && t[j] != ')') {
			return false
		}
		j++
	}
	return j >= p.n || t[j] == ' ' || t[j] == '\t' || t[j] == '\n'
}
