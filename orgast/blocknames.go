package orgast

// File.Blocks and File.Names: the blocks, drawers and named elements the
// element parser meets, recorded as it visits them, so that they cost one
// append each and come out in document order (an element before the
// elements inside it), as org-element-map visits them.

// Block is a block or a drawer as org-element reads one: a center, quote
// or special block, a comment, example, export, src or verse block, a
// dynamic block, or a drawer (property drawers are Headline.Drawer and
// File.FileDrawer). An opening line without its closing line is no block:
// org-element reads it as a paragraph, and so does orgast (Problems flags
// it), so an unclosed block is never among File.Blocks.
type Block struct {
	// Type is org-element's type: "center-block", "comment-block",
	// "dynamic-block", "example-block", "export-block", "quote-block",
	// "special-block", "src-block", "verse-block" or "drawer".
	Type string
	// Name is what the opening line names, as written: the word after
	// #+BEGIN_ ("src", "SRC", "note": a special block's :type), a dynamic
	// block's :block-name ("" when its line gives none, as org-element's
	// nil), a drawer's :drawer-name ("LOGBOOK").
	Name string
	// Language is a src block's :language ("" when the line gives none,
	// and for every other type).
	Language string
	// Range is the element as org-element's :begin and :end less its
	// :post-blank lines: from its first affiliated keyword line (#+NAME:,
	// #+CAPTION: …) when it has one, through the closing line's line end.
	Range Range
	// Line is the opening line without its line end; Line.Start is
	// org-element's :post-affiliated.
	Line Range
	// Contents spans the lines between the opening and the closing line
	// (org-element's :contents-begin and :contents-end where it has them);
	// Start == End when there are none.
	Contents Range
	// Node is the headline whose section holds the block, -1 before the
	// first headline.
	Node int
}

// Named is an element carrying a #+NAME: affiliated keyword, or one of the
// synonyms org-element reads as NAME (#+DATA:, #+LABEL:, #+RESNAME:,
// #+SOURCE:, #+SRCNAME:, #+TBLNAME:). Like org-element, orgast attaches the
// keyword to the element right after it: a #+NAME: line followed by a
// blank line, a headline or the end of its container names nothing (it is
// a keyword, in File.Keywords), and a #+NAME: line inside a src or example
// block is text.
type Named struct {
	// Name is org-element's :name: the value of the last such line,
	// trimmed ("" for a line with no value, as org-element's "").
	Name string
	// NameRange is where that value is written.
	NameRange Range
	// Type is the element's org-element type: "paragraph", "table",
	// "plain-list", "src-block", "keyword", … (see Block.Type for blocks).
	Type string
	// Range is the element as Block.Range is, org-element's :begin and
	// :end less :post-blank: from its first affiliated keyword line
	// through its last line's line end. A plain list ends where its last
	// item does (:contents-end), which takes in the blank lines before a
	// less indented item that follows.
	Range Range
	// Node is the headline whose section holds the element, -1 before
	// the first headline.
	Node int
}

// String is org-element's name for the element type.
func (k elemKind) String() string {
	switch k {
	case kParagraph:
		return "paragraph"
	case kBabelCall:
		return "babel-call"
	case kCenterBlock:
		return "center-block"
	case kClock:
		return "clock"
	case kComment:
		return "comment"
	case kCommentBlock:
		return "comment-block"
	case kDiarySexp:
		return "diary-sexp"
	case kDrawer:
		return "drawer"
	case kDynamicBlock:
		return "dynamic-block"
	case kExampleBlock:
		return "example-block"
	case kExportBlock:
		return "export-block"
	case kFixedWidth:
		return "fixed-width"
	case kFootnoteDefinition:
		return "footnote-definition"
	case kHorizontalRule:
		return "horizontal-rule"
	case kItem:
		return "item"
	case kKeyword:
		return "keyword"
	case kLatexEnvironment:
		return "latex-environment"
	case kNodeProperty:
		return "node-property"
	case kPlainList:
		return "plain-list"
	case kPlanning:
		return "planning"
	case kPropertyDrawer:
		return "property-drawer"
	case kQuoteBlock:
		return "quote-block"
	case kSpecialBlock:
		return "special-block"
	case kSrcBlock:
		return "src-block"
	case kTable:
		return "table"
	case kTableRow:
		return "table-row"
	case kVerseBlock:
		return "verse-block"
	}
	return "unknown"
}

// isBlock reports whether elements of kind k are among File.Blocks.
func (k elemKind) isBlock() bool {
	switch k {
	case kCenterBlock, kCommentBlock, kDrawer, kDynamicBlock, kExampleBlock,
		kExportBlock, kQuoteBlock, kSpecialBlock, kSrcBlock, kVerseBlock:
		return true
	}
	return false
}

// beforeBlank is where el ends without the blank lines after it (its :end
// less :post-blank). A plain list ends where its last item does
// (:contents-end), blank lines before a less indented item included.
// Every other element that reaches here ends with a non-blank line (a
// closing line, a table row, a paragraph's text …), so it ends after the
// line end of the last line with a character that is not " \r\t\n".
func (p *parser) beforeBlank(el *element) int {
	if el.kind == kPlainList {
		return el.cend
	}
	return p.nextLine(p.skipWSBack(el.end, el.line))
}

// recordBlock appends el, a block or a drawer, to the blocks.
func (p *parser) recordBlock(el *element, c ctx) {
	last := p.skipWSBack(el.end, el.line) // on the closing line
	b := Block{
		Type:     el.kind.String(),
		Range:    Range{el.begin, p.nextLine(last)},
		Line:     Range{el.line, p.eol(el.line)},
		Contents: Range{p.nextLine(el.line), p.bol(last)},
		Node:     c.node,
	}
	i := p.skipSpTab(el.line, p.n)
	switch el.kind {
	case kDrawer:
		// org-drawer-regexp: ":NAME:" where NAME has no colon.
		j := i + 1
		for j < b.Line.End && p.t[j] != ':' {
			j++
		}
		b.Name = p.str(i+1, j)
	case kDynamicBlock:
		// org-dblock-start-re: "#+BEGIN:" then blanks and the name. The
		// parser also takes "#+BEGIN " (no colon); there the regexp fails
		// and org-element's :block-name is nil.
		if p.at(i, "#+BEGIN:") {
			if j := p.skipSpTab(i+8, b.Line.End); j > i+8 {
				b.Name = p.str(j, p.nonSpaceRunEnd(j, b.Line.End))
			}
		}
	default:
		j := i + len("#+BEGIN_")
		e := p.nonSpaceRunEnd(j, b.Line.End)
		b.Name = p.str(j, e)
		if el.kind == kSrcBlock {
			// "#\+BEGIN_SRC\(?: +\(\S-+\)\)?": spaces, not tabs.
			k := e
			for k < b.Line.End && p.t[k] == ' ' {
				k++
			}
			if k > e {
				b.Language = p.str(k, p.nonSpaceRunEnd(k, b.Line.End))
			}
		}
	}
	if p.blocks == nil {
		// Every block has a closing line of its own, and the end-line
		// index (built by now) has them all: one allocation holds the
		// blocks, and the drawers of most files.
		n := 4
		for _, lines := range p.index().blocks {
			n += len(lines)
		}
		p.blocks = make([]Block, 0, n)
	}
	p.blocks = append(p.blocks, b)
}

// recordName appends el to the named elements when one of its affiliated
// keyword lines, [el.begin, el.line), is a #+NAME: or a synonym: the last
// such line gives the name, as plist-put in
// org-element--collect-affiliated-keywords keeps the last value.
func (p *parser) recordName(el *element, c ctx) {
	value, found := Range{}, false
	for l := el.begin; l < el.line; l = p.nextLine(l) {
		if k := p.nameKeywordEnd(p.skipSpTab(l, p.n) + 2); k > 0 {
			a, b := p.trimmed(k, p.eol(l))
			value, found = Range{a, b}, true
		}
	}
	if !found {
		return
	}
	p.names = append(p.names, Named{
		Name:      p.str(value.Start, value.End),
		NameRange: value,
		Type:      el.kind.String(),
		Range:     Range{el.begin, p.beforeBlank(el)},
		Node:      c.node,
	})
}

// nameKeywordEnd returns the offset after the colon when the affiliated
// keyword at i (after "#+") is NAME or one org-element translates to it
// (org-element-keyword-translation-alist), else 0.
func (p *parser) nameKeywordEnd(i int) int {
	for _, k := range [...]string{"NAME", "DATA", "LABEL", "RESNAME", "SOURCE", "SRCNAME", "TBLNAME"} {
		if p.at(i, k) && i+len(k) < p.n && p.t[i+len(k)] == ':' {
			return i + len(k) + 1
		}
	}
	return 0
}
