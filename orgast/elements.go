package orgast

// The element parser follows org-element--current-element and the element
// parsers it dispatches to, one function each, on the normalised text. It
// does not build org-element's tree: it reports what the outline needs
// (keywords, property drawers, and the spans whose objects hold links).

// elemKind is an org-element element type.
type elemKind uint8

const (
	kParagraph elemKind = iota
	kBabelCall
	kCenterBlock
	kClock
	kComment
	kCommentBlock
	kDiarySexp
	kDrawer
	kDynamicBlock
	kExampleBlock
	kExportBlock
	kFixedWidth
	kFootnoteDefinition
	kHorizontalRule
	kItem
	kKeyword
	kLatexEnvironment
	kNodeProperty
	kPlainList
	kPlanning
	kPropertyDrawer
	kQuoteBlock
	kSpecialBlock
	kSrcBlock
	kTable
	kTableRow
	kVerseBlock
)

// isGreater reports whether elements of kind k hold other elements.
func (k elemKind) isGreater() bool {
	switch k {
	case kCenterBlock, kDrawer, kDynamicBlock, kFootnoteDefinition, kItem,
		kPlainList, kPropertyDrawer, kQuoteBlock, kSpecialBlock, kTable:
		return true
	}
	return false
}

// mode is what org-element expects next (org-element--next-mode).
type mode uint8

const (
	modeNone mode = iota
	modeItem
	modeNodeProperty
	modePlanning
	modePropertyDrawer
	modeTableRow
	modeTopComment
)

// childMode is (org-element--next-mode mode type t): the mode for the
// first element inside an element of kind k.
func childMode(k elemKind) mode {
	switch k {
	case kPlainList:
		return modeItem
	case kPropertyDrawer:
		return modeNodeProperty
	case kTable:
		return modeTableRow
	}
	return modeNone
}

// siblingMode is (org-element--next-mode mode type nil).
func siblingMode(m mode, k elemKind) mode {
	switch m {
	case modeItem, modeNodeProperty, modeTableRow:
		return m
	case modePlanning:
		if k == kPlanning {
			return modePropertyDrawer
		}
	case modeTopComment:
		if k == kComment {
			return modePropertyDrawer
		}
	}
	return modeNone
}

// element is one parsed element: its kind and span, its contents span
// (cbeg < 0 when it has none), and what the outline needs of it.
type element struct {
	kind       elemKind
	begin, end int
	cbeg, cend int
	list       *listStruct // plain lists and items
	tag        Range       // an item's description tag (End == 0: none)
	line       int         // start of the element's own first line (after affiliated keywords)
}

// ctx is where the element parser is: the node (headline index, -1 for the
// zeroth section) whose section it reads.
type ctx struct {
	node int
}

// parseElements is org-element--parse-elements over [beg, end).
func (p *parser) parseElements(beg, end int, m mode, st *listStruct, c ctx) {
	for pos := beg; pos < end; {
		el := p.currentElement(pos, end, m, st)
		if el.end <= pos { // no progress: cannot happen in Org; guard anyway
			el.end = p.nextLine(pos)
		}
		p.visit(&el, m, c)
		pos = el.end
		m = siblingMode(m, el.kind)
	}
}

// visit records what the outline needs of an element and descends into it.
func (p *parser) visit(el *element, m mode, c ctx) {
	if el.begin < el.line { // affiliated keywords precede the element
		p.recordName(el, c)
	}
	if el.kind.isBlock() {
		p.recordBlock(el, c)
	}
	switch el.kind {
	case kPropertyDrawer:
		p.propertyDrawer(el, c)
		return
	case kParagraph, kVerseBlock:
		if el.kind == kParagraph && el.cbeg == el.line && (el.line == 0 || p.t[el.line-1] == '\n') && p.planningLine(el.line) {
			p.problem(el.line, p.eol(el.line), SeverityWarning, "planning-misplaced",
				"A planning line counts only on the line right after its headline; Org ignores this one.")
		}
		if el.cbeg >= 0 {
			p.addContainer(el.cbeg, el.cend, rsStandard, c.node)
		}
		return
	case kTableRow:
		if el.cbeg >= 0 {
			p.addContainer(el.cbeg, el.cend, rsTableRow, c.node)
		}
		return
	case kKeyword:
		p.keyword(el, c)
		return
	case kItem:
		if el.tag.End > 0 {
			p.addContainer(el.tag.Start, el.tag.End, rsItem, c.node)
		}
	}
	if el.kind.isGreater() && el.cbeg >= 0 {
		var st *listStruct
		if el.kind == kItem || el.kind == kPlainList {
			st = el.list
		}
		p.depth++
		if p.depth < maxNesting {
			p.parseElements(el.cbeg, el.cend, childMode(el.kind), st, c)
		}
		p.depth--
	}
}

// maxNesting bounds how deep elements nest (lists in drawers in lists …).
// Emacs itself fails at its max-lisp-eval-depth long before this.
const maxNesting = 2000

// currentElement is org-element--current-element at pos.
func (p *parser) currentElement(pos, limit int, m mode, st *listStruct) element {
	switch m {
	case modeItem:
		return p.itemElement(pos, st)
	case modeTableRow:
		return p.tableRowElement(pos)
	case modeNodeProperty:
		return p.nodePropertyElement(pos, limit)
	}
	atBol := pos == 0 || p.t[pos-1] == '\n'
	if atBol && p.commentLine(pos) {
		return p.commentElement(pos, limit)
	}
	if m == modePlanning && atBol && p.prevLineStartsWithStar(pos) && p.planningLine(pos) {
		return p.planningElement(pos, limit)
	}
	if atBol {
		ok := false
		switch m {
		case modePlanning:
			ok = p.prevLineStartsWithStar(pos)
		case modePropertyDrawer, modeTopComment:
			ok = !p.prevLineBlank(pos)
		}
		if ok {
			if end, good := p.propertyDrawerAt(pos); good {
				return p.propertyDrawerElement(pos, end, limit)
			}
		}
	}
	if !atBol {
		return p.paragraphElement(pos, limit, pos)
	}
	if p.clockLine(pos) {
		return p.clockElement(pos, limit)
	}
	// From here on elements may carry affiliated keywords.
	q, has := p.affiliated(pos, limit)
	if has && q >= limit {
		return p.keywordElement(pos, limit, pos)
	}
	if has && p.mayHaveRadio {
		p.captions(pos, q)
	}
	i := p.skipSpTab(q, p.n)
	switch {
	case p.latexBeginAt(q) != "":
		return p.latexElement(q, limit, pos)
	case p.drawerLine(q):
		return p.drawerElement(q, limit, pos)
	case i < p.n && p.t[i] == ':' && (i+1 >= p.n || p.t[i+1] == ' ' || p.t[i+1] == '\n'):
		return p.fixedWidthElement(q, limit, pos)
	case i+1 < p.n && p.t[i] == '#' && p.t[i+1] == '+':
		return p.hashPlusElement(q, i+2, limit, pos)
	case p.footnoteDefinitionAt(q):
		return p.footnoteDefinitionElement(q, limit, pos)
	case p.horizontalRule(q):
		return p.simpleElement(kHorizontalRule, q, limit, pos)
	case p.atExact(q, "%%("):
		return p.simpleElement(kDiarySexp, q, limit, pos)
	case (i < p.n && p.t[i] == '|') || p.tableElAt(q, limit):
		return p.tableElement(q, limit, pos)
	case p.itemAt(q):
		if st == nil || st.find(q) < 0 {
			st = p.listStruct(q, limit)
		}
		return p.plainListElement(q, limit, pos, st)
	}
	return p.paragraphElement(q, limit, pos)
}

// hashPlusElement dispatches a line starting "#+" (j is after the "+").
func (p *parser) hashPlusElement(q, j, limit, begin int) element {
	switch {
	case p.at(j, "BEGIN_") && p.nonSpaceRunEnd(j+6, p.n) > j+6:
		name := p.str(j+6, p.nonSpaceRunEnd(j+6, p.n))
		switch upperASCII(name) {
		case "CENTER":
			return p.blockElement(kCenterBlock, "CENTER", q, limit, begin)
		case "COMMENT":
			return p.blockElement(kCommentBlock, "COMMENT", q, limit, begin)
		case "EXAMPLE":
			return p.blockElement(kExampleBlock, "EXAMPLE", q, limit, begin)
		case "EXPORT":
			return p.blockElement(kExportBlock, "EXPORT", q, limit, begin)
		case "QUOTE":
			return p.blockElement(kQuoteBlock, "QUOTE", q, limit, begin)
		case "SRC":
			return p.blockElement(kSrcBlock, "SRC", q, limit, begin)
		case "VERSE":
			return p.blockElement(kVerseBlock, "VERSE", q, limit, begin)
		}
		return p.blockElement(kSpecialBlock, name, q, limit, begin)
	case p.at(j, "CALL:"):
		return p.simpleElement(kBabelCall, q, limit, begin)
	case p.at(j, "BEGIN: ") || p.at(j, "BEGIN "):
		return p.dynamicBlockElement(q, limit, begin)
	case p.keywordColon(j) > j:
		return p.keywordElement(q, limit, begin)
	}
	return p.paragraphElement(q, limit, begin)
}

// keywordColon returns the offset of the colon ending a keyword's name
// ("\S-+:" after "#+": the last colon in the run of non-blank characters),
// or -1.
func (p *parser) keywordColon(j int) int {
	e := p.nonSpaceRunEnd(j, p.n)
	for k := e - 1; k > j; k-- {
		if p.t[k] == ':' {
			return k
		}
	}
	return -1
}

// simpleElement is a one-line element: babel call, horizontal rule, diary sexp.
func (p *parser) simpleElement(k elemKind, q, limit, begin int) element {
	return element{kind: k, begin: begin, line: q, end: p.endAfterBlank(p.nextLine(q), limit), cbeg: -1}
}

// commentLine is "^[ \t]*#\(?: \|$\)".
func (p *parser) commentLine(i int) bool {
	i = p.skipSpTab(i, p.n)
	return i < p.n && p.t[i] == '#' && (i+1 >= p.n || p.t[i+1] == ' ' || p.t[i+1] == '\n')
}

func (p *parser) commentElement(pos, limit int) element {
	q := p.nextLine(pos)
	for q < limit && p.commentLine(q) {
		q = p.nextLine(q)
	}
	return element{kind: kComment, begin: pos, line: pos, end: p.endAfterBlank(q, limit), cbeg: -1}
}

// prevLineStartsWithStar is (eq ?* (char-after (line-beginning-position 0))).
func (p *parser) prevLineStartsWithStar(pos int) bool {
	s := p.prevLineStart(pos)
	return s < p.n && p.t[s] == '*'
}

// prevLineBlank is (save-excursion (beginning-of-line 0) (looking-at
// "[[:blank:]]*$")).
func (p *parser) prevLineBlank(pos int) bool {
	i := p.prevLineStart(pos)
	for i < p.n && p.t[i] != '\n' {
		r, n := p.runeAt(i)
		if !isBlank(r) {
			return false
		}
		i += n
	}
	return true
}

// planningLine is org-planning-line-re: "^[ \t]*\(CLOSED\|DEADLINE\|SCHEDULED\):".
func (p *parser) planningLine(i int) bool {
	i = p.skipSpTab(i, p.n)
	return p.at(i, "CLOSED:") || p.at(i, "DEADLINE:") || p.at(i, "SCHEDULED:")
}

func (p *parser) planningElement(pos, limit int) element {
	return element{kind: kPlanning, begin: pos, line: pos, end: p.endAfterBlankInline(p.nextLine(pos), limit), cbeg: -1}
}

// clockLine is org-clock-line-re: "^[ \t]*CLOCK:".
func (p *parser) clockLine(i int) bool {
	return p.at(p.skipSpTab(i, p.n), "CLOCK:")
}

func (p *parser) clockElement(pos, limit int) element {
	return element{kind: kClock, begin: pos, line: pos, end: p.endAfterBlankInline(p.nextLine(pos), limit), cbeg: -1}
}

// propertyDrawerAt matches org-property-drawer-re at line start i: a
// :PROPERTIES: line, node property lines, an :END: line. It returns the
// start of the :END: line.
func (p *parser) propertyDrawerAt(i int) (int, bool) {
	e := p.eol(i)
	j := p.skipSpTab(i, e)
	if !p.at(j, ":PROPERTIES:") || p.skipSpTab(j+12, e) != e || e >= p.n {
		return 0, false
	}
	for l := e + 1; ; {
		le := p.eol(l)
		k := p.skipSpTab(l, le)
		if p.at(k, ":END:") && p.skipSpTab(k+5, le) == le {
			return l, true
		}
		if le >= p.n || !p.propertyLine(k, le) {
			return 0, false
		}
		l = le + 1
	}
}

// propertyLine checks one line of a property drawer, from its first
// non-blank character k to its end e: "[ \t]*:\S-+:\(?: .*\)?[ \t]*\n".
func (p *parser) propertyLine(k, e int) bool {
	if k >= e || p.t[k] != ':' {
		return false
	}
	r := p.nonSpaceRunEnd(k+1, e)
	if r-k < 3 || p.t[r-1] != ':' {
		return false
	}
	return r == e || p.t[r] == ' ' || p.skipSpTab(r, e) == e
}

func (p *parser) propertyDrawerElement(pos, endLine, limit int) element {
	el := element{kind: kPropertyDrawer, begin: pos, line: pos, cbeg: -1}
	cb := p.nextLine(pos)
	if endLine > cb {
		el.cbeg, el.cend = cb, endLine
	}
	el.end = p.endAfterBlank(p.nextLine(endLine), limit)
	return el
}

// nodePropertyElement parses one line of a property drawer.
func (p *parser) nodePropertyElement(pos, limit int) element {
	return element{kind: kNodeProperty, begin: pos, line: pos, end: min(p.nextLine(pos), limit), cbeg: -1}
}

// affiliated is org-element--collect-affiliated-keywords: it returns where
// the element proper starts and whether affiliated keywords precede it.
//
// A run of affiliated keyword lines that nothing follows (a blank line, a
// headline, the end of the container) is read one keyword element per
// line, and each line starts the same run again: the run found last is
// kept so that each of its lines finds its end at once, which keeps a
// file of such lines linear, where Emacs is quadratic.
func (p *parser) affiliated(pos, limit int) (int, bool) {
	q := pos
	if pos > p.affRun.Start && pos < p.affRun.End && limit == p.affLimit {
		q = p.affRun.End
	} else {
		for q < limit && p.affiliatedAt(q) {
			q = p.nextLine(q)
		}
		p.affRun, p.affLimit = Range{pos, q}, limit
	}
	if q == pos || p.blankAt(q) {
		return pos, false
	}
	return q, true
}

// affiliatedAt matches org-element--affiliated-re at line start i.
func (p *parser) affiliatedAt(i int) bool {
	i = p.skipSpTab(i, p.n)
	if !p.atExact(i, "#+") {
		return false
	}
	i += 2
	for _, k := range [...]string{"CAPTION", "RESULTS"} {
		if p.at(i, k) {
			j := i + len(k)
			if j < p.n && p.t[j] == ':' {
				return true
			}
			if j < p.n && p.t[j] == '[' {
				e := p.eol(j)
				for m := e - 1; m > j; m-- {
					if p.t[m] == ':' && p.t[m-1] == ']' && m-1 > j {
						return true
					}
				}
			}
		}
	}
	for _, k := range [...]string{"DATA", "HEADER", "HEADERS", "LABEL", "NAME", "PLOT", "RESNAME", "RESULT", "SOURCE", "SRCNAME", "TBLNAME"} {
		if p.at(i, k) && i+len(k) < p.n && p.t[i+len(k)] == ':' {
			return true
		}
	}
	if p.at(i, "ATTR_") {
		j := i + 5
		for j < p.n && (isAlnumASCII(p.t[j]) || p.t[j] == '-' || p.t[j] == '_') {
			j++
		}
		return j > i+5 && j < p.n && p.t[j] == ':'
	}
	return false
}

func isAlnumASCII(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z'
}

func upperASCII(s string) string {
	b := []byte(s)
	for i, c := range b {
		if 'a' <= c && c <= 'z' {
			b[i] = c - ('a' - 'A')
		}
	}
	return string(b)
}
