package orgfeat

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
)

// openScope opens a memex on root and reads the given buffers outside it.
func openScope(t *testing.T, root string, outside ...string) Scope {
	t.Helper()
	return openScopeHome(t, root, t.TempDir(), outside...)
}

// openScopeHome is openScope with home the world's home folder.
func openScopeHome(t *testing.T, root, home string, outside ...string) Scope {
	t.Helper()
	mx, err := memory.Open(context.Background(), memory.Options{Roots: []string{root}, Home: home})
	require.NoError(t, err)
	t.Cleanup(func() { mx.Close(context.Background()) })
	loose := map[string]*memory.LooseFile{}
	for _, p := range outside {
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		loose[p] = mx.Snapshot().ParseLoose(p, src)
	}
	return Scope{Memex: mx.Snapshot(), Outside: func(p string) (*memory.LooseFile, bool) {
		l, ok := loose[p]
		return l, ok
	}}
}

// linkNamed is the index of the first link of file whose text holds s.
func linkNamed(t *testing.T, file memory.Node, s string) int {
	t.Helper()
	org := file.Org()
	i := strings.Index(string(org.Src), s)
	require.GreaterOrEqual(t, i, 0, "%q is not in %s", s, file.Path())
	k := LinkAt(org, i)
	require.GreaterOrEqual(t, k, 0, "no link at %q", s)
	return k
}

// TestHomeInFileLinks: "~" in a file link is the user's home, from a file
// of the memex and from a buffer outside it alike — as Org expands it
// (org-open-file's expand-file-name), never a folder named "~" beside the
// linking file. Folders named "~" are there as traps. The home is the
// world's the memex was given, never the process's $HOME (a decoy here).
func TestHomeInFileLinks(t *testing.T) {
	base := t.TempDir()
	home := filepath.Join(base, "home")
	t.Setenv("HOME", filepath.Join(base, "decoy"))
	testenv.WriteTree(t, base, map[string]string{
		"home/x.org":          "* In the home folder\n",
		"memex/notes/a.org":   "* Links\n[[file:~/x.org]] [[~/x.org]]\n",
		"memex/notes/~/x.org": "* A trap: a folder named ~ in the memex\n",
		"outside/b.org":       "* Links\n[[file:~/x.org]] [[~/x.org]]\n",
		"outside/~/x.org":     "* A trap: a folder named ~ outside\n",
	})
	a, b := filepath.Join(base, "memex/notes/a.org"), filepath.Join(base, "outside/b.org")
	sc := openScopeHome(t, filepath.Join(base, "memex"), home, b)
	want := filepath.Join(home, "x.org")
	for _, path := range []string{a, b} {
		file, ok := sc.File(path)
		require.True(t, ok)
		for _, link := range []string{"[[file:~", "[[~"} {
			got := Resolve(sc, file, linkNamed(t, file, link))
			assert.Equal(t, memory.LinkResolved, got.Status, "%s %s", path, link)
			assert.Equal(t, want, got.Path, "%s %s", path, link)
		}
	}

	// What Emacs opens for the same links, one line each.
	emacs := testenv.NeedCommand(t, "emacs")
	var script strings.Builder
	script.WriteString("(progn (require 'org) (setq org-link-frame-setup '((file . find-file)))")
	var wants []string
	for _, path := range []string{a, b} {
		for _, link := range []string{"[[file:~", "[[~"} {
			script.WriteString(" (find-file " + quote(path) + ") (goto-char (point-min)) (search-forward " + quote(link) + ")" +
				" (org-open-at-point) (princ buffer-file-name) (terpri)")
			wants = append(wants, want)
		}
	}
	script.WriteString(")")
	cmd := exec.Command(emacs, "-Q", "--batch", "--eval", script.String())
	cmd.Env = append(os.Environ(), "HOME="+home)
	out, err := cmd.Output()
	require.NoError(t, err)
	assert.Equal(t, wants, strings.Fields(string(out)), "what Emacs opens")
}

// quote is s as an Emacs Lisp string.
func quote(s string) string {
	return `"` + strings.NewReplacer(`\`, `\\`, `"`, `\"`).Replace(s) + `"`
}

// TestLooseLinksFollowTheMemexRules: a buffer outside the memex resolves
// [[*Heading]], [[target]], a #+NAME: and a [[#custom-id]] as a memex file
// does — to the same place — and id links through the memex.
func TestLooseLinksFollowTheMemexRules(t *testing.T) {
	base := t.TempDir()
	text := "* Notes [1/2]\n:PROPERTIES:\n:CUSTOM_ID: notes\n:END:\nA <<spot>> here.\n#+NAME: tbl\n| a |\n* Links\n" +
		"[[*Notes]] [[spot]] [[tbl]] [[#notes]] [[id:the-id]] [[*Nowhere]]\n"
	testenv.WriteTree(t, base, map[string]string{
		"memex/in.org":  text,
		"memex/id.org":  "* Carrier\n:PROPERTIES:\n:ID: the-id\n:END:\n",
		"outside/b.org": text,
	})
	in, b := filepath.Join(base, "memex/in.org"), filepath.Join(base, "outside/b.org")
	sc := openScope(t, filepath.Join(base, "memex"), b)
	mf, ok := sc.File(in)
	require.True(t, ok)
	lf, ok := sc.File(b)
	require.True(t, ok)
	require.True(t, lf.Loose())
	for _, link := range []string{"[[*Notes]]", "[[spot]]", "[[tbl]]", "[[#notes]]", "[[id:", "[[*Nowhere]]"} {
		want := Resolve(sc, mf, linkNamed(t, mf, link))
		got := Resolve(sc, lf, linkNamed(t, lf, link))
		assert.Equal(t, want.Status, got.Status, link)
		assert.Equal(t, want.Reason, got.Reason, link)
		assert.Equal(t, want.Offset, got.Offset, link)
		assert.Equal(t, want.Node.Headline(), got.Node.Headline(), link)
		if link == "[[id:" {
			assert.Equal(t, filepath.Join(base, "memex/id.org"), got.Path, link)
			assert.True(t, want.Node.Same(got.Node), link)
		}
	}
	spot := Resolve(sc, lf, linkNamed(t, lf, "[[spot]]"))
	assert.Equal(t, strings.Index(text, "<<spot>>"), spot.Offset, "a fuzzy link to a <<target>> lands on it")
	assert.True(t, spot.File.Loose(), "in the buffer's own outline")
	tbl := Resolve(sc, lf, linkNamed(t, lf, "[[tbl]]"))
	assert.Equal(t, strings.Index(text, "#+NAME:"), tbl.Offset, "a fuzzy link to a name lands on its #+NAME: line")
}

// TestNodeAtAndHover: the node a request is about, and the hover texts,
// for a link, a headline, a body and a buffer outside the memex.
func TestNodeAtAndHover(t *testing.T) {
	base := t.TempDir()
	testenv.WriteTree(t, base, map[string]string{
		"memex/a.org":   "#+title: A file\n* TODO [#A] Target :tag:\n:PROPERTIES:\n:ID: t1\n:END:\nThe body.\n* Other\nSee [[id:t1][it]] and [[id:gone]] and https://example.com.\n",
		"outside/b.org": "* Loose\nSee [[id:t1]].\n",
	})
	a, b := filepath.Join(base, "memex/a.org"), filepath.Join(base, "outside/b.org")
	sc := openScope(t, filepath.Join(base, "memex"), b)
	fa, _ := sc.File(a)
	fb, _ := sc.File(b)
	src := string(fa.Org().Src)
	at := func(s string) int { return strings.Index(src, s) }

	n, ok := NodeAt(sc, fa, at("[[id:t1]"))
	require.True(t, ok)
	assert.Equal(t, "Target", n.Title(), "a link means its target")
	n, ok = NodeAt(sc, fa, at("See"))
	require.True(t, ok)
	assert.Equal(t, "Other", n.Title(), "else the node holding the cursor")
	_, ok = NodeAt(sc, fb, 2)
	assert.False(t, ok, "a buffer outside the memex has no node of its own to ask about")

	h, ok := HoverAt(sc, fa, at("[[id:t1]"), true)
	require.True(t, ok)
	assert.Equal(t, "**[#A] TODO Target** `:tag:`\n\n`a.org:2` · ID `t1` · 1 backlink\n\n```org\nThe body.\n```\n", h.Text)
	assert.Equal(t, fa.Org().Links[LinkAt(fa.Org(), at("[[id:t1]"))].Range, h.Range)
	h, _ = HoverAt(sc, fa, at("[[id:gone]"), false)
	assert.Equal(t, "Broken link: no node in the memex carries the ID gone", h.Text)
	h, _ = HoverAt(sc, fa, at("https:"), true)
	assert.Equal(t, "link `https://example.com`", h.Text)
	_, ok = HoverAt(sc, fa, at("The body"), true)
	assert.False(t, ok, "a body shows nothing")
	h, ok = HoverAt(sc, fb, strings.Index(string(fb.Org().Src), "[[id"), false)
	require.True(t, ok, "a link in a buffer outside the memex previews its target")
	assert.True(t, strings.HasPrefix(h.Text, "[#A] TODO Target :tag:\n"), h.Text)
	_, ok = HoverAt(sc, fb, 2, false)
	assert.False(t, ok)
}
