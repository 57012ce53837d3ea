package foveal

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// checkT is what checkView reports to: a *testing.T, or a recorder that
// keeps the failures of one view among thousands.
type checkT interface {
	require.TestingT
	Helper()
}

// recorder collects failures; FailNow ends the check (see record).
type recorder struct{ errs []string }

type failedNow struct{}

func (r *recorder) Errorf(format string, args ...any) {
	r.errs = append(r.errs, fmt.Sprintf(format, args...))
}
func (r *recorder) FailNow() { panic(failedNow{}) }
func (r *recorder) Helper()  {}

// record runs check against a recorder and returns its failures.
func record(check func(checkT)) (errs []string) {
	r := &recorder{}
	defer func() {
		if p := recover(); p != nil {
			if _, ok := p.(failedNow); !ok {
				panic(p)
			}
		}
		errs = r.errs
	}()
	check(r)
	return r.errs
}

// openMemex writes files (slash paths relative to the root) to a new
// folder and opens the memex over it with every node embedded.
func openMemex(t testing.TB, files map[string][]byte, privacy []string) (string, *memory.Snapshot) {
	t.Helper()
	root := t.TempDir()
	writeFiles(t, root, files)
	return root, openRoot(t, root, privacy)
}

// writeFiles writes files (slash paths relative to root) below root.
func writeFiles(t testing.TB, root string, files map[string][]byte) {
	t.Helper()
	for name, data := range files {
		p := filepath.Join(root, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, data, 0o644))
	}
}

// openRoot opens the memex over root, waits for its embeddings, and
// closes it when the test ends.
func openRoot(t testing.TB, root string, privacy []string) *memory.Snapshot {
	t.Helper()
	return openLive(t, root, privacy).Snapshot()
}

// openLive is openRoot for a test that changes the memex.
func openLive(t testing.TB, root string, privacy []string) *memory.Memex {
	t.Helper()
	ctx := context.Background()
	m, err := memory.Open(ctx, memory.Options{Roots: []string{root}, Embed: true, PrivacyTags: privacy})
	require.NoError(t, err)
	t.Cleanup(func() { m.Close(ctx) })
	require.NoError(t, m.WaitEmbedded(ctx))
	return m
}

// moreRE reads a "[… N more …]" line.
var moreRE = regexp.MustCompile(`^\[… (.*)\]$`)

// checkView asserts what holds of every view, whatever the memex, cursor
// and budget, by reading the text back with orgast and matching each
// headline to the memex node it stands for, independently of how the
// renderer chose it:
//   - the view is within budget, and Tokens is its count;
//   - the node counts add up to the memex's nodes;
//   - every headline is a public node of the memex, under the node it
//     is under in the memex, in memex order, with its own properties and
//     only :FILE:, :FOVEAL: and :SEMANTIC_SCORE: added;
//   - only the foveal subtree and the related nodes have bodies: every
//     other headline's section holds at most its drawer and one
//     "[… N more headlines]" line;
//   - the foveal node, when public, is there with :FOVEAL: and its body
//     (unless a cut marker says it was cut);
//   - no private title of any length that public text does not also hold
//     appears anywhere;
//   - the fold lines count every public node left out, once.
func checkView(t checkT, mf *memexFacts, v *View, at memory.Node) {
	t.Helper()
	assert.LessOrEqual(t, v.Tokens, v.Budget, "over budget")
	assert.Equal(t, CountTokens(v.Text), v.Tokens)
	nc := v.Nodes
	assert.Equal(t, mf.total, nc.Full+nc.Outline+nc.TitleOnly+nc.Folded+nc.Private, "counts add up to the memex")
	assert.Equal(t, mf.private, nc.Private)

	f := orgast.Parse([]byte(v.Text))
	src := f.Src
	related := map[string]bool{}
	for _, r := range v.Semantic {
		related[r.ID] = true
	}
	// matched[i] is the memex node headline i of the view stands for.
	matched := make([]memory.Node, len(f.Headlines))
	// A degenerate view (see tierB) is the foveal headline alone.
	degenerate := at.Valid() && len(f.Headlines) == 1 && nc.Full == 1 && nc.Outline+nc.TitleOnly == 0 &&
		!strings.HasPrefix(v.Text, "[…") && nc.Folded > 0
	folded, cut := 0, false
	for _, l := range strings.Split(v.Text, "\n") {
		m := moreRE.FindStringSubmatch(l)
		if m == nil {
			continue
		}
		for _, part := range strings.Split(m[1], ", ") {
			num, noun, ok := strings.Cut(part, " more ")
			require.True(t, ok, "fold line %q", l)
			k, err := strconv.Atoi(num)
			require.NoError(t, err, "fold line %q", l)
			switch strings.TrimSuffix(noun, "s") {
			case "file", "headline":
				folded += k
			case "line":
				cut = true
			default:
				t.Errorf("fold line %q: unknown noun %q", l, noun)
			}
		}
	}
	if !degenerate {
		assert.Equal(t, nc.Folded, folded, "fold lines count every public node left out")
	}
	var fovealSeen bool
	for i := range f.Headlines {
		h := &f.Headlines[i]
		var n memory.Node
		switch {
		case degenerate:
			n = at
			if fp, ok := h.Drawer.Get(propFile); ok {
				assert.Equal(t, at.File().RelPath(), fp)
			}
		case h.Level == 1:
			fp, ok := h.Drawer.Get(propFile)
			require.True(t, ok, "file headline %q without :FILE:", h.Title)
			n, ok = mf.files[fp]
			require.True(t, ok, "no file %q in the memex", fp)
			assert.Equal(t, headlineWords(n), viewWords(h), "file headline")
		default:
			require.GreaterOrEqual(t, h.Parent, 0, "headline %q has no parent in the view", h.Title)
			parent := matched[h.Parent]
			start := parent
			if i > 0 && h.Parent != i-1 {
				// After the previous sibling's subtree in the view.
				start = matched[i-1]
			}
			cands := findAfter(parent, start, h)
			require.NotEmpty(t, cands, "headline %q (level %d) is not a public node under %q after %q", h.Title, h.Level, parent.Title(), start.Title())
			n = pick(cands, h, at, related)
		}
		matched[i] = n
		require.False(t, n.Private(), "private node %q shown", n.Title())
		// Properties: the node's own, and the view's.
		for _, p := range h.Properties() {
			switch strings.ToUpper(p.Key) {
			case propFile:
				assert.True(t, n.IsFile(), ":FILE: on a headline")
			case propFoveal:
				assert.True(t, n.Same(at), ":FOVEAL: on %q", n.Title())
				fovealSeen = true
			case propScore:
				assert.True(t, related[n.Key()], ":SEMANTIC_SCORE: on %q, not a related node", n.Title())
			default:
				own := false
				for _, q := range n.Properties() {
					own = own || q.Key == p.Key && strings.TrimSpace(q.Value) == p.Value
				}
				assert.True(t, own, "property :%s: %s is not %q's", p.Key, p.Value, n.Title())
			}
		}
		// Sections: bodies only where they belong.
		full := inSubtree(n, at) || related[n.Key()]
		if !full && !degenerate {
			sec := string(src[h.Section.Start:h.Section.End])
			if h.Drawer != nil {
				sec = string(src[h.Drawer.Range.End:h.Section.End])
			}
			for _, l := range strings.Split(strings.TrimSpace(sec), "\n") {
				if l != "" {
					assert.Regexp(t, moreRE, l, "%q shows a body line", n.Title())
				}
			}
		}
	}
	if at.Valid() && !at.Private() {
		assert.True(t, fovealSeen || degenerate || cut, "the foveal node is marked")
		if !cut {
			body := normalizeEOL(at.Body(), at.Org().EOL())
			for _, l := range strings.Split(body, "\n") {
				if l = strings.TrimSpace(l); l != "" && !isSettingLine(l) {
					assert.Contains(t, v.Text, l, "the foveal body is shown")
				}
			}
		}
	}
	for _, title := range mf.privateTitles {
		assert.NotContains(t, v.Text, title, "a private title appears")
	}
}

// memexFacts are what checkView needs of a snapshot, computed once.
type memexFacts struct {
	total, private int
	// files are the file nodes by path relative to the root.
	files map[string]memory.Node
	// privateTitles are the private titles of six bytes or more that no
	// public title, body or property holds: seen in a view, they can only
	// come from a private node.
	privateTitles []string
}

func newMemexFacts(snap *memory.Snapshot) *memexFacts {
	mf := &memexFacts{files: map[string]memory.Node{}}
	var pub strings.Builder
	var titles []string
	for n := range snap.Nodes() {
		mf.total++
		if n.IsFile() {
			mf.files[n.RelPath()] = n
		}
		if n.Private() {
			mf.private++
			if title := strings.TrimSpace(n.Title()); len(title) >= 6 {
				titles = append(titles, title)
			}
			continue
		}
		pub.WriteString(n.Title() + "\n" + n.Body() + "\n")
		for _, p := range n.Properties() {
			pub.WriteString(p.Value + "\n")
		}
		pub.WriteString(n.RelPath() + "\n")
	}
	text := pub.String()
	for _, title := range titles {
		if !strings.Contains(text, title) {
			mf.privateTitles = append(mf.privateTitles, title)
		}
	}
	return mf
}

// findAfter lists the public nodes below parent, after start in
// document order, whose headline the view's headline h shows.
func findAfter(parent, start memory.Node, h *orgast.Headline) []memory.Node {
	past := start.Same(parent)
	want := viewWords(h)
	var out []memory.Node
	for d := range parent.Descendants() {
		if !past {
			past = d.Same(start)
			continue
		}
		if !d.Private() && d.Level()+1 == h.Level && headlineWords(d) == want {
			out = append(out, d)
		}
	}
	return out
}

// pick chooses among nodes with the same headline (duplicate titles, as
// real notes have) the first one the view's properties agree with: its
// :ID:, :FOVEAL: for the foveal node, :SEMANTIC_SCORE: for a related node.
func pick(cands []memory.Node, h *orgast.Headline, at memory.Node, related map[string]bool) memory.Node {
	id, hasID := h.Drawer.Get("ID")
	_, fov := h.Drawer.Get(propFoveal)
	_, score := h.Drawer.Get(propScore)
	for _, n := range cands {
		if hasID && n.ID() != id || fov && !n.Same(at) || score && !related[n.Key()] {
			continue
		}
		return n
	}
	return cands[0]
}

// headlineWords is a memex node's headline as words: keyword, priority,
// COMMENT, title and tags. Comparing words, not fields, keeps a title
// that starts with a word another file uses as a TODO keyword the same.
func headlineWords(n memory.Node) string {
	line := string(appendHeadline(nil, n))
	return strings.Join(strings.Fields(strings.TrimLeft(line, "*")), " ")
}

// viewWords is a view headline's words, as headlineWords makes them.
func viewWords(h *orgast.Headline) string {
	var w []string
	if h.Todo != "" {
		w = append(w, h.Todo)
	}
	if h.Priority != 0 {
		w = append(w, "[#"+string(h.Priority)+"]")
	}
	if h.Commented {
		w = append(w, "COMMENT")
	}
	w = append(w, strings.Fields(h.Title)...)
	if len(h.Tags) > 0 {
		w = append(w, ":"+strings.Join(h.Tags, ":")+":")
	}
	return strings.Join(w, " ")
}

// inSubtree reports whether n is at or below at.
func inSubtree(n, at memory.Node) bool {
	if !at.Valid() || n.Path() != at.Path() {
		return false
	}
	for x := n; ; {
		if x.Same(at) {
			return true
		}
		p, ok := x.Parent()
		if !ok {
			return false
		}
		x = p
	}
}
