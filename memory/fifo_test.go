package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestAFIFOSwappedForANoteIsNotWaitedOn: a FIFO put where a note was,
// after the memex listed it, is refused when the memex reads the file
// again (a watcher's event, the agent's reload) — a plain open waited for
// a writer for ever, holding the memex's one writer — and a rollback
// that finds one on disk reports it, never waits.
func TestAFIFOSwappedForANoteIsNotWaitedOn(t *testing.T) {
	root := t.TempDir()
	p := filepath.Join(root, "note.org")
	require.NoError(t, os.WriteFile(p, []byte("* a\n"), 0o644))
	ctx := context.Background()
	m, err := Open(ctx, Options{Roots: []string{root}})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close(ctx) })
	before := m.Snapshot()
	require.NoError(t, os.WriteFile(p, []byte("* b\n"), 0o644))
	_, err = m.ReloadFiles(ctx, p)
	require.NoError(t, err)

	require.NoError(t, os.Remove(p))
	testenv.MakeFIFO(t, p)
	require.NoError(t, testenv.Promptly(t, p, func() error { _, err := m.ReloadFiles(ctx, p); return err }))
	_, ok := m.Snapshot().File(p)
	assert.False(t, ok, "the FIFO is no note")

	var res *RollbackResult
	require.NoError(t, testenv.Promptly(t, p, func() error {
		var err error
		res, err = m.Rollback(ctx, before)
		return err
	}))
	require.Len(t, res.Conflicts, 1, "%+v", res)
	assert.Equal(t, p, res.Conflicts[0].Path)
	assert.Contains(t, res.Conflicts[0].Reason, "FIFO")
}
