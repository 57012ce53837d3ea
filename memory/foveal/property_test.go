package foveal

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
	"pp-lsp/memory/memexgen"
)

// cursorsAllOver picks cursors across every file of the memex: the first
// line, the last, and n-2 more lines drawn at random (seeded), so that
// cursors land before the first headline, in bodies, on headlines, in
// drawers and on the empty last line.
func cursorsAllOver(snap *memory.Snapshot, perFile int, seed uint64) []Cursor {
	rng := rand.New(rand.NewPCG(seed, seed+1))
	var out []Cursor
	for f := range snap.Files() {
		lines := f.Org().Lines.LineCount()
		out = append(out, Cursor{Path: f.Path(), Line: 0}, Cursor{Path: f.Path(), Line: lines - 1})
		for range perFile - 2 {
			out = append(out, Cursor{Path: f.Path(), Line: rng.IntN(lines)})
		}
	}
	return out
}

// viewsAllOver renders a view for each cursor at each budget and checks
// it (checkView); it returns the smallest full_tokens/tokens ratio seen
// at the largest budget.
func viewsAllOver(t *testing.T, snap *memory.Snapshot, cursors []Cursor, budgets []int) float64 {
	t.Helper()
	mf := newMemexFacts(snap)
	r, err := NewRenderer(Options{})
	require.NoError(t, err)
	ratio := 0.0
	for _, cur := range cursors {
		at, ok := snap.NodeAt(cur.Path, cur.Line)
		require.True(t, ok)
		for _, b := range budgets {
			v, err := r.View(context.Background(), snap, cur, b)
			require.NoError(t, err, "%s:%d", cur.Path, cur.Line+1)
			if errs := record(func(ct checkT) { checkView(ct, mf, v, at) }); len(errs) > 0 {
				t.Fatalf("the view from %s:%d at budget %d fails its checks:\n%s\n%s", cur.Path, cur.Line+1, b, strings.Join(errs, "\n"), v.Text)
			}
			if b == budgets[0] && v.Tokens > 0 {
				if q := float64(v.FullTokens) / float64(v.Tokens); ratio == 0 || q < ratio {
					ratio = q
				}
			}
		}
	}
	return ratio
}

// TestCorpusViews renders views from cursors all over the public corpus
// (../shared/corpus/org: the Org manual, Worg, an org-roam notebook —
// text nobody on this project wrote) at the default budget and two tight
// ones, and checks every view's invariants; it logs the ratio
// full_tokens/tokens, the compression the foveal-peripheral view buys.
func TestCorpusViews(t *testing.T) {
	testenv.SkipShort(t, "reads and embeds the whole corpus")
	root := filepath.Join(testenv.SharedDir(t), "corpus", "org")
	snap := openRoot(t, root, nil)
	cursors := cursorsAllOver(snap, 3, 1)
	require.Greater(t, len(cursors), 1000)
	ratio := viewsAllOver(t, snap, cursors, []int{DefaultBudget, 700, MinBudget})

	r, err := NewRenderer(Options{})
	require.NoError(t, err)
	v, err := r.View(context.Background(), snap, cursors[0], 0)
	require.NoError(t, err)
	t.Logf("public corpus: %d files, full_tokens %d, a view %d tokens: full_tokens/tokens = %.0f (least over %d cursors: %.0f)",
		snap.FileCount(), v.FullTokens, v.Tokens, float64(v.FullTokens)/float64(v.Tokens), len(cursors), ratio)
	assert.Greater(t, ratio, 100.0, "full_tokens is far above tokens")
}

// TestGeneratedViews does the same over generated memexes with
// privacy-tagged subtrees, private files, duplicate IDs and deep outlines.
func TestGeneratedViews(t *testing.T) {
	src := memexgen.BuiltinSource()
	for _, seed := range []uint64{1, 2, 3}[:testenv.Scale(3, 1)] {
		o := memexgen.Defaults()
		o.Seed, o.Files, o.Headlines, o.MaxLevel, o.DuplicateIDs = seed, 30, 1500, 6, 3
		o.PrivateShare, o.PrivateFileShare = 0.1, 0.1
		g, err := memexgen.Generate(src, o)
		require.NoError(t, err)
		files := map[string][]byte{}
		for _, f := range g.Files {
			files[f.Path] = f.Data
		}
		_, snap := openMemex(t, files, nil)
		require.Positive(t, newMemexFacts(snap).private)
		ratio := viewsAllOver(t, snap, cursorsAllOver(snap, 6, seed), []int{DefaultBudget, 500, MinBudget})
		assert.Greater(t, ratio, 5.0, "seed %d: full_tokens is far above tokens", seed)
	}
}
