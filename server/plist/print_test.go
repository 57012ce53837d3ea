package plist

import (
	"math"
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestPrint(t *testing.T) {
	tests := []struct {
		name string
		in   any
		want string
	}{
		{"nil", nil, `nil`},
		{"true", true, `t`},
		{"false", false, `nil`},
		{"string", "hello", `"hello"`},
		{"string escapes only quote and backslash", "a\"b\\c\nd\té\x00", "\"a\\\"b\\\\c\nd\té\x00\""},
		{"invalid UTF-8 becomes U+FFFD", "a\xffb", "\"a\uFFFDb\""},
		{"invalid UTF-8 with a quote", "\"\xff", "\"\\\"\uFFFD\""},
		{"keyword", Keyword("TYPE"), `:TYPE`},
		{"keyword printed upper case", Keyword("request-id"), `:REQUEST-ID`},
		{"keyword digit first", Keyword("1"), `:\1`},
		{"keyword with colon", Keyword(":"), `:\:`},
		{"keyword with space", Keyword("A B"), `:A\ B`},
		{"symbol lower case escaped for Common Lisp", Symbol("org"), `\o\r\g`},
		{"symbol upper case", Symbol("ORG-MODE"), `ORG-MODE`},
		{"symbol looks like integer", Symbol("1"), `\1`},
		{"symbol looks like negative", Symbol("-1.5"), `\-1\.5`},
		{"symbol minus", Symbol("-"), `\-`},
		{"symbol dot", Symbol("."), `\.`},
		{"symbol specials", Symbol("A(B)C\"D'E;F`G,H#I[J]K\\L|M:N?O"), `A\(B\)C\"D\'E\;F\` + "`" + `G\,H\#I\[J\]K\\L\|M\:N\?O`},
		{"symbol whitespace", Symbol("A B\tC\u00a0D\x7fE"), "A\\ B\\\tC\\\u00a0D\\\x7fE"},
		{"symbol T stays", Symbol("T"), `T`},
		{"int", 42, `42`},
		{"int64 min", int64(math.MinInt64), `-9223372036854775808`},
		{"uint64 max", uint64(math.MaxUint64), `18446744073709551615`},
		{"int8", int8(-3), `-3`},
		{"big", new(big.Int).Lsh(big.NewInt(1), 100), `1267650600228229401496703205376`},
		{"nil big", (*big.Int)(nil), `nil`},
		{"float", 1.5, `1.5`},
		{"float integral", 100.0, `100.0`},
		{"float tenth", 0.1, `0.1`},
		{"float large", 1e20, `100000000000000000000.0`},
		{"float exponent", 1e21, `1.0e+21`},
		{"float exponent with fraction", 1.5e300, `1.5e+300`},
		{"float small", 1e-7, `1.0e-07`},
		{"float small fraction", 1.25e-7, `1.25e-07`},
		{"float at the small bound", 1e-4, `0.0001`},
		{"zero", 0.0, `0.0`},
		{"negative zero", math.Copysign(0, -1), `-0.0`},
		{"infinity", math.Inf(1), `1.0e+INF`},
		{"negative infinity", math.Inf(-1), `-1.0e+INF`},
		{"NaN", math.NaN(), `0.0e+NaN`},
		{"negative NaN", math.Copysign(math.NaN(), -1), `-0.0e+NaN`},
		{"float32", float32(0.5), `0.5`},
		{"list", List{Keyword("A"), int64(1), List{"x"}}, `(:A 1 ("x"))`},
		{"empty list", List{}, `nil`},
		{"slice", []any{1, "a", nil, true}, `(1 "a" nil t)`},
		{"string slice", []string{"a", "b"}, `("a" "b")`},
		{"empty string slice", []string{}, `nil`},
		{"plist", Plist{}.Add("TYPE", Keyword("EVENT")).Add("PAYLOAD", Plist{}.Add("TEXT", "")), `(:TYPE :EVENT :PAYLOAD (:TEXT ""))`},
		{"empty plist", Plist{}, `nil`},
		{"map sorted, keys upper-cased", map[string]any{"tool": "shell", "args": map[string]any{"cwd": ".", "cmd": "ls"}},
			`(:ARGS (:CMD "ls" :CWD ".") :TOOL "shell")`},
		{"empty map", map[string]any{}, `nil`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, err := Marshal(tt.in)
			require.NoError(t, err)
			assert.Equal(t, tt.want, string(got))
		})
	}
}

func TestPrintErrors(t *testing.T) {
	self := []any{nil}
	self[0] = self
	tests := []struct {
		name string
		in   any
		msg  string
	}{
		{"empty keyword", Keyword(""), "empty keyword"},
		{"empty symbol", Symbol(""), "empty name"},
		{"symbol t", Symbol("t"), "boolean"},
		{"symbol nil", Symbol("nil"), "boolean"},
		{"symbol with colon first", Symbol(":A"), "use Keyword"},
		{"unsupported Go type", struct{}{}, "no plist form"},
		{"unsupported inside a list", List{1, make(chan int)}, "no plist form"},
		{"unsupported inside a plist", Plist{}.Add("A", func() {}), "no plist form"},
		{"bad keyword inside a map", map[string]any{"": 1}, "empty keyword"},
		{"self-containing slice", self, "deeper than"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := Marshal(tt.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
}

// TestPrintReadsBack is the reader→printer→reader agreement on a generated
// corpus (the Emacs and Common Lisp tests check the same corpus against the
// real readers).
func TestPrintReadsBack(t *testing.T) {
	for i, v := range corpus(t, 2000) {
		text, err := Marshal(v)
		require.NoError(t, err, "value %d: %#v", i, v)
		got, err := Read(text)
		require.NoError(t, err, "value %d printed as %q", i, text)
		assert.True(t, equalValue(v, got), "value %d: printed %q, read back %#v, want %#v", i, text, got, v)
	}
}

func TestAppendKeepsPrefix(t *testing.T) {
	dst := []byte("000000")
	out, err := Append(dst, List{Keyword("A"), "b"})
	require.NoError(t, err)
	assert.Equal(t, `000000(:A "b")`, string(out))
}
