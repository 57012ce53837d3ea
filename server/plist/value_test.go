package plist

import (
	"math/big"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func mustRead(t *testing.T, s string) any {
	t.Helper()
	v, err := Read([]byte(s))
	require.NoError(t, err, s)
	return v
}

func TestAsPlist(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want Plist
		err  string
	}{
		{"plist", `(:A 1 :B "x")`, Plist{}.Add("A", int64(1)).Add("B", "x"), ""},
		{"nil is the empty plist", `nil`, nil, ""},
		{"odd length", `(:A 1 :B)`, nil, "even number"},
		{"non-keyword key", `(:A 1 b 2)`, nil, "element 3 of the list is a symbol"},
		{"string key", `("A" 1)`, nil, "element 1 of the list is a string"},
		{"atom", `42`, nil, "an integer is not a property list"},
		{"string", `"(:A 1)"`, nil, "a string is not a property list"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			p, err := AsPlist(mustRead(t, tt.in))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.False(t, IsPlist(mustRead(t, tt.in)))
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, p)
		})
	}
}

func TestPlistAccessors(t *testing.T) {
	p, err := AsPlist(mustRead(t, `(:TEXT "hi" :N 3 :BIG 99999999999999999999 :K :shell :SUB (:X 1) :BAD (1 2 3) :TEXT "second")`))
	require.NoError(t, err)

	s, ok := p.String("TEXT")
	assert.True(t, ok)
	assert.Equal(t, "hi", s, "the first of a duplicated key wins, as with plist-get")
	_, ok = p.String("N")
	assert.False(t, ok)

	n, ok := p.Int("N")
	assert.True(t, ok)
	assert.Equal(t, int64(3), n)
	_, ok = p.Int("BIG")
	assert.False(t, ok, "a bignum is not an int64")

	k, ok := p.Keyword("K")
	assert.True(t, ok)
	assert.Equal(t, Keyword("SHELL"), k)

	sub, ok := p.Plist("SUB")
	assert.True(t, ok)
	assert.Equal(t, Plist{}.Add("X", int64(1)), sub)
	empty, ok := p.Plist("MISSING")
	assert.True(t, ok)
	assert.Empty(t, empty)
	_, ok = p.Plist("BAD")
	assert.False(t, ok)

	_, ok = p.Get("MISSING")
	assert.False(t, ok)

	back, err := Marshal(p.List())
	require.NoError(t, err)
	assert.Equal(t, `(:TEXT "hi" :N 3 :BIG 99999999999999999999 :K :SHELL :SUB (:X 1) :BAD (1 2 3) :TEXT "second")`, string(back))
	assert.Nil(t, Plist{}.List())
}

// TestGenericView decodes the two plist forms of an action that DESIGN §6
// says are the same action, the way the gates read them.
func TestGenericView(t *testing.T) {
	design := mustRead(t, `(:TOOL :SHELL :ARGS (:CMD "ls notes" :CWD ".") :EXPLANATION "why")`)
	p, err := AsPlist(design)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"TOOL":        "SHELL",
		"ARGS":        map[string]any{"CMD": "ls notes", "CWD": "."},
		"EXPLANATION": "why",
	}, p.Map())

	seed := mustRead(t, `(:type :request :payload (:action :shell :cmd "ls notes" :explanation "why"))`)
	p, err = AsPlist(seed)
	require.NoError(t, err)
	assert.Equal(t, map[string]any{
		"TYPE":    "REQUEST",
		"PAYLOAD": map[string]any{"ACTION": "SHELL", "CMD": "ls notes", "EXPLANATION": "why"},
	}, p.Map())

	mixed := mustRead(t, `(:A (1 sym (:X t) nil) :B 1.5 :C nil :D t :E 123456789012345678901234567890 :A "dup")`)
	p, err = AsPlist(mixed)
	require.NoError(t, err)
	huge, _ := new(big.Int).SetString("123456789012345678901234567890", 10)
	assert.Equal(t, map[string]any{
		"A": []any{int64(1), "sym", map[string]any{"X": true}, nil},
		"B": 1.5, "C": nil, "D": true, "E": huge,
	}, p.Map())

	// ToGo keeps the order; it is idempotent.
	g := ToGo(mixed)
	ordered, ok := g.(Plist)
	require.True(t, ok)
	keys := []Keyword{}
	for _, kv := range ordered {
		keys = append(keys, kv.Key)
	}
	assert.Equal(t, []Keyword{"A", "B", "C", "D", "E", "A"}, keys)
	assert.Equal(t, g, ToGo(g))
	assert.Equal(t, []any{"x", int64(1)}, ToGo(mustRead(t, `(x 1)`)), "symbols keep their case")
	assert.Equal(t, "K", ToGo(Keyword("K")))

	// The Go view prints back to the same text (maps print with sorted keys).
	text, err := Marshal(ToGo(design))
	require.NoError(t, err)
	assert.Equal(t, `(:TOOL "SHELL" :ARGS (:CMD "ls notes" :CWD ".") :EXPLANATION "why")`, string(text))
	text, err = Marshal(p.Map())
	require.NoError(t, err)
	assert.Equal(t, `(:A (1 "sym" (:X t) nil) :B 1.5 :C nil :D t :E 123456789012345678901234567890)`, string(text))
}
