package agent

import (
	"context"
	"fmt"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"weak"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
	"pp-lsp/memory/memexgen"
	"pp-lsp/memory/orgfeat"
	"pp-lsp/orgast"
)

// TestTitleIndexIsByName: the agent's title index finds exactly the nodes
// orgfeat's NoteIndex.ByName finds, for every title and alias of a
// generated memex with aliases, duplicate titles and odd spacing, before
// and after edits.
func TestTitleIndexIsByName(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Headlines, o.Dirs, o.Seed = 12, 400, 3, 7
	g, err := memexgen.Generate(memexgen.BuiltinSource(), o)
	require.NoError(t, err)
	root := t.TempDir()
	require.NoError(t, g.WriteDir(root))
	extra := map[string]string{
		"roam.org": "#+title: Roam  Note\n:PROPERTIES:\n:ROAM_ALIASES: \"The Note\" other\n:END:\n" +
			"* Same\n:PROPERTIES:\n:ROAM_ALIASES: \"Roam Note\"\n:END:\n* same\n*  Spaced   Title \n",
		"flightplans.org": "* PLAN Same\n",
	}
	testenv.WriteTree(t, root, extra)
	ctx := context.Background()
	mx, err := memory.Open(ctx, memory.Options{Roots: []string{root}})
	require.NoError(t, err)
	defer mx.Close(ctx)

	var x titleIndex
	notes := orgfeat.NewNoteIndex()
	agree := func(t *testing.T, snap *memory.Snapshot) {
		var names []string
		for n := range snap.Nodes() {
			names = append(names, n.Title())
			names = append(names, orgfeat.Aliases(n)...)
		}
		names = append(names, "roam note", "THE   NOTE", "same", "spaced title", "no such title")
		require.Greater(t, len(names), 400)
		for _, name := range names {
			got, _ := x.byName(snap, name)
			want := notes.ByName(snap, name)
			keys := func(ns []memory.Node) []string {
				var out []string
				for _, n := range ns {
					out = append(out, n.Key())
				}
				slices.Sort(out)
				return out
			}
			assert.Equal(t, keys(want), keys(got), "%q", name)
		}
	}
	agree(t, mx.Snapshot())
	for i := range 3 {
		_, err := mx.SetBuffer(ctx, filepath.Join(root, "roam.org"), int32(i+1), fmt.Appendf(nil, "#+title: Edited %d\n* Same\n* New %d\n", i, i))
		require.NoError(t, err)
		agree(t, mx.Snapshot())
	}
	got, aliased := x.byName(mx.Snapshot(), "the note")
	assert.Empty(t, got, "the alias went with the edit")
	assert.Empty(t, aliased)
}

// TestTitleIndexLetsOldVersionsGo checks that the title index answers
// from the outlines it read while they live, and never keeps an old
// snapshot, nor an edited buffer's old outline and text, alive itself
// (issue 23: a burst of edits to a large buffer).
func TestTitleIndexLetsOldVersionsGo(t *testing.T) {
	root := t.TempDir()
	path := filepath.Join(root, "notes.org")
	// "seedlings": one lower-case word, whose key would be a view of the
	// text were it not copied.
	testenv.WriteTree(t, root, map[string]string{
		"notes.org": "* Garden Plans\n:PROPERTIES:\n:ROAM_ALIASES: \"Vegetable Beds\"\n:END:\n* seedlings\n",
		"other.org": "* Soil\n",
	})
	ctx := context.Background()
	mx, err := memory.Open(ctx, memory.Options{Roots: []string{root}})
	require.NoError(t, err)
	defer mx.Close(ctx)
	var x titleIndex
	oldSnap, oldOrg, oldText := func() (weak.Pointer[memory.Snapshot], weak.Pointer[orgast.File], weak.Pointer[byte]) {
		snap := mx.Snapshot()
		got, aliased := x.byName(snap, "vegetable beds")
		require.Len(t, got, 1)
		assert.Equal(t, []bool{true}, aliased)
		f, ok := snap.File(path)
		require.True(t, ok)
		return weak.Make(snap), weak.Make(f.Org()), weak.Make(&f.Org().Src[0])
	}()
	_, err = mx.SetBuffer(ctx, path, 1, []byte("* Orchard Plans\n"))
	require.NoError(t, err)
	runtime.GC()
	assert.Nil(t, oldSnap.Value(), "the index let the old snapshot go")
	assert.Nil(t, oldOrg.Value(), "the index let the old outline go")
	assert.Nil(t, oldText.Value(), "no name views the old text")
	snap := mx.Snapshot()
	got, _ := x.byName(snap, "vegetable beds")
	assert.Empty(t, got, "the next snapshot is read afresh")
	got, _ = x.byName(snap, "orchard  PLANS")
	require.Len(t, got, 1)
	assert.Equal(t, "Orchard Plans", got[0].Title())
	got, _ = x.byName(snap, "soil")
	assert.Len(t, got, 1, "an unchanged file is still found")
}
