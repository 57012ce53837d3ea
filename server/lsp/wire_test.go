package lsp

import (
	"encoding/json"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"go.lsp.dev/protocol"

	"pp-lsp/memory/orgfeat"
	"pp-lsp/orgast"
)

// FuzzJSONString checks appendJSONString against encoding/json: any
// string is written as valid JSON that reads back as the string (with
// invalid UTF-8 as U+FFFD, as encoding/json does).
func FuzzJSONString(f *testing.F) {
	for _, s := range []string{"", "plain", `quote " and \ back`, "tab\tnew\nline\r", "\x00\x1f", "é 日本 🎉", "\xff\xfe bad", "\u2028"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		b := appendJSONString(nil, s)
		var back string
		require.NoError(t, json.Unmarshal(b, &back), "%s", b)
		want := strings.ToValidUTF8(s, "\uFFFD")
		if !utf8.ValidString(s) {
			// encoding/json replaces each invalid byte; so do we.
			want = string([]rune(s))
		}
		assert.Equal(t, want, back)
	})
}

// outline is the reference the hand-written appendOutline is checked
// against: the DocumentSymbol tree built as structs, children filled
// bottom-up (a child always follows its parent).
func outline(org *orgast.File) []documentSymbolResult {
	hs := org.Headlines
	syms := make([]documentSymbolResult, len(hs))
	kids := make([][]int, len(hs))
	var roots []int
	for i := range hs {
		h := &hs[i]
		sel := h.TitleRange
		if sel.Len() == 0 {
			sel = h.Line
		}
		syms[i] = documentSymbolResult{
			Name: orgfeat.HeadlineName(h), Detail: orgfeat.HeadlineDetail(h), Kind: symbolKind(h),
			Range:          protocol.Range{Start: positionAt(org, h.Line.Start), End: positionAt(org, subtreeEnd(org, h))},
			SelectionRange: rangeAt(org, sel),
		}
		if h.Parent >= 0 {
			kids[h.Parent] = append(kids[h.Parent], i)
		} else {
			roots = append(roots, i)
		}
	}
	// Children after their parents in document order: fill bottom-up.
	for i := len(hs) - 1; i >= 0; i-- {
		if len(kids[i]) == 0 {
			continue
		}
		syms[i].Children = make([]documentSymbolResult, len(kids[i]))
		for j, k := range kids[i] {
			syms[i].Children[j] = syms[k]
		}
	}
	out := make([]documentSymbolResult, len(roots))
	for j, r := range roots {
		out[j] = syms[r]
	}
	return out
}

// TestOutlineJSON checks the hand-written outline against the structs:
// the same tree, the same positions.
func TestOutlineJSON(t *testing.T) {
	src := "#+title: T\n* TODO [#A] One :a:b:\nbody\n** Two\n*** Três 🎉\n* \"Quoted\" \\ back\n*\n** Last\n"
	org := orgast.Parse([]byte(src))
	var got []documentSymbolResult
	require.NoError(t, json.Unmarshal(appendOutline(nil, org), &got))
	assert.Equal(t, outline(org), got)
}
