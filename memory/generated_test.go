package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/memory/memexgen"
)

// corpusSource returns the generator's text source: the public corpus
// when it is beside the checkout, else the built-in word list (so that
// benchmarks and these tests run on a user's clone too).
func corpusSource(tb testing.TB) *memexgen.Source {
	tb.Helper()
	dir := filepath.Join("..", "..", "shared", "corpus", "org")
	if _, err := os.Stat(dir); err != nil {
		return memexgen.BuiltinSource()
	}
	src, err := memexgen.LoadSource(dir)
	require.NoError(tb, err)
	return src
}

// writeGenerated writes a generated memex to a temporary folder.
func writeGenerated(tb testing.TB, src *memexgen.Source, opts memexgen.Options) (string, *memexgen.Memex) {
	tb.Helper()
	g, err := memexgen.Generate(src, opts)
	require.NoError(tb, err)
	dir := tb.TempDir()
	require.NoError(tb, g.WriteDir(dir))
	return dir, g
}

// TestGeneratedMemexFigures checks the index against the figures the
// generator's own model implies, for memexes with duplicate IDs, broken
// links, privacy-tagged subtrees and file tags.
func TestGeneratedMemexFigures(t *testing.T) {
	src := corpusSource(t)
	base := memexgen.Defaults()
	tests := []struct {
		name string
		mod  func(*memexgen.Options)
	}{
		{"defaults", func(*memexgen.Options) {}},
		{"duplicates and broken links", func(o *memexgen.Options) { o.DuplicateIDs = 7; o.BrokenLinkShare = 0.2; o.Seed = 2 }},
		{"deep and private", func(o *memexgen.Options) { o.MaxLevel = 8; o.PrivateShare = 0.2; o.PrivateFileShare = 0.2; o.Seed = 3 }},
		{"one big file", func(o *memexgen.Options) { o.Files = 1; o.Dirs = 0; o.Headlines = 3000; o.Seed = 4 }},
		{"no IDs", func(o *memexgen.Options) { o.FileIDShare, o.IDShare, o.IDLinksPerHeadline = 0, 0, 0; o.Seed = 5 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			opts := base
			tt.mod(&opts)
			dir, g := writeGenerated(t, src, opts)
			m, err := Open(context.Background(), Options{Roots: []string{dir}})
			require.NoError(t, err)
			defer m.Close(context.Background())
			got := m.Snapshot().Figures()
			want := g.Expected
			assert.Equal(t, want.Files, got.Files, "files")
			assert.Equal(t, want.Headlines, got.Headlines, "headlines")
			assert.Equal(t, want.IDs, got.IDs, "ids")
			assert.Equal(t, want.Links, got.Links, "links")
			assert.Equal(t, want.IDLinks, got.IDLinks, "id_links")
			assert.Equal(t, want.BrokenIDLinks, got.BrokenIDLinks, "broken_id_links")
			assert.Equal(t, want.DuplicateIDs, got.DuplicateIDs, "duplicate_ids")
			assert.Equal(t, want.PrivateNodes, got.PrivateNodes, "private_nodes")
			assert.Zero(t, got.BrokenFileLinks, "the generator's file links all resolve")
			assert.Zero(t, got.BrokenInternalLinks, "the generator's [[*Title]] links all resolve")
			todos := 0
			for n := range m.Snapshot().Nodes() {
				if kw, _ := n.Todo(); kw != "" {
					todos++
				}
			}
			assert.Equal(t, want.Todos, todos, "todos")
		})
	}
}

// TestGeneratorDeterministic checks that a seed gives the same bytes.
func TestGeneratorDeterministic(t *testing.T) {
	src := corpusSource(t)
	opts := memexgen.Defaults()
	a, err := memexgen.Generate(src, opts)
	require.NoError(t, err)
	b, err := memexgen.Generate(src, opts)
	require.NoError(t, err)
	require.Equal(t, a, b)
	opts.Seed++
	c, err := memexgen.Generate(src, opts)
	require.NoError(t, err)
	assert.NotEqual(t, a.Files, c.Files)
}
