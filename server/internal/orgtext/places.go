package orgtext

import (
	"bytes"

	"pp-lsp/orgast"
)

// NextLine is the offset after the line end at or after off.
func NextLine(src []byte, off int) int {
	if off >= len(src) {
		return len(src)
	}
	if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
		return off + i + 1
	}
	return len(src)
}

// ContentEnd is the offset after the last non-blank line in [start, end):
// where text appended to a node goes, so that the blank lines separating
// it from the next node stay where they are.
func ContentEnd(src []byte, start, end int) int {
	e := end
	for e > start {
		lineEnd := e
		if src[e-1] == '\n' {
			lineEnd = e - 1
		}
		ls := bytes.LastIndexByte(src[start:lineEnd], '\n') + 1 + start
		if len(bytes.TrimSpace(src[ls:lineEnd])) != 0 {
			return e
		}
		e = ls
	}
	return e
}

// BodyStart is where a headline's body begins: after its headline line,
// its planning line and its property drawer.
func BodyStart(src []byte, h *orgast.Headline) int {
	start := NextLine(src, h.Line.End)
	if h.Planning().Range.End > 0 {
		start = max(start, NextLine(src, h.Planning().Range.End))
	}
	if h.Drawer != nil {
		start = max(start, NextLine(src, h.Drawer.Range.End))
	}
	return min(start, h.Section.End)
}

// Cut returns at most n bytes of s, not splitting a UTF-8 character.
func Cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n]
}
