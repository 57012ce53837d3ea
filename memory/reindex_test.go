package memory

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"unsafe"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory/memexgen"
	"pp-lsp/orgast"
)

// requireSameIndex checks that two indexes of the same bytes agree on
// everything the memex derives: per-node hashes, keys, tree and flags, and
// — when got has them made already (asked) — its lookup tables and
// internal-link resolutions.
func requireSameIndex(t testing.TB, want, got *fileIndex, why string) {
	t.Helper()
	require.Equal(t, len(want.nodes), len(got.nodes), why)
	for i := range want.nodes {
		require.Equal(t, want.nodes[i], got.nodes[i], "%s: node %d", why, i)
	}
	require.Equal(t, want.ids, got.ids, why)
	require.Equal(t, want.links, got.links, why)
	require.Equal(t, want.keys, got.keys, why)
	require.Equal(t, want.lineSearches, got.lineSearches, why)
	if v := got.internal.v.Load(); v != nil {
		require.Equal(t, want.internalLinks(), *v, "%s: internal links", why)
	}
	if lg := got.lookup.v.Load(); lg != nil {
		lw := want.lookupTables()
		require.Equal(t, lw.titles, lg.titles, why)
		require.Equal(t, lw.customIDs, lg.customIDs, why)
		require.Equal(t, lw.targets, lg.targets, why)
		require.Equal(t, lw.names, lg.names, why)
	}
}

// requireDetached checks that no string got keeps beyond its version
// views its file's bytes (which it would keep alive).
func requireDetached(t testing.TB, got *fileIndex, why string) {
	t.Helper()
	src := got.org.Src
	views := func(s string) bool {
		if len(s) == 0 || len(src) == 0 {
			return false
		}
		p := uintptr(unsafe.Pointer(unsafe.StringData(s)))
		b := uintptr(unsafe.Pointer(unsafe.SliceData(src)))
		return p >= b && p < b+uintptr(len(src))
	}
	for _, c := range got.ids {
		require.False(t, views(c.id), "%s: carrier %q", why, c.id)
	}
	for _, l := range got.links {
		require.False(t, views(l.target), "%s: link target %q", why, l.target)
	}
	for _, k := range [][]string{got.keys.ids, got.keys.idLinks, got.keys.fileLinks} {
		for _, s := range k {
			require.False(t, views(s), "%s: key %q", why, s)
		}
	}
}

// reindexSnippets are what the random edits insert: text, headlines,
// drawers, IDs and links of every kind, settings lines, targets, names.
var reindexSnippets = []string{"x", " ", "\n", "\n* New heading\n", "\n** Child :private:\n", "*", "* ", ":PROPERTIES:\n:ID: dup-1\n:END:\n",
	"[[id:dup-1]]", "[[*New heading]]", "\n\n", "#+TODO: A | B\n", "#+filetags: :private:\n", "<<target>>", "é",
	"#+NAME: New heading\n", ":CUSTOM_ID: new\n", "[[New heading]]", "[[#new]]", "word", "[[file:f.org::3]]", "[[file:f.org::*New heading]]",
	"[[file:other.org::*Nothing]]", "\n*** Deep\n", "[[target]]", "\n* ", "DONE ", ":tag:"}

// TestReindexEqualsFullIndex makes random edits — typing, deleting,
// inserting and breaking headlines, drawers and links, anywhere — and
// checks that the incremental re-index of each new version equals a
// from-scratch index of the same bytes, with its lookup tables and
// internal links sometimes asked for (so carried over) and sometimes not.
func TestReindexEqualsFullIndex(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Dirs, o.Headlines, o.Seed = 1, 0, 300, 11
	g, err := memexgen.Generate(memexgen.BuiltinSource(), o)
	require.NoError(t, err)
	src := g.Files[0].Data
	ps := newPrivacySet(nil, "")
	prev := buildFile("/m/f.org", 0, "f.org", src, ps)
	prev.internalLinks() // built, so that sharing them is exercised
	rng := rand.New(rand.NewPCG(9, 10))
	patched := 0
	steps := testenv.Scale(1500, 200)
	for step := range steps {
		old := prev.org.Src
		at := rng.IntN(len(old) + 1)
		end := min(len(old), at+rng.IntN(4)*rng.IntN(30))
		text := ""
		if rng.IntN(4) > 0 {
			text = reindexSnippets[rng.IntN(len(reindexSnippets))]
		}
		ns := append(append(append([]byte(nil), old[:at]...), text...), old[end:]...)
		e := orgast.Edit{Start: at, OldEnd: end, NewEnd: at + len(text)}
		org := orgast.Reparse(prev.org, ns, e)
		if f, _ := patchIndex(prev, "/m/f.org", 0, "f.org", org, ps, e); f != nil {
			patched++
		}
		got, _ := reindex(prev, "/m/f.org", 0, "f.org", org, ps, &e)
		want := indexParsed("/m/f.org", 0, "f.org", orgast.Parse(ns), ps)
		why := fmt.Sprintf("step %d", step)
		requireSameIndex(t, want, got, why)
		requireDetached(t, got, why)
		if rng.IntN(3) > 0 {
			got.internalLinks()
			requireSameIndex(t, want, got, why+" (asked)")
		}
		prev = got
	}
	t.Logf("%d of %d edits took the incremental path", patched, steps)
	assert.Greater(t, patched, steps*2/3, "the incremental path is the usual one")
}

// FuzzReindex: any edit of any text re-indexes incrementally to exactly
// what a full index of the new bytes gives, tables and resolutions
// included whether or not the version before had them made.
func FuzzReindex(f *testing.F) {
	f.Add([]byte("* A\nbody\n** B\ntext\n* C\n"), uint(6), uint(0), []byte("\n* New\n"), true)
	f.Fuzz(func(t *testing.T, src []byte, at, del uint, ins []byte, asked bool) {
		if len(src) > 1<<16 || len(ins) > 1<<10 {
			return
		}
		ps := newPrivacySet(nil, "")
		prev := buildFile("/m/f.org", 0, "f.org", src, ps)
		if asked {
			prev.internalLinks()
		}
		start := int(at % uint(len(src)+1))
		end := min(len(src), start+int(del%64))
		ns := append(append(append([]byte(nil), src[:start]...), ins...), src[end:]...)
		e := orgast.Edit{Start: start, OldEnd: end, NewEnd: start + len(ins)}
		got, _ := reindex(prev, "/m/f.org", 0, "f.org", orgast.Reparse(prev.org, ns, e), ps, &e)
		want := indexParsed("/m/f.org", 0, "f.org", orgast.Parse(ns), ps)
		requireSameIndex(t, want, got, "fuzzed edit")
		requireDetached(t, got, "fuzzed edit")
		got.internalLinks()
		requireSameIndex(t, want, got, "fuzzed edit, asked")
	})
}
