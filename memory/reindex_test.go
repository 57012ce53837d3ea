package memory

import (
	"fmt"
	"math/rand/v2"
	"testing"

	"github.com/stretchr/testify/require"

	"pp-lsp/memory/memexgen"
	"pp-lsp/orgast"
)

// requireSameIndex checks that two indexes of the same bytes agree on
// everything the memex derives: per-node hashes, keys, tree and flags.
func requireSameIndex(t *testing.T, want, got *fileIndex, why string) {
	t.Helper()
	require.Equal(t, len(want.nodes), len(got.nodes), why)
	for i := range want.nodes {
		require.Equal(t, want.nodes[i], got.nodes[i], "%s: node %d", why, i)
	}
	require.Equal(t, want.ids, got.ids, why)
	require.Equal(t, want.links, got.links, why)
	require.Equal(t, want.keys, got.keys, why)
	require.Equal(t, want.internalLinks(), got.internalLinks(), why)
	lw, lg := want.lookupTables(), got.lookupTables()
	require.Equal(t, lw.titles, lg.titles, why)
	require.Equal(t, lw.customIDs, lg.customIDs, why)
	require.Equal(t, lw.targets, lg.targets, why)
	require.Equal(t, lw.names, lg.names, why)
}

// TestReindexEqualsFullIndex makes random edits — typing, deleting,
// inserting and breaking headlines, drawers and links, anywhere — and
// checks that the incremental re-index of each new version equals a
// from-scratch index of the same bytes.
func TestReindexEqualsFullIndex(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Dirs, o.Headlines, o.Seed = 1, 0, 300, 11
	g, err := memexgen.Generate(memexgen.BuiltinSource(), o)
	require.NoError(t, err)
	src := g.Files[0].Data
	ps := newPrivacySet(nil)
	prev := buildFile("/m/f.org", 0, "f.org", src, ps)
	prev.internalLinks() // built, so that sharing them is exercised
	rng := rand.New(rand.NewPCG(9, 10))
	snippets := []string{"x", " ", "\n", "\n* New heading\n", "\n** Child :private:\n", "*", "* ", ":PROPERTIES:\n:ID: dup-1\n:END:\n",
		"[[id:dup-1]]", "[[*New heading]]", "\n\n", "#+TODO: A | B\n", "#+filetags: :private:\n", "<<target>>", "é",
		"#+NAME: New heading\n", ":CUSTOM_ID: new\n", "[[New heading]]", "[[#new]]", "word"}
	for step := range 400 {
		old := prev.org.Src
		at := rng.IntN(len(old) + 1)
		end := min(len(old), at+rng.IntN(4)*rng.IntN(30))
		text := ""
		if rng.IntN(4) > 0 {
			text = snippets[rng.IntN(len(snippets))]
		}
		ns := append(append(append([]byte(nil), old[:at]...), text...), old[end:]...)
		e := orgast.Edit{Start: at, OldEnd: end, NewEnd: at + len(text)}
		org := orgast.Reparse(prev.org, ns, e)
		got, _ := reindex(prev, "/m/f.org", 0, "f.org", org, ps, &e)
		want := indexParsed("/m/f.org", 0, "f.org", orgast.Parse(ns), ps)
		requireSameIndex(t, want, got, fmt.Sprintf("step %d", step))
		if rng.IntN(2) == 0 {
			got.internalLinks()
		}
		prev = got
	}
}

// FuzzReindex: any edit of any text re-indexes incrementally to exactly
// what a full index of the new bytes gives.
func FuzzReindex(f *testing.F) {
	f.Add([]byte("* A\nbody\n** B\ntext\n* C\n"), uint(6), uint(0), []byte("\n* New\n"))
	f.Fuzz(func(t *testing.T, src []byte, at, del uint, ins []byte) {
		if len(src) > 1<<16 || len(ins) > 1<<10 {
			return
		}
		ps := newPrivacySet(nil)
		prev := buildFile("/m/f.org", 0, "f.org", src, ps)
		prev.internalLinks()
		start := int(at % uint(len(src)+1))
		end := min(len(src), start+int(del%64))
		ns := append(append(append([]byte(nil), src[:start]...), ins...), src[end:]...)
		e := orgast.Edit{Start: start, OldEnd: end, NewEnd: start + len(ins)}
		got, _ := reindex(prev, "/m/f.org", 0, "f.org", orgast.Reparse(prev.org, ns, e), ps, &e)
		want := indexParsed("/m/f.org", 0, "f.org", orgast.Parse(ns), ps)
		requireSameIndex(t, want, got, "fuzzed edit")
	})
}
