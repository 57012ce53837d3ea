package lsp

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/workspace"
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

func TestWorkspaceEditUsesUTF16Columns(t *testing.T) {
	base := []byte("* 😀 é\nline two\n")
	off := len("* 😀 é")
	e := workspace.Edit{Path: "/m/a.org", Open: true, Version: 0, Base: base, Changes: []workspace.Change{{Start: off, End: off, NewText: "!"}},
		Label: "answer", NeedsConfirmation: true}
	we, err := workspaceEdit(e)
	require.NoError(t, err)
	js, err := json.Marshal(we)
	require.NoError(t, err)
	s := string(js)
	assert.Contains(t, s, `"start":{"line":0,"character":6}`, "* , space, 😀 (two UTF-16 units), space, é")
	assert.Contains(t, s, `"version":0`, "an open buffer's version is sent even when it is 0")
	assert.Contains(t, s, `"needsConfirmation":true`)
	assert.Contains(t, s, `"annotationId":"passepartout"`)
	assert.Contains(t, s, `"file:///m/a.org"`)

	e.Open = false
	js, _ = json.Marshal(must(workspaceEdit(e)))
	assert.Contains(t, string(js), `"version":null`)
}

func must[T any](v T, err error) T {
	if err != nil {
		panic(err)
	}
	return v
}
