package memory

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

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
	testenv.WriteTree(t, root, map[string]string{
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
	testenv.WriteTree(t, outside, map[string]string{"o.org": "* outside\n", "dir/p.org": "* outside dir\n"})
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
	testenv.MakeFIFO(t, filepath.Join(root, "pipe.org"))

	m := openMemex(t, Options{Roots: []string{root}})
	got := relFiles(m.Snapshot())
	assert.Equal(t, []string{"a.org", "deep/x/y/z/h.org", "real/i.org", "space name/j k.org", "sub/c.org"}, got)
}

// TestScanSymlinkOnlyPath indexes a file reachable only through a symlink
// inside the root under that symlinked path.
func TestScanSymlinkOnlyPath(t *testing.T) {
	base := t.TempDir()
	root := filepath.Join(base, "root")
	testenv.WriteTree(t, root, map[string]string{".store/n.org": "* kept in a hidden folder\n"})
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
	testenv.WriteTree(t, a, map[string]string{"x.org": "* X\n", "b/y.org": "* Y\n"})
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
	testenv.WriteTree(t, root, map[string]string{"small.org": "* S\n", "big.org": "* B\n" + string(make([]byte, 200))})
	m := openMemex(t, Options{Roots: []string{root}, MaxFileBytes: 100})
	s := m.Snapshot()
	assert.Equal(t, []string{"small.org"}, relFiles(s))
	fs := s.Findings()
	require.Len(t, fs, 1)
	assert.Equal(t, CodeFileTooLarge, fs[0].Code)
	assert.Equal(t, 1, s.Figures().Skipped)
	assert.True(t, slices.ContainsFunc(s.FileFindings(filepath.Join(root, "big.org")), func(f Finding) bool { return f.Code == CodeFileTooLarge }))
}

// TestScanNotText leaves out *.org files that are not text, with a
// finding, and keeps text in other encodings that is mostly ASCII.
func TestScanNotText(t *testing.T) {
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), make([]byte, 3300)...)
	utf16 := []byte("\xff\xfe*\x00 \x00N\x00o\x00t\x00e\x00\n\x00")
	latin1 := []byte("* Caf\xe9 cr\xe8me\nD\xe9j\xe0 vu, na\xefve, \xe0 la fran\xe7aise.\n")
	cp1251 := []byte("* \xcf\xf0\xe8\xe2\xe5\xf2\n\xc7\xe4\xf0\xe0\xe2\xf1\xf2\xe2\xf3\xe9\xf2\xe5, \xec\xe8\xf0.\n")
	nulLate := append(append([]byte("* Text first\n"), bytes.Repeat([]byte("words "), 2000)...), 0) // past the sample
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{
		"note.org": "* A note\n", "image.org": string(png), "utf16.org": string(utf16),
		"latin1.org": string(latin1), "cp1251.org": string(cp1251), "late.org": string(nulLate),
	})
	m := openMemex(t, Options{Roots: []string{root}})
	s := m.Snapshot()
	assert.Equal(t, []string{"late.org", "latin1.org", "note.org"}, relFiles(s))
	fg := s.Figures()
	assert.Equal(t, 3, fg.SkippedFiles)
	assert.Equal(t, 3, fg.Skipped)
	for _, name := range []string{"image.org", "utf16.org", "cp1251.org"} {
		fs := s.FileFindings(filepath.Join(root, name))
		require.Len(t, fs, 1, name)
		assert.Equal(t, CodeNotText, fs[0].Code, name)
		assert.Contains(t, fs[0].Message, "is left out of the memex", name)
	}
	assert.Contains(t, s.FileFindings(filepath.Join(root, "image.org"))[0].Message, "NUL bytes")
	assert.Contains(t, s.FileFindings(filepath.Join(root, "cp1251.org"))[0].Message, "save it as UTF-8")

	// A file that turns binary leaves the memex on the next rescan; one
	// that turns back into text joins again.
	require.NoError(t, os.WriteFile(filepath.Join(root, "note.org"), png, 0o644))
	s, err := m.ReloadFiles(context.Background(), filepath.Join(root, "note.org"))
	require.NoError(t, err)
	assert.NotContains(t, relFiles(s), "note.org")
	require.NoError(t, os.WriteFile(filepath.Join(root, "image.org"), []byte("* Now text\n"), 0o644))
	s, err = m.Refresh(context.Background())
	require.NoError(t, err)
	assert.Contains(t, relFiles(s), "image.org")
	assert.NotContains(t, relFiles(s), "note.org")
}

func TestCheckText(t *testing.T) {
	assert.NoError(t, CheckText(nil))
	assert.NoError(t, CheckText([]byte("* Ünïcödé — fine ✓\n")))
	// A UTF-8 sequence cut by the end of the sample is not held against it.
	cut := append(bytes.Repeat([]byte("a"), textSample-1), "é"...)
	assert.NoError(t, CheckText(cut))
	assert.ErrorIs(t, CheckText([]byte("a\x00b")), ErrNotText)
	assert.ErrorIs(t, CheckText(bytes.Repeat([]byte{0xff, 'a', 'b'}, 100)), ErrNotText)
	assert.NoError(t, CheckText(bytes.Repeat([]byte{0xff, 'a', 'b', 'c', 'd'}, 100)), "a fifth is within the share")
}
