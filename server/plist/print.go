package plist

import (
	"fmt"
	"math"
	"math/big"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"
)

// maxPrintDepth stops a Go value that contains itself (a []any holding
// itself) from recursing forever.
const maxPrintDepth = 1000

// Marshal prints v as plist text; see Append.
func Marshal(v any) ([]byte, error) { return Append(nil, v) }

// Append appends the printed form of v to dst. It accepts what Read yields
// (string, int64, *big.Int, float64, bool, nil, Keyword, Symbol, List) and
// the usual Go values: every integer and float type, Plist, []any, []string
// and map[string]any (keys become upper-case keywords, in sorted order).
// false prints as nil. A string that is not valid UTF-8 has its bad bytes
// replaced by U+FFFD, as encoding/json does.
//
// Values no reader can get back are errors: the empty keyword or symbol, and
// the symbols named t and nil (both readers read those as the booleans).
func Append(dst []byte, v any) ([]byte, error) {
	return appendValue(dst, v, 0)
}

func appendValue(dst []byte, v any, depth int) ([]byte, error) {
	if depth > maxPrintDepth {
		return dst, fmt.Errorf("the value is nested deeper than %d lists (does it contain itself?)", maxPrintDepth)
	}
	switch x := v.(type) {
	case nil:
		return append(dst, "nil"...), nil
	case bool:
		if x {
			return append(dst, 't'), nil
		}
		return append(dst, "nil"...), nil
	case string:
		return appendString(dst, x), nil
	case Keyword:
		if x == "" {
			return dst, fmt.Errorf("the empty keyword cannot be printed: a reader would see ':' alone")
		}
		dst = append(dst, ':')
		return appendSymbolName(dst, strings.ToUpper(string(x))), nil
	case Symbol:
		switch x {
		case "":
			return dst, fmt.Errorf("the symbol with an empty name cannot be printed")
		case "t", "nil":
			return dst, fmt.Errorf("a symbol named %q cannot be printed: readers take it for the boolean", string(x))
		}
		if x[0] == ':' {
			return dst, fmt.Errorf("a symbol whose name starts with ':' is a keyword to Emacs: use Keyword")
		}
		return appendSymbolName(dst, string(x)), nil
	case int:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int8:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int16:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int32:
		return strconv.AppendInt(dst, int64(x), 10), nil
	case int64:
		return strconv.AppendInt(dst, x, 10), nil
	case uint:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint8:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint16:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint32:
		return strconv.AppendUint(dst, uint64(x), 10), nil
	case uint64:
		return strconv.AppendUint(dst, x, 10), nil
	case *big.Int:
		if x == nil {
			return append(dst, "nil"...), nil
		}
		return x.Append(dst, 10), nil
	case float32:
		return appendFloat(dst, float64(x)), nil
	case float64:
		return appendFloat(dst, x), nil
	case List:
		return appendList(dst, []any(x), depth)
	case []any:
		return appendList(dst, x, depth)
	case []string:
		if len(x) == 0 {
			return append(dst, "nil"...), nil
		}
		dst = append(dst, '(')
		for i, s := range x {
			if i > 0 {
				dst = append(dst, ' ')
			}
			dst = appendString(dst, s)
		}
		return append(dst, ')'), nil
	case Plist:
		if len(x) == 0 {
			return append(dst, "nil"...), nil
		}
		dst = append(dst, '(')
		for i, kv := range x {
			if i > 0 {
				dst = append(dst, ' ')
			}
			var err error
			if dst, err = appendValue(dst, kv.Key, depth+1); err != nil {
				return dst, err
			}
			dst = append(dst, ' ')
			if dst, err = appendValue(dst, kv.Value, depth+1); err != nil {
				return dst, err
			}
		}
		return append(dst, ')'), nil
	case map[string]any:
		if len(x) == 0 {
			return append(dst, "nil"...), nil
		}
		keys := make([]string, 0, len(x))
		for k := range x {
			keys = append(keys, k)
		}
		slices.Sort(keys)
		p := make(Plist, len(keys))
		for i, k := range keys {
			p[i] = Pair{Key: Keyword(strings.ToUpper(k)), Value: x[k]}
		}
		return appendValue(dst, p, depth)
	default:
		return dst, fmt.Errorf("a Go %T has no plist form", v)
	}
}

func appendList(dst []byte, l []any, depth int) ([]byte, error) {
	if len(l) == 0 {
		return append(dst, "nil"...), nil
	}
	dst = append(dst, '(')
	for i, e := range l {
		if i > 0 {
			dst = append(dst, ' ')
		}
		var err error
		if dst, err = appendValue(dst, e, depth+1); err != nil {
			return dst, err
		}
	}
	return append(dst, ')'), nil
}

// appendString writes s between quotes with only `"` and `\` escaped: both
// Emacs and Common Lisp read every other character, newlines included, as
// itself, while Emacs's letter escapes (\n) mean nothing to Common Lisp.
func appendString(dst []byte, s string) []byte {
	dst = append(dst, '"')
	if utf8.ValidString(s) && !strings.ContainsAny(s, `"\`) {
		dst = append(dst, s...)
		return append(dst, '"')
	}
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c == '"' || c == '\\' {
				dst = append(dst, '\\')
			}
			dst = append(dst, c)
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if r == utf8.RuneError && size == 1 {
			dst = utf8.AppendRune(dst, utf8.RuneError)
		} else {
			dst = append(dst, s[i:i+size]...)
		}
		i += size
	}
	return append(dst, '"')
}

// appendFloat writes the shortest text that reads back to f, always with a
// decimal point (an Emacs or Common Lisp reader would take "1" for an integer),
// and Emacs's syntax for the infinities and NaN.
func appendFloat(dst []byte, f float64) []byte {
	switch {
	case math.IsNaN(f):
		if math.Signbit(f) {
			return append(dst, "-0.0e+NaN"...)
		}
		return append(dst, "0.0e+NaN"...)
	case math.IsInf(f, 1):
		return append(dst, "1.0e+INF"...)
	case math.IsInf(f, -1):
		return append(dst, "-1.0e+INF"...)
	case f == 0:
		if math.Signbit(f) {
			return append(dst, "-0.0"...)
		}
		return append(dst, "0.0"...)
	}
	start := len(dst)
	abs := math.Abs(f)
	if abs >= 1e-4 && abs < 1e21 {
		dst = strconv.AppendFloat(dst, f, 'f', -1, 64)
		if !strings.Contains(string(dst[start:]), ".") {
			dst = append(dst, ".0"...)
		}
		return dst
	}
	dst = strconv.AppendFloat(dst, f, 'e', -1, 64)
	mant := dst[start:]
	e := strings.IndexByte(string(mant), 'e')
	if !strings.Contains(string(mant[:e]), ".") {
		// 1e+21 → 1.0e+21
		exp := string(mant[e:])
		dst = append(dst[:start+e], ".0"...)
		dst = append(dst, exp...)
	}
	return dst
}

// appendSymbolName writes a symbol's name with a backslash before every
// character that Emacs or a Common Lisp reader would not take literally (see
// needsEscape). A name that starts like a number gets its first character
// escaped, so neither reader takes it for one.
func appendSymbolName(dst []byte, name string) []byte {
	for i, r := range name {
		if i == 0 && (r >= '0' && r <= '9' || r == '+' || r == '-') || needsEscape(r) {
			dst = append(dst, '\\')
		}
		dst = utf8.AppendRune(dst, r)
	}
	return dst
}

// needsEscape reports whether r must be escaped anywhere in a symbol name:
// whitespace and characters with a meaning to either reader, lower-case
// letters (a Common Lisp reader folds them), and every non-ASCII character,
// because Common Lisp readers may case-fold or normalise those (SBCL applies
// NFKC to unescaped symbol characters: ⒱ reads as (V)).
func needsEscape(r rune) bool {
	switch r {
	case '(', ')', '"', '\'', ';', '`', ',', '#', '[', ']', '\\', '|', ':', '.', '?':
		return true
	}
	return r <= ' ' || r >= 0x7F || r >= 'a' && r <= 'z'
}
