package plist

import (
	"errors"
	"math"
	"math/big"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func bigInt(t *testing.T, s string) *big.Int {
	t.Helper()
	b, ok := new(big.Int).SetString(s, 10)
	require.True(t, ok, s)
	return b
}

// readValueCase is a text the reader accepts and the value it reads.
type readValueCase struct {
	name string
	in   string
	want any // "big:DIGITS" stands for a *big.Int
}

// readValueCases covers every rule of the grammar; emacs_test.go checks each
// against the real Emacs.
func readValueCases() []readValueCase {
	nan := math.NaN()
	return []readValueCase{
		// Lists and plists.
		{"envelope", `(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :VERSION "0.4.0"))`,
			List{Keyword("TYPE"), Keyword("EVENT"), Keyword("PAYLOAD"), List{Keyword("ACTION"), Keyword("HANDSHAKE"), Keyword("VERSION"), "0.4.0"}}},
		{"empty list is nil", `()`, nil},
		{"empty list with space", `(  )`, nil},
		{"nested empty", `(())`, List{nil}},
		{"no space between elements", `(1"a"b(2)3)`, List{int64(1), "a", Symbol("b"), List{int64(2)}, int64(3)}},
		{"surrounding whitespace", " \t\r\n(1)\n ", List{int64(1)}},
		// Whitespace as Emacs reads it.
		{"control characters separate", "(a\x01b\x1fc)", List{Symbol("a"), Symbol("b"), Symbol("c")}},
		{"NUL separates", "(a\x00b)", List{Symbol("a"), Symbol("b")}},
		{"no-break space separates", "(a\u00a0b)", List{Symbol("a"), Symbol("b")}},
		{"DEL is a constituent", "(a\x7fb)", List{Symbol("a\x7fb")}},
		{"ideographic space is a constituent", "(a\u3000b)", List{Symbol("a\u3000b")}},
		{"comment", "(1 ; one\n 2) ; done", List{int64(1), int64(2)}},
		{"comment to end of input", "(1) ;", List{int64(1)}},
		// Keywords.
		{"keyword folds to upper case", `:type`, Keyword("TYPE")},
		{"keyword mixed case", `:Request-Id`, Keyword("REQUEST-ID")},
		{"keyword non-ASCII folds", `:é`, Keyword("É")},
		{"keyword digits", `:1`, Keyword("1")},
		{"keyword of colons", `::`, Keyword(":")},
		{"escaped leading colon is a keyword (as in Emacs)", `\:x`, Keyword("X")},
		{"keyword with escape", `:a\ b`, Keyword("A B")},
		{"keyword that looks like a float", `:1.5`, Keyword("1.5")},
		// t, nil, symbols.
		{"t", `t`, true},
		{"nil", `nil`, nil},
		{"escaped t is still t", `\t`, true},
		{"escaped nil is still nil", `\nil`, nil},
		{"T is a symbol", `T`, Symbol("T")},
		{"NIL is a symbol", `NIL`, Symbol("NIL")},
		{"symbol", `org-mode`, Symbol("org-mode")},
		{"symbol with escaped space", `a\ b`, Symbol("a b")},
		{"escaped digit makes a symbol", `\1`, Symbol("1")},
		{"escape inside a number", `1\0`, Symbol("10")},
		{"escaped dot", `\.`, Symbol(".")},
		{"escaped backslash", `\\`, Symbol(`\`)},
		{"escaped hash", `\#a`, Symbol("#a")},
		{"escaped non-ASCII", `\é`, Symbol("é")},
		{"question mark inside", `a?b`, Symbol("a?b")},
		{"bars are constituents", `|a|`, Symbol("|a|")},
		{"braces are constituents", `{`, Symbol("{")},
		{"dot inside", `a.b`, Symbol("a.b")},
		{"leading dot", `.a`, Symbol(".a")},
		{"minus", `-`, Symbol("-")},
		{"plus", `+`, Symbol("+")},
		{"sign soup", `+-1`, Symbol("+-1")},
		{"hex-looking", `0x10`, Symbol("0x10")},
		{"underscore digits", `1_000`, Symbol("1_000")},
		{"ratio-looking", `1/2`, Symbol("1/2")},
		{"exponent without digits", `1e`, Symbol("1e")},
		{"exponent sign only", `1e+`, Symbol("1e+")},
		{"two dots", `1.5.`, Symbol("1.5.")},
		{"dot exponent", `.e3`, Symbol(".e3")},
		{"lower-case inf", `1.0e+inf`, Symbol("1.0e+inf")},
		{"minus INF exponent", `1.0e-INF`, Symbol("1.0e-INF")},
		{"INF with tail", `1.0e+INF1`, Symbol("1.0e+INF1")},
		{"Arabic digit", `١`, Symbol("١")},
		// Integers.
		{"integer", `42`, int64(42)},
		{"negative", `-7`, int64(-7)},
		{"plus sign", `+1`, int64(1)},
		{"minus zero", `-0`, int64(0)},
		{"leading zeros", `00012`, int64(12)},
		{"trailing dot is an integer", `1.`, int64(1)},
		{"negative trailing dot", `-1.`, int64(-1)},
		{"int64 max", `9223372036854775807`, int64(math.MaxInt64)},
		{"int64 min", `-9223372036854775808`, int64(math.MinInt64)},
		{"bignum", `12345678901234567890123`, "big:12345678901234567890123"},
		{"negative bignum", `-9223372036854775809`, "big:-9223372036854775809"},
		// Floats.
		{"float", `1.5`, 1.5},
		{"leading dot", `.5`, 0.5},
		{"signed leading dot", `-.5`, -0.5},
		{"plus leading dot", `+.5`, 0.5},
		{"exponent", `1e3`, 1000.0},
		{"capital exponent", `1E3`, 1000.0},
		{"dot exponent", `1.e3`, 1000.0},
		{"signed exponent", `1.5E-3`, 0.0015},
		{"plus exponent", `1.0e+3`, 1000.0},
		{"minus zero float", `-0.0`, math.Copysign(0, -1)},
		{"minus dot zero", `-.0`, math.Copysign(0, -1)},
		{"overflow is infinity", `1.0e400`, math.Inf(1)},
		{"underflow is zero", `1e-400`, 0.0},
		{"infinity", `1.0e+INF`, math.Inf(1)},
		{"short infinity", `1e+INF`, math.Inf(1)},
		{"capital E infinity", `1.0E+INF`, math.Inf(1)},
		{"dot infinity", `.5e+INF`, math.Inf(1)},
		{"negative infinity", `-1.0e+INF`, math.Inf(-1)},
		{"NaN", `0.0e+NaN`, nan},
		{"NaN with payload", `1.5e+NaN`, nan},
		{"negative NaN", `-0.0e+NaN`, math.Copysign(nan, -1)},
		// Strings.
		{"string", `"hello"`, "hello"},
		{"empty string", `""`, ""},
		{"raw newline and UTF-8", "\"a\nb é 😀\"", "a\nb é 😀"},
		{"raw control characters", "\"\x00\x01\x7f\"", "\x00\x01\x7f"},
		{"quote and backslash", `"a\"b\\c"`, `a"b\c`},
		{"letter escapes", `"\a\b\t\n\v\f\r\e\s\d"`, "\a\b\t\n\v\f\r\x1b \x7f"},
		{"s-dash is space then dash", `"\s-a"`, " -a"},
		{"other escapes stand for themselves", `"\q\8\'\K\X41"`, "q8'KX41"},
		{"escaped non-ASCII", `"\ü"`, "ü"},
		{"backslash-newline is dropped", "\"a\\\nb\"", "ab"},
		{"backslash-space is dropped", `"\x41\ b"`, "Ab"},
		{"backslash-CR keeps the CR", "\"a\\\r\nb\"", "a\r\nb"},
		{"backslash-tab is a tab", "\"\\\t\"", "\t"},
		{"hex", `"\x41"`, "A"},
		{"hex greedy", `"\x41g"`, "Ag"},
		{"hex leading zeros", `"\x0000000000000000041"`, "A"},
		{"hex above a byte", `"\x100"`, "Ā"},
		{"hex non-BMP", `"\x1F600"`, "😀"},
		{"hex max", `"\x10FFFF"`, "\U0010FFFF"},
		{"hex DEL", `"\x7f"`, "\x7f"},
		{"octal", `"\101"`, "A"},
		{"octal three digits at most", `"\1234"`, "S4"},
		{"octal NUL", `"\0"`, "\x00"},
		{"octal stops at 8", `"\08"`, "\x008"},
		{"octal above a byte", `"\400"`, "Ā"},
		{"u escape", `"\u00e9"`, "é"},
		{"u escape capitals", `"\u00E9"`, "é"},
		{"u escape NUL", `"\u0000"`, "\x00"},
		{"U escape", `"\U0001F600"`, "😀"},
		{"U escape max", `"\U0010FFFF"`, "\U0010FFFF"},
		{"N escape", `"\N{U+41}"`, "A"},
		{"N escape long", `"\N{U+0001F600}"`, "😀"},
		{"escapes and text", `"x\ny\"z"`, "x\ny\"z"},
	}
}

func TestReadValues(t *testing.T) {
	for _, tt := range readValueCases() {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Read([]byte(tt.in))
			require.NoError(t, err)
			want := tt.want
			if s, ok := want.(string); ok && strings.HasPrefix(s, "big:") {
				want = bigInt(t, s[4:])
			}
			assert.True(t, equalValue(want, got), "read %q: got %#v, want %#v", tt.in, got, want)
		})
	}
}

// readErrorCase is a text the reader refuses: where and why.
type readErrorCase struct {
	name   string
	in     string
	offset int
	msg    string
}

// readErrorCases covers every error; emacs_test.go checks that Emacs either
// refuses them too or the refusal is one of the deliberate ones.
func readErrorCases() []readErrorCase {
	return []readErrorCase{
		{"empty input", ``, 0, "holds no value"},
		{"only whitespace", " \n ", 3, "holds no value"},
		{"only a comment", "; hi", 4, "holds no value"},
		{"two values", `(1) (2)`, 4, "trailing text"},
		{"two atoms", `a b`, 2, "trailing text"},
		{"extra paren", `(a))`, 3, "trailing text"},
		{"unexpected close", `)`, 0, "unexpected ')'"},
		{"unclosed list", `(a (b)`, 0, "not closed"},
		{"unclosed inner list", `((a)(b`, 4, "not closed"},
		{"unclosed string", `("abc`, 1, "not closed"},
		{"unclosed string after escape", `"a\n`, 0, "not closed"},
		{"escape at the end", `"\`, 1, "ends inside an escape"},
		{"backslash at the end of a symbol", `a\`, 1, "backslash ends the input"},
		{"read-eval", `#.(delete-file "x")`, 0, `"#."`},
		{"function quote", `#'car`, 0, `"#'"`},
		{"propertized string", `#("a" 0 1 (face bold))`, 0, `"#("`},
		{"record", `#s(x)`, 0, `"#s"`},
		{"hex integer syntax", `#x10`, 0, `"#x"`},
		{"label", `#1=(a . #1#)`, 0, `"#1"`},
		{"empty symbol", `##`, 0, `"##"`},
		{"hash after symbol", `(a#b)`, 2, "#-syntax"},
		{"hash in plist", `(:A #.x)`, 4, "#-syntax"},
		{"quote", `'a`, 0, "quote"},
		{"quote after symbol", `(a'b)`, 2, "quote"},
		{"backquote", "`(a ,b)", 0, "backquote"},
		{"comma", `(a ,b)`, 3, "comma"},
		{"comma-at", `(a ,@b)`, 3, "comma"},
		{"vector", `[1 2]`, 0, "vectors"},
		{"close bracket", `(a])`, 2, "vectors"},
		{"character syntax", `?a`, 0, "character syntax"},
		{"character syntax in list", `(1 ?\C-a)`, 3, "character syntax"},
		{"dotted pair", `(a . b)`, 3, "dotted pairs"},
		{"dotted pair, keyword", `(:A . 1)`, 4, "dotted pairs"},
		{"lone dot at the end", `(a .)`, 3, "dotted pairs"},
		{"lone dot", `.`, 0, "dotted pairs"},
		{"dot before question mark (Emacs's dot)", `.?a`, 0, "dotted pairs"},
		{"lone colon", `:`, 0, "keyword needs a name"},
		{"lone colon in list", `(: 1)`, 1, "keyword needs a name"},
		{"invalid UTF-8", "(\"a\xffb\")", 3, "not valid UTF-8"},
		{"truncated UTF-8", "(a\xc3)", 2, "not valid UTF-8"},
		{"surrogate bytes", "(\xed\xa0\x80)", 1, "not valid UTF-8"},
		{"raw byte hex", `"\xe9"`, 1, "raw byte (0xE9)"},
		{"raw byte hex 80", `"\x80"`, 1, "raw byte"},
		{"raw byte octal", `"\351"`, 1, "raw byte"},
		{"raw byte octal 200", `"\200"`, 1, "raw byte"},
		{"hex without digits", `"\x"`, 1, `\x needs at least one hex digit`},
		{"hex without digits then letter", `"\xg"`, 1, `\x needs at least one hex digit`},
		{"hex beyond Unicode", `"\x110000"`, 1, "above U+10FFFF"},
		{"hex far beyond Unicode", `"\x3fffff"`, 1, "above U+10FFFF"},
		{"hex surrogate", `"\xd800"`, 1, "surrogate"},
		{"u short", `"\u00e"`, 1, "exactly 4 hex digits"},
		{"u not hex", `"\u+041"`, 1, "exactly 4 hex digits"},
		{"u surrogate", `"\ud800"`, 1, "surrogate"},
		{"U short", `"\U1F600"`, 1, "exactly 8 hex digits"},
		{"U beyond Unicode", `"\U00110000"`, 1, "above U+10FFFF"},
		{"N name", `"\N{LATIN SMALL LETTER A}"`, 1, `\N{U+X}`},
		{"N lower-case u", `"\N{u+41}"`, 1, `\N{U+X}`},
		{"N empty", `"\N{U+}"`, 1, "hex digits and a closing brace"},
		{"N unclosed", `"\N{U+41"`, 1, "hex digits and a closing brace"},
		{"N surrogate", `"\N{U+D800}"`, 1, "surrogate"},
		{"N beyond Unicode", `"\N{U+110000}"`, 1, "above U+10FFFF"},
		{"control modifier", `"\C-a"`, 1, "modifier escapes"},
		{"caret modifier", `"\^a"`, 1, "modifier escapes"},
		{"meta modifier", `"\M-a"`, 1, "modifier escapes"},
		{"shift modifier", `"\S-a"`, 1, "modifier escapes"},
		{"hyper modifier", `"\H-a"`, 1, "modifier escapes"},
		{"alt modifier", `"\A-a"`, 1, "modifier escapes"},
		{"second string escape fails", `("ok" "\x80")`, 7, "raw byte"},
	}
}

func TestReadErrors(t *testing.T) {
	for _, tt := range readErrorCases() {
		t.Run(tt.name, func(t *testing.T) {
			v, err := Read([]byte(tt.in))
			require.Error(t, err, "read %q gave %#v", tt.in, v)
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.offset, se.Offset, "offset of %q: %v", tt.in, err)
			assert.Contains(t, err.Error(), tt.msg)
			assert.False(t, errors.Is(err, ErrLimit), "a syntax error is not a limit error")
		})
	}
}

func TestReadLimits(t *testing.T) {
	tests := []struct {
		name   string
		in     string
		lim    Limits
		offset int
	}{
		{"input size", `(1 2 3)`, Limits{MaxBytes: 6}, 6},
		{"depth", `(((1)))`, Limits{MaxDepth: 2}, 2},
		{"elements", `(1 2 3)`, Limits{MaxElements: 3}, 5},
		{"string, no escapes", `"abcdef"`, Limits{MaxString: 5}, 0},
		{"string, escapes", `"ab\ncdef"`, Limits{MaxString: 5}, 0},
		{"symbol", `abcdef`, Limits{MaxAtom: 5}, 0},
		{"number", `123456`, Limits{MaxAtom: 5}, 0},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := ReadWith([]byte(tt.in), tt.lim)
			require.Error(t, err)
			assert.ErrorIs(t, err, ErrLimit)
			var se *SyntaxError
			require.ErrorAs(t, err, &se)
			assert.Equal(t, tt.offset, se.Offset, "%v", err)
		})
	}
	// At the limit is fine.
	fits := []struct {
		in  string
		lim Limits
	}{
		{`(1 2 3)`, Limits{MaxBytes: 7}},
		{`(((1)))`, Limits{MaxDepth: 3}},
		{`(1 2 3)`, Limits{MaxElements: 4}},
		{`"abcde"`, Limits{MaxString: 5}},
		{`"a\nbcd"`, Limits{MaxString: 5}},
		{`abcde`, Limits{MaxAtom: 5}},
	}
	for _, f := range fits {
		_, err := ReadWith([]byte(f.in), f.lim)
		assert.NoError(t, err, f.in)
	}
	// The defaults hold a deep but legitimate message and refuse a hostile one.
	deep := strings.Repeat("(", 64) + strings.Repeat(")", 64)
	_, err := Read([]byte(deep))
	require.NoError(t, err)
	_, err = Read([]byte("(" + deep + ")"))
	assert.ErrorIs(t, err, ErrLimit)
}

// equalValue compares read values: NaNs are equal when their signs are,
// zeros by their sign, big integers by value.
func equalValue(a, b any) bool {
	switch x := a.(type) {
	case float64:
		y, ok := b.(float64)
		if !ok {
			return false
		}
		if math.IsNaN(x) || math.IsNaN(y) {
			return math.IsNaN(x) && math.IsNaN(y) && math.Signbit(x) == math.Signbit(y)
		}
		return x == y && math.Signbit(x) == math.Signbit(y)
	case *big.Int:
		y, ok := b.(*big.Int)
		return ok && x.Cmp(y) == 0
	case List:
		y, ok := b.(List)
		if !ok || len(x) != len(y) {
			return false
		}
		for i := range x {
			if !equalValue(x[i], y[i]) {
				return false
			}
		}
		return true
	default:
		return a == b
	}
}
