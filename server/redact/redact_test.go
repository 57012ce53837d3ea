package redact_test

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
	"pp-lsp/memory/memexgen"
	"pp-lsp/server/redact"
)

const (
	bank   = "My PIN for the bank is 4711, and the card code is 9876."
	doctor = "Call Dr. Müller about the biopsy results on Friday morning."
)

func TestRedact(t *testing.T) {
	f := redact.New([]string{bank, doctor, "and it was the end of it"}, []string{"hunter2", "Tante Erna"})
	for _, tc := range []struct {
		name, in, want string
		runs           int
	}{
		{"a whole note", "cat says: " + bank + "\n", "cat says: [private].\n", 1},
		{"a grep line", "notes/a.txt:12:My PIN for the bank is 4711, and the card", "notes/a.txt:12:[private]", 1},
		{"case, spacing and line breaks", "my  pin\nFOR THE bank is\t4711", "[private]", 1},
		{"the middle of a note", "x the bank is 4711 and the y", "x [private] y", 1},
		{"two notes", doctor + " then " + bank, "[private]. then [private].", 2},
		{"folded non-ASCII", "CALL DR MÜLLER ABOUT THE BIOPSY", "[private]", 1},
		{"a short private body", "password: hunter2 (old)", "password: [private] (old)", 1},
		{"a short private body of two words", "write to tante  ERNA soon", "write to [private] soon", 1},
		{"three words of a note are not a quote", "bank is 4711", "bank is 4711", 0},
		{"common words alone are not", "so: and it was the", "so: and it was the", 0},
		{"ordinary text", "ls notes\nideas.org\nindex.org\n", "ls notes\nideas.org\nindex.org\n", 0},
		{"empty", "", "", 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got, n := f.Redact(tc.in)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, tc.runs, n)
		})
	}
}

func TestRedactLeavesNoFourWordRunOfANote(t *testing.T) {
	notes := []string{bank, doctor}
	f := redact.New(notes, nil)
	r := rand.New(rand.NewPCG(1, 2))
	filler := strings.Fields("alpha beta gamma delta notes index ideas make test ran ok")
	for range 500 {
		// Random filler around a random slice of a random note, in random case.
		note := strings.Fields(notes[r.IntN(len(notes))])
		i := r.IntN(len(note) - 3)
		j := i + 4 + r.IntN(len(note)-i-3)
		quote := strings.Join(note[i:j], " ")
		if r.IntN(2) == 0 {
			quote = strings.ToUpper(quote)
		}
		var b strings.Builder
		for range r.IntN(5) {
			b.WriteString(filler[r.IntN(len(filler))] + " ")
		}
		b.WriteString(quote)
		for range r.IntN(5) {
			b.WriteString(" " + filler[r.IntN(len(filler))])
		}
		got, n := f.Redact(b.String())
		assert.Positive(t, n, b.String())
		assert.NotContains(t, strings.ToLower(got), strings.ToLower(strings.Join(note[i:i+4], " ")), b.String())
	}
}

func TestFromSnapshot(t *testing.T) {
	root := t.TempDir()
	mx := openMemex(t, root, map[string]string{
		"public.org":   "* Plans\nShip the parser before the holidays begin.\n",
		"mixed.org":    "* Work\nPublic words here.\n* Health :PRIVATE:\n** Appointments\nThe cardiologist appointment is on the third of March.\n",
		"diary.org":    "#+FILETAGS: :@personal:\n* Monday\nI felt tired after the long meeting today.\n",
		"pin.org":      "* PIN :private:\n4711\n",
		"untagged.org": "* Quote\nThe cardiologist appointment is on the third of March, copied.\n",
	})
	var c redact.Cache
	f := c.For(mx.Snapshot(), "")
	assert.Same(t, f, c.For(mx.Snapshot(), ""), "one index per snapshot")
	assert.Equal(t, []string{filepath.Join(root, "diary.org"), filepath.Join(root, "mixed.org"), filepath.Join(root, "pin.org")}, f.Files())

	got, _ := f.Redact(string(mustRead(t, filepath.Join(root, "untagged.org"))))
	assert.Equal(t, "* Quote\n[private], copied.\n", got, "an inherited private body copied elsewhere")
	got, _ = f.Redact("grep: I felt tired after the long meeting")
	assert.Equal(t, "grep: [private]", got, "a file-level privacy tag")
	got, _ = f.Redact("the code is 4711")
	assert.Equal(t, "the code is [private]", got)
	public := string(mustRead(t, filepath.Join(root, "public.org"))) + "* Work\nPublic words here.\n"
	got, n := f.Redact(public)
	assert.Equal(t, public, got)
	assert.Zero(t, n)
	assert.True(t, (*redact.Filter)(nil).Empty())
	assert.Nil(t, c.For(nil, ""))
}

// TestLooseNotes: files under the roots that hold private notes but are
// no memex files — Org's archive of a public note, Org text in a .txt, a
// note in a hidden folder — are listed (the sandbox hides them) and their
// text is filtered; a binary file and a .git folder are not read; a
// change is seen at the next For, and what did not change is not read
// again.
func TestLooseNotes(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{
		"ideas.org":          "* Ideas\nA public idea about gardens.\n",
		"ideas.org_archive":  "#+ARCHIVE: ideas.org\n* Vault :PRIVATE:\nThe lighthouse keeper hid the emerald under the third stair.\n",
		"diary.txt":          "* Money :private:\nMy neighbour owes me nine hundred crowns since April.\n* Public\nThe weather was fine.\n",
		".hidden/secret.org": "#+filetags: :@personal:\n* Note\nThe spare key hangs behind the clock.\n",
		"photo.png":          "\x89PNG\x00\x00* Vault :private:\nbinary words that are not a note at all\n",
		".git/objects/ab/cd": "* Vault :private:\nwords in a git object that is not a note\n",
		"notes/plain.txt":    "A plain text file with no Org in it.\n",
	})
	// A FIFO is no note, and reading it must not wait for a writer.
	testenv.MakeFIFO(t, filepath.Join(root, "pipe.txt"))
	ctx := context.Background()
	mx, err := memory.Open(ctx, memory.Options{Roots: []string{root}})
	require.NoError(t, err)
	defer mx.Close(ctx)
	var c redact.Cache
	f := c.For(mx.Snapshot(), "")
	assert.Equal(t, []string{filepath.Join(root, ".hidden/secret.org"), filepath.Join(root, "diary.txt"), filepath.Join(root, "ideas.org_archive")}, f.Files())
	for _, out := range []string{
		"cat: The lighthouse keeper hid the emerald under the third stair.",
		"My neighbour owes me nine hundred crowns since April.",
		"The spare key hangs behind the clock.",
	} {
		got, n := f.Redact(out)
		assert.Equal(t, 1, n, got)
		assert.NotContains(t, got, "emerald")
		assert.NotContains(t, got, "crowns")
		assert.NotContains(t, got, "spare key")
	}
	for _, out := range []string{"The weather was fine.", "binary words that are not a note at all", "words in a git object that is not a note"} {
		got, n := f.Redact(out)
		assert.Zero(t, n, got)
	}
	assert.Same(t, f, c.For(mx.Snapshot(), ""), "nothing changed: the same filter")

	// A new private note in a text file, one taken away.
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes/plain.txt"), []byte("* Later :private:\nThe boat is moored at pier seven now.\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(root, "diary.txt")))
	f = c.For(mx.Snapshot(), "")
	assert.Equal(t, []string{filepath.Join(root, ".hidden/secret.org"), filepath.Join(root, "ideas.org_archive"), filepath.Join(root, "notes/plain.txt")}, f.Files())
	got, _ := f.Redact("The boat is moored at pier seven now.")
	assert.Equal(t, "[private].", got)
	got, n := f.Redact("My neighbour owes me nine hundred crowns since April.")
	assert.Zero(t, n, got)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

func FuzzRedact(f *testing.F) {
	filter := redact.New([]string{bank, doctor}, []string{"hunter2"})
	f.Add("cat: " + bank)
	f.Add("\xff\xfe" + doctor + "\x00")
	f.Add("hunter2 hunter2")
	f.Fuzz(func(t *testing.T, s string) {
		got, n := filter.Redact(s)
		if n == 0 && got != s {
			t.Fatalf("nothing redacted, yet the text changed: %q → %q", s, got)
		}
		again, _ := filter.Redact(got)
		if again != got {
			t.Fatalf("redacting twice changes the text: %q → %q", got, again)
		}
	})
}

func BenchmarkRedact(b *testing.B) {
	r := rand.New(rand.NewPCG(3, 4))
	words := strings.Fields("the memex holds notes ideas projects meetings reading lists and a journal of each day with tasks and links between them")
	sentence := func() string {
		var s []string
		for range 12 {
			s = append(s, words[r.IntN(len(words))]+fmt.Sprint(r.IntN(100)))
		}
		return strings.Join(s, " ")
	}
	var notes []string
	for range 1000 {
		notes = append(notes, sentence())
	}
	f := redact.New(notes, nil)
	var out strings.Builder
	for out.Len() < 64<<10 {
		out.WriteString(sentence() + "\n")
	}
	text := out.String()
	b.SetBytes(int64(len(text)))
	b.ResetTimer()
	for b.Loop() {
		f.Redact(text)
	}
}

// BenchmarkCacheFor is what each action's filter costs when nothing
// changed: a walk of the roots for private notes outside the memex (a
// stat of each file that is not a memex file, none read again). The memex
// has files Org files and as many other files beside them (attachments,
// exports), a few of them Org archives.
func BenchmarkCacheFor(b *testing.B) {
	for _, files := range []int{1000, 10000} {
		b.Run(fmt.Sprintf("files=%d", files), func(b *testing.B) {
			root := b.TempDir()
			opts := memexgen.Defaults()
			opts.Files, opts.Headlines, opts.Dirs = files, 4*files, files/50
			m, err := memexgen.Generate(memexgen.BuiltinSource(), opts)
			require.NoError(b, err)
			require.NoError(b, m.WriteDir(root))
			for i, f := range m.Files {
				other := filepath.Join(root, filepath.FromSlash(f.Path))
				ext := ".pdf"
				data := []byte("%PDF-1.7\x00binary")
				if i%100 == 0 {
					ext, data = "_archive", f.Data
				}
				require.NoError(b, os.WriteFile(other+ext, data, 0o644))
			}
			ctx := context.Background()
			mx, err := memory.Open(ctx, memory.Options{Roots: []string{root}})
			require.NoError(b, err)
			defer mx.Close(ctx)
			var c redact.Cache
			c.For(mx.Snapshot(), "")
			b.ResetTimer()
			for b.Loop() {
				c.For(mx.Snapshot(), "")
			}
		})
	}
}

// TestCacheLetsOldSnapshotsGo checks that the cache never keeps the
// snapshot it read alive itself: an editor's burst of edits to a large
// buffer must not leave an old version of it pinned here (issue 23).
func TestCacheLetsOldSnapshotsGo(t *testing.T) {
	root := t.TempDir()
	mx := openMemex(t, root, map[string]string{"notes.org": "* Vault :private:\nThe key is under the third stair.\n"})
	var c redact.Cache
	old := func() weak.Pointer[memory.Snapshot] {
		snap := mx.Snapshot()
		f := c.For(snap, "")
		assert.Same(t, f, c.For(snap, ""), "made once per snapshot")
		return weak.Make(snap)
	}()
	_, err := mx.SetBuffer(t.Context(), filepath.Join(root, "notes.org"), 1, []byte("* Vault :private:\nThe key is under the fourth stair.\n"))
	require.NoError(t, err)
	runtime.GC()
	assert.Nil(t, old.Value(), "the cache let the old snapshot go")
	_, n := c.For(mx.Snapshot(), "").Redact("cat: The key is under the fourth stair.")
	assert.Positive(t, n, "the next snapshot's notes are redacted")
}

// TestNamesOfPrivateFiles: the name of a file private as a whole (its
// file node's title, a conversation's first question) is replaced in an
// output wherever it stands on its own — a listing, a path, an error, a
// backup's or archive's name after it — and nowhere else: not inside a
// longer name, not the name of a file with only a private part.
func TestNamesOfPrivateFiles(t *testing.T) {
	root := t.TempDir()
	mx := openMemex(t, root, map[string]string{
		"notes/divorce-lawyer.org": "#+filetags: :private:\n* Meeting\nOn Friday.\n",
		"notes/x.org":              "#+FILETAGS: :private:\n* All of it\nThe hidden errand for Tuesday.\n",
		"notes/mixed.org":          "* Work\nPublic.\n* Health :private:\nThe cardiologist on Monday.\n",
		"notes/public.org":         "* Plans\nPublic.\n",
	})
	var c redact.Cache
	f := c.For(mx.Snapshot(), "")
	for _, tc := range []struct{ in, want string }{
		{"divorce-lawyer.org\nmixed.org\npublic.org\nx.org\n", "[private]\nmixed.org\npublic.org\n[private]\n"},
		{"grep: notes/divorce-lawyer.org: Permission denied", "grep: notes/[private]: Permission denied"},
		{"reads /r/notes/x.org, a private note", "reads /r/notes/[private], a private note"},
		{"x.org~ #x.org# x.org_archive", "[private]~ #[private]# [private]_archive"},
		{"index.org my-x.org x.orgy sx.org", "index.org my-x.org x.orgy sx.org"},
	} {
		got, _ := f.Redact(tc.in)
		assert.Equal(t, tc.want, got, "%q", tc.in)
	}
}

// TestNotesPrivateByTheirSetupFile: a note whose #+SETUPFILE: carries a
// privacy tag in its #+FILETAGS: — a memex file, and Org text in a .txt
// — is private to the filter: its text becomes [private] and it is listed
// for the sandbox to hide; when the setup file drops the tag, it is not
// (once the memex has read the setup file again), and when the tag comes
// back, it is again.
func TestNotesPrivateByTheirSetupFile(t *testing.T) {
	root := t.TempDir()
	setup := filepath.Join(root, "private-setup.org")
	mx := openMemex(t, root, map[string]string{
		"a.org":             "#+SETUPFILE: ./private-setup.org\n* Harbour\nThe keeper hides marzipan under the third stair.\n",
		"notes/b.txt":       "#+SETUPFILE: ../private-setup.org\n* Boat\nThe boat is moored at pier seven tonight.\n",
		"private-setup.org": "#+FILETAGS: :private:\n",
		"public.org":        "* Plans\nShip the parser before the holidays begin.\n",
	})
	var c redact.Cache
	const out = "cat: The keeper hides marzipan under the third stair. grep: The boat is moored at pier seven tonight."
	f := c.For(mx.Snapshot(), "")
	assert.Equal(t, []string{filepath.Join(root, "a.org"), filepath.Join(root, "notes/b.txt"), setup}, f.Files())
	got, _ := f.Redact(out)
	assert.Equal(t, "cat: [private]. grep: [private].", got)

	require.NoError(t, os.WriteFile(setup, []byte("#+FILETAGS: :work:\n"), 0o644))
	s, err := mx.ReloadFiles(t.Context(), setup)
	require.NoError(t, err)
	f = c.For(s, "")
	assert.Empty(t, f.Files(), "the tag dropped")
	got, _ = f.Redact(out)
	assert.Equal(t, out, got)

	require.NoError(t, os.WriteFile(setup, []byte("#+FILETAGS: :Private:\n"), 0o644))
	s, err = mx.ReloadFiles(t.Context(), setup)
	require.NoError(t, err)
	f = c.For(s, "")
	assert.Len(t, f.Files(), 3, "the tag back")
	got, _ = f.Redact(out)
	assert.Equal(t, "cat: [private]. grep: [private].", got)
}

// openMemex writes files (relative to root) and opens the memex of root,
// closed when the test ends.
func openMemex(t *testing.T, root string, files map[string]string) *memory.Memex {
	t.Helper()
	testenv.WriteTree(t, root, files)
	ctx := context.Background()
	mx, err := memory.Open(ctx, memory.Options{Roots: []string{root}})
	require.NoError(t, err)
	t.Cleanup(func() { mx.Close(ctx) })
	return mx
}

// TestLooseSetupFileInTheGivenHome: a loose note's "~/" setup file is read
// in the home folder the caller names (the agent's world.Home), not in the
// process's: the filter hides the note whose setup file there marks it
// private, and leaves it when that home holds a public one.
func TestLooseSetupFileInTheGivenHome(t *testing.T) {
	for _, tc := range []struct {
		name, filetags string
		want           bool
	}{
		{"a private setup file", "#+FILETAGS: :private:\n", true},
		{"a public setup file", "#+FILETAGS: :work:\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			root, home := t.TempDir(), t.TempDir()
			testenv.WriteTree(t, home, map[string]string{"org-setup.org": tc.filetags})
			mx := openMemex(t, root, map[string]string{
				"notes/c.txt": "#+SETUPFILE: ~/org-setup.org\n* Cellar\nThe cellar key hangs behind the blue door.\n",
				"public.org":  "* Plans\nShip the parser before the holidays begin.\n",
			})
			var c redact.Cache
			f := c.For(mx.Snapshot(), home)
			got, _ := f.Redact("cat: The cellar key hangs behind the blue door.")
			if tc.want {
				assert.Equal(t, []string{filepath.Join(root, "notes/c.txt")}, f.Files())
				assert.Equal(t, "cat: [private].", got)
			} else {
				assert.Empty(t, f.Files())
				assert.Equal(t, "cat: The cellar key hangs behind the blue door.", got)
			}
		})
	}
}
