package orgfeat

import (
	"context"
	"path/filepath"
	"runtime"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// TestForgetLetsOldOutlinesGo: once a buffer changed and the caches were
// told (Forget), neither the symbol index nor the note index keeps its
// old outline — and so its old text — alive.
func TestForgetLetsOldOutlinesGo(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"a.org": "* Alpha\n:PROPERTIES:\n:ROAM_ALIASES: First\n:END:\n* Beta\n", "b.org": "* Other\n"})
	ctx := context.Background()
	mx, err := memory.Open(ctx, memory.Options{Roots: []string{root}})
	require.NoError(t, err)
	t.Cleanup(func() { mx.Close(ctx) })
	path := filepath.Join(root, "a.org")
	symbols, notes := NewSymbolIndex(), NewNoteIndex()

	old := func() weak.Pointer[orgast.File] {
		_, err := mx.SetBuffer(ctx, path, 1, []byte("* Alpha\n:PROPERTIES:\n:ROAM_ALIASES: First\n:END:\n* Beta one\n"))
		require.NoError(t, err)
		snap := mx.Snapshot()
		require.NotEmpty(t, symbols.Search(ctx, snap, "beta", 10))
		require.NotEmpty(t, notes.ByName(snap, "First"))
		n, ok := snap.File(path)
		require.True(t, ok)
		return weak.Make(n.Org())
	}()
	_, err = mx.SetBuffer(ctx, path, 2, []byte("* Alpha\n:PROPERTIES:\n:ROAM_ALIASES: First\n:END:\n* Beta two\n"))
	require.NoError(t, err)
	n, ok := mx.Snapshot().File(path)
	require.True(t, ok)
	symbols.Forget(path, n.Org())
	notes.Forget(path, n.Org())
	runtime.GC()
	runtime.GC()
	assert.Nil(t, old.Value(), "the old outline is let go")
	// The caches still answer, from the new outline.
	assert.Equal(t, "Beta two", symbols.Search(ctx, mx.Snapshot(), "beta two", 10)[0].Name)
	runtime.KeepAlive(symbols)
	runtime.KeepAlive(notes)
}
