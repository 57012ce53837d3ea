package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// setupPrivate says how the memex sees the note at path: whether its file
// node and its headline are private, whether its ID is a node a model may
// name, and whether its body is among the texts the gates compare against.
func setupPrivate(t *testing.T, s *Snapshot, path string) []bool {
	t.Helper()
	f, ok := s.File(path)
	require.True(t, ok, "%s is in the memex", path)
	h, ok := s.NodeAt(path, 2)
	require.True(t, ok)
	_, named := s.FileOfID("harbour")
	return []bool{f.Private(), h.Private(), !named, contains(s.PrivateTexts(s.PrivacyTags()), "marzipan")}
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if strings.Contains(x, s) {
			return true
		}
	}
	return false
}

// TestANoteIsPrivateByItsSetupFile: a note whose #+SETUPFILE: has a
// #+FILETAGS: carrying a privacy tag is private in the memex as a whole,
// whatever the setup file is called and wherever it is (~ included), and
// a setup file that cannot be judged (a URL, a folder) makes it private
// too; one that does not exist, or has no privacy tag, does not.
func TestANoteIsPrivateByItsSetupFile(t *testing.T) {
	home := t.TempDir()
	t.Setenv("HOME", home)
	require.NoError(t, os.WriteFile(filepath.Join(home, "org-setup.org"), []byte("#+filetags: :work:Private:\n"), 0o644))
	tests := []struct {
		name    string
		setup   string // the #+SETUPFILE: value
		files   map[string]string
		private bool
	}{
		{"beside it", "./private-setup.org", map[string]string{"private-setup.org": "#+TITLE: setup\n#+FILETAGS: :private:\n"}, true},
		{"another name, another folder", "../conf/setup.txt", map[string]string{"conf/setup.txt": "#+FILETAGS: @personal\n"}, true},
		{"a chain", "a.setup", map[string]string{"notes/a.setup": "#+SETUPFILE: b.setup\n", "notes/b.setup": "  #+filetags: :x:private:\n"}, true},
		{"in the home folder", "~/org-setup.org", nil, true},
		{"a URL", "https://example.org/setup.org", nil, true},
		{"a folder", "conf", map[string]string{"notes/conf/x": ""}, true},
		{"no privacy tag", "./setup.org", map[string]string{"notes/setup.org": "#+FILETAGS: :work:\n"}, false},
		{"not there", "./nowhere.org", nil, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			root := t.TempDir()
			files := map[string]string{"notes/a.org": "#+SETUPFILE: " + tc.setup + "\n* Harbour\n:PROPERTIES:\n:ID: harbour\n:END:\nThe keeper hides marzipan under the third stair.\n"}
			for k, v := range tc.files {
				if k == "private-setup.org" {
					k = "notes/" + k
				}
				files[k] = v
			}
			testenv.WriteTree(t, root, files)
			mx, err := Open(context.Background(), Options{Roots: []string{root}})
			require.NoError(t, err)
			defer mx.Close(context.Background())
			got := setupPrivate(t, mx.Snapshot(), filepath.Join(root, "notes/a.org"))
			assert.Equal(t, []bool{tc.private, tc.private, tc.private, tc.private}, got)
		})
	}
}

// TestASetupFileEditedChangesItsNotesPrivacy: the note's privacy follows
// its setup file, on the disk as the watcher reports it (an Org setup file
// or one of another name), on a rescan, and in an open buffer of the note.
func TestASetupFileEditedChangesItsNotesPrivacy(t *testing.T) {
	ctx := context.Background()
	for _, setupName := range []string{"private-setup.org", "private.setup"} {
		t.Run(setupName, func(t *testing.T) {
			root := t.TempDir()
			note, setup := filepath.Join(root, "a.org"), filepath.Join(root, setupName)
			testenv.WriteTree(t, root, map[string]string{
				"a.org":   "#+SETUPFILE: ./" + setupName + "\n* Harbour\n:PROPERTIES:\n:ID: harbour\n:END:\nThe keeper hides marzipan under the third stair.\n",
				setupName: "#+FILETAGS: :private:\n",
				"b.org":   "* Public\nSee [[id:harbour]].\n",
			})
			mx, err := Open(ctx, Options{Roots: []string{root}})
			require.NoError(t, err)
			defer mx.Close(ctx)
			all := []bool{true, true, true, true}
			none := []bool{false, false, false, false}
			require.Equal(t, all, setupPrivate(t, mx.Snapshot(), note))

			require.NoError(t, os.WriteFile(setup, []byte("#+FILETAGS: :work:\n"), 0o644))
			s, err := mx.ReloadFiles(ctx, setup)
			require.NoError(t, err)
			assert.Equal(t, none, setupPrivate(t, s, note), "the tag dropped")

			require.NoError(t, os.WriteFile(setup, []byte("#+FILETAGS: :work:private:\n"), 0o644))
			s, err = mx.ReloadFiles(ctx, setup)
			require.NoError(t, err)
			assert.Equal(t, all, setupPrivate(t, s, note), "the tag added")

			require.NoError(t, os.WriteFile(setup, []byte("#+FILETAGS: :work:\n"), 0o644))
			s, err = mx.Refresh(ctx)
			require.NoError(t, err)
			assert.Equal(t, none, setupPrivate(t, s, note), "a rescan")

			require.NoError(t, os.WriteFile(setup, []byte("#+FILETAGS: :private:\n"), 0o644))
			s, err = mx.SetBuffer(ctx, note, 1, []byte("* Harbour\n:PROPERTIES:\n:ID: harbour\n:END:\nThe keeper hides marzipan under the third stair.\n"))
			require.NoError(t, err)
			assert.Equal(t, none, setupPrivate(t, s, note), "its buffer without the line")
			s, err = mx.EditBuffer(ctx, note, 2, TextEdit{Start: 0, End: 0, Text: "#+SETUPFILE: ./" + setupName + "\n"})
			require.NoError(t, err)
			assert.Equal(t, all, setupPrivate(t, s, note), "the line typed back")
			s, err = mx.EditBuffer(ctx, note, 3, TextEdit{Start: len(s.mustText(t, note)), End: len(s.mustText(t, note)), Text: "More words.\n"})
			require.NoError(t, err)
			assert.Equal(t, all, setupPrivate(t, s, note), "typing on")
		})
	}
}

func (s *Snapshot) mustText(t *testing.T, path string) []byte {
	t.Helper()
	b, ok := s.BufferText(path)
	require.True(t, ok)
	return b
}

// TestNewPrivacyTagsJudgeSetupFilesAgain: a setup file tagged with a tag
// that becomes a privacy tag makes its note private at once.
func TestNewPrivacyTagsJudgeSetupFilesAgain(t *testing.T) {
	ctx := context.Background()
	root := t.TempDir()
	note := filepath.Join(root, "a.org")
	testenv.WriteTree(t, root, map[string]string{
		"a.org":   "#+SETUPFILE: ./s.setup\n* Harbour\n:PROPERTIES:\n:ID: harbour\n:END:\nThe keeper hides marzipan under the third stair.\n",
		"s.setup": "#+FILETAGS: :secret:\n",
	})
	mx, err := Open(ctx, Options{Roots: []string{root}})
	require.NoError(t, err)
	defer mx.Close(ctx)
	require.Equal(t, []bool{false, false, false, false}, setupPrivate(t, mx.Snapshot(), note))
	s, err := mx.SetPrivacyTags(ctx, []string{"private", "secret"})
	require.NoError(t, err)
	assert.Equal(t, []bool{true, true, true, true}, setupPrivate(t, s, note))
	s, err = mx.SetPrivacyTags(ctx, []string{"private"})
	require.NoError(t, err)
	assert.Equal(t, []bool{false, false, false, false}, setupPrivate(t, s, note))
}

// TestTheHomeOfASetupFileIsTheOneGiven: "~/" in a #+SETUPFILE: is
// Options.Home (the server's world's, which the gates and the redactor
// read too), not $HOME: with HOME unset or another folder, a note whose
// setup file in the given home makes it private is private to the memex.
func TestTheHomeOfASetupFileIsTheOneGiven(t *testing.T) {
	home := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "x.setup"), []byte("#+FILETAGS: :private:\n"), 0o644))
	for _, tc := range []struct {
		name string
		env  string // HOME; "" unsets it
	}{
		{"HOME unset", ""},
		{"HOME another folder", t.TempDir()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("HOME", tc.env)
			if tc.env == "" {
				require.NoError(t, os.Unsetenv("HOME"))
			}
			root := t.TempDir()
			testenv.WriteTree(t, root, map[string]string{"notes/a.org": "#+SETUPFILE: ~/x.setup\n* Harbour\n:PROPERTIES:\n:ID: harbour\n:END:\nThe keeper hides marzipan under the third stair.\n"})
			mx, err := Open(context.Background(), Options{Roots: []string{root}, Home: home})
			require.NoError(t, err)
			defer mx.Close(context.Background())
			assert.Equal(t, home, mx.Snapshot().Home())
			assert.Equal(t, []bool{true, true, true, true}, setupPrivate(t, mx.Snapshot(), filepath.Join(root, "notes/a.org")))
		})
	}
}
