package orgast

import "bytes"

// The object lexer follows org-element--object-lex and the object parsers.
// It exists to find links exactly where org-element finds them: every
// object that consumes text (verbatim, code, inline source, LaTeX, macros,
// export snippets, timestamps, citations, targets …) hides the links that
// would otherwise start inside it, and emphasis, sub/superscripts and
// inline footnotes hold links of their own.

// objSet is a set of object types: what a container may hold
// (org-element-object-restrictions).
type objSet uint32

const (
	oBold objSet = 1 << iota
	oCitation
	oCitationRef
	oCode
	oEntity
	oExportSnippet
	oFootnoteRef
	oInlineBabelCall
	oInlineSrcBlock
	oItalic
	oLineBreak
	oLatexFragment
	oLink
	oMacro
	oRadioTarget
	oStatCookie
	oStrike
	oSubscript
	oSuperscript
	oTableCell
	oTarget
	oTimestamp
	oUnderline
	oVerbatim
	oAll = 1<<iota - 1

	oMinimal  = oBold | oCode | oEntity | oItalic | oLatexFragment | oStrike | oSubscript | oSuperscript | oUnderline | oVerbatim
	oStandard = oAll &^ oTableCell &^ oCitationRef
)

// restriction names the object sets containers use.
type restriction uint8

const (
	rsStandard restriction = iota // paragraphs, verse blocks, emphasis, scripts, footnotes
	rsHeadline                    // headline titles
	rsItem                        // item tags
	rsTableRow                    // table rows (their cells)
	rsKeyword                     // parsed affiliated keywords (captions)
)

func (r restriction) set() objSet {
	switch r {
	case rsHeadline, rsItem:
		return oStandard &^ oLineBreak
	case rsTableRow:
		return oTableCell
	case rsKeyword:
		return oStandard &^ oFootnoteRef
	}
	return oStandard
}

// tableCellSet is what a table cell holds.
const tableCellSet = oCitation | oExportSnippet | oFootnoteRef | oLink | oMacro | oRadioTarget | oTarget | oTimestamp | oMinimal

// object is one parsed object.
type object struct {
	kind       objSet
	begin, end int
	cbeg, cend int // contents of recursive objects (cbeg < 0: none)
	link       Link
	parts      [2]Range // a citation's common prefix and suffix
}

// region is the text parse-objects narrows to, and the search caches that
// keep scanning it linear: each remembers the first occurrence of
// something at or after a position.
type region struct {
	beg, end int
	caches   [nCaches]cacheEntry
}

type cacheEntry struct{ from, at int }

const (
	cDoubleBracket = iota // "]]"
	cParenClose           // `\)`
	cBracketClose         // `\]`
	cDoubleDollar         // "$$"
	cDollar               // "$"
	cAtAt                 // "@@"
	cMacroEnd             // ")}}}"
	cGreater              // ">"
	cEmph                 // + marker index: a valid closing emphasis marker
	nCaches        = cEmph + 6
)

var cachePatterns = [...]string{cDoubleBracket: "]]", cParenClose: `\)`, cBracketClose: `\]`, cDoubleDollar: "$$", cDollar: "$", cAtAt: "@@", cMacroEnd: ")}}}", cGreater: ">"}

// emphMarkers are the emphasis markers, in cache order.
const emphMarkers = "*/_+=~"

// objScratch holds state reused across object parses.
type objScratch struct {
	reach []bool
}

// find returns the first occurrence of cache kind k at or after x in the
// region, or -1.
func (p *parser) find(rg *region, k int, x int) int {
	c := &rg.caches[k]
	if c.from != 0 && x >= c.from-1 && (c.at < 0 || c.at >= x) {
		return c.at
	}
	at := -1
	if k >= cEmph {
		at = p.findEmphCloser(rg, emphMarkers[k-cEmph], x)
	} else if x < rg.end {
		if i := bytes.Index(p.t[x:rg.end], []byte(cachePatterns[k])); i >= 0 {
			at = x + i
		}
	}
	c.from, c.at = x+1, at
	return at
}

// parseObjects is org-element--parse-objects over [beg, end) with the
// objects in set: it records links and targets and descends into the
// objects that hold others.
func (p *parser) parseObjects(beg, end int, set objSet, node int) {
	if beg >= end {
		return
	}
	// Only links and targets are kept: a link needs "[[", a link type and
	// a colon, or a radio target's text; a target needs "<<". Text with
	// none of them cannot hold one at any depth, so it is not lexed.
	if p.radio == nil && !p.collecting && !mayHoldLink(p.t[beg:end]) {
		return
	}
	rg := &region{beg: beg, end: end}
	for pos := beg; pos < end; {
		obj, ok := p.lexObject(rg, pos, set)
		if !ok {
			return
		}
		p.record(&obj, node)
		if obj.end <= pos {
			obj.end = pos + 1
		}
		pos = obj.end
	}
}

// mayHoldLink reports whether seg has "[[", "<<" or a registered link
// type followed by a colon: without one, no link or target can be in it.
func mayHoldLink(seg []byte) bool {
	if bytes.Contains(seg, []byte("[[")) || bytes.Contains(seg, []byte("<<")) {
		return true
	}
	for i := 0; ; {
		c := bytes.IndexByte(seg[i:], ':')
		if c < 0 {
			return false
		}
		i += c
		// The type is a run of letters, digits and "+" ending here; it
		// may start after any "+" in that run.
		j := i
		for j > 0 && (isAlnumASCII(seg[j-1]) || seg[j-1] == '+') {
			j--
		}
		for k := j; k < i; k++ {
			if (k == j || seg[k-1] == '+') && typeRegisteredBytes(seg[k:i]) {
				return true
			}
		}
		i++
	}
}

// record keeps what the outline wants of an object and descends into its
// contents with the objects that object may hold (org-element-map finds
// links at any depth: in bold text inside a link's description too).
func (p *parser) record(obj *object, node int) {
	var set objSet
	switch obj.kind {
	case oLink:
		obj.link.Node = node
		p.links = append(p.links, obj.link)
		set = linkSet
	case oTarget:
		p.targets = append(p.targets, Target{Name: p.str(obj.cbeg, obj.cend), Range: Range{obj.begin, obj.cend + 2}, Node: node})
		return
	case oRadioTarget:
		p.targets = append(p.targets, Target{Name: p.str(obj.cbeg, obj.cend), Radio: true, Range: Range{obj.begin, obj.cend + 3}, Node: node})
		set = oMinimal
	case oTableCell:
		set = tableCellSet
	case oBold, oItalic, oUnderline, oStrike, oSubscript, oSuperscript, oFootnoteRef:
		set = oStandard
	case oCitation:
		p.descend(obj.parts[0], oMinimal, node) // the common prefix
		p.descend(obj.parts[1], oMinimal, node) // the common suffix
		p.citationReferences(obj.cbeg, obj.cend, node)
		return
	default:
		return
	}
	if obj.cbeg >= 0 {
		p.descend(Range{obj.cbeg, obj.cend}, set, node)
	}
}

// linkSet is what a link's description may hold.
const linkSet = oExportSnippet | oInlineBabelCall | oInlineSrcBlock | oMacro | oStatCookie | oMinimal

// descend parses the objects of r, guarding the depth.
func (p *parser) descend(r Range, set objSet, node int) {
	if r.Start >= r.End {
		return
	}
	p.depth++
	if p.depth < maxNesting {
		p.parseObjects(r.Start, r.End, set, node)
	}
	p.depth--
}

func b2i(b bool) int {
	if b {
		return 1
	}
	return 0
}

// bolIn reports whether x is at a line start within the region (bolp in a
// narrowed buffer).
func (p *parser) bolIn(rg *region, x int) bool { return x <= rg.beg || p.t[x-1] == '\n' }

// lexObject is org-element--object-lex from start.
func (p *parser) lexObject(rg *region, start int, set objSet) (object, bool) {
	if set&oTableCell != 0 {
		return p.tableCell(rg, start), true
	}
	if set&oCitationRef != 0 {
		return object{}, false
	}
	bound := rg.end
	radioLimit := -1
	if p.radio != nil && set&oLink != 0 {
		from := start
		if !p.bolIn(rg, start) {
			_, n := p.runeBefore(start)
			from = start - n
		}
		if m, ok := p.radio.search(p, rg, from); ok {
			// A one-character radio link at the line start, just behind
			// start, was matched again: look for the next one.
			again := false
			if start > rg.beg && start == m.g1e {
				_, n1 := p.runeBefore(start)
				b := start - n1
				again = b == rg.beg || (b > rg.beg && p.t[b-1] == '\n')
			}
			if again {
				if m2, ok := p.radio.search(p, rg, m.end); ok {
					_, n := p.runeAt(m2.g1b)
					radioLimit = m2.g1b + n
				}
			} else {
				_, n := p.runeAt(m.g1b)
				radioLimit = m.g1b + n
			}
		}
		if radioLimit >= 0 {
			bound = min(radioLimit, rg.end)
		}
	}
	t := p.t
	for q := start; q < bound; q++ {
		// Every alternative of the object regexp starts with an ASCII
		// character; the letters only matter where a word starts
		// (\<TYPE:, and call_/src_, whose parsers want \< too).
		switch objTrigger[t[q]] {
		case trigNone:
			continue
		case trigLetter:
			if q > rg.beg {
				if b := t[q-1]; b < 0x80 {
					if emacsASCII[b]&synMask == synWord {
						continue
					}
				} else if !p.wordStart(rg, q) {
					continue
				}
			}
		}
		if kind, mend := p.objectRegexp(rg, q, true); kind != 0 && mend <= bound {
			if obj, ok := p.dispatch(rg, q, kind, set); ok {
				return obj, true
			}
		}
	}
	if radioLimit >= 0 {
		_, n := p.runeBefore(radioLimit)
		if obj, ok := p.linkObject(rg, radioLimit-n); ok {
			return obj, true
		}
	}
	return object{}, false
}

// objTrigger classifies a byte for the object lexer's scan: most bytes
// start nothing; punctuation can start objects anywhere; letters can only
// start plain links and inline calls, at the start of a word.
var objTrigger = [256]uint8{
	'_': trigPunct, '^': trigPunct, '*': trigPunct, '~': trigPunct, '=': trigPunct,
	'+': trigPunct, '/': trigPunct, '[': trigPunct, '@': trigPunct, '{': trigPunct,
	'<': trigPunct, '$': trigPunct, '\\': trigPunct, 'b': trigLetter, 'B': trigLetter,
	'c': trigLetter, 'C': trigLetter, 'd': trigLetter, 'D': trigLetter, 'e': trigLetter,
	'E': trigLetter, 'f': trigLetter, 'F': trigLetter, 'g': trigLetter, 'G': trigLetter,
	'h': trigLetter, 'H': trigLetter, 'i': trigLetter, 'I': trigLetter, 'm': trigLetter,
	'M': trigLetter, 'n': trigLetter, 'N': trigLetter, 'r': trigLetter, 'R': trigLetter,
	's': trigLetter, 'S': trigLetter, 'w': trigLetter, 'W': trigLetter,
}

const (
	trigNone = iota
	trigPunct
	trigLetter
)

// Dispatch kinds: what the first matching alternative of
// org-element--object-regexp was.
const (
	mScript    = iota + 1 // [_^][-{(*+.,[:alnum:]]
	mMarker               // [*~=+_/][^[:space:]]
	mPlainLink            // \<TYPE:
	mBracket              // \[…
	mAtAt                 // @@
	mMacro                // {{{
	mAngle                // <…
	mDollar               // \$
	mBackslash            // \\…
	mCallOrSrc            // (call|src)_
)

// objectRegexp matches org-element--object-regexp at q and returns the
// first matching alternative and where its match ends. wordStartKnown
// says a letter at q was already found to start a word.
func (p *parser) objectRegexp(rg *region, q int, wordStartKnown bool) (int, int) {
	t := p.t
	end := rg.end
	c := t[q]
	next := func(i int) (rune, int, bool) {
		if i >= end {
			return 0, 0, false
		}
		r, n := p.runeAt(i)
		return r, n, true
	}
	switch c {
	case '_', '^':
		if r, n, ok := next(q + 1); ok && (r == '-' || r == '{' || r == '(' || r == '*' || r == '+' || r == '.' || r == ',' || isAlnum(r)) {
			return mScript, q + 1 + n
		}
	}
	switch c {
	case '*', '~', '=', '+', '_', '/':
		if r, n, ok := next(q + 1); ok && !isSpaceSyntax(r) {
			return mMarker, q + 1 + n
		}
	}
	if objTrigger[c] == trigLetter && (wordStartKnown || p.wordStart(rg, q)) {
		if l := p.linkTypeColon(q, end); l > 0 {
			return mPlainLink, q + l + 1
		}
	}
	switch c {
	case '[':
		if q+1 >= end {
			return 0, 0
		}
		switch d := t[q+1]; {
		case p.at(q+1, "cite:") || p.at(q+1, "cite/"):
			return mBracket, q + 6
		case p.at(q+1, "fn:"):
			return mBracket, q + 4
		case d >= '0' && d <= '9', d == '[':
			return mBracket, q + 2
		case d == '%':
			if q+2 < end && t[q+2] == ']' {
				return mBracket, q + 3
			}
		case d == '/':
			i := q + 2
			for i < end && t[i] >= '0' && t[i] <= '9' {
				i++
			}
			if i < end && t[i] == ']' {
				return mBracket, i + 1
			}
		}
	case '@':
		if q+1 < end && t[q+1] == '@' {
			return mAtAt, q + 2
		}
	case '{':
		if q+2 < end && t[q+1] == '{' && t[q+2] == '{' {
			return mMacro, q + 3
		}
	case '<':
		if q+1 >= end {
			return 0, 0
		}
		switch d := t[q+1]; {
		case d == '%' && q+2 < end && t[q+2] == '%':
			return mAngle, q + 3
		case d == '<' || d >= '0' && d <= '9':
			return mAngle, q + 2
		}
		if l := p.linkTypeAt(q+1, end); l > 0 {
			return mAngle, q + 1 + l
		}
	case '$':
		return mDollar, q + 1
	case '\\':
		if q+1 >= end {
			return 0, 0
		}
		d := t[q+1]
		switch {
		case d >= 'a' && d <= 'z' || d >= 'A' && d <= 'Z' || d == '[' || d == '(':
			return mBackslash, q + 2
		case d == '\\':
			e := p.skipSpTab(q+2, end)
			if e >= end || t[e] == '\n' {
				return mBackslash, e
			}
		case d == '_':
			e := q + 2
			for e < end && t[e] == ' ' {
				e++
			}
			if e > q+2 {
				return mBackslash, e
			}
		}
	}
	if p.at(q, "call_") {
		return mCallOrSrc, q + 5
	}
	if p.at(q, "src_") {
		return mCallOrSrc, q + 4
	}
	return 0, 0
}

// wordStart is \< at q in the region.
func (p *parser) wordStart(rg *region, q int) bool { return p.wordStartAt(q, rg.beg) }

// wordStartAt is \< at q with the text starting at floor: a word character
// after a non-word character or across a word boundary (scripts differ).
func (p *parser) wordStartAt(q, floor int) bool {
	r, _ := p.runeAt(q)
	if !isWord(r) {
		return false
	}
	if q <= floor {
		return true
	}
	b, _ := p.runeBefore(q)
	return !isWord(b) || wordBoundary(b, r)
}

// dispatch calls the object parsers org-element--object-lex picks for a
// match of alternative kind at q.
func (p *parser) dispatch(rg *region, q, kind int, set objSet) (object, bool) {
	t := p.t
	if kind == mCallOrSrc {
		if p.at(q, "call_") {
			if set&oInlineBabelCall != 0 {
				return p.inlineBabelCall(rg, q)
			}
			return object{}, false
		}
		if set&oInlineSrcBlock != 0 {
			return p.inlineSrcBlock(rg, q)
		}
		return object{}, false
	}
	second := byte(0)
	if q+1 < rg.end {
		second = t[q+1]
	}
	try := func(ok bool, f func() (object, bool)) (object, bool) {
		if !ok {
			return object{}, false
		}
		return f()
	}
	switch t[q] {
	case '^':
		return try(set&oSuperscript != 0, func() (object, bool) { return p.script(rg, q, oSuperscript) })
	case '_':
		if o, ok := try(set&oSubscript != 0, func() (object, bool) { return p.script(rg, q, oSubscript) }); ok {
			return o, ok
		}
		return try(set&oUnderline != 0, func() (object, bool) { return p.emphasis(rg, q, oUnderline) })
	case '*':
		return try(set&oBold != 0, func() (object, bool) { return p.emphasis(rg, q, oBold) })
	case '/':
		return try(set&oItalic != 0, func() (object, bool) { return p.emphasis(rg, q, oItalic) })
	case '~':
		return try(set&oCode != 0, func() (object, bool) { return p.emphasis(rg, q, oCode) })
	case '=':
		return try(set&oVerbatim != 0, func() (object, bool) { return p.emphasis(rg, q, oVerbatim) })
	case '+':
		return try(set&oStrike != 0, func() (object, bool) { return p.emphasis(rg, q, oStrike) })
	case '@':
		return try(set&oExportSnippet != 0, func() (object, bool) { return p.exportSnippet(rg, q) })
	case '{':
		return try(set&oMacro != 0, func() (object, bool) { return p.macro(rg, q) })
	case '$':
		return try(set&oLatexFragment != 0, func() (object, bool) { return p.latexFragment(rg, q) })
	case '<':
		if second == '<' {
			if o, ok := try(set&oRadioTarget != 0, func() (object, bool) { return p.target(rg, q, true) }); ok {
				return o, ok
			}
			return try(set&oTarget != 0, func() (object, bool) { return p.target(rg, q, false) })
		}
		if o, ok := try(set&oTimestamp != 0, func() (object, bool) { return p.timestampObject(rg, q) }); ok {
			return o, ok
		}
		return try(set&oLink != 0, func() (object, bool) { return p.linkObject(rg, q) })
	case '\\':
		if second == '\\' {
			return try(set&oLineBreak != 0, func() (object, bool) { return p.lineBreak(rg, q) })
		}
		if o, ok := try(set&oEntity != 0, func() (object, bool) { return p.entity(rg, q) }); ok {
			return o, ok
		}
		return try(set&oLatexFragment != 0, func() (object, bool) { return p.latexFragment(rg, q) })
	case '[':
		switch {
		case second == '[' && set&oLink != 0:
			return p.linkObject(rg, q)
		case second == 'f' && set&oFootnoteRef != 0:
			return p.footnoteReference(rg, q)
		case second == 'c' && set&oCitation != 0:
			return p.citation(rg, q)
		case (second == '%' || second == '/') && set&oStatCookie != 0:
			return p.statisticsCookie(rg, q)
		}
		if o, ok := try(set&oTimestamp != 0, func() (object, bool) { return p.timestampObject(rg, q) }); ok {
			return o, ok
		}
		return try(set&oStatCookie != 0, func() (object, bool) { return p.statisticsCookie(rg, q) })
	}
	return try(set&oLink != 0, func() (object, bool) { return p.linkObject(rg, q) })
}

// withPostBlank returns an object ending at end plus the spaces and tabs
// after it.
func (p *parser) withPostBlank(rg *region, kind objSet, begin, end int) object {
	return object{kind: kind, begin: begin, end: p.skipSpTab(end, rg.end), cbeg: -1}
}
