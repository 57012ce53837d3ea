package plist

import (
	"errors"
	"fmt"
	"strings"
	"unicode/utf8"
)

// Limits bound what one Read may consume. A zero field takes its default
// (DefaultLimits), so Limits{MaxDepth: 8} changes only the depth.
type Limits struct {
	// MaxBytes is the largest input accepted, in bytes.
	MaxBytes int
	// MaxDepth is the deepest list nesting; a top-level list is depth 1.
	MaxDepth int
	// MaxElements is the number of values (atoms and lists) in the input.
	MaxElements int
	// MaxString is the length of one string after its escapes, in bytes.
	MaxString int
	// MaxAtom is the length of one symbol, keyword or number as written, in bytes.
	MaxAtom int
}

// DefaultLimits are sized for one wire frame (at most 0xFFFFFF bytes): deep
// and wide enough for any message the protocol defines, small enough that a
// hostile input costs bounded memory and time.
func DefaultLimits() Limits {
	return Limits{
		MaxBytes:    0xFFFFFF,
		MaxDepth:    64,
		MaxElements: 1 << 18,
		MaxString:   0xFFFFFF,
		MaxAtom:     4096,
	}
}

func (l Limits) withDefaults() Limits {
	d := DefaultLimits()
	if l.MaxBytes <= 0 {
		l.MaxBytes = d.MaxBytes
	}
	if l.MaxDepth <= 0 {
		l.MaxDepth = d.MaxDepth
	}
	if l.MaxElements <= 0 {
		l.MaxElements = d.MaxElements
	}
	if l.MaxString <= 0 {
		l.MaxString = d.MaxString
	}
	if l.MaxAtom <= 0 {
		l.MaxAtom = d.MaxAtom
	}
	return l
}

// ErrLimit is matched (errors.Is) by every error that reports an exceeded
// Limits bound rather than bad syntax.
var ErrLimit = errors.New("plist limit exceeded")

// SyntaxError is a text that is not one plist value, or one beyond the limits.
type SyntaxError struct {
	// Offset is the byte offset of the fault in the input.
	Offset int
	// Msg says what is wrong, in one phrase.
	Msg string
	// Limit is set when a Limits bound was exceeded.
	Limit bool
}

func (e *SyntaxError) Error() string { return fmt.Sprintf("plist: byte %d: %s", e.Offset, e.Msg) }

// Is makes errors.Is(err, ErrLimit) report limit errors.
func (e *SyntaxError) Is(target error) bool { return target == ErrLimit && e.Limit }

// Read reads exactly one value from data with the default limits. Only
// whitespace and comments may follow it.
func Read(data []byte) (any, error) { return ReadWith(data, Limits{}) }

// ReadWith is Read with explicit limits.
func ReadWith(data []byte, lim Limits) (any, error) {
	r := reader{data: data, lim: lim.withDefaults()}
	if len(data) > r.lim.MaxBytes {
		return nil, r.limitf(r.lim.MaxBytes, "the input is %d bytes, over the limit of %d", len(data), r.lim.MaxBytes)
	}
	if !utf8.Valid(data) {
		return nil, r.errf(invalidUTF8At(data), "the input is not valid UTF-8")
	}
	r.skipSpace()
	if r.pos >= len(data) {
		return nil, r.errf(r.pos, "the input holds no value")
	}
	v, err := r.value(0)
	if err != nil {
		return nil, err
	}
	r.skipSpace()
	if r.pos < len(data) {
		return nil, r.errf(r.pos, "trailing text after the value")
	}
	return v, nil
}

// reader is one pass over an input; data is valid UTF-8.
type reader struct {
	data     []byte
	pos      int
	lim      Limits
	elements int
	// stack collects list elements across nesting levels so that each list
	// costs exactly one allocation of its final size.
	stack []any
}

func (r *reader) errf(off int, format string, a ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, a...)}
}

func (r *reader) limitf(off int, format string, a ...any) error {
	return &SyntaxError{Offset: off, Msg: fmt.Sprintf(format, a...), Limit: true}
}

// isSpace reports whether the input at i starts with whitespace as Emacs
// reads it (every byte up to space, and U+00A0), and its length.
func isSpace(data []byte, i int) (bool, int) {
	c := data[i]
	if c <= ' ' {
		return true, 1
	}
	if c == 0xC2 && i+1 < len(data) && data[i+1] == 0xA0 {
		return true, 2
	}
	return false, 0
}

// skipSpace skips whitespace and `;` comments.
func (r *reader) skipSpace() {
	for r.pos < len(r.data) {
		if r.data[r.pos] == ';' {
			for r.pos < len(r.data) && r.data[r.pos] != '\n' {
				r.pos++
			}
			continue
		}
		ok, n := isSpace(r.data, r.pos)
		if !ok {
			return
		}
		r.pos += n
	}
}

func (r *reader) count() error {
	r.elements++
	if r.elements > r.lim.MaxElements {
		return r.limitf(r.pos, "more than %d values", r.lim.MaxElements)
	}
	return nil
}

// value reads one value at r.pos (not whitespace); depth is the number of
// lists open around it.
func (r *reader) value(depth int) (any, error) {
	if err := r.count(); err != nil {
		return nil, err
	}
	start := r.pos
	switch c := r.data[r.pos]; c {
	case '(':
		return r.list(depth + 1)
	case ')':
		return nil, r.errf(start, "unexpected ')'")
	case '"':
		return r.str()
	case '#':
		next := ""
		if start+1 < len(r.data) {
			_, size := utf8.DecodeRune(r.data[start+1:])
			next = string(r.data[start+1 : start+1+size])
		}
		return nil, r.errf(start, "#-syntax (%q) is not allowed: the reader never evaluates or builds special objects", "#"+next)
	case '\'':
		return nil, r.errf(start, "quote (') is not allowed")
	case '`':
		return nil, r.errf(start, "backquote is not allowed")
	case ',':
		return nil, r.errf(start, "comma is not allowed")
	case '[', ']':
		return nil, r.errf(start, "vectors ([…]) are not part of the plist grammar")
	case '?':
		return nil, r.errf(start, "character syntax (?x) is not allowed")
	default:
		return r.atom()
	}
}

func (r *reader) list(depth int) (any, error) {
	open := r.pos
	if depth > r.lim.MaxDepth {
		return nil, r.limitf(open, "lists nested deeper than %d", r.lim.MaxDepth)
	}
	r.pos++ // (
	base := len(r.stack)
	for {
		r.skipSpace()
		if r.pos >= len(r.data) {
			r.stack = r.stack[:base]
			return nil, r.errf(open, "the list opened here is not closed")
		}
		if r.data[r.pos] == ')' {
			r.pos++
			break
		}
		v, err := r.value(depth)
		if err != nil {
			r.stack = r.stack[:base]
			return nil, err
		}
		r.stack = append(r.stack, v)
	}
	n := len(r.stack) - base
	if n == 0 {
		return nil, nil
	}
	l := make(List, n)
	copy(l, r.stack[base:])
	clear(r.stack[base:])
	r.stack = r.stack[:base]
	return l, nil
}

// isDelimiter reports whether the byte ends a symbol or number token, as in
// Emacs: whitespace and ( ) " ' ; ` , # [ ].
func isDelimiter(data []byte, i int) bool {
	switch data[i] {
	case '(', ')', '"', '\'', ';', '`', ',', '#', '[', ']':
		return true
	}
	ok, _ := isSpace(data, i)
	return ok
}

// atom reads a symbol, keyword or number token.
func (r *reader) atom() (any, error) {
	start := r.pos
	if r.data[start] == '.' && start+1 < len(r.data) && r.data[start+1] == '?' {
		// Emacs takes a dot followed by '?' for the dot of a dotted pair.
		return nil, r.errf(start, "dotted pairs are not allowed")
	}
	escaped := false
	for r.pos < len(r.data) && !isDelimiter(r.data, r.pos) {
		if r.data[r.pos] == '\\' {
			escaped = true
			r.pos++
			if r.pos >= len(r.data) {
				return nil, r.errf(r.pos-1, "a backslash ends the input")
			}
			_, size := utf8.DecodeRune(r.data[r.pos:])
			r.pos += size
			continue
		}
		r.pos++
	}
	tok := r.data[start:r.pos]
	if len(tok) > r.lim.MaxAtom {
		return nil, r.limitf(start, "a symbol or number of %d bytes, over the limit of %d", len(tok), r.lim.MaxAtom)
	}
	if !escaped {
		if len(tok) == 1 && tok[0] == '.' {
			return nil, r.errf(start, "dotted pairs are not allowed")
		}
		if v, ok, err := parseNumber(tok); ok {
			if err != nil {
				return nil, r.errf(start, "%v", err)
			}
			return v, nil
		}
		return r.name(start, tok)
	}
	name := make([]byte, 0, len(tok))
	for i := 0; i < len(tok); i++ {
		if tok[i] == '\\' {
			i++
		}
		name = append(name, tok[i])
	}
	return r.name(start, name)
}

// name turns an unescaped symbol name into its value: keyword, t, nil or Symbol.
func (r *reader) name(start int, name []byte) (any, error) {
	if name[0] == ':' {
		if len(name) == 1 {
			return nil, r.errf(start, "a keyword needs a name after ':'")
		}
		return keyword(name[1:]), nil
	}
	switch string(name) {
	case "t":
		return true, nil
	case "nil":
		return nil, nil
	}
	return Symbol(name), nil
}

// keyword returns the canonical (upper-case) keyword for a name, already in
// an interface: the protocol's own keywords come from static data, so reading
// an envelope does not allocate for them.
func keyword(b []byte) any {
	switch string(b) {
	case "TYPE":
		return Keyword("TYPE")
	case "META":
		return Keyword("META")
	case "PAYLOAD":
		return Keyword("PAYLOAD")
	case "ACTION":
		return Keyword("ACTION")
	case "REQUEST-ID":
		return Keyword("REQUEST-ID")
	case "SESSION-ID":
		return Keyword("SESSION-ID")
	case "SOURCE":
		return Keyword("SOURCE")
	case "TEXT":
		return Keyword("TEXT")
	case "REQUEST":
		return Keyword("REQUEST")
	case "RESPONSE":
		return Keyword("RESPONSE")
	case "EVENT":
		return Keyword("EVENT")
	case "STATUS":
		return Keyword("STATUS")
	case "STREAM-CHUNK":
		return Keyword("STREAM-CHUNK")
	case "LOG":
		return Keyword("LOG")
	case "PING":
		return Keyword("PING")
	case "DEPTH":
		return Keyword("DEPTH")
	case "FILE":
		return Keyword("FILE")
	case "LINE":
		return Keyword("LINE")
	case "ASK":
		return Keyword("ASK")
	case "CONTEXT":
		return Keyword("CONTEXT")
	case "CANCEL":
		return Keyword("CANCEL")
	case "TARGET":
		return Keyword("TARGET")
	case "HANDSHAKE":
		return Keyword("HANDSHAKE")
	case "TOKEN":
		return Keyword("TOKEN")
	case "VERSION":
		return Keyword("VERSION")
	case "CAPABILITIES":
		return Keyword("CAPABILITIES")
	case "ID":
		return Keyword("ID")
	case "OK":
		return Keyword("OK")
	case "ERROR":
		return Keyword("ERROR")
	case "EMACS":
		return Keyword("EMACS")
	case "TOOL":
		return Keyword("TOOL")
	case "ARGS":
		return Keyword("ARGS")
	case "CMD":
		return Keyword("CMD")
	case "CWD":
		return Keyword("CWD")
	case "EXPLANATION":
		return Keyword("EXPLANATION")
	case "SHELL":
		return Keyword("SHELL")
	}
	for _, c := range b {
		if c >= 'a' && c <= 'z' || c >= 0x80 {
			return Keyword(strings.ToUpper(string(b)))
		}
	}
	return Keyword(b)
}

// invalidUTF8At returns the offset of the first invalid UTF-8 sequence.
func invalidUTF8At(data []byte) int {
	for i := 0; i < len(data); {
		c, size := utf8.DecodeRune(data[i:])
		if c == utf8.RuneError && size <= 1 {
			return i
		}
		i += size
	}
	return len(data)
}
