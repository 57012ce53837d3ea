package lsp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestIsStructural(t *testing.T) {
	src := "* Heading\n:PROPERTIES:\n:ID: a\n:END:\nBody text here.\n"
	at := func(s string) int { return strings.Index(src, s) }
	tests := []struct {
		name       string
		start, end int
		text       string
		want       bool
	}{
		{"typing in a body", at("text"), at("text"), "x", false},
		{"deleting in a body", at("text"), at("text") + 4, "", false},
		{"typing in a headline", at("Heading"), at("Heading"), "x", true},
		{"typing in an ID", at(" a\n") + 1, at(" a\n") + 1, "b", true},
		{"a new line", at("text"), at("text"), "\n", true},
		{"joining lines", at("END:") + 4, at("END:") + 5, "", true},
		{"a body line that becomes a headline", at("Body"), at("Body"), "* ", true},
	}
	for _, tt := range tests {
		assert.Equal(t, tt.want, isStructural([]byte(src), tt.start, tt.end, tt.text), tt.name)
	}
}
