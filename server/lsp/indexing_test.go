package lsp

import (
	"encoding/json"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/memory/memexgen"
)

// TestServedWhileIndexing opens and edits a buffer while a large memex is
// still being indexed: the edits are applied in order, requests wait for
// the memex and then see the buffer as edited, and the indexing shows as
// $/progress begin, reports with percentages, end.
func TestServedWhileIndexing(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "memex")
	opts := memexgen.Defaults()
	opts.Files, opts.Headlines = 400, 40_000
	m, err := memexgen.Generate(memexgen.BuiltinSource(), opts)
	require.NoError(t, err)
	require.NoError(t, m.WriteDir(root))
	note := filepath.Join(root, "aaa-note.org")
	require.NoError(t, os.WriteFile(note, []byte("* Before\n"), 0o644))

	env := map[string]string{"HOME": dir, "PASSEPARTOUT_DATA_DIR": filepath.Join(dir, "data"), "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "HEARTBEAT_INTERVAL": "3600"}
	c := newTestClient(t, Options{Getenv: func(k string) string { return env[k] }, WorkDir: root})
	var res initializeResult
	c.mustCall(protocol.MethodInitialize, map[string]any{
		"rootUri": uri.File(root), "capabilities": capabilities(clientFull),
	}, &res)
	c.notify(protocol.MethodInitialized, map[string]any{})
	// At once, before the memex is ready.
	c.openText(note, "* Before\n")
	c.edit(note, 2, 8, "After the edit")
	var syms []documentSymbolResult
	c.mustCall(protocol.MethodTextDocumentDocumentSymbol, map[string]any{"textDocument": map[string]any{"uri": uri.File(note)}}, &syms)
	require.Len(t, syms, 1)
	assert.Equal(t, "After the edit", syms[0].Name)
	c.waitReady()
	var ws []symbolInformation
	c.mustCall(protocol.MethodWorkspaceSymbol, map[string]any{"query": "After the edit"}, &ws)
	require.NotEmpty(t, ws)
	assert.Equal(t, "After the edit", ws[0].Name, "the memex took over the buffer opened while it was indexing")

	c.waitFor("the end of the indexing's progress", 30*time.Second, func() bool {
		for _, n := range c.notesOf(protocol.MethodProgress) {
			var v struct {
				Value progressValue `json:"value"`
			}
			if json.Unmarshal(n.params, &v) == nil && v.Value.Kind == "end" {
				return true
			}
		}
		return false
	})
	var kinds []string
	var pcts []uint32
	for _, n := range c.notesOf(protocol.MethodProgress) {
		var v struct {
			Value progressValue `json:"value"`
		}
		require.NoError(t, json.Unmarshal(n.params, &v))
		kinds = append(kinds, v.Value.Kind)
		if v.Value.Percentage != nil {
			pcts = append(pcts, *v.Value.Percentage)
		}
	}
	require.GreaterOrEqual(t, len(kinds), 3)
	assert.Equal(t, "begin", kinds[0])
	assert.Equal(t, "end", kinds[len(kinds)-1])
	assert.Contains(t, kinds, "report")
	require.NotEmpty(t, pcts)
	assert.Equal(t, uint32(100), pcts[len(pcts)-1])
	for i := 1; i < len(pcts); i++ {
		assert.LessOrEqual(t, pcts[i-1], pcts[i], "percentages only grow")
	}
	t.Logf("progress: %v, percentages %v", kinds, pcts)
}
