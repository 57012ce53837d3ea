package memory

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory/memexgen"
)

// copyTree copies the regular files below src to dst, in the given order
// of relative paths (so that directory entries are created in that order).
func copyTree(t *testing.T, src, dst string, order []string) {
	t.Helper()
	for _, rel := range order {
		data, err := os.ReadFile(filepath.Join(src, rel))
		require.NoError(t, err)
		p := filepath.Join(dst, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
}

func listFiles(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d os.DirEntry, err error) error {
		require.NoError(t, err)
		if d.Type().IsRegular() {
			rel, _ := filepath.Rel(dir, p)
			out = append(out, rel)
		}
		return nil
	}))
	return out
}

func rootHash(t *testing.T, roots ...string) Hash {
	t.Helper()
	m, err := Open(context.Background(), Options{Roots: roots})
	require.NoError(t, err)
	defer m.Close(context.Background())
	return m.Snapshot().Hash()
}

// TestRootHashStable checks that the root hash depends on the bytes only:
// the same across two runs, across copies of the tree at different
// absolute paths written in different orders, and unmoved by a touch.
func TestRootHashStable(t *testing.T) {
	dir, _ := writeGenerated(t, memexgen.BuiltinSource(), memexgen.Defaults())
	h1 := rootHash(t, dir)
	assert.Equal(t, h1, rootHash(t, dir), "two runs")

	files := listFiles(t, dir)
	rev := slices.Clone(files)
	slices.Reverse(rev)
	other := filepath.Join(t.TempDir(), "elsewhere", "deeper")
	copyTree(t, dir, other, rev)
	assert.Equal(t, h1, rootHash(t, other), "a copy at another path, written in reverse order")

	future := time.Now().Add(48 * time.Hour)
	for _, f := range files {
		require.NoError(t, os.Chtimes(filepath.Join(dir, f), future, future))
	}
	assert.Equal(t, h1, rootHash(t, dir), "after a touch")
	assert.False(t, h1.IsZero())
}

// TestRootHashMovesWithEveryByte edits single bytes at many random
// positions — in headlines, drawers, bodies, blank runs and the zeroth
// section — and checks each edit moves the root hash and the file's hash,
// and that undoing it brings the hash back.
func TestRootHashMovesWithEveryByte(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Headlines = 3, 60
	dir, g := writeGenerated(t, memexgen.BuiltinSource(), o)
	m := openMemex(t, Options{Roots: []string{dir}})
	base := m.Snapshot().Hash()
	rng := rand.New(rand.NewPCG(4, 2))
	ctx := context.Background()
	seen := map[Hash]bool{base: true}
	for k := range 150 {
		f := g.Files[rng.IntN(len(g.Files))]
		path := filepath.Join(dir, filepath.FromSlash(f.Path))
		data := slices.Clone(f.Data)
		at := rng.IntN(len(data))
		switch {
		case k < 10:
			at = rng.IntN(min(len(data), 60)) // the zeroth section: drawer, keywords
		case k < 20:
			// A blank or a newline: whitespace counts too.
			for data[at] != ' ' && data[at] != '\n' {
				at = (at + 1) % len(data)
			}
		}
		orig := data[at]
		for data[at] == orig {
			data[at] = byte(rng.IntN(256))
		}
		s, err := m.SetBuffer(ctx, path, int32(k+2), data)
		require.NoError(t, err)
		h := s.Hash()
		assert.NotEqual(t, base, h, "edit %d at byte %d of %s (%q → %q)", k, at, f.Path, orig, data[at])
		assert.False(t, seen[h], "edit %d collides with an earlier state", k)
		seen[h] = true
		s, err = m.SetBuffer(ctx, path, int32(k+2), f.Data)
		require.NoError(t, err)
		assert.Equal(t, base, s.Hash(), "edit %d undone", k)
	}
}

// TestNodeHashesAreMerkle checks that a node's hash changes exactly when
// its subtree's bytes do: an edit inside one headline moves its hash and
// its ancestors', and leaves its siblings' and their subtrees' alone.
func TestNodeHashesAreMerkle(t *testing.T) {
	root := t.TempDir()
	text := "#+title: T\n\n* A\nbody a\n** A1\nbody a1\n** A2\nbody a2\n* B\nbody b\n"
	testenv.WriteTree(t, root, map[string]string{"t.org": text})
	m := openMemex(t, Options{Roots: []string{root}})
	path := filepath.Join(root, "t.org")
	before := map[string]Hash{}
	for n := range m.Snapshot().Nodes() {
		before[n.Title()] = n.Hash()
	}
	s, err := m.SetBuffer(context.Background(), path, 1, []byte("#+title: T\n\n* A\nbody a\n** A1\nbody a1!\n** A2\nbody a2\n* B\nbody b\n"))
	require.NoError(t, err)
	moved := map[string]bool{}
	for n := range s.Nodes() {
		moved[n.Title()] = n.Hash() != before[n.Title()]
	}
	assert.Equal(t, map[string]bool{"T": true, "A": true, "A1": true, "A2": false, "B": false}, moved)
}
