package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory/trigram"
)

// TestRecheckSeesWhatNoOneReported: Recheck makes the memex hold what the
// disk holds, whatever no watcher said — a setup file of another name
// given a privacy tag, a buffer's note whose setup file changed, a note
// rewritten in place with its size and modification time kept (read too
// soon after its change for its time to tell), a note replaced by another
// file of the same size and time, a note gone — and changes nothing when
// the disk is as read.
func TestRecheckSeesWhatNoOneReported(t *testing.T) {
	ctx := context.Background()
	const note = "#+SETUPFILE: ./x.setup\n* Harbour\n:PROPERTIES:\n:ID: harbour\n:END:\nThe keeper hides marzipan under the third stair.\n"
	const tagged = "#+FILETAGS: :private: \n* Harbour\n:PROPERTIES:\n:ID: harbour\n:END:\nThe keeper hides marzipan under the third stair.\n"
	require.Len(t, tagged, len(note))
	old := time.Now().Add(-time.Hour).Truncate(time.Second)
	tests := []struct {
		name string
		// settled: the files' times are an hour old when read.
		settled bool
		change  func(t *testing.T, mx *Memex, root string)
		private bool
	}{
		{"nothing changed", true, func(*testing.T, *Memex, string) {}, false},
		{"the setup file tagged", true, func(t *testing.T, _ *Memex, root string) {
			write(t, filepath.Join(root, "x.setup"), "#+FILETAGS: :private:\n", time.Time{})
		}, true},
		{"the setup file tagged, the note open in a buffer", true, func(t *testing.T, mx *Memex, root string) {
			_, err := mx.SetBuffer(ctx, filepath.Join(root, "a.org"), 1, []byte(note))
			require.NoError(t, err)
			write(t, filepath.Join(root, "x.setup"), "#+FILETAGS: :private:\n", time.Time{})
		}, true},
		{"the note tagged in place, its size and time kept", false, func(t *testing.T, _ *Memex, root string) {
			p := filepath.Join(root, "a.org")
			fi, err := os.Stat(p)
			require.NoError(t, err)
			write(t, p, tagged, fi.ModTime())
		}, true},
		{"the note replaced by another file of its size and time", true, func(t *testing.T, _ *Memex, root string) {
			p := filepath.Join(root, "a.org")
			tmp := filepath.Join(root, ".a.org.new")
			write(t, tmp, tagged, old)
			require.NoError(t, os.Rename(tmp, p))
		}, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			testenv.WriteTree(t, root, map[string]string{"a.org": note, "x.setup": "#+TITLE: setup\n", "b.org": "* Public\nSee [[id:harbour]].\n"})
			when := time.Now()
			if tt.settled {
				when = old
			}
			for _, f := range []string{"a.org", "x.setup", "b.org"} {
				require.NoError(t, os.Chtimes(filepath.Join(root, f), when, when))
			}
			mx, err := Open(ctx, Options{Roots: []string{root}})
			require.NoError(t, err)
			defer mx.Close(ctx)
			before := mx.Snapshot()
			require.False(t, nodePrivate(t, before, filepath.Join(root, "a.org")))

			tt.change(t, mx, root)
			s, err := mx.Recheck(ctx)
			require.NoError(t, err)
			assert.Equal(t, tt.private, nodePrivate(t, s, filepath.Join(root, "a.org")))
			_, named := s.FileOfID("harbour")
			assert.Equal(t, !tt.private, named)
			if tt.name == "nothing changed" {
				assert.Same(t, before, s, "nothing read again, nothing published")
			}
			again, err := mx.Recheck(ctx)
			require.NoError(t, err)
			assert.Equal(t, tt.private, nodePrivate(t, again, filepath.Join(root, "a.org")))
		})
	}
	t.Run("a note gone", func(t *testing.T) {
		root := t.TempDir()
		testenv.WriteTree(t, root, map[string]string{"a.org": note, "x.setup": "#+TITLE: setup\n"})
		mx, err := Open(ctx, Options{Roots: []string{root}})
		require.NoError(t, err)
		defer mx.Close(ctx)
		require.NoError(t, os.Remove(filepath.Join(root, "a.org")))
		s, err := mx.Recheck(ctx)
		require.NoError(t, err)
		_, ok := s.File(filepath.Join(root, "a.org"))
		assert.False(t, ok)
	})
}

func nodePrivate(t *testing.T, s *Snapshot, path string) bool {
	t.Helper()
	h, ok := s.NodeAt(path, 2)
	require.True(t, ok)
	return h.Private()
}

// write puts text at path and, unless mtime is zero, sets its times.
func write(t *testing.T, path, text string, mtime time.Time) {
	t.Helper()
	require.NoError(t, os.WriteFile(path, []byte(text), 0o644))
	if !mtime.IsZero() {
		require.NoError(t, os.Chtimes(path, mtime, mtime))
	}
}

// BenchmarkRecheck100k is what Recheck costs before each question on the
// 100k-headline memex (1000 files) as read: a stat of each file, nothing
// read again; and with every note naming one setup file (a shared theme,
// as many have), each note judged again too.
func BenchmarkRecheck100k(b *testing.B) {
	for _, setup := range []bool{false, true} {
		name := "plain"
		if setup {
			name = "every-note-with-a-setup-file"
		}
		b.Run(name, func(b *testing.B) {
			dir, _ := writeGenerated(b, corpusSource(b), bench100k())
			ctx := context.Background()
			old := time.Now().Add(-time.Hour)
			files := 0
			require.NoError(b, filepath.Walk(dir, func(p string, fi os.FileInfo, err error) error {
				if err != nil || !fi.Mode().IsRegular() {
					return err
				}
				files++
				if setup {
					src, err := os.ReadFile(p)
					require.NoError(b, err)
					require.NoError(b, os.WriteFile(p, append([]byte("#+SETUPFILE: ../theme.setup\n"), src...), 0o644))
				}
				return os.Chtimes(p, old, old)
			}))
			require.NoError(b, os.WriteFile(filepath.Join(filepath.Dir(dir), "theme.setup"), []byte("#+STARTUP: overview\n"), 0o644))
			m, err := Open(ctx, Options{Roots: []string{dir}})
			require.NoError(b, err)
			defer m.Close(ctx)
			b.ReportMetric(float64(files), "files")
			for b.Loop() {
				_, err := m.Recheck(ctx)
				require.NoError(b, err)
			}
		})
	}
}

// TestNoTextOfANoteMadePrivateMeanwhileIsEmbedded: a note judged public
// when read, then made private on disk before its nodes are embedded — its
// setup file (not named .org: no watcher reports it) given a privacy tag,
// or the note itself so tagged, which no watcher reports either, or the
// disk's copy of a note open in an editor buffer so tagged — sends
// the embedder (a model too, most often on another machine) none of its
// text; the public note beside it is embedded.
func TestNoTextOfANoteMadePrivateMeanwhileIsEmbedded(t *testing.T) {
	const harbour = "* Harbour\nThe keeper hides marzipan under the third stair.\n"
	for _, tc := range []struct {
		name       string
		files      map[string]string
		file, text string
		// rewrite, when set, is b.org's new text, written too: a file read
		// again before the batch, whose reading judges the setup files.
		rewrite string
		// open: a.org is open in an editor buffer, as on disk, when the
		// disk's copy is tagged.
		open bool
	}{
		{"its setup file tagged", map[string]string{"a.org": "#+SETUPFILE: ./x.setup\n" + harbour, "x.setup": "#+TITLE: setup\n"},
			"x.setup", "#+FILETAGS: :private:\n", "", false},
		{"its setup file tagged, another note rewritten", map[string]string{"a.org": "#+SETUPFILE: ./x.setup\n" + harbour, "x.setup": "#+TITLE: setup\n"},
			"x.setup", "#+FILETAGS: :private:\n", "* Lighthouse\nThe lamp gets new glass and a wick.\n", false},
		{"the note tagged", map[string]string{"a.org": harbour},
			"a.org", "#+FILETAGS: :private:\n" + harbour, "", false},
		{"the disk's copy of a note open in a buffer tagged", map[string]string{"a.org": harbour},
			"a.org", "#+FILETAGS: :private:\n" + harbour, "", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			tc.files["b.org"] = "* Lighthouse\nThe lamp gets new glass.\n"
			testenv.WriteTree(t, root, tc.files)
			emb := &flakyEmbedder{failures: 1, inner: trigram.New()}
			m := openMemex(t, Options{Roots: []string{root}, Embed: true, Embedder: emb, backoffMin: 300 * time.Millisecond})
			require.Eventually(t, func() bool {
				emb.mu.Lock()
				defer emb.mu.Unlock()
				return emb.calls >= 1
			}, 10*time.Second, 5*time.Millisecond, "the first batch was tried")
			if tc.open {
				_, err := m.SetBuffer(context.Background(), filepath.Join(root, "a.org"), 1, []byte(harbour))
				require.NoError(t, err)
			}
			require.NoError(t, os.WriteFile(filepath.Join(root, tc.file), []byte(tc.text), 0o644))
			if tc.rewrite != "" {
				require.NoError(t, os.WriteFile(filepath.Join(root, "b.org"), []byte(tc.rewrite), 0o644))
			}
			ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
			defer cancel()
			require.NoError(t, m.WaitEmbedded(ctx))
			emb.mu.Lock()
			defer emb.mu.Unlock()
			require.Greater(t, emb.calls, 1, "the batch was tried again")
			for _, text := range emb.texts {
				assert.NotContains(t, text, "marzipan")
			}
			assert.True(t, contains(emb.texts, "new glass"), "the public note is embedded")
		})
	}
}
