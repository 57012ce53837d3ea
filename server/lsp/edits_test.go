package lsp

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/orgast"
)

func TestAddIDChange(t *testing.T) {
	const id = "11111111-2222-3333-4444-555555555555"
	tests := []struct {
		name string
		src  string
		node int // headline index, -1 for the file
		want string
		ok   bool
	}{
		{"a headline without a drawer", "* A\nBody.\n", 0, "* A\n:PROPERTIES:\n:ID:       " + id + "\n:END:\nBody.\n", true},
		{"after the planning line, indented like it", "* A\n  SCHEDULED: <2026-01-01 Thu>\n  Body.\n", 0,
			"* A\n  SCHEDULED: <2026-01-01 Thu>\n  :PROPERTIES:\n  :ID:       " + id + "\n  :END:\n  Body.\n", true},
		{"into an existing drawer", "* A\n:PROPERTIES:\n:EFFORT: 1d\n:END:\n", 0, "* A\n:PROPERTIES:\n:ID:       " + id + "\n:EFFORT: 1d\n:END:\n", true},
		{"the last line without a line end", "* A", 0, "* A\n:PROPERTIES:\n:ID:       " + id + "\n:END:", true},
		{"a child headline", "* A\n** B\n", 1, "* A\n** B\n:PROPERTIES:\n:ID:       " + id + "\n:END:\n", true},
		{"CR LF lines", "* A\r\nBody.\r\n", 0, "* A\r\n:PROPERTIES:\r\n:ID:       " + id + "\r\n:END:\r\nBody.\r\n", true},
		{"the file", "#+title: T\n* A\n", -1, ":PROPERTIES:\n:ID:       " + id + "\n:END:\n#+title: T\n* A\n", true},
		{"the file's drawer", ":PROPERTIES:\n:X: y\n:END:\n#+title: T\n", -1, ":PROPERTIES:\n:ID:       " + id + "\n:X: y\n:END:\n#+title: T\n", true},
		{"an ID already", "* A\n:PROPERTIES:\n:ID: x\n:END:\n", 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			org := orgast.Parse([]byte(tt.src))
			ins, ok := addIDChange(org, tt.node, id)
			require.Equal(t, tt.ok, ok)
			if !ok {
				return
			}
			got := tt.src[:ins.start] + ins.text + tt.src[ins.start:]
			assert.Equal(t, tt.want, got)
			// Org reads the ID where it was put.
			after := orgast.Parse([]byte(got))
			if tt.node < 0 {
				v, _ := after.ID()
				assert.Equal(t, id, v)
			} else {
				v, _ := after.Headlines[tt.node].Drawer.Get("ID")
				assert.Equal(t, id, v)
			}
		})
	}
}

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
