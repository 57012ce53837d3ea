package plist

import (
	"bytes"
	"unicode/utf8"
)

// str reads a string literal at r.pos (the opening quote), applying Emacs's
// escapes (see the package documentation for the accepted set).
func (r *reader) str() (any, error) {
	open := r.pos
	r.pos++
	// The common case has no escape: one copy out of the input.
	if j := bytes.IndexAny(r.data[r.pos:], "\"\\"); j >= 0 && r.data[r.pos+j] == '"' {
		if j > r.lim.MaxString {
			return nil, r.limitf(open, "a string of %d bytes, over the limit of %d", j, r.lim.MaxString)
		}
		s := string(r.data[r.pos : r.pos+j])
		r.pos += j + 1
		return s, nil
	}
	var out []byte
	for {
		j := bytes.IndexAny(r.data[r.pos:], "\"\\")
		if j < 0 {
			return nil, r.errf(open, "the string opened here is not closed")
		}
		out = append(out, r.data[r.pos:r.pos+j]...)
		r.pos += j
		if len(out) > r.lim.MaxString {
			return nil, r.limitf(open, "a string over the limit of %d bytes", r.lim.MaxString)
		}
		if r.data[r.pos] == '"' {
			r.pos++
			return string(out), nil
		}
		var err error
		if out, err = r.escape(out); err != nil {
			return nil, err
		}
	}
}

// escape reads the escape at r.pos (a backslash) and appends what it stands for.
func (r *reader) escape(out []byte) ([]byte, error) {
	at := r.pos
	r.pos++
	if r.pos >= len(r.data) {
		return nil, r.errf(at, "the string ends inside an escape")
	}
	c := r.data[r.pos]
	r.pos++
	switch c {
	case 'a':
		return append(out, 7), nil
	case 'b':
		return append(out, 8), nil
	case 't':
		return append(out, 9), nil
	case 'n':
		return append(out, 10), nil
	case 'v':
		return append(out, 11), nil
	case 'f':
		return append(out, 12), nil
	case 'r':
		return append(out, 13), nil
	case 'e':
		return append(out, 27), nil
	case 's':
		return append(out, ' '), nil
	case 'd':
		return append(out, 127), nil
	case '\n', ' ':
		// Emacs drops backslash-newline (a line continuation) and
		// backslash-space (the way to end a hex escape early).
		return out, nil
	case 'x':
		n := hexRun(r.data, r.pos)
		if n == 0 {
			return nil, r.errf(at, `\x needs at least one hex digit`)
		}
		cp, ok := hexValue(r.data[r.pos : r.pos+n])
		r.pos += n
		return r.codePoint(out, at, cp, ok, true)
	case 'u', 'U':
		want := 4
		if c == 'U' {
			want = 8
		}
		if hexRun(r.data, r.pos) < want {
			return nil, r.errf(at, `\%c needs exactly %d hex digits`, c, want)
		}
		cp, ok := hexValue(r.data[r.pos : r.pos+want])
		r.pos += want
		return r.codePoint(out, at, cp, ok, false)
	case 'N':
		// Only the \N{U+X} form: character names need Unicode's name table.
		if r.pos+2 >= len(r.data) || string(r.data[r.pos:r.pos+3]) != "{U+" {
			return nil, r.errf(at, `only the \N{U+X} form of named characters is supported`)
		}
		n := hexRun(r.data, r.pos+3)
		end := r.pos + 3 + n
		if n == 0 || end >= len(r.data) || r.data[end] != '}' {
			return nil, r.errf(at, `\N{U+ needs hex digits and a closing brace`)
		}
		cp, ok := hexValue(r.data[r.pos+3 : end])
		r.pos = end + 1
		return r.codePoint(out, at, cp, ok, false)
	case 'C', 'M', 'S', 'H', 'A', '^':
		return nil, r.errf(at, `modifier escapes (\C-, \^, \M-, \S-, \H-, \A-) are not allowed in strings`)
	}
	if c >= '0' && c <= '7' {
		cp := rune(c - '0')
		for k := 0; k < 2 && r.pos < len(r.data) && r.data[r.pos] >= '0' && r.data[r.pos] <= '7'; k++ {
			cp = cp*8 + rune(r.data[r.pos]-'0')
			r.pos++
		}
		return r.codePoint(out, at, cp, true, true)
	}
	// Any other character stands for itself (\" and \\ among them). The input
	// is valid UTF-8, so a multi-byte character is copied whole.
	_, size := utf8.DecodeRune(r.data[r.pos-1:])
	out = append(out, r.data[r.pos-1:r.pos-1+size]...)
	r.pos += size - 1
	return out, nil
}

// codePoint appends cp from a numeric escape at offset at. A byte escape
// (\x, octal) between 0x80 and 0xFF is a raw byte in Emacs, not a character,
// so it is refused, as are surrogates and values beyond Unicode.
func (r *reader) codePoint(out []byte, at int, cp rune, fits, byteEscape bool) ([]byte, error) {
	switch {
	case !fits || cp > utf8.MaxRune:
		return nil, r.errf(at, "the escape names no Unicode character (above U+10FFFF)")
	case byteEscape && cp >= 0x80 && cp <= 0xFF:
		return nil, r.errf(at, "the escape makes a raw byte (0x%X) in Emacs, not a character: write \\u%04X for the character", cp, cp)
	case cp >= 0xD800 && cp <= 0xDFFF:
		return nil, r.errf(at, "the escape names a UTF-16 surrogate (U+%04X), not a character", cp)
	}
	return utf8.AppendRune(out, cp), nil
}

// hexRun counts hex digits at data[i:].
func hexRun(data []byte, i int) int {
	j := i
	for j < len(data) && hexDigit(data[j]) >= 0 {
		j++
	}
	return j - i
}

func hexDigit(c byte) int {
	switch {
	case c >= '0' && c <= '9':
		return int(c - '0')
	case c >= 'a' && c <= 'f':
		return int(c-'a') + 10
	case c >= 'A' && c <= 'F':
		return int(c-'A') + 10
	}
	return -1
}

// hexValue is the value of a run of hex digits; ok is false once it passes
// U+10FFFF (leading zeros are fine, as in Emacs).
func hexValue(h []byte) (rune, bool) {
	var v rune
	for _, c := range h {
		v = v*16 + rune(hexDigit(c))
		if v > utf8.MaxRune {
			return 0, false
		}
	}
	return v, true
}
