package orgast

import (
	"bytes"
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// Random Org documents, compared with the real Emacs: the fixtures hold
// the rules we thought of, this finds the combinations we did not. Every
// difference it ever found became a fixture.

var (
	rndLinks = []string{"https://a.org", "[[https://b.org][B]]", "id:x1", "<https://c.org>", "[[file:d.org::*E]]", "[[#f]]",
		"mailto:g@h.i", "[[j\nk]]", "[[l][m\nn]]", "https://o.org/p_(q)", "file:r.org::s", "[[t]]", "radio", "Radio target",
		"https://x.org/a.b.", "[[a\\]b]]", "中文https://cjk.org", "HTTPS://UP.org", "[[~/h.org]]", "[[(ref)]]"}
	rndWraps = []string{"{}", "*{}*", "/{}/", "_{}_", "+{}+", "={}=", "~{}~", "x{}", "{}x", "({})", "[{}]", "<{}>", "\"{}\"",
		"_{{{}}}", "^{{{}}}", "a_{}", "\\alpha{}", "\\foo{{{}}}", "${}$", "$$ {} $$", "\\({}\\)", "[fn::{}]", "[fn:1:{}]",
		"[cite:@k {}]", "[cite:pre {};@k]", "<<{}>>", "<<<{}>>>", "@@x:{}@@", "src_a{{{}}}", "call_f({})", "{{{{{{m({})}}}}}}",
		"=a {} b=", "*a\n{}*", "*x* {} *y*", "[[x][{}]]", "[[x][*{}*]]", "\\\\ {}", "a\\\\\n{}", "<2020-01-01 Wed {}>"}
	rndLines = []string{
		"* %s", "** TODO %s :t:", "*** [#A] %s", "* COMMENT x", "*************** END", "*bold* %s", "%s", "%s %s",
		"", "", "   ", "- %s", "  - %s", "    - %s", "- %s :: %s", "1. %s", "2) [@2] %s", "- [ ] %s", " * %s", "+ %s", "-",
		"  %s", "\t%s", "#+begin_src x", "#+end_src", "#+BEGIN_QUOTE", "#+END_QUOTE", "#+begin_example", "#+end_example",
		"#+begin_verse", "#+end_verse", "#+begin_foo", "#+end_foo", "#+BEGIN: dyn", "#+END:", ":PROPERTIES:", ":END:",
		":LOGBOOK:", ":ID: 42", ":K: %s", ": fixed %s", "#+CAPTION: %s", "#+NAME: n", "#+RESULTS:", "#+TITLE: %s",
		"#+FILETAGS: :a:b:", "#+TODO: TODO(t) X | DONE", "#+LINK: x https://x.org/%%s", "#+KEY: %s", "# comment %s",
		"| %s | %s |", "|---+---|", "+--+--+", "[fn:1] %s", "-----", "%%%%(diary)", "CLOCK: [2020-01-01 Wed 10:00] %s",
		"SCHEDULED: <2020-01-01 Wed>", "DEADLINE: <2020-01-01> %s", "\\begin{eq}", "\\end{eq}", "<<<Radio target>>> <<<radio>>>",
	}
)

func randomInline(r *rand.Rand) string {
	w := rndWraps[r.IntN(len(rndWraps))]
	return strings.Replace(strings.Replace(w, "{}", rndLinks[r.IntN(len(rndLinks))], 1), "{}", "", -1)
}

func randomOrg(r *rand.Rand) []byte {
	var b bytes.Buffer
	for n := 5 + r.IntN(35); n > 0; n-- {
		line := rndLines[r.IntN(len(rndLines))]
		args := make([]any, strings.Count(strings.ReplaceAll(line, "%%", ""), "%s"))
		for i := range args {
			args[i] = randomInline(r)
		}
		fmt.Fprintf(&b, line, args...)
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestRandomDocumentsAgainstEmacs writes random documents, has Emacs
// outline them, and compares orgast's outline byte for byte.
func TestRandomDocumentsAgainstEmacs(t *testing.T) {
	emacs := testenv.NeedCommand(t, "emacs")
	tool := filepath.Join(testenv.SharedDir(t), "tools", "org-outline.el")
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(uint64(len(rndLines)), 7))
	const n = 80
	names := make([]string, n)
	files := make([]*File, n)
	for i := range names {
		names[i] = fmt.Sprintf("r%02d.org", i)
		src := randomOrg(r)
		require.NoError(t, os.WriteFile(filepath.Join(dir, names[i]), src, 0o644))
		files[i] = Parse(src)
	}
	cmd := exec.CommandContext(t.Context(), emacs, append([]string{"--batch", "-Q", "-l", tool}, names...)...)
	cmd.Dir = dir
	want, err := cmd.Output()
	require.NoError(t, err)
	got := Outlines(names, files)
	if bytes.Equal(want, got) {
		return
	}
	// Find the first document that differs and show it.
	for i := range names {
		one := Outlines(names[i:i+1], files[i:i+1])
		if !bytes.Contains(want, bytes.TrimSuffix(bytes.TrimPrefix(one, []byte("[")), []byte("]\n"))) {
			src, _ := os.ReadFile(filepath.Join(dir, names[i]))
			t.Fatalf("orgast and Emacs disagree on %s:\n%s\norgast: %s", names[i], src, one)
		}
	}
	t.Fatal("orgast's outlines differ from Emacs's")
}
