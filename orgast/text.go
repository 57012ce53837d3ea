package orgast

import (
	"bytes"
	"unsafe"
)

// The helpers below are the buffer motions org-element is written in
// (end-of-line, forward-line, skip-chars-forward …), on the normalised
// text, so that the element parser reads like the Lisp it follows.

// eol is (line-end-position): the offset of the line end at or after i.
func (p *parser) eol(i int) int {
	if i >= p.n {
		return p.n
	}
	j := bytes.IndexByte(p.t[i:], '\n')
	if j < 0 {
		return p.n
	}
	return i + j
}

// nextLine is (forward-line) and (line-beginning-position 2): the start of
// the line after the one holding i, or the end of the text.
func (p *parser) nextLine(i int) int {
	e := p.eol(i)
	if e < p.n {
		return e + 1
	}
	return p.n
}

// bol is (line-beginning-position).
func (p *parser) bol(i int) int {
	if i > p.n {
		i = p.n
	}
	return bytes.LastIndexByte(p.t[:i], '\n') + 1
}

// prevLineStart is (line-beginning-position 0) from a line start i: the
// start of the previous line, or of the first line.
func (p *parser) prevLineStart(i int) int {
	b := p.bol(i)
	if b == 0 {
		return 0
	}
	return p.bol(b - 1)
}

// skipWS is (skip-chars-forward " \r\t\n" limit).
func (p *parser) skipWS(i, limit int) int {
	limit = min(limit, p.n)
	for i < limit {
		switch p.t[i] {
		case ' ', '\r', '\t', '\n':
			i++
		default:
			return i
		}
	}
	return i
}

// skipWSBack is (skip-chars-backward " \r\t\n") down to floor.
func (p *parser) skipWSBack(i, floor int) int {
	for i > floor {
		switch p.t[i-1] {
		case ' ', '\r', '\t', '\n':
			i--
		default:
			return i
		}
	}
	return i
}

// skipSpTab is (skip-chars-forward " \t") up to limit.
func (p *parser) skipSpTab(i, limit int) int {
	for i < limit && (p.t[i] == ' ' || p.t[i] == '\t') {
		i++
	}
	return i
}

// skipSpTabBack is (skip-chars-backward " \t") down to floor.
func (p *parser) skipSpTabBack(i, floor int) int {
	for i > floor && (p.t[i-1] == ' ' || p.t[i-1] == '\t') {
		i--
	}
	return i
}

// endAfterBlank is the end every element parser computes after its last
// line: skip blank text up to limit, then (if (eobp) (point)
// (line-beginning-position)).
func (p *parser) endAfterBlank(i, limit int) int {
	j := p.skipWS(i, limit)
	if j >= p.n {
		return p.n
	}
	return p.bol(j)
}

// contentsEnd is (progn (goto-char i) (skip-chars-backward " \r\t\n")
// (line-beginning-position 2)) with the backward skip stopped at floor.
func (p *parser) contentsEnd(i, floor int) int {
	return p.nextLine(p.skipWSBack(i, floor))
}

// endAfterBlankInline is how clock and planning lines end: after blank
// text, back over trailing spaces, then to the end of that line unless at
// its start.
func (p *parser) endAfterBlankInline(i, limit int) int {
	j := p.skipWS(i, limit)
	j = p.skipSpTabBack(j, 0)
	if j != p.bol(j) {
		j = p.eol(j)
	}
	return j
}

// blankAt reports whether "[ \t]*$" matches at i.
func (p *parser) blankAt(i int) bool {
	j := p.skipSpTab(i, p.n)
	return j >= p.n || p.t[j] == '\n'
}

// at reports whether the text at i starts with s, ignoring ASCII case
// (case-fold-search is t in org-element's element parsers).
func (p *parser) at(i int, s string) bool {
	if i < 0 || i+len(s) > p.n {
		return false
	}
	for k := 0; k < len(s); k++ {
		c := p.t[i+k]
		if 'a' <= c && c <= 'z' {
			c -= 'a' - 'A'
		}
		d := s[k]
		if 'a' <= d && d <= 'z' {
			d -= 'a' - 'A'
		}
		if c != d {
			return false
		}
	}
	return true
}

// atExact is at with case.
func (p *parser) atExact(i int, s string) bool {
	return i >= 0 && i+len(s) <= p.n && string(p.t[i:i+len(s)]) == s
}

// runeAt decodes the character at i.
func (p *parser) runeAt(i int) (rune, int) { return runeAt(p.t, i, p.enc) }

// runeBefore decodes the character before i.
func (p *parser) runeBefore(i int) (rune, int) { return runeBefore(p.t, i, p.enc) }

// nonSpaceRunEnd returns the end of the run of characters without
// whitespace syntax starting at i (\S-*), stopping at limit.
func (p *parser) nonSpaceRunEnd(i, limit int) int {
	for i < limit {
		c := p.t[i]
		if c < 0x80 {
			if emacsASCII[c]&synMask == synWhitespace {
				return i
			}
			i++
			continue
		}
		r, n := p.runeAt(i)
		if isSpaceSyntax(r) {
			return i
		}
		i += n
	}
	return i
}

// str returns the text between a and b as a string. The string shares
// the text's memory instead of copying it: the text is never modified
// (File.Src must not be, and a decoded copy belongs to the File), and a
// parse makes a handful of strings per headline and link, which copying
// would turn into most of its cost.
func (p *parser) str(a, b int) string {
	if a >= b {
		return ""
	}
	return unsafe.String(&p.t[a], b-a)
}

// trimmed returns org-trim of the text between a and b: without leading
// and trailing " \t\n\r".
func (p *parser) trimmed(a, b int) (int, int) {
	for a < b && isTrimByte(p.t[a]) {
		a++
	}
	for b > a && isTrimByte(p.t[b-1]) {
		b--
	}
	return a, b
}

func isTrimByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }
