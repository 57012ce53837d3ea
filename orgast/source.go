package orgast

import (
	"bytes"
	"sort"
	"unicode/utf8"
)

// EOL is the line-end convention Emacs's insert-file-contents detects in a
// file. The parser, the line numbers and the LSP positions all follow it,
// so a line is the same line for Emacs, eglot and pp-lsp.
type EOL uint8

const (
	// EOLUnix: lines end with LF; any CR is an ordinary character. Emacs
	// chooses it whenever one LF stands without a CR before it.
	EOLUnix EOL = iota
	// EOLDOS: lines end with CR LF (every LF has a CR before it); a CR
	// elsewhere is an ordinary character.
	EOLDOS
	// EOLMac: lines end with CR (the file has CRs and no LF at all).
	EOLMac
)

// String names the convention as Emacs's coding systems do.
func (e EOL) String() string {
	switch e {
	case EOLDOS:
		return "dos"
	case EOLMac:
		return "mac"
	}
	return "unix"
}

// source is a file's bytes as Emacs's buffer holds them: LF line ends, no
// byte-order mark. text aliases orig when nothing had to change (the common
// case), and origOffset maps a text offset back to the file's bytes.
type source struct {
	orig []byte
	text []byte
	enc  encoding
	eol  EOL
	bom  int   // 3 when a UTF-8 byte-order mark was dropped, else 0
	crlf []int // DOS files: text offsets of the LFs that were CR LF
}

// newSource decodes src the way Emacs 28's insert-file-contents does with
// no coding cookie: a NUL byte anywhere makes it binary (no conversion); a
// UTF-8 byte-order mark is dropped; text that is not UTF-8 is ISO-8859-1
// when every high byte is a Latin-1 letter or sign, else raw bytes; the
// line-end convention is detected as EOL says.
func newSource(src []byte) *source {
	s := &source{orig: src, text: src}
	if bytes.IndexByte(src, 0) >= 0 {
		s.enc = encRaw
		return s
	}
	switch {
	case utf8.Valid(src) || emacsUTF8(src):
		s.enc = encUTF8
		if bytes.HasPrefix(src, []byte{0xEF, 0xBB, 0xBF}) {
			s.bom = 3
			s.text = src[3:]
		}
	case latin1Only(src):
		s.enc = encLatin1
	default:
		s.enc = encRaw
	}
	s.eol = detectEOL(s.text)
	switch s.eol {
	case EOLMac:
		t := make([]byte, len(s.text))
		for i, b := range s.text {
			if b == '\r' {
				b = '\n'
			}
			t[i] = b
		}
		s.text = t
	case EOLDOS:
		t := make([]byte, 0, len(s.text))
		rest := s.text
		for {
			i := bytes.Index(rest, []byte("\r\n"))
			if i < 0 {
				t = append(t, rest...)
				break
			}
			t = append(t, rest[:i]...)
			s.crlf = append(s.crlf, len(t))
			t = append(t, '\n')
			rest = rest[i+2:]
		}
		s.text = t
	}
	return s
}

// origOffset maps an offset in s.text to the offset of the same place in
// the file's bytes. A text offset at a CR LF's LF maps to its CR.
func (s *source) origOffset(p int) int {
	if s.crlf == nil {
		return p + s.bom
	}
	k := sort.SearchInts(s.crlf, p) // CR LFs strictly before p
	return p + s.bom + k
}

// emacsUTF8 reports whether Emacs's UTF-8 detection accepts src although Go
// does not (overlong forms, surrogates, a sequence cut by the end of the
// file): lead bytes C0-F7 followed by the right count of continuation
// bytes. Such stray sequences become raw bytes in the buffer.
func emacsUTF8(src []byte) bool {
	for i := 0; i < len(src); {
		b := src[i]
		var n int
		switch {
		case b < 0x80:
			i++
			continue
		case b < 0xC0:
			return false
		case b < 0xE0:
			n = 1
		case b < 0xF0:
			n = 2
		case b < 0xF8:
			n = 3
		default:
			return false
		}
		for j := 1; j <= n; j++ {
			if i+j >= len(src) {
				return true
			}
			if src[i+j]&0xC0 != 0x80 {
				return false
			}
		}
		i += n + 1
	}
	return true
}

// latin1Only reports whether every byte above 0x7F is a printable Latin-1
// character (0xA0-0xFF), which is when Emacs falls back to ISO-8859-1.
func latin1Only(src []byte) bool {
	for _, b := range src {
		if b >= 0x80 && b < 0xA0 {
			return false
		}
	}
	return true
}

// DetectEOL returns the line-end convention Emacs would read src with
// (detectEOL): what a change to the file must keep writing.
func DetectEOL(src []byte) EOL { return detectEOL(src) }

// detectEOL applies Emacs's rule: any LF without a CR before it means unix;
// otherwise any CR LF means DOS (stray CRs tolerated); otherwise any CR
// means Mac; a file without line ends is unix.
func detectEOL(t []byte) EOL {
	if bytes.IndexByte(t, '\r') < 0 {
		return EOLUnix
	}
	sawLF := false
	for i := 0; ; {
		j := bytes.IndexByte(t[i:], '\n')
		if j < 0 {
			break
		}
		i += j
		if i == 0 || t[i-1] != '\r' {
			return EOLUnix
		}
		sawLF = true
		i++
	}
	if sawLF {
		return EOLDOS
	}
	return EOLMac
}
