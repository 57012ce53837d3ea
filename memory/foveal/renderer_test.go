package foveal

import (
	"context"
	"errors"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/memory"
	"pp-lsp/memory/memexgen"
)

var smallMemex = map[string][]byte{
	"a.org":     []byte("#+title: A\n* One\nBody of one.\n** Deep\nDeep body.\n* Two :private:\nSecret.\n"),
	"dir/b.org": []byte("* B one\nB body.\n* B two\n"),
}

// TestViewErrors: a path outside the memex, a line past the end, a budget
// below the least and a bad threshold are errors naming what is wrong;
// the last line of a file (also the empty one after its final line end)
// is a cursor like any other.
func TestViewErrors(t *testing.T) {
	root, snap := openMemex(t, smallMemex, nil)
	r, err := NewRenderer(Options{})
	require.NoError(t, err)
	ctx := context.Background()
	a := filepath.Join(root, "a.org")
	tests := []struct {
		name   string
		cur    Cursor
		budget int
		is     error
		msg    string
	}{
		{"outside the memex", Cursor{Path: filepath.Join(root, "..", "x.org")}, 0, memory.ErrNotInMemex, "x.org"},
		{"not an org file", Cursor{Path: filepath.Join(root, "a.txt")}, 0, memory.ErrNotInMemex, "a.txt"},
		{"line past the end", Cursor{Path: a, Line: 8}, 0, ErrLine, "has 8 lines, so line 9 is past its end"},
		{"negative line", Cursor{Path: a, Line: -1}, 0, ErrLine, "line 0"},
		{"budget too small", Cursor{Path: a}, MinBudget - 1, ErrOptions, "63 tokens"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := r.View(ctx, snap, tt.cur, tt.budget)
			require.Error(t, err)
			assert.ErrorIs(t, err, tt.is)
			assert.Contains(t, err.Error(), tt.msg)
		})
	}
	v, err := r.View(ctx, snap, Cursor{Path: a, Line: 7}, 0)
	require.NoError(t, err, "the empty last line")
	assert.Empty(t, v.Foveal.Title, "the last line is in the private subtree")

	_, err = NewRenderer(Options{Threshold: 1.5})
	assert.ErrorIs(t, err, ErrOptions)
	_, err = NewRenderer(Options{Budget: 10})
	assert.ErrorIs(t, err, ErrOptions)
	cancelled, cancel := context.WithCancel(ctx)
	cancel()
	_, err = r.View(cancelled, snap, Cursor{Path: a}, 0)
	assert.ErrorIs(t, err, context.Canceled)
}

// TestEnvOptions reads CONTEXT_BUDGET and CONTEXT_SEMANTIC_THRESHOLD.
func TestEnvOptions(t *testing.T) {
	tests := []struct {
		name string
		env  map[string]string
		want Options
		err  string
	}{
		{"unset", nil, Options{}, ""},
		{"both", map[string]string{EnvBudget: "2000", EnvThreshold: "0.6"}, Options{Budget: 2000, Threshold: 0.6}, ""},
		{"blanks", map[string]string{EnvBudget: " 900 "}, Options{Budget: 900}, ""},
		{"budget not a number", map[string]string{EnvBudget: "lots"}, Options{}, "CONTEXT_BUDGET=\"lots\""},
		{"budget too small", map[string]string{EnvBudget: "10"}, Options{}, "at least 64"},
		{"threshold above one", map[string]string{EnvThreshold: "1.2"}, Options{}, "CONTEXT_SEMANTIC_THRESHOLD=\"1.2\""},
		{"threshold zero", map[string]string{EnvThreshold: "0"}, Options{}, "(0, 1]"},
		{"threshold NaN", map[string]string{EnvThreshold: "NaN"}, Options{}, "NaN"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o, err := EnvOptions(func(k string) string { return tt.env[k] })
			if tt.err != "" {
				require.Error(t, err)
				assert.ErrorIs(t, err, ErrOptions)
				assert.Contains(t, err.Error(), tt.err)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, o)
		})
	}
}

// TestRenderIsViewText: the agent's entry point gives the view's text,
// renders without a cursor, and takes a cursor outside the memex or past
// the end of its file as a hint, not an error.
func TestRenderIsViewText(t *testing.T) {
	root, snap := openMemex(t, smallMemex, nil)
	r, err := NewRenderer(Options{Budget: 500})
	require.NoError(t, err)
	ctx := context.Background()
	a := filepath.Join(root, "a.org")
	v, err := r.View(ctx, snap, Cursor{Path: a, Line: 2}, 0)
	require.NoError(t, err)
	text, err := r.Render(ctx, snap, a, 2, 0)
	require.NoError(t, err)
	assert.Equal(t, v.Text, text)
	assert.Equal(t, 500, v.Budget, "the renderer's budget")
	text, err = r.Render(ctx, snap, "", 0, 200)
	require.NoError(t, err)
	assert.Contains(t, text, "* A\n")
	assert.NotContains(t, text, "Body of one", "no foveal node without a cursor")
	outside, err := r.Render(ctx, snap, filepath.Join(root, "nope.org"), 3, 200)
	require.NoError(t, err, "a file outside the memex is no cursor")
	assert.Equal(t, text, outside)
	past, err := r.Render(ctx, snap, a, 1000, 0)
	require.NoError(t, err, "a line past the end is the last line")
	last, err := r.View(ctx, snap, Cursor{Path: a, Line: 7}, 0)
	require.NoError(t, err)
	assert.Equal(t, last.Text, past)
	_, err = r.View(ctx, nil, Cursor{}, 0)
	assert.ErrorContains(t, err, "no memex snapshot")
}

// TestViewsFollowEdits: after an edit the view of the new snapshot is
// what a fresh renderer makes of it (the cached per-file figures are
// those of the new text), and the old snapshot still gives its old view.
func TestViewsFollowEdits(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, smallMemex)
	m := openLive(t, root, nil)
	ctx := context.Background()
	r, err := NewRenderer(Options{})
	require.NoError(t, err)
	a := filepath.Join(root, "a.org")
	cur := Cursor{Path: a, Line: 2}
	old := m.Snapshot()
	before, err := r.View(ctx, old, cur, 0)
	require.NoError(t, err)

	edited := string(smallMemex["a.org"]) + "* Three\nA new body that is rather longer than the others.\n"
	snap, err := m.SetBuffer(ctx, a, 1, []byte(edited))
	require.NoError(t, err)
	after, err := r.View(ctx, snap, cur, 0)
	require.NoError(t, err)
	fresh, err := NewRenderer(Options{})
	require.NoError(t, err)
	want, err := fresh.View(ctx, snap, cur, 0)
	require.NoError(t, err)
	assert.Equal(t, want, after)
	assert.Greater(t, after.FullTokens, before.FullTokens)
	assert.Contains(t, after.Text, "** Three\n")

	again, err := r.View(ctx, old, cur, 0)
	require.NoError(t, err)
	assert.Equal(t, before, again, "the old snapshot's view is unchanged")

	// Privacy tags changed: every figure follows.
	snap, err = m.SetPrivacyTags(ctx, []string{"nothing"})
	require.NoError(t, err)
	open, err := r.View(ctx, snap, cur, 0)
	require.NoError(t, err)
	assert.Contains(t, open.Text, "** Two :private:\n")
	assert.Zero(t, open.Nodes.Private)
	assert.Greater(t, open.FullTokens, after.FullTokens)
}

// TestConcurrentViews renders from many goroutines on one renderer over
// two snapshots (run with -race): every view equals the sequential one.
func TestConcurrentViews(t *testing.T) {
	root := t.TempDir()
	writeFiles(t, root, smallMemex)
	m := openLive(t, root, nil)
	ctx := context.Background()
	s1 := m.Snapshot()
	s2, err := m.SetBuffer(ctx, filepath.Join(root, "dir", "b.org"), 1, []byte("* B changed\nB body.\n* B two\n"))
	require.NoError(t, err)
	cursors := cursorsAllOver(s1, 4, 9)
	seq, err := NewRenderer(Options{})
	require.NoError(t, err)
	want := map[[2]int]*View{}
	for i, cur := range cursors {
		for j, s := range []*memory.Snapshot{s1, s2} {
			v, err := seq.View(ctx, s, cur, 300)
			require.NoError(t, err)
			want[[2]int{i, j}] = v
		}
	}
	r, err := NewRenderer(Options{})
	require.NoError(t, err)
	var wg sync.WaitGroup
	errs := make(chan error, 8)
	for g := range 8 {
		wg.Go(func() {
			for i, cur := range cursors {
				j := (i + g) % 2
				v, err := r.View(ctx, []*memory.Snapshot{s1, s2}[j], cur, 300)
				if err != nil {
					errs <- err
					return
				}
				if !assert.Equal(t, want[[2]int{i, j}], v) {
					errs <- errors.New("a concurrent view differs")
					return
				}
			}
		})
	}
	wg.Wait()
	close(errs)
	for err := range errs {
		t.Error(err)
	}
}

// TestRecorder: the property tests' recorder keeps failures and stops a
// check at the first require.
func TestRecorder(t *testing.T) {
	errs := record(func(ct checkT) {
		assert.Equal(ct, 1, 2)
		require.True(ct, false, "stop here")
		assert.Fail(ct, "never reached")
	})
	require.Len(t, errs, 2)
	assert.Contains(t, errs[1], "stop here")
	assert.Empty(t, record(func(ct checkT) { assert.True(ct, true) }))
}

// TestSubtreeFigures: the per-file figures a cut foveal node is measured
// with (lines and tokens of each subtree in full) are those of rendering
// the subtree, for every node of a generated memex with private subtrees.
func TestSubtreeFigures(t *testing.T) {
	src := memexgen.BuiltinSource()
	o := memexgen.Defaults()
	o.Files, o.Headlines, o.MaxLevel, o.PrivateShare = 5, 300, 5, 0.1
	g, err := memexgen.Generate(src, o)
	require.NoError(t, err)
	files := map[string][]byte{}
	for _, f := range g.Files {
		files[f.Path] = f.Data
	}
	_, snap := openMemex(t, files, nil)
	r, err := NewRenderer(Options{})
	require.NoError(t, err)
	info := r.info(snap)
	checked := 0
	for _, f := range info.files {
		st := f.stats
		for n := range snap.Nodes() {
			if n.Path() != f.node.Path() || n.Private() {
				continue
			}
			ex := extras{file: fileOnly(n, st.prop)}
			var text []byte
			heads := 0
			text = appendFull(text, n, ex)
			for d := range n.Descendants() {
				if !d.Private() {
					text = appendFull(text, d, extras{})
					heads++
				}
			}
			i := n.Headline() + 1
			assert.Equal(t, countTokens(text), int(st.subTokens[i]), "tokens of %s", n.Key())
			assert.Equal(t, strings.Count(string(text), "\n"), int(st.subLines[i]), "lines of %s", n.Key())
			assert.Equal(t, heads, int(st.pubDesc[i]), "public descendants of %s", n.Key())
			checked++
		}
	}
	assert.Greater(t, checked, 200)
}

// TestServerFilesWithheld: the plans and the audit journal at the top of a
// root are never shown to a model — not as the periphery of a note's view,
// not as a related note (their words are the note's own here, so the
// embedding finds them), and not when the cursor is in them — while a
// note of that name deeper in the memex is a note like any other.
func TestServerFilesWithheld(t *testing.T) {
	files := map[string][]byte{
		"notes/bank.org":      []byte("* Bank\nThe quokka ledger and the marmalade account.\n"),
		"journal.org":         []byte("* Audit Journal\n** call memex_search quokka marmalade\n:PROPERTIES:\n:ID: j1\n:END:\nThe quokka ledger and the marmalade account, journalled.\n"),
		"flightplans.org":     []byte("* Flight Plans\n** PLAN Run quokka-forge\n:PROPERTIES:\n:ID: p1\n:END:\nThe quokka ledger and the marmalade account, planned.\n"),
		"archive/journal.org": []byte("* Old journal\nA note the user keeps under that name.\n"),
	}
	root, snap := openMemex(t, files, nil)
	r, err := NewRenderer(Options{Threshold: 0.01})
	require.NoError(t, err)
	ctx := context.Background()
	for _, cur := range []Cursor{
		{Path: filepath.Join(root, "notes/bank.org"), Line: 1},
		{Path: filepath.Join(root, "journal.org"), Line: 4},
		{Path: filepath.Join(root, "flightplans.org"), Line: 1},
	} {
		t.Run(filepath.Base(cur.Path), func(t *testing.T) {
			v, err := r.View(ctx, snap, cur, 100000)
			require.NoError(t, err)
			for _, w := range []string{"Audit Journal", "memex_search", "journalled", "Flight Plans", "quokka-forge", "planned", ":ID: j1", ":ID: p1"} {
				assert.NotContains(t, v.Text, w)
			}
			for _, s := range v.Semantic {
				assert.NotContains(t, []string{"j1", "p1"}, s.ID, "a related note in the server's files")
			}
			assert.Contains(t, v.Text, "** Old journal", "a journal.org below the top is the user's note")
			assert.GreaterOrEqual(t, v.Nodes.Folded, 0)
		})
	}
}
