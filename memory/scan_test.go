package memory

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// writeTree writes files (slash paths relative to dir) with their text.
func writeTree(t *testing.T, dir string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
}

// relFiles lists the memex's files relative to their roots.
func relFiles(s *Snapshot) []string {
	var out []string
	for n := range s.Files() {
		out = append(out, n.RelPath())
	}
	return out
}

func openMemex(t *testing.T, opts Options) *Memex {
	t.Helper()
	m, err := Open(context.Background(), opts)
	require.NoError(t, err)
	t.Cleanup(func() { m.Close(context.Background()) })
	return m
}

// TestScanRules checks which files make the memex: *.org only, hidden
// folders and files (Emacs lock files among them) skipped, symlinks
// followed only inside the root, loops harmless, each real file once.
func TestScanRules(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	outside := filepath.Join(base, "outside")
	writeTree(t, root, map[string]string{
		"a.org":              "* A\n",
		"b.ORG":              "* not org by name\n",
		"notes.txt":          "* not org\n",
		"sub/c.org":          "* C\n",
		".hidden/d.org":      "* hidden folder\n",
		".e.org":             "* hidden file\n",
		"sub/#f.org#":        "* auto-save\n",
		"sub/g.org~":         "* backup\n",
		"deep/x/y/z/h.org":   "* deep\n",
		"real/i.org":         "* target of links inside the root\n",
		"space name/j k.org": "* spaces\n",
	})
	writeTree(t, outside, map[string]string{"o.org": "* outside\n", "dir/p.org": "* outside dir\n"})
	// An Emacs lock file: a dangling symlink named .#a.org.
	require.NoError(t, os.Symlink("user@host.1234:1700000000", filepath.Join(root, ".#a.org")))
	// Symlinks leaving the root: ignored.
	require.NoError(t, os.Symlink(filepath.Join(outside, "o.org"), filepath.Join(root, "out-file.org")))
	require.NoError(t, os.Symlink(filepath.Join(outside, "dir"), filepath.Join(root, "out-dir")))
	// Symlinks inside the root: a second way to real files (indexed once,
	// under their real path), and a loop back to the root.
	require.NoError(t, os.Symlink(filepath.Join(root, "real"), filepath.Join(root, "alias")))
	require.NoError(t, os.Symlink(filepath.Join(root, "real", "i.org"), filepath.Join(root, "i-link.org")))
	require.NoError(t, os.Symlink(root, filepath.Join(root, "sub", "loop")))
	require.NoError(t, os.Symlink("missing.org", filepath.Join(root, "dangling.org")))
	// A fifo named like an Org file must never be opened (it would block).
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "pipe.org"), 0o644))

	m := openMemex(t, Options{Roots: []string{root}})
	got := relFiles(m.Snapshot())
	assert.Equal(t, []string{"a.org", "deep/x/y/z/h.org", "real/i.org", "space name/j k.org", "sub/c.org"}, got)
}

// TestScanSymlinkOnlyPath indexes a file reachable only through a symlink
// inside the root under that symlinked path.
func TestScanSymlinkOnlyPath(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	writeTree(t, root, map[string]string{".store/n.org": "* kept in a hidden folder\n"})
	require.NoError(t, os.Symlink(filepath.Join(root, ".store"), filepath.Join(root, "notes")))
	m := openMemex(t, Options{Roots: []string{root}})
	assert.Equal(t, []string{"notes/n.org"}, relFiles(m.Snapshot()))
}

// TestScanRoots covers several roots: order kept, a nested root's files
// belong to the first root holding them, and a missing root is an error
// naming it.
func TestScanRoots(t *testing.T) {
	base := t.TempDir()
	a, b := filepath.Join(base, "a"), filepath.Join(base, "a", "b")
	writeTree(t, a, map[string]string{"x.org": "* X\n", "b/y.org": "* Y\n"})
	m := openMemex(t, Options{Roots: []string{b, a}})
	s := m.Snapshot()
	var roots []int
	for n := range s.Files() {
		roots = append(roots, n.Root())
	}
	assert.Equal(t, []string{"y.org", "x.org"}, relFiles(s))
	assert.Equal(t, []int{0, 1}, roots)

	_, err := Open(context.Background(), Options{Roots: []string{filepath.Join(base, "nope")}})
	require.ErrorIs(t, err, ErrRoot)
	assert.Contains(t, err.Error(), "nope")
	_, err = Open(context.Background(), Options{Roots: []string{filepath.Join(a, "x.org")}})
	require.ErrorIs(t, err, ErrRoot)
	_, err = Open(context.Background(), Options{})
	require.ErrorIs(t, err, ErrRoot)
}

// TestScanTooLarge leaves out a file over the size limit, with a finding.
func TestScanTooLarge(t *testing.T) {
	root := t.TempDir()
	writeTree(t, root, map[string]string{"small.org": "* S\n", "big.org": "* B\n" + string(make([]byte, 200))})
	m := openMemex(t, Options{Roots: []string{root}, MaxFileBytes: 100})
	s := m.Snapshot()
	assert.Equal(t, []string{"small.org"}, relFiles(s))
	fs := s.Findings()
	require.Len(t, fs, 1)
	assert.Equal(t, CodeFileTooLarge, fs[0].Code)
	assert.Equal(t, 1, s.Figures().Skipped)
	assert.True(t, slices.ContainsFunc(s.FileFindings(filepath.Join(root, "big.org")), func(f Finding) bool { return f.Code == CodeFileTooLarge }))
}
