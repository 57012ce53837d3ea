package memory

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/memory/memexgen"
)

// TestIncomingLinksAreEveryNodesBacklinks: for every file of memexes with
// every kind of link (the links and names scenarios, a generated memex
// with duplicate IDs, fuzzy and file links), IncomingLinks grouped by
// target is exactly Backlinks of each node, in the same order; and
// FileLinksTo lists every file link whose target is the file, resolved or
// not.
func TestIncomingLinksAreEveryNodesBacklinks(t *testing.T) {
	roots := map[string]string{}
	for _, name := range []string{"links.txtar", "names.txtar"} {
		roots[name], _ = loadScenario(t, name)
	}
	opts := memexgen.Defaults()
	opts.Files, opts.Headlines, opts.DuplicateIDs = 20, 400, 3
	gen, err := memexgen.Generate(memexgen.BuiltinSource(), opts)
	require.NoError(t, err)
	roots["memexgen"] = t.TempDir()
	require.NoError(t, gen.WriteDir(roots["memexgen"]))

	for name, root := range roots {
		s := openMemex(t, Options{Roots: []string{root}}).Snapshot()
		total := 0
		for file := range s.Files() {
			byNode := map[int32][]LinkSite{}
			for _, in := range s.IncomingLinks(file) {
				require.True(t, in.Target.f == file.f, "%s: a link landing in another file", name)
				byNode[in.Target.i] = append(byNode[in.Target.i], in.Site)
			}
			for i := range file.f.nodes {
				n := Node{file.f, int32(i)}
				want := s.Backlinks(n)
				total += len(want)
				got := byNode[int32(i)]
				require.Equal(t, len(want), len(got), "%s %s node %d %q", name, file.RelPath(), i, n.Title())
				for k := range want {
					assert.True(t, want[k].From.Same(got[k].From) && want[k].Index == got[k].Index, "%s %s node %d link %d", name, file.RelPath(), i, k)
				}
			}
			var all int
			for other := range s.Files() {
				for k := range other.f.links {
					if other.f.links[k].kind == linkFile && other.f.links[k].target == file.Path() {
						all++
					}
				}
			}
			assert.Len(t, s.FileLinksTo(file.Path()), all, "%s %s", name, file.RelPath())
		}
		assert.Positive(t, total, "%s has backlinks to compare", name)
	}
}
