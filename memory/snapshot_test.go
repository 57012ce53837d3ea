package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory/memexgen"
)

// TestSnapshotSharing checks that updating one file yields a snapshot that
// shares every other file's index and every untouched index shard, and
// that the old snapshot is unchanged.
func TestSnapshotSharing(t *testing.T) {
	dir, _ := writeGenerated(t, memexgen.BuiltinSource(), memexgen.Defaults())
	m := openMemex(t, Options{Roots: []string{dir}})
	old := m.Snapshot()
	oldFig := old.Figures()
	target := old.order[3]
	data, err := os.ReadFile(target)
	require.NoError(t, err)
	nw, err := m.SetBuffer(context.Background(), target, 1, append(data, "\n* Added :idea:\n:PROPERTIES:\n:ID: added-1\n:END:\n"...))
	require.NoError(t, err)
	require.Greater(t, nw.Generation(), old.Generation())

	shared := 0
	for _, p := range old.order {
		oe, _ := old.entry(p)
		ne, ok := nw.entry(p)
		require.True(t, ok)
		if p == target {
			assert.NotSame(t, oe.idx, ne.idx)
			continue
		}
		assert.Same(t, oe.idx, ne.idx, p)
		shared++
	}
	assert.Equal(t, len(old.order)-1, shared)
	// Index shards: only the one holding the new ID was copied.
	copied := 0
	for i := range old.ids.shards {
		if fmt.Sprintf("%p", old.ids.shards[i]) != fmt.Sprintf("%p", nw.ids.shards[i]) {
			copied++
		}
	}
	assert.Equal(t, 1, copied)
	assert.True(t, nw.HasID("added-1"))
	assert.False(t, old.HasID("added-1"), "the old snapshot never changes")
	assert.Equal(t, oldFig, old.Figures())
	assert.Equal(t, oldFig.Headlines+1, nw.Figures().Headlines)
}

// TestReadersNeverWaitForWriters runs readers that walk whole snapshots
// while writers edit, reload and roll back, under -race: every snapshot a
// reader holds stays internally consistent (its figures never change
// while it walks), and generations only grow.
func TestReadersNeverWaitForWriters(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Headlines = 10, 200
	dir, g := writeGenerated(t, memexgen.BuiltinSource(), o)
	m := openMemex(t, Options{Roots: []string{dir}, Embed: true})
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	var wg sync.WaitGroup
	var reads atomic.Int64
	for range 4 {
		wg.Go(func() {
			last := uint64(0)
			for ctx.Err() == nil {
				s := m.Snapshot()
				require.GreaterOrEqual(t, s.Generation(), last)
				last = s.Generation()
				f1 := s.Figures()
				nodes := 0
				for n := range s.Nodes() {
					nodes++
					_ = n.Title()
					_ = s.Backlinks(n)
				}
				require.Equal(t, f1.Nodes, nodes)
				require.Equal(t, f1, s.Figures())
				if n, ok := s.NodeAt(s.order[0], 3); ok {
					if _, err := s.Nearest(context.Background(), n, NearestOptions{K: 3}); err != nil {
						require.ErrorIs(t, err, ErrNoVector)
					}
				}
				reads.Add(1)
			}
		})
	}
	wg.Go(func() {
		base := m.Snapshot()
		for k := 0; ctx.Err() == nil; k++ {
			f := g.Files[k%len(g.Files)]
			path := filepath.Join(dir, filepath.FromSlash(f.Path))
			_, err := m.SetBuffer(ctx, path, int32(k), append(append([]byte(nil), f.Data...), fmt.Sprintf("* Edit %d\n", k)...))
			if ctx.Err() != nil {
				return
			}
			require.NoError(t, err)
			if k%7 == 0 {
				_, err := m.CloseBuffer(ctx, path)
				require.NoError(t, err)
			}
			if k%11 == 0 {
				_, err := m.Rollback(ctx, base)
				if ctx.Err() == nil {
					require.NoError(t, err)
				}
			}
		}
	})
	wg.Wait()
	assert.Positive(t, reads.Load())
}

// TestBufferOfTheDiskTextIsShared checks that a buffer opened with the
// text the memex holds shares its outline and index (a large file is not
// parsed and indexed a second time when an editor opens it), yet is a
// buffer: its version is kept, and its edits and a close work as usual.
func TestBufferOfTheDiskTextIsShared(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "n.org")
	text := "* Disk\n:PROPERTIES:\n:ID: disk-1\n:END:\nSee [[id:disk-1]].\n"
	testenv.WriteTree(t, root, map[string]string{"n.org": text})
	m := openMemex(t, Options{Roots: []string{root}})
	ctx := context.Background()
	before, ok := m.Snapshot().File(path)
	require.True(t, ok)
	s, err := m.SetBuffer(ctx, path, 7, []byte(text))
	require.NoError(t, err)
	n, ok := s.File(path)
	require.True(t, ok)
	assert.Same(t, before.Org(), n.Org(), "the outline is shared")
	v, ok := s.BufferVersion(path)
	assert.True(t, ok)
	assert.Equal(t, int32(7), v)
	assert.Empty(t, s.FileFindings(path))
	s, err = m.EditBuffer(ctx, path, 8, TextEdit{Start: 2, End: 6, Text: "Buffer"})
	require.NoError(t, err)
	n, _ = s.NodeAt(path, 1)
	assert.Equal(t, "Buffer", n.Title())
	s, err = m.CloseBuffer(ctx, path)
	require.NoError(t, err)
	n, _ = s.NodeAt(path, 1)
	assert.Equal(t, "Disk", n.Title(), "closed: the disk's again")
}

// TestBufferOverlaysDisk checks the overlay rules: an open buffer's text
// is the file's content whatever happens on disk; closing it brings the
// disk's content back; a buffer may exist before its file does.
func TestBufferOverlaysDisk(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "n.org")
	testenv.WriteTree(t, root, map[string]string{"n.org": "* Disk one\n"})
	m := openMemex(t, Options{Roots: []string{root}})
	ctx := context.Background()
	title := func(s *Snapshot) string {
		n, ok := s.NodeAt(path, 0)
		require.True(t, ok)
		return n.Title()
	}
	s, err := m.SetBuffer(ctx, path, 3, []byte("* Buffer\n"))
	require.NoError(t, err)
	assert.Equal(t, "Buffer", title(s))
	v, ok := s.BufferVersion(path)
	assert.True(t, ok)
	assert.Equal(t, int32(3), v)

	require.NoError(t, os.WriteFile(path, []byte("* Disk two\n"), 0o644))
	s, err = m.ReloadFiles(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "Buffer", title(s), "a disk change never clobbers the buffer")
	s, err = m.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, "Buffer", title(s))

	s, err = m.EditBuffer(ctx, path, 4, TextEdit{Start: 2, End: 8, Text: "Edited"})
	require.NoError(t, err)
	assert.Equal(t, "Edited", title(s))
	text, ok := s.BufferText(path)
	assert.True(t, ok)
	assert.Equal(t, "* Edited\n", string(text), "the buffer's text, not the disk's")
	_, err = m.EditBuffer(ctx, path, 5, TextEdit{Start: 50, End: 60})
	assert.Error(t, err, "an edit outside the text")

	s, err = m.CloseBuffer(ctx, path)
	require.NoError(t, err)
	assert.Equal(t, "Disk two", title(s))
	_, ok = s.BufferVersion(path)
	assert.False(t, ok)
	_, ok = s.BufferText(path)
	assert.False(t, ok, "no buffer: no buffer text")

	fresh := filepath.Join(root, "sub", "new.org")
	s, err = m.SetBuffer(ctx, fresh, 1, []byte("* Not saved yet\n"))
	require.NoError(t, err)
	_, ok = s.File(fresh)
	assert.True(t, ok)
	s, err = m.CloseBuffer(ctx, fresh)
	require.NoError(t, err)
	_, ok = s.File(fresh)
	assert.False(t, ok, "closed without saving: gone")

	for _, bad := range []string{filepath.Join(t.TempDir(), "x.org"), filepath.Join(root, ".hidden", "x.org"), filepath.Join(root, "x.txt")} {
		_, err := m.SetBuffer(ctx, bad, 1, []byte("* X\n"))
		assert.ErrorIs(t, err, ErrNotInMemex, bad)
	}
}

// TestRefreshAndReload picks up new, changed and removed files from disk;
// a touch alone keeps the shared index.
func TestRefreshAndReload(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"a.org": "* A\n", "b.org": "* B\n"})
	m := openMemex(t, Options{Roots: []string{root}})
	ctx := context.Background()
	s0 := m.Snapshot()
	a0, _ := s0.entry(filepath.Join(root, "a.org"))

	future := time.Now().Add(time.Hour)
	require.NoError(t, os.Chtimes(filepath.Join(root, "a.org"), future, future))
	s1, err := m.Refresh(ctx)
	require.NoError(t, err)
	a1, _ := s1.entry(filepath.Join(root, "a.org"))
	assert.Same(t, a0.idx, a1.idx, "touched, not changed")
	assert.Equal(t, s0.Hash(), s1.Hash())

	testenv.WriteTree(t, root, map[string]string{"c.org": "* C\n", "a.org": "* A changed\n"})
	require.NoError(t, os.Remove(filepath.Join(root, "b.org")))
	s2, err := m.Refresh(ctx)
	require.NoError(t, err)
	assert.Equal(t, []string{"a.org", "c.org"}, relFiles(s2))
	n, _ := s2.NodeAt(filepath.Join(root, "a.org"), 0)
	assert.Equal(t, "A changed", n.Title())

	testenv.WriteTree(t, root, map[string]string{"d.org": "* D\n"})
	require.NoError(t, os.Remove(filepath.Join(root, "c.org")))
	s3, err := m.ReloadFiles(ctx, filepath.Join(root, "d.org"), filepath.Join(root, "c.org"), filepath.Join(t.TempDir(), "elsewhere.org"))
	require.NoError(t, err)
	assert.Equal(t, []string{"a.org", "d.org"}, relFiles(s3))
}

// TestSetBufferOwnership checks who owns a buffer's text: SetBuffer keeps
// a copy (the caller's slice may change afterwards), SetBufferOwned keeps
// the caller's slice itself, and no later edit or version of the buffer
// writes to a text an older snapshot holds.
func TestSetBufferOwnership(t *testing.T) {
	for _, tc := range []struct {
		name  string
		owned bool
	}{{"copied", false}, {"owned", true}} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			path := filepath.Join(root, "n.org")
			m := openMemex(t, Options{Roots: []string{root}})
			ctx := context.Background()
			const first = "* Alpha\nSome words.\n* Beta\nMore words.\n"
			text := []byte(first)
			set := m.SetBuffer
			if tc.owned {
				set = m.SetBufferOwned
			}
			s1, err := set(ctx, path, 1, text)
			require.NoError(t, err)
			f1, ok := s1.File(path)
			require.True(t, ok)
			held := f1.Org().Src
			require.Equal(t, first, string(held))
			assert.Equal(t, tc.owned, &held[0] == &text[0], "the memex holds the caller's slice only when handed over")

			_, err = m.EditBuffer(ctx, path, 2, TextEdit{Start: 2, End: 7, Text: "Gamma"})
			require.NoError(t, err)
			s3, err := m.SetBufferOwned(ctx, path, 3, []byte("* Delta\nSome words.\n* Beta\nMore words.\n"))
			require.NoError(t, err)
			n, ok := s3.NodeAt(path, 0)
			require.True(t, ok)
			assert.Equal(t, "Delta", n.Title())
			assert.Equal(t, first, string(held), "later versions never write to an older snapshot's text")
			n, ok = s1.NodeAt(path, 0)
			require.True(t, ok)
			assert.Equal(t, "Alpha", n.Title(), "the older snapshot still reads its own text")
		})
	}
}
