package orgast

// The other text-consuming objects: export snippets, macros, statistics
// cookies, timestamps, targets, inline source blocks and calls, footnote
// references, citations and table cells.

import (
	"bytes"
	"strings"
)

// exportSnippet is "@@BACKEND:VALUE@@".
func (p *parser) exportSnippet(rg *region, q int) (object, bool) {
	t := p.t
	j := q + 2
	for j < rg.end && (isAlnumASCII(t[j]) || t[j] == '-') {
		j++
	}
	if j == q+2 || j >= rg.end || t[j] != ':' {
		return object{}, false
	}
	e := p.find(rg, cAtAt, j+1)
	if e < 0 {
		return object{}, false
	}
	return p.withPostBlank(rg, oExportSnippet, q, e+2), true
}

// macro is "{{{name(args)}}}".
func (p *parser) macro(rg *region, q int) (object, bool) {
	t := p.t
	j := q + 3
	if j >= rg.end || !(t[j] >= 'a' && t[j] <= 'z' || t[j] >= 'A' && t[j] <= 'Z') {
		return object{}, false
	}
	for j < rg.end && (isAlnumASCII(t[j]) || t[j] == '-' || t[j] == '_') {
		j++
	}
	if j < rg.end && t[j] == '(' {
		if e := p.find(rg, cMacroEnd, j+1); e >= 0 && bytes.IndexByte(t[j+1:e], 0) < 0 {
			return p.withPostBlank(rg, oMacro, q, e+4), true
		}
	}
	if j+3 <= rg.end && t[j] == '}' && t[j+1] == '}' && t[j+2] == '}' {
		return p.withPostBlank(rg, oMacro, q, j+3), true
	}
	return object{}, false
}

// statisticsCookie is "[N%]" or "[N/M]".
func (p *parser) statisticsCookie(rg *region, q int) (object, bool) {
	t := p.t
	i := q + 1
	for i < rg.end && t[i] >= '0' && t[i] <= '9' {
		i++
	}
	switch {
	case i < rg.end && t[i] == '%':
		i++
	case i < rg.end && t[i] == '/':
		i++
		for i < rg.end && t[i] >= '0' && t[i] <= '9' {
			i++
		}
	default:
		return object{}, false
	}
	if i >= rg.end || t[i] != ']' {
		return object{}, false
	}
	return p.withPostBlank(rg, oStatCookie, q, i+1), true
}

// timestampObject is a timestamp in text.
func (p *parser) timestampObject(rg *region, q int) (object, bool) {
	e := p.timestampEnd(q, rg.end)
	if e < 0 {
		return object{}, false
	}
	return p.withPostBlank(rg, oTimestamp, q, e), true
}

// target is "<<target>>" and "<<<radio target>>>" (radio when radio).
func (p *parser) target(rg *region, q int, radio bool) (object, bool) {
	t := p.t
	n := 2
	if radio {
		n = 3
	}
	for k := 0; k < n; k++ {
		if q+k >= rg.end || t[q+k] != '<' {
			return object{}, false
		}
	}
	c0 := q + n
	i := c0
	for i < rg.end && t[i] != '<' && t[i] != '>' && t[i] != '\n' {
		i++
	}
	if i == c0 || i+n > rg.end {
		return object{}, false
	}
	for k := 0; k < n; k++ {
		if t[i+k] != '>' {
			return object{}, false
		}
	}
	if isSpTab(t[c0]) || isSpTab(t[i-1]) {
		return object{}, false
	}
	kind := oTarget
	if radio {
		kind = oRadioTarget
	}
	obj := p.withPostBlank(rg, kind, q, i+n)
	obj.cbeg, obj.cend = c0, i
	return obj, true
}

func isSpTab(c byte) bool { return c == ' ' || c == '\t' }

// lineBreak is "\\" at the end of a line, not after another backslash.
func (p *parser) lineBreak(rg *region, q int) (object, bool) {
	e := p.skipSpTab(q+2, rg.end)
	if e < rg.end && p.t[e] != '\n' {
		return object{}, false
	}
	if q > rg.beg && p.t[q-1] == '\\' {
		return object{}, false
	}
	return object{kind: oLineBreak, begin: q, end: min(p.nextLine(q), rg.end), cbeg: -1}, true
}

// inlineBabelCall is "call_NAME[header](args)[header]".
func (p *parser) inlineBabelCall(rg *region, q int) (object, bool) {
	if !p.atExact(q, "call_") || !p.wordStart(rg, q) {
		return object{}, false
	}
	t := p.t
	j := q + 5
	for j < rg.end && strings.IndexByte(" \t\n[(", t[j]) < 0 {
		j++
	}
	if j == q+5 || j >= rg.end || (t[j] != '(' && t[j] != '[') {
		return object{}, false
	}
	if t[j] == '[' {
		if e, ok := p.paired(rg, j); ok {
			j = e
		}
	}
	if j >= rg.end || t[j] != '(' {
		return object{}, false
	}
	e, ok := p.paired(rg, j)
	if !ok {
		return object{}, false
	}
	j = e
	if j < rg.end && t[j] == '[' {
		if e, ok := p.paired(rg, j); ok {
			j = e
		}
	}
	return p.withPostBlank(rg, oInlineBabelCall, q, j), true
}

// inlineSrcBlock is "src_LANG[params]{body}".
func (p *parser) inlineSrcBlock(rg *region, q int) (object, bool) {
	if !p.atExact(q, "src_") || !p.wordStart(rg, q) {
		return object{}, false
	}
	t := p.t
	j := q + 4
	for j < rg.end && strings.IndexByte(" \t\n[{", t[j]) < 0 {
		j++
	}
	if j == q+4 || j >= rg.end || (t[j] != '{' && t[j] != '[') {
		return object{}, false
	}
	if t[j] == '[' {
		if e, ok := p.paired(rg, j); ok {
			j = e
		}
	}
	if j >= rg.end || t[j] != '{' {
		return object{}, false
	}
	e, ok := p.paired(rg, j)
	if !ok {
		return object{}, false
	}
	return p.withPostBlank(rg, oInlineSrcBlock, q, e), true
}

// footnoteReference is "[fn:label]", "[fn:label:definition]" or
// "[fn::definition]" (org-footnote-re, then balanced brackets).
func (p *parser) footnoteReference(rg *region, q int) (object, bool) {
	t := p.t
	if !p.at(q, "[fn:") {
		return object{}, false
	}
	j := q + 4
	for j < rg.end {
		r, n := p.runeAt(j)
		if !(isWord(r) || r == '-' || r == '_') {
			break
		}
		j += n
	}
	inline := false
	switch {
	case j < rg.end && t[j] == ':':
		inline = true
	case j > q+4 && j < rg.end && t[j] == ']':
	default:
		return object{}, false
	}
	closing, ok := p.paired(rg, q)
	if !ok {
		return object{}, false
	}
	obj := p.withPostBlank(rg, oFootnoteRef, q, closing)
	if inline {
		obj.cbeg, obj.cend = j+1, closing-1
	}
	return obj, true
}

// citation is org-element-citation-parser: "[cite/style:prefix;@key
// suffix;@key2…;suffix]". Its contents are citation references; its common
// prefix and suffix, like each reference's, hold only minimal objects.
func (p *parser) citation(rg *region, q int) (object, bool) {
	t := p.t
	if !p.at(q, "[cite") {
		return object{}, false
	}
	j := q + 5
	if j < rg.end && t[j] == '/' {
		k := j + 1
		for k < rg.end {
			r, n := p.runeAt(k)
			if !(r == '/' || r == '_' || r == '-' || isAlnum(r)) {
				break
			}
			k += n
		}
		if k == j+1 {
			return object{}, false
		}
		j = k
	}
	if j >= rg.end || t[j] != ':' {
		return object{}, false
	}
	start := j + 1
	for start < rg.end && (t[start] == ' ' || t[start] == '\t' || t[start] == '\n') {
		start++
	}
	closing, ok := p.paired(rg, q)
	if !ok {
		return object{}, false
	}
	_, firstKeyEnd, ok := p.citationKey(q, closing)
	if !ok {
		return object{}, false
	}
	obj := p.withPostBlank(rg, oCitation, q, closing)
	obj.cbeg = start
	if semi := bytes.LastIndexByte(t[start:firstKeyEnd], ';'); semi >= 0 {
		semi += start
		obj.parts[0] = Range{start, semi}
		obj.cbeg = semi + 1
	}
	end := p.skipWSBack(closing-1, 0)
	obj.cend = end
	if semi := bytes.LastIndexByte(t[firstKeyEnd:end], ';'); semi >= 0 {
		semi += firstKeyEnd
		if _, _, more := p.citationKey(semi, end); !more {
			obj.parts[1] = Range{semi + 1, end}
			obj.cend = semi + 1
		}
	}
	return obj, true
}

// citationKey finds org-element-citation-key-re ("@" and key characters)
// from x, ending by lim; it returns the key's span (the "@" included).
func (p *parser) citationKey(x, lim int) (int, int, bool) {
	t := p.t
	for k := x; k < lim; k++ {
		if t[k] != '@' {
			continue
		}
		e := k + 1
		for e < lim {
			r, n := p.runeAt(e)
			if !(isWord(r) || r < 128 && strings.IndexByte("-.:?!`'/*@+|(){}<>&_^$#%~", byte(r)) >= 0) {
				break
			}
			e += n
		}
		if e > k+1 {
			return k, e, true
		}
	}
	return 0, 0, false
}

// citationReferences parses a citation's references: each runs from the
// previous ";" to the next, its prefix before "@key" and its suffix after.
func (p *parser) citationReferences(beg, end, node int) {
	for pos := beg; pos < end; {
		ks, ke, ok := p.citationKey(pos, end)
		if !ok {
			return
		}
		next := end
		suffixEnd := end
		if semi := bytes.IndexByte(p.t[ke:end], ';'); semi >= 0 {
			next = ke + semi + 1
			suffixEnd = next - 1
		}
		p.descend(Range{pos, ks}, oMinimal, node)
		p.descend(Range{ke, suffixEnd}, oMinimal, node)
		pos = next
	}
}

func isAlnumAt(p *parser, k int) bool {
	r, _ := p.runeAt(k)
	return isAlnum(r)
}

// tableCell is org-element-table-cell-parser: "[ \t]*\(.*?\)[ \t]*\(?:|\|$\)".
func (p *parser) tableCell(rg *region, start int) object {
	t := p.t
	c0 := p.skipSpTab(start, rg.end)
	i := c0
	for i < rg.end && t[i] != '|' && t[i] != '\n' {
		i++
	}
	c1 := p.skipSpTabBack(i, c0)
	end := i
	if i < rg.end && t[i] == '|' {
		end = i + 1
	}
	if end <= start {
		end = min(start+1, rg.end)
	}
	return object{kind: oTableCell, begin: start, end: end, cbeg: c0, cend: c1}
}

// paired returns the offset after the bracket that balances the one at j
// ("[", "(" or "{"), counting only that kind of bracket, within the
// region (scan-lists with org-element's pair tables).
func (p *parser) paired(rg *region, j int) (int, bool) {
	m := p.matchBracket(j)
	if m < 0 || m >= rg.end {
		return 0, false
	}
	return m + 1, true
}
