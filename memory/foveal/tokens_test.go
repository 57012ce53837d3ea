package foveal

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestCountTokens checks each rule of the documented counter on inputs
// whose count follows from the rules by hand.
func TestCountTokens(t *testing.T) {
	tests := []struct {
		name string
		in   string
		want int
	}{
		{"empty", "", 0},
		{"line end", "\n", 1},
		{"blank lines", "\n\n\n", 3},
		{"a short word", "the", 1},
		{"a word of five letters", "parse", 1},
		{"a word of six letters", "parser", 2},
		{"a blank joins the next word", "the cat", 2},
		{"a run of blanks is a token", "the   cat", 3},
		{"a blank before digits is a token", "in 2026", 1 + 1 + 2},
		{"digits per three", "1234567", 3},
		{"camelCase splits", "camelCase", 2},
		{"capitals per three", "PROPERTIES", 4},
		{"one capital does not make an acronym", "Parse", 1},
		{"punctuation per two", ":::", 2},
		{"a property line", ":ID: abc\n", 1 + 1 + 1 + 1 + 1},
		{"trailing blank", "x \n", 3},
		{"2-byte letters", "été", 3},
		{"3-byte characters per two thirds", "日本語", 5},
		{"4-byte characters", "🙂", 3},
		{"an ellipsis", "…", 2},
		{"invalid bytes count one each", "\xff\xfe", 2},
		{"a truncated sequence", "\xe6\x97", 2},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			assert.Equal(t, tt.want, CountTokens(tt.in))
			assert.Equal(t, tt.want, countTokens([]byte(tt.in)), "the byte form counts the same")
		})
	}
}

// FuzzCountTokens checks the counter's laws on any bytes: additive over
// lines (the renderer budgets line by line), at most one token per byte,
// at least one per line end, and the same on strings and bytes.
func FuzzCountTokens(f *testing.F) {
	for _, s := range []string{"", "a\nb", "* TODO x :tag:\n:PROPERTIES:\n", "日本\n語", "🙂\n\xff", "  \n\t\n"} {
		f.Add(s, s)
	}
	f.Fuzz(func(t *testing.T, a, b string) {
		if !strings.HasSuffix(a, "\n") {
			a += "\n"
		}
		assert.Equal(t, CountTokens(a)+CountTokens(b), CountTokens(a+b), "additive over lines")
		n := CountTokens(b)
		assert.LessOrEqual(t, n, len(b))
		assert.GreaterOrEqual(t, n, strings.Count(b, "\n"))
		assert.Equal(t, n, countTokens([]byte(b)))
	})
}
