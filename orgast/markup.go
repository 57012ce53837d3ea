package orgast

// Markup objects: emphasis, verbatim and code, sub- and superscripts,
// entities and LaTeX fragments. Each consumes text, so links that would
// start inside it are not links; emphasis and scripts hold objects of
// their own.

import (
	"bytes"
	"strings"
)

// isEmphPre is the characters that may precede an emphasis marker:
// "-[:space:]('\"{".
func isEmphPre(r rune) bool {
	return r == '-' || r == '(' || r == '\'' || r == '"' || r == '{' || isSpaceSyntax(r)
}

// isEmphPost is the characters that may follow one:
// "-[:space:].,:!?;'\")}\\[".
func isEmphPost(r rune) bool {
	switch r {
	case '-', '.', ',', ':', '!', '?', ';', '\'', '"', ')', '}', '\\', '[':
		return true
	}
	return isSpaceSyntax(r)
}

// emphasis is the bold, italic, underline, strike-through, code and
// verbatim parsers: org-emph-re and org-verbatim-re at the marker q.
func (p *parser) emphasis(rg *region, q int, kind objSet) (object, bool) {
	t := p.t
	markers := "*/_+"
	if kind == oCode || kind == oVerbatim {
		markers = "=~"
	}
	m := q
	if !p.bolIn(rg, q) {
		r, n := p.runeBefore(q)
		switch {
		case isEmphPre(r):
		case p.bolIn(rg, q-n) && strings.IndexByte(markers, t[q-n]) >= 0:
			m = q - n
		default:
			return object{}, false
		}
	}
	if strings.IndexByte(markers, t[m]) < 0 {
		return object{}, false
	}
	c0 := m + 1
	if c0 >= rg.end {
		return object{}, false
	}
	if r, _ := p.runeAt(c0); isSpaceSyntax(r) {
		return object{}, false
	}
	e := p.find(rg, cEmph+strings.IndexByte(emphMarkers, t[m]), c0+1)
	if e < 0 {
		return object{}, false
	}
	// At most one line break inside.
	if n1 := bytes.IndexByte(t[c0:e], '\n'); n1 >= 0 && bytes.IndexByte(t[c0+n1+1:e], '\n') >= 0 {
		return object{}, false
	}
	obj := p.withPostBlank(rg, kind, m, e+1)
	if kind != oCode && kind != oVerbatim {
		obj.cbeg, obj.cend = c0, e
	}
	return obj, true
}

// findEmphCloser returns the first offset e >= x in the region that can
// close an emphasis with marker mk: the marker, after a non-blank
// character, before an allowed character or a line end.
func (p *parser) findEmphCloser(rg *region, mk byte, x int) int {
	t := p.t
	for e := x; e < rg.end; e++ {
		i := bytes.IndexByte(t[e:rg.end], mk)
		if i < 0 {
			return -1
		}
		e += i
		if e <= rg.beg {
			continue
		}
		if r, _ := p.runeBefore(e); isSpaceSyntax(r) {
			continue
		}
		if e+1 >= rg.end || t[e+1] == '\n' {
			return e
		}
		if r, _ := p.runeAt(e + 1); isEmphPost(r) {
			return e
		}
	}
	return -1
}

// script is the subscript and superscript parser
// (org-match-substring-regexp) at the "_" or "^" q.
func (p *parser) script(rg *region, q int, kind objSet) (object, bool) {
	t := p.t
	s := q
	if !p.bolIn(rg, q) {
		_, n := p.runeBefore(q)
		s = q - n
	}
	r, n := p.runeAt(s)
	if isSpaceSyntax(r) || s+n >= rg.end || (t[s+n] != '_' && t[s+n] != '^') {
		return object{}, false
	}
	begin := s + n
	c := begin + 1
	if c >= rg.end {
		return object{}, false
	}
	obj := object{kind: kind, begin: begin, cbeg: -1}
	switch t[c] {
	case '{', '(':
		closeAt, ok := p.nestedGroup(rg, c)
		if !ok {
			return object{}, false
		}
		if t[c] == '{' {
			obj.cbeg, obj.cend = c+1, closeAt
		} else {
			obj.cbeg, obj.cend = c, closeAt+1
		}
		obj.end = p.skipSpTab(closeAt+1, rg.end)
		return obj, true
	case '*':
		obj.cbeg, obj.cend = c, c+1
		obj.end = p.skipSpTab(c+1, rg.end)
		return obj, true
	}
	// [+-]?[[:alnum:].,\\]*[[:alnum:]]
	i := c
	if t[i] == '+' || t[i] == '-' {
		i++
	}
	last := -1
	for i < rg.end {
		r, n := p.runeAt(i)
		if isAlnum(r) {
			last = i + n
		} else if r != '.' && r != ',' && r != '\\' {
			break
		}
		i += n
	}
	if last < 0 {
		return object{}, false
	}
	obj.cbeg, obj.cend = c, last
	obj.end = p.skipSpTab(last, rg.end)
	return obj, true
}

// nestedGroup matches the brace (or parenthesis) group of
// org-match-substring-regexp at c: balanced, at most three levels deep,
// where either no group nests, or groups nest one level, or every
// second-level group holds a third-level one. It returns the offset of
// the closing character.
func (p *parser) nestedGroup(rg *region, c int) (int, bool) {
	t := p.t
	open := t[c]
	closeCh := byte('}')
	if open == '(' {
		closeCh = ')'
	}
	depth, maxDepth := 0, 0
	groupHasInner := false // the current depth-2 group holds a depth-3 one
	allInner, anyLevel2 := true, false
	for i := c; i < rg.end; i++ {
		switch t[i] {
		case open:
			depth++
			if depth > 3 {
				return 0, false
			}
			maxDepth = max(maxDepth, depth)
			switch depth {
			case 2:
				groupHasInner = false
				anyLevel2 = true
			case 3:
				groupHasInner = true
			}
		case closeCh:
			if depth == 2 && !groupHasInner {
				allInner = false
			}
			depth--
			if depth == 0 {
				if maxDepth == 3 && !(allInner && anyLevel2) {
					return 0, false
				}
				return i, true
			}
		}
	}
	return 0, false
}

// entity is "\name" for a name Org knows, "\name{}", or "\_ " spaces.
func (p *parser) entity(rg *region, q int) (object, bool) {
	t := p.t
	i := q + 1
	if i < rg.end && t[i] == '_' {
		j := i + 1
		for j < rg.end && t[j] == ' ' {
			j++
		}
		if j > i+1 && isEntity(p.str(i, j)) {
			return p.withPostBlank(rg, oEntity, q, j), true
		}
		return object{}, false
	}
	// The alternatives in order: there4, sup[123], frac[13][24], letters;
	// each must be followed by the end of a line, "{}" or a non-letter.
	after := func(j int) (int, bool) {
		if j >= rg.end || t[j] == '\n' {
			return j, true
		}
		if t[j] == '{' && j+1 < rg.end && t[j+1] == '}' {
			return j + 2, true
		}
		r, _ := p.runeAt(j)
		return j, !isAlpha(r)
	}
	var cands []int
	if p.at(i, "there4") {
		cands = append(cands, i+6)
	}
	if p.at(i, "sup") && i+3 < rg.end && t[i+3] >= '1' && t[i+3] <= '3' {
		cands = append(cands, i+4)
	}
	if p.at(i, "frac") && i+5 < rg.end && (t[i+4] == '1' || t[i+4] == '3') && (t[i+5] == '2' || t[i+5] == '4') {
		cands = append(cands, i+6)
	}
	j := i
	for j < rg.end && (t[j] >= 'a' && t[j] <= 'z' || t[j] >= 'A' && t[j] <= 'Z') {
		j++
	}
	for k := j; k > i; k-- {
		cands = append(cands, k)
	}
	for _, c := range cands {
		if c > rg.end {
			continue
		}
		if end, ok := after(c); ok {
			if !isEntity(p.str(i, c)) {
				return object{}, false
			}
			return p.withPostBlank(rg, oEntity, q, end), true
		}
	}
	return object{}, false
}

// isEntity reports whether org-entity-get knows name.
func isEntity(name string) bool {
	lo, hi := 0, len(orgEntities)
	for lo < hi {
		m := (lo + hi) / 2
		if orgEntities[m] < name {
			lo = m + 1
		} else {
			hi = m
		}
	}
	return lo < len(orgEntities) && orgEntities[lo] == name
}

// latexFragment is "\(…\)", "\[…\]", "\command[opt]{arg}", "$$…$$", "$…$".
func (p *parser) latexFragment(rg *region, q int) (object, bool) {
	t := p.t
	after := -1
	switch {
	case t[q] != '$':
		if q+1 >= rg.end {
			return object{}, false
		}
		switch t[q+1] {
		case '(':
			if e := p.find(rg, cParenClose, q); e >= 0 {
				after = e + 2
			}
		case '[':
			if e := p.find(rg, cBracketClose, q); e >= 0 {
				after = e + 2
			}
		default:
			j := q + 1
			for j < rg.end && (t[j] >= 'a' && t[j] <= 'z' || t[j] >= 'A' && t[j] <= 'Z') {
				j++
			}
			if j == q+1 {
				return object{}, false
			}
			if j < rg.end && t[j] == '*' {
				j++
			}
			for j < rg.end {
				var stop string
				switch t[j] {
				case '[':
					stop = "][\n{}"
				case '{':
					stop = "{}\n"
				}
				if stop == "" {
					break
				}
				k := j + 1
				for k < rg.end && strings.IndexByte(stop, t[k]) < 0 {
					k++
				}
				closeCh := byte(']')
				if t[j] == '{' {
					closeCh = '}'
				}
				if k >= rg.end || t[k] != closeCh {
					break
				}
				j = k + 1
			}
			after = j
		}
	case q+1 < rg.end && t[q+1] == '$':
		if e := p.find(rg, cDoubleDollar, q+2); e >= 0 {
			after = e + 2
		}
	default:
		if q > rg.beg && t[q-1] == '$' {
			return object{}, false
		}
		if q+1 < rg.end {
			switch t[q+1] {
			case ' ', '\t', '\n', ',', '.', ';':
				return object{}, false
			}
		}
		e := p.find(rg, cDollar, q+1)
		if e < 0 {
			return object{}, false
		}
		switch t[e-1] {
		case ' ', '\t', '\n', ',', '.':
			return object{}, false
		}
		if e+1 < rg.end && t[e+1] != '\n' && t[e+1] != '\'' {
			r, _ := p.runeAt(e + 1)
			switch syntaxOf(r) {
			case synPunct, synWhitespace, synOpen, synClose, synString:
			default:
				return object{}, false
			}
		}
		after = e + 1
	}
	if after < 0 {
		return object{}, false
	}
	return p.withPostBlank(rg, oLatexFragment, q, after), true
}
