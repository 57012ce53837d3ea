package memory

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"pp-lsp/memory/memexgen"
)

// BenchmarkRefreshUnchanged10k is the rescan a client that cannot watch
// files costs every rescanInterval (5 s by default; pp-lsp.el declines
// eglot 1.9's watcher, Neovim 0.7 has none): Refresh over a memex of
// 10,000 files in 40 folders when nothing on disk changed. Its time over
// the interval is the share of one core the idle poll takes.
func BenchmarkRefreshUnchanged10k(b *testing.B) {
	o := memexgen.Defaults()
	o.Files, o.Headlines, o.Dirs, o.Seed = 10_000, 50_000, 40, 42
	dir, _ := writeGenerated(b, corpusSource(b), o)
	ctx := context.Background()
	m, err := Open(ctx, Options{Roots: []string{dir}})
	require.NoError(b, err)
	b.Cleanup(func() { m.Close(context.Background()) })
	before := m.Snapshot()
	for b.Loop() {
		s, err := m.Refresh(ctx)
		require.NoError(b, err)
		require.Same(b, before, s)
	}
}
