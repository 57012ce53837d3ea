package orgast

import (
	"strconv"
	"strings"
	"unicode/utf8"
)

// Outlines renders files as `pp-lsp outline --json` prints them: the JSON
// array ../shared/tools/org-outline.el prints with Emacs, one object per
// file, names as given, byte for byte as Emacs's json-encode writes it
// (compact, keys in its order, a property drawer's duplicate keys kept),
// and a final newline.
func Outlines(names []string, files []*File) []byte {
	size := 2
	for _, f := range files {
		size += 256 + 320*len(f.Headlines) + 80*len(f.Links)
	}
	out := make([]byte, 1, size)
	out[0] = '['
	for i, f := range files {
		if i > 0 {
			out = append(out, ',')
		}
		out = f.AppendJSON(out, names[i])
	}
	return append(out, ']', '\n')
}

// AppendJSON appends the outline object of f, named name, to dst.
func (f *File) AppendJSON(dst []byte, name string) []byte {
	w := jsonWriter{buf: dst, enc: f.enc}
	w.raw(`{"file":`)
	w.goString(name)
	w.raw(`,"title":`)
	if title, ok := f.Title(); ok {
		w.str(title)
	} else {
		w.raw("null")
	}
	w.raw(`,"filetags":`)
	w.strs(f.FileTags())
	w.raw(`,"file_properties":`)
	w.props(f.FileDrawer)
	w.raw(`,"todo_keywords":`)
	w.strs(f.Todo.Keywords)
	w.raw(`,"headlines":[`)
	for i := range f.Headlines {
		if i > 0 {
			w.raw(",")
		}
		f.headlineJSON(&w, &f.Headlines[i])
	}
	w.raw(`],"links":[`)
	for i := range f.Links {
		l := &f.Links[i]
		if i > 0 {
			w.raw(",")
		}
		w.raw(`{"type":`)
		w.str(l.Type)
		w.raw(`,"path":`)
		w.str(l.Path)
		w.raw(`,"search":`)
		if l.HasSearch {
			w.str(l.Search)
		} else {
			w.raw("null")
		}
		w.raw(`,"line":`)
		w.int(f.Lines.Line(l.Range.Start) + 1)
		w.raw("}")
	}
	w.raw("]}")
	return w.buf
}

func (f *File) headlineJSON(w *jsonWriter, h *Headline) {
	w.raw(`{"level":`)
	w.int(h.Level)
	w.raw(`,"todo":`)
	w.strOrNull(h.Todo, h.Todo != "")
	w.raw(`,"todo_type":`)
	w.strOrNull(h.TodoType.String(), h.TodoType != TodoNone)
	w.raw(`,"priority":`)
	if h.Priority != 0 {
		w.runeString(h.Priority)
	} else {
		w.raw("null")
	}
	w.raw(`,"title":`)
	w.str(h.Title)
	w.raw(`,"tags":`)
	w.strs(h.Tags)
	w.raw(`,"commented":`)
	w.bool(h.Commented)
	w.raw(`,"archived":`)
	w.bool(h.Archived)
	for _, ts := range [...]struct {
		key string
		t   Timestamp
	}{{"scheduled", h.Planning().Scheduled}, {"deadline", h.Planning().Deadline}, {"closed", h.Planning().Closed}} {
		w.raw(`,"` + ts.key + `":`)
		w.strOrNull(ts.t.Raw, !ts.t.IsZero())
	}
	w.raw(`,"properties":`)
	w.props(h.Drawer)
	w.raw(`,"begin_line":`)
	w.int(f.Lines.Line(h.Line.Start) + 1)
	w.raw(`,"end_line":`)
	end := f.Lines.Line(h.End)
	if f.Lines.LineRange(end).Start == h.End && h.End > h.Line.Start {
		end--
	}
	w.int(end + 1)
	w.raw("}")
}

// jsonWriter writes JSON as Emacs's json.el does: only '"', '\' and the
// control characters below U+0020 are escaped (\b \f \n \r \t, or \u00XX);
// everything else is written as UTF-8. Strings from the file are decoded
// as Emacs decoded the file: Latin-1 bytes become their characters, raw
// bytes are printed as Emacs prints them.
type jsonWriter struct {
	buf []byte
	enc encoding
}

func (w *jsonWriter) raw(s string) { w.buf = append(w.buf, s...) }

func (w *jsonWriter) int(n int) { w.buf = strconv.AppendInt(w.buf, int64(n), 10) }

func (w *jsonWriter) bool(b bool) {
	if b {
		w.raw("true")
	} else {
		w.raw("false")
	}
}

func (w *jsonWriter) strOrNull(s string, ok bool) {
	if ok {
		w.str(s)
	} else {
		w.raw("null")
	}
}

func (w *jsonWriter) strs(list []string) {
	w.buf = append(w.buf, '[')
	for i, s := range list {
		if i > 0 {
			w.buf = append(w.buf, ',')
		}
		w.str(s)
	}
	w.buf = append(w.buf, ']')
}

// props writes a property drawer as an object in drawer order.
func (w *jsonWriter) props(d *Drawer) {
	w.buf = append(w.buf, '{')
	if d != nil {
		for i, p := range d.Properties {
			if i > 0 {
				w.buf = append(w.buf, ',')
			}
			w.str(p.Key)
			w.buf = append(w.buf, ':')
			w.str(p.Value)
		}
	}
	w.buf = append(w.buf, '}')
}

func (w *jsonWriter) runeString(r rune) {
	if r >= rawByte0 {
		r = utf8.RuneError
	}
	w.goString(string(r))
}

// str writes text taken from the file, decoded as Emacs decoded it.
func (w *jsonWriter) str(s string) {
	if w.enc == encUTF8 && utf8.ValidString(s) {
		w.goString(s)
		return
	}
	w.buf = append(w.buf, '"')
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c < 0x80:
			w.char(rune(c))
			i++
		case w.enc == encLatin1:
			w.buf = utf8.AppendRune(w.buf, rune(c))
			i++
		case w.enc == encRaw:
			w.rawByte(c)
			i++
		default:
			i += w.invalidUTF8(s[i:])
		}
	}
	w.buf = append(w.buf, '"')
}

// invalidUTF8 writes the character at the start of s, which Go's decoder
// may reject, as Emacs prints it, and returns its length. Emacs decodes
// surrogates and code points past U+10FFFF as characters and writes their
// bytes back unchanged; "\xC0\x80"-"\xC1\xBF" are its own encoding of raw
// bytes 0x80-0xFF, and any other stray byte is a raw byte; a raw byte is
// printed as a backslash and three octal digits (escaped in the JSON).
func (w *jsonWriter) invalidUTF8(s string) int {
	if r, n := utf8.DecodeRuneInString(s); r != utf8.RuneError || n > 1 {
		w.buf = append(w.buf, s[:n]...)
		return n
	}
	c := s[0]
	need := 0
	switch {
	case c == 0xC0 || c == 0xC1:
		if len(s) > 1 && s[1]&0xC0 == 0x80 {
			w.rawByte(0x80 + (c&1)<<6 + s[1]&0x3F)
			return 2
		}
	case c >= 0xE0 && c < 0xF0:
		need = 3
	case c >= 0xF0 && c < 0xF8:
		need = 4
	}
	if need > 0 && len(s) >= need {
		ok := true
		for k := 1; k < need; k++ {
			ok = ok && s[k]&0xC0 == 0x80
		}
		if ok {
			w.buf = append(w.buf, s[:need]...)
			return need
		}
	}
	w.rawByte(c)
	return 1
}

// rawByte writes a raw byte as Emacs's batch output shows it: "\\303".
func (w *jsonWriter) rawByte(c byte) {
	w.buf = append(w.buf, '\\', '\\', '0'+c>>6, '0'+c>>3&7, '0'+c&7)
}

// goString writes a Go string: runs that need no escape are copied whole;
// a byte that is not UTF-8 becomes U+FFFD.
func (w *jsonWriter) goString(s string) {
	w.buf = append(w.buf, '"')
	if !utf8.ValidString(s) {
		s = strings.ToValidUTF8(s, "\uFFFD")
	}
	start := 0
	for i := 0; i < len(s); i++ {
		if c := s[i]; c < 0x20 || c == '"' || c == '\\' {
			w.buf = append(w.buf, s[start:i]...)
			w.char(rune(c))
			start = i + 1
		}
	}
	w.buf = append(w.buf, s[start:]...)
	w.buf = append(w.buf, '"')
}

// char writes one ASCII character inside a string.
func (w *jsonWriter) char(r rune) {
	switch r {
	case '"':
		w.raw(`\"`)
	case '\\':
		w.raw(`\\`)
	case '\b':
		w.raw(`\b`)
	case '\f':
		w.raw(`\f`)
	case '\n':
		w.raw(`\n`)
	case '\r':
		w.raw(`\r`)
	case '\t':
		w.raw(`\t`)
	default:
		if r < 0x20 {
			w.buf = append(w.buf, '\\', 'u', '0', '0', "0123456789abcdef"[r>>4], "0123456789abcdef"[r&15])
		} else {
			w.buf = append(w.buf, byte(r))
		}
	}
}
