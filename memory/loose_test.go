package memory

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/memory/memexgen"
)

// TestLooseResolvesAsTheMemex holds a LooseFile to the memex's rules: the
// bytes of every memex file, read as a buffer outside the memex, resolve
// every link to the same answer — the same node of the memex, the same
// headline of itself for a link within the file.
func TestLooseResolvesAsTheMemex(t *testing.T) {
	roots := map[string]string{}
	for _, name := range []string{"links.txtar", "names.txtar"} {
		roots[name], _ = loadScenario(t, name)
	}
	opts := memexgen.Defaults()
	opts.Files, opts.Headlines = 20, 400
	gen, err := memexgen.Generate(memexgen.BuiltinSource(), opts)
	require.NoError(t, err)
	roots["memexgen"] = t.TempDir()
	require.NoError(t, gen.WriteDir(roots["memexgen"]))

	for name, root := range roots {
		s := openMemex(t, Options{Roots: []string{root}}).Snapshot()
		links := 0
		for file := range s.Files() {
			loose := ParseLoose(file.Path(), file.Org().Src, "")
			require.True(t, loose.Node().Loose())
			require.False(t, file.Loose())
			for i := range file.Org().Links {
				links++
				want := s.ResolveLink(file.Path(), i)
				got := s.ResolveLinkIn(loose.Node(), i)
				where := name + " " + file.RelPath() + " [[" + file.Org().Links[i].Raw + "]]"
				assert.Equal(t, want.Status, got.Status, where)
				assert.Equal(t, want.Reason, got.Reason, where)
				assert.Equal(t, want.Path, got.Path, where)
				require.Equal(t, want.Target.Valid(), got.Target.Valid(), where)
				if !want.Target.Valid() {
					continue
				}
				// An id link goes through the memex, even to the file itself.
				if want.Target.Path() == file.Path() && !strings.EqualFold(file.Org().Links[i].Type, "id") {
					assert.True(t, got.Target.Loose(), where)
					assert.Equal(t, want.Target.Headline(), got.Target.Headline(), where)
					assert.Equal(t, want.Target.Title(), got.Target.Title(), where)
				} else {
					assert.True(t, want.Target.Same(got.Target), where)
				}
			}
		}
		assert.Positive(t, links, name)
	}
}

// TestLooseWithoutMemex: with no memex (a nil Snapshot), links within the
// buffer still resolve and id links are broken, never external.
func TestLooseWithoutMemex(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.org")
	l := ParseLoose(path, []byte("* Target\n* Links\n[[*Target]] [[id:nowhere]] [[https://example.com]]\n"), "")
	var s *Snapshot
	r := s.ResolveLinkIn(l.Node(), 0)
	assert.Equal(t, LinkResolved, r.Status)
	assert.Equal(t, 0, r.Target.Headline())
	assert.Equal(t, LinkBroken, s.ResolveLinkIn(l.Node(), 1).Status)
	assert.Equal(t, LinkExternal, s.ResolveLinkIn(l.Node(), 2).Status)
	assert.Equal(t, LinkBroken, s.ResolveLinkIn(l.Node(), 3).Status, "no such link")
}

// TestLooseEdit: an edit re-parses to what parsing the new text gives, and
// an edit outside the text is an error that changes nothing.
func TestLooseEdit(t *testing.T) {
	path := filepath.Join(t.TempDir(), "b.org")
	l := ParseLoose(path, []byte("* A\nBody.\n"), "")
	next, err := l.Edit(TextEdit{Start: 4, End: 4, Text: "* B\n"})
	require.NoError(t, err)
	assert.Equal(t, "* A\n* B\nBody.\n", string(next.Org().Src))
	assert.Equal(t, string(ParseLoose(path, next.Org().Src, "").Org().AppendJSON(nil, "b")), string(next.Org().AppendJSON(nil, "b")))
	assert.Equal(t, "* A\nBody.\n", string(l.Org().Src), "the version before is unchanged")
	_, err = l.Edit(TextEdit{Start: 5, End: 99})
	require.Error(t, err)
	assert.Contains(t, err.Error(), path)
}

// TestALooseFileReadsTheHomeGiven: a buffer outside the memex whose
// "#+SETUPFILE: ~/x.setup" carries a privacy tag in the world's home is
// private, however $HOME is set (unset, or a folder with a harmless
// x.setup of its own); read by the memex's rules (Snapshot.ParseLoose) it
// takes the memex's home and privacy tags; with no home known the setup
// file cannot be judged, and the buffer is private.
func TestALooseFileReadsTheHomeGiven(t *testing.T) {
	home, decoy := t.TempDir(), t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(home, "x.setup"), []byte("#+FILETAGS: :secret:\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(decoy, "x.setup"), []byte("#+TITLE: nothing private\n"), 0o644))
	src := []byte("#+SETUPFILE: ~/x.setup\n* Harbour\nThe keeper hides marzipan under the third stair.\n")
	outside := filepath.Join(t.TempDir(), "b.org")
	root := t.TempDir()
	for _, tc := range []struct {
		name string
		env  string // HOME; "" unsets it
	}{
		{"HOME unset", ""},
		{"HOME another folder", decoy},
	} {
		t.Run(tc.name, func(t *testing.T) {
			t.Setenv("HOME", tc.env)
			if tc.env == "" {
				require.NoError(t, os.Unsetenv("HOME"))
			}
			mx, err := Open(t.Context(), Options{Roots: []string{root}, Home: home, PrivacyTags: []string{"secret"}})
			require.NoError(t, err)
			defer mx.Close(t.Context())
			l := mx.Snapshot().ParseLoose(outside, src)
			assert.True(t, l.Node().Private(), "by the memex's home and tags")
			edited, err := l.Edit(TextEdit{Start: len(src), End: len(src), Text: "More.\n"})
			require.NoError(t, err)
			assert.True(t, edited.Node().Private(), "an edit keeps the rules")

			assert.False(t, ParseLoose(outside, src, home).Node().Private(), "by the default tags, :secret: is no privacy tag")
			tagged := []byte(strings.Replace(string(src), "x.setup", "y.setup", 1))
			require.NoError(t, os.WriteFile(filepath.Join(home, "y.setup"), []byte("#+FILETAGS: :private:\n"), 0o644))
			assert.True(t, ParseLoose(outside, tagged, home).Node().Private(), "by the home given")
			assert.True(t, ParseLoose(outside, tagged, "").Node().Private(), "no home known: not judged, private")
		})
	}
}
