package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory/store"
)

func readString(t *testing.T, p string) string {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return string(b)
}

// TestRollbackUndoesDiskWrites plays a failed agent pass — a file
// rewritten, one created, one deleted — and rolls back: the disk and the
// memex are as before the pass, and the root hash is the old one.
func TestRollbackUndoesDiskWrites(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"keep.org": "* Keep\n", "edit.org": "* Before\n", "gone.org": "* Will be deleted\n"})
	m := openMemex(t, Options{Roots: []string{root}})
	ctx := context.Background()
	before := m.Snapshot()
	p := func(n string) string { return filepath.Join(root, n) }

	require.NoError(t, store.WriteFileAtomic(p("edit.org"), []byte("* After\n"), 0o644))
	require.NoError(t, os.WriteFile(p("new.org"), []byte("* Created by the pass\n"), 0o644))
	require.NoError(t, os.Remove(p("gone.org")))
	during, err := m.ReloadFiles(ctx, p("edit.org"), p("new.org"), p("gone.org"))
	require.NoError(t, err)
	require.NotEqual(t, before.Hash(), during.Hash())

	res, err := m.Rollback(ctx, before)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{p("edit.org"), p("gone.org")}, res.Restored)
	assert.Equal(t, []string{p("new.org")}, res.Removed)
	assert.Empty(t, res.Conflicts)
	assert.Empty(t, res.Buffers)
	assert.Equal(t, "* Before\n", readString(t, p("edit.org")))
	assert.Equal(t, "* Will be deleted\n", readString(t, p("gone.org")))
	assert.NoFileExists(t, p("new.org"))
	assert.Equal(t, before.Hash(), res.Snapshot.Hash())
	assert.Greater(t, res.Snapshot.Generation(), during.Generation(), "generations only grow")
	e0, _ := before.entry(p("keep.org"))
	e1, _ := res.Snapshot.entry(p("keep.org"))
	assert.Same(t, e0.idx, e1.idx)
	// The memex after the rollback agrees with a fresh read of the disk.
	assert.Equal(t, before.Hash(), rootHash(t, root))

	again, err := m.Rollback(ctx, before)
	require.NoError(t, err)
	assert.Same(t, res.Snapshot, again.Snapshot, "nothing left to undo")
}

// TestRollbackNeverOverwritesOthers leaves a file alone when someone else
// changed it after the pass: the user's bytes stay and are reported.
func TestRollbackNeverOverwritesOthers(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "n.org")
	testenv.WriteTree(t, root, map[string]string{"n.org": "* Original\n"})
	m := openMemex(t, Options{Roots: []string{root}})
	ctx := context.Background()
	before := m.Snapshot()
	require.NoError(t, os.WriteFile(path, []byte("* The pass wrote this\n"), 0o644))
	_, err := m.ReloadFiles(ctx, path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte("* The user wrote this after\n"), 0o644))

	res, err := m.Rollback(ctx, before)
	require.NoError(t, err)
	require.Len(t, res.Conflicts, 1)
	assert.Equal(t, path, res.Conflicts[0].Path)
	assert.Equal(t, "* The user wrote this after\n", readString(t, path))
	n, _ := res.Snapshot.NodeAt(path, 0)
	assert.Equal(t, "The user wrote this after", n.Title(), "the memex mirrors the disk")
}

// TestRollbackOpenBuffer never writes behind an open buffer: the old text
// comes back for the caller to apply through the editor.
func TestRollbackOpenBuffer(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "open.org")
	testenv.WriteTree(t, root, map[string]string{"open.org": "* Open in the editor\n"})
	m := openMemex(t, Options{Roots: []string{root}})
	ctx := context.Background()
	_, err := m.SetBuffer(ctx, path, 1, []byte("* Open in the editor\n"))
	require.NoError(t, err)
	before := m.Snapshot()
	_, err = m.SetBuffer(ctx, path, 2, []byte("* Edited by the pass through the editor\n"))
	require.NoError(t, err)
	res, err := m.Rollback(ctx, before)
	require.NoError(t, err)
	require.Len(t, res.Buffers, 1)
	assert.Equal(t, BufferRestore{Path: path, Text: []byte("* Open in the editor\n"), Exists: true}, res.Buffers[0])
	assert.Empty(t, res.Restored)
	assert.Equal(t, "* Open in the editor\n", readString(t, path), "the disk is untouched")
	n, _ := res.Snapshot.NodeAt(path, 0)
	assert.Equal(t, "Edited by the pass through the editor", n.Title(), "the buffer is the editor's until it reports the revert")
}

// TestRollbackForeignSnapshot refuses a snapshot of another memex.
func TestRollbackForeignSnapshot(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	ma := openMemex(t, Options{Roots: []string{a}})
	mb := openMemex(t, Options{Roots: []string{b}})
	_, err := ma.Rollback(context.Background(), mb.Snapshot())
	assert.Error(t, err)
	_, err = ma.Rollback(context.Background(), nil)
	assert.Error(t, err)
}
