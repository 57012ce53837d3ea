package foveal

import (
	"context"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pp-lsp/memory"
	"pp-lsp/memory/memexgen"
)

// corpusSource is the generator's text: the public corpus when it is
// beside the checkout, else the built-in word list.
func corpusSource(tb testing.TB) *memexgen.Source {
	tb.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "corpus", "org")
	if _, err := os.Stat(dir); err != nil {
		return memexgen.BuiltinSource()
	}
	src, err := memexgen.LoadSource(dir)
	require.NoError(tb, err)
	return src
}

// openGenerated writes a generated memex and opens it with every node
// embedded.
func openGenerated(b *testing.B, o memexgen.Options) (*memory.Memex, string, *memexgen.Memex) {
	b.Helper()
	g, err := memexgen.Generate(corpusSource(b), o)
	require.NoError(b, err)
	dir := b.TempDir()
	require.NoError(b, g.WriteDir(dir))
	ctx := context.Background()
	m, err := memory.Open(ctx, memory.Options{Roots: []string{dir}, Embed: true})
	require.NoError(b, err)
	b.Cleanup(func() { m.Close(ctx) })
	require.NoError(b, m.WaitEmbedded(ctx))
	return m, dir, g
}

// open100k opens memory's benchmark memex: 100,000 headlines in 1,000
// files, 20 folders.
func open100k(b *testing.B) *memory.Memex {
	b.Helper()
	o := memexgen.Defaults()
	o.Files, o.Headlines, o.Dirs, o.Seed = 1000, 100_000, 20, 42
	m, _, _ := openGenerated(b, o)
	return m
}

// randomCursors draws n cursors over the memex's files and lines.
func randomCursors(snap *memory.Snapshot, n int, seed uint64) []Cursor {
	var files []memory.Node
	for f := range snap.Files() {
		files = append(files, f)
	}
	rng := rand.New(rand.NewPCG(seed, seed^0x9e3779b97f4a7c15))
	out := make([]Cursor, n)
	for i := range out {
		f := files[rng.IntN(len(files))]
		out[i] = Cursor{Path: f.Path(), Line: rng.IntN(f.Org().Lines.LineCount())}
	}
	return out
}

// reportLatency reports the median and 99th percentile of lat.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkView100k renders views at the default budget from random
// cursors of the 100k-headline memex, semantic neighbours included
// (the trigram embeddings of every node, searched with memory's
// Nearest), on a snapshot whose per-snapshot figures are already made.
// It reports the latency distribution per view.
func BenchmarkView100k(b *testing.B) {
	m := open100k(b)
	snap := m.Snapshot()
	r, err := NewRenderer(Options{})
	require.NoError(b, err)
	ctx := context.Background()
	cursors := randomCursors(snap, 4096, 7)
	t0 := time.Now()
	_, err = r.View(ctx, snap, cursors[0], 0)
	require.NoError(b, err)
	first := time.Since(t0)
	var lat []time.Duration
	related := 0
	runtime.GC() // the setup's garbage is not the views' cost
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t := time.Now()
		v, err := r.View(ctx, snap, cursors[i%len(cursors)], 0)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
		related += len(v.Semantic)
	}
	b.StopTimer()
	reportLatency(b, lat)
	b.ReportMetric(float64(related)/float64(len(lat)), "related/view")
	b.ReportMetric(float64(first.Microseconds())/1000, "first-view-ms")
}

// BenchmarkViewAfterEdit100k is the language server's path on every
// keystroke: one byte typed into a file of the 100k memex, then a view
// from there on the new snapshot — the per-snapshot figures made again
// (one file recounted, the others taken from the cache) and the view.
// The edit itself is memory's cost and is not timed.
func BenchmarkViewAfterEdit100k(b *testing.B) {
	m := open100k(b)
	ctx := context.Background()
	r, err := NewRenderer(Options{})
	require.NoError(b, err)
	cursors := randomCursors(m.Snapshot(), 256, 11)
	_, err = r.View(ctx, m.Snapshot(), cursors[0], 0)
	require.NoError(b, err)
	var lat []time.Duration
	versions := map[string]int32{}
	runtime.GC()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		b.StopTimer()
		cur := cursors[i%len(cursors)]
		f, _ := m.Snapshot().File(cur.Path)
		versions[cur.Path]++
		text := append(append([]byte(nil), f.Org().Src...), "\nx"...)
		snap, err := m.SetBuffer(ctx, cur.Path, versions[cur.Path], text)
		require.NoError(b, err)
		b.StartTimer()
		t := time.Now()
		if _, err := r.View(ctx, snap, cur, 0); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
	}
	b.StopTimer()
	reportLatency(b, lat)
}

// BenchmarkViewCorpus renders views from random cursors of the public
// corpus and reports full_tokens/tokens, the compression the view buys
// (its median over the views), with the latency.
func BenchmarkViewCorpus(b *testing.B) {
	ctx := context.Background()
	snap := openCorpus(b)
	r, err := NewRenderer(Options{})
	require.NoError(b, err)
	cursors := randomCursors(snap, 2048, 3)
	var lat []time.Duration
	var ratios []float64
	runtime.GC()
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		t := time.Now()
		v, err := r.View(ctx, snap, cursors[i%len(cursors)], 0)
		if err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t))
		ratios = append(ratios, float64(v.FullTokens)/float64(v.Tokens))
	}
	b.StopTimer()
	reportLatency(b, lat)
	slices.Sort(ratios)
	b.ReportMetric(ratios[len(ratios)/2], "full/tokens")
}

// openCorpus opens the public corpus as a memex, every node embedded, and
// returns its snapshot; the benchmark is skipped without the corpus.
func openCorpus(b *testing.B) *memory.Snapshot {
	b.Helper()
	dir := filepath.Join("..", "..", "..", "shared", "corpus", "org")
	if _, err := os.Stat(dir); err != nil {
		b.Skip("the shared corpus is not beside the checkout")
	}
	ctx := context.Background()
	m, err := memory.Open(ctx, memory.Options{Roots: []string{dir}, Embed: true})
	require.NoError(b, err)
	b.Cleanup(func() { m.Close(ctx) })
	require.NoError(b, m.WaitEmbedded(ctx))
	return m.Snapshot()
}

// BenchmarkCountTokens counts the tokens of the public corpus's text (or
// generated text without it), reporting the counter's speed in MB/s.
func BenchmarkCountTokens(b *testing.B) {
	o := memexgen.Defaults()
	g, err := memexgen.Generate(corpusSource(b), o)
	require.NoError(b, err)
	var text []byte
	for _, f := range g.Files {
		text = append(text, f.Data...)
	}
	b.SetBytes(int64(len(text)))
	for b.Loop() {
		countTokens(text)
	}
}

// BenchmarkViewTopOf4MB renders the view from the first line of one 4 MB
// file (14,000 headlines, as memory's BenchmarkEdit5MB makes it): the file
// node is the foveal node, far over the budget, and is cut without being
// rendered whole.
func BenchmarkViewTopOf4MB(b *testing.B) {
	o := memexgen.Defaults()
	o.Files, o.Dirs, o.Headlines, o.Seed = 1, 0, 14_000, 7
	m, dir, g := openGenerated(b, o)
	ctx := context.Background()
	r, err := NewRenderer(Options{})
	require.NoError(b, err)
	cur := Cursor{Path: filepath.Join(dir, filepath.FromSlash(g.Files[0].Path)), Line: 0}
	_, err = r.View(ctx, m.Snapshot(), cur, 0)
	require.NoError(b, err)
	runtime.GC()
	b.ResetTimer()
	for b.Loop() {
		if _, err := r.View(ctx, m.Snapshot(), cur, 0); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(g.Bytes())/1e6, "MB")
}
