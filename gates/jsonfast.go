package gates

import (
	"encoding/json"
	"strings"
	"unicode/utf16"
	"unicode/utf8"
)

// fastReader reads one value of valid JSON (json.Valid said so) into the
// generic form readValue builds, to the same values. It gives up (ok
// false) where readValue would return an error: a duplicate key, nesting
// past maxJSONDepth.
type fastReader struct {
	data []byte
	pos  int
}

func (r *fastReader) space() {
	for r.pos < len(r.data) {
		switch r.data[r.pos] {
		case ' ', '\t', '\n', '\r':
			r.pos++
		default:
			return
		}
	}
}

func (r *fastReader) value(depth int) (any, bool) {
	if depth > maxJSONDepth {
		return nil, false
	}
	r.space()
	switch c := r.data[r.pos]; c {
	case '{':
		r.pos++
		obj := &object{vals: map[string]any{}}
		r.space()
		if r.data[r.pos] == '}' {
			r.pos++
			return obj, true
		}
		for {
			r.space()
			k, ok := r.str()
			if !ok {
				return nil, false
			}
			if _, dup := obj.vals[k]; dup {
				return nil, false
			}
			r.space()
			r.pos++ // ':'
			v, ok := r.value(depth + 1)
			if !ok {
				return nil, false
			}
			obj.keys = append(obj.keys, k)
			obj.vals[k] = v
			r.space()
			if r.data[r.pos] == '}' {
				r.pos++
				return obj, true
			}
			r.pos++ // ','
		}
	case '[':
		r.pos++
		var arr []any
		r.space()
		if r.data[r.pos] == ']' {
			r.pos++
			return arr, true
		}
		for {
			v, ok := r.value(depth + 1)
			if !ok {
				return nil, false
			}
			arr = append(arr, v)
			r.space()
			if r.data[r.pos] == ']' {
				r.pos++
				return arr, true
			}
			r.pos++ // ','
		}
	case '"':
		return r.str()
	case 't':
		r.pos += len("true")
		return true, true
	case 'f':
		r.pos += len("false")
		return false, true
	case 'n':
		r.pos += len("null")
		return nil, true
	default:
		start := r.pos
		for r.pos < len(r.data) && strings.IndexByte("+-0123456789.eE", r.data[r.pos]) >= 0 {
			r.pos++
		}
		return json.Number(r.data[start:r.pos]), true
	}
}

// str reads a string at r.pos, unescaped as encoding/json does it.
func (r *fastReader) str() (string, bool) {
	start := r.pos
	r.pos++
	plain := true // no escape, ASCII: the bytes are the string
	for r.data[r.pos] != '"' {
		switch c := r.data[r.pos]; {
		case c == '\\':
			plain = false
			r.pos++
		case c >= utf8.RuneSelf:
			plain = false
		}
		r.pos++
	}
	r.pos++
	return unquoteJSON(r.data[start+1:r.pos-1], plain), true
}

// unquoteJSON is the value of the body of a valid JSON string: the
// escapes \" \\ \/ \b \f \n \r \t and \uXXXX (a UTF-16 surrogate pair
// makes one rune, a lone surrogate U+FFFD), and any byte that is not
// UTF-8 U+FFFD, as encoding/json reads them.
func unquoteJSON(body []byte, plain bool) string {
	if plain {
		return string(body)
	}
	out := make([]byte, 0, len(body))
	for i := 0; i < len(body); {
		c := body[i]
		if c != '\\' {
			r, n := utf8.DecodeRune(body[i:])
			out = utf8.AppendRune(out, r)
			i += n
			continue
		}
		switch e := body[i+1]; e {
		case 'b':
			out = append(out, '\b')
		case 'f':
			out = append(out, '\f')
		case 'n':
			out = append(out, '\n')
		case 'r':
			out = append(out, '\r')
		case 't':
			out = append(out, '\t')
		case 'u':
			r := hex4(body[i+2 : i+6])
			i += 6
			if utf16.IsSurrogate(r) {
				if i+6 <= len(body) && body[i] == '\\' && body[i+1] == 'u' {
					if pair := utf16.DecodeRune(r, hex4(body[i+2:i+6])); pair != utf8.RuneError {
						out = utf8.AppendRune(out, pair)
						i += 6
						continue
					}
				}
				r = utf8.RuneError
			}
			out = utf8.AppendRune(out, r)
			continue
		default: // " \ /
			out = append(out, e)
		}
		i += 2
	}
	return string(out)
}

// hex4 is the value of four hex digits (-1 if they are not).
func hex4(h []byte) rune {
	var r rune
	for _, c := range h {
		switch {
		case c >= '0' && c <= '9':
			r = r<<4 | rune(c-'0')
		case c >= 'a' && c <= 'f':
			r = r<<4 | rune(c-'a'+10)
		case c >= 'A' && c <= 'F':
			r = r<<4 | rune(c-'A'+10)
		default:
			return -1
		}
	}
	return r
}
