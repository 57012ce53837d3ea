package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"slices"
	"testing"
	"time"

	chromem "github.com/philippgille/chromem-go"
	"github.com/stretchr/testify/require"

	"pp-lsp/memory/memexgen"
)

// bench100k is the benchmark memex: 100,000 headlines in 1,000 files.
func bench100k() memexgen.Options {
	o := memexgen.Defaults()
	o.Files, o.Headlines, o.Dirs, o.Seed = 1000, 100_000, 20, 42
	return o
}

// embedded100k opens the benchmark memex with every vector made, and
// returns its snapshot and the nodes that have a vector.
func embedded100k(b *testing.B) (*Snapshot, []Node) {
	dir, _ := writeGenerated(b, corpusSource(b), bench100k())
	ctx := context.Background()
	m, err := Open(ctx, Options{Roots: []string{dir}, Embed: true})
	require.NoError(b, err)
	b.Cleanup(func() { m.Close(context.Background()) })
	require.NoError(b, m.WaitEmbedded(ctx))
	s := m.Snapshot()
	var nodes []Node
	for n := range s.Nodes() {
		if _, ok := s.Vector(n); ok {
			nodes = append(nodes, n)
		}
	}
	return s, nodes
}

// nearestLatency times Nearest from random nodes, one query an iteration,
// and reports the p50 and p99 latency.
func nearestLatency(b *testing.B, s *Snapshot, nodes []Node, rng *rand.Rand, opts NearestOptions) {
	ctx := context.Background()
	var lat []time.Duration
	b.ResetTimer()
	for b.Loop() {
		n := nodes[rng.IntN(len(nodes))]
		t0 := time.Now()
		if _, err := s.Nearest(ctx, n, opts); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(t0))
	}
	b.StopTimer()
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkColdIndex100k reads, parses and indexes 100k headlines from
// disk (the page cache warm), without embedding: Open with Embed off.
func BenchmarkColdIndex100k(b *testing.B) {
	dir, g := writeGenerated(b, corpusSource(b), bench100k())
	for b.Loop() {
		m, err := Open(context.Background(), Options{Roots: []string{dir}})
		require.NoError(b, err)
		require.Equal(b, 100_000, m.Snapshot().Figures().Headlines)
		m.Close(context.Background())
	}
	b.ReportMetric(float64(g.Bytes())/1e6, "MB-of-org")
}

// BenchmarkEmbed100k is the embedding that Open's figure leaves out: every
// node of the 100k memex through the trigram embedder, into the store and
// the snapshots.
func BenchmarkEmbed100k(b *testing.B) {
	dir, _ := writeGenerated(b, corpusSource(b), bench100k())
	for b.Loop() {
		b.StopTimer()
		m, err := Open(context.Background(), Options{Roots: []string{dir}})
		require.NoError(b, err)
		m.Close(context.Background())
		b.StartTimer()
		m, err = Open(context.Background(), Options{Roots: []string{dir}, Embed: true})
		require.NoError(b, err)
		require.NoError(b, m.WaitEmbedded(context.Background()))
		b.StopTimer()
		b.ReportMetric(float64(m.Snapshot().Figures().Embedded), "vectors")
		m.Close(context.Background())
		b.StartTimer()
	}
}

// fiveMBFile generates one Org file of about 5 MB.
func fiveMBFile(b *testing.B) []byte {
	o := memexgen.Defaults()
	o.Files, o.Dirs, o.Headlines, o.Seed = 1, 0, 14_000, 7
	g, err := memexgen.Generate(corpusSource(b), o)
	require.NoError(b, err)
	return g.Files[0].Data
}

// BenchmarkEdit5MB is the editor's hot path: one byte typed into a 5 MB
// buffer, at a random place, until the new snapshot is published (the
// outline reparsed where touched, the file re-indexed, hashes and the
// global indexes updated).
func BenchmarkEdit5MB(b *testing.B) {
	data := fiveMBFile(b)
	dir := b.TempDir()
	path := dir + "/big.org"
	m, err := Open(context.Background(), Options{Roots: []string{dir}})
	require.NoError(b, err)
	defer m.Close(context.Background())
	_, err = m.SetBuffer(context.Background(), path, 1, data)
	require.NoError(b, err)
	b.ReportMetric(float64(len(data))/1e6, "MB")
	rng := rand.New(rand.NewPCG(1, 2))
	v := int32(1)
	for b.Loop() {
		v++
		at := rng.IntN(len(data))
		_, err := m.EditBuffer(context.Background(), path, v, TextEdit{Start: at, End: at, Text: "x"})
		if err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkEdit5MBFindings is the editor's diagnostics path: a 1-byte
// edit of the 5 MB buffer, then the edited file's findings (duplicate IDs,
// broken id, file and internal links) from the new snapshot.
func BenchmarkEdit5MBFindings(b *testing.B) {
	data := fiveMBFile(b)
	dir := b.TempDir()
	path := dir + "/big.org"
	m, err := Open(context.Background(), Options{Roots: []string{dir}})
	require.NoError(b, err)
	defer m.Close(context.Background())
	_, err = m.SetBuffer(context.Background(), path, 1, data)
	require.NoError(b, err)
	rng := rand.New(rand.NewPCG(1, 2))
	v := int32(1)
	for b.Loop() {
		v++
		at := rng.IntN(len(data))
		s, err := m.EditBuffer(context.Background(), path, v, TextEdit{Start: at, End: at, Text: "x"})
		if err != nil {
			b.Fatal(err)
		}
		s.FileFindings(path)
	}
}

// BenchmarkNearest100k asks for the 10 nearest neighbours of random nodes
// among 100k trigram vectors and reports the latency distribution and the
// recall@10 of the fast path against the exhaustive search.
func BenchmarkNearest100k(b *testing.B) {
	s, nodes := embedded100k(b)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(3, 4))
	// Recall against the exhaustive search, on 200 queries.
	var hit, all int
	for range 200 {
		n := nodes[rng.IntN(len(nodes))]
		fast, err := s.Nearest(ctx, n, NearestOptions{K: 10})
		require.NoError(b, err)
		exact, err := s.Nearest(ctx, n, NearestOptions{K: 10, Exact: true})
		require.NoError(b, err)
		got := map[string]bool{}
		for _, r := range fast {
			got[r.Node.SyntheticKey()] = true
		}
		for _, r := range exact {
			all++
			if got[r.Node.SyntheticKey()] {
				hit++
			}
		}
	}
	nearestLatency(b, s, nodes, rng, NearestOptions{K: 10})
	b.ReportMetric(float64(len(nodes)), "vectors")
	b.ReportMetric(float64(hit)/float64(all), "recall@10")
}

// BenchmarkNearestExact100k is the exhaustive reference on the same data.
func BenchmarkNearestExact100k(b *testing.B) {
	s, nodes := embedded100k(b)
	rng := rand.New(rand.NewPCG(5, 6))
	for b.Loop() {
		if _, err := s.Nearest(context.Background(), nodes[rng.IntN(len(nodes))], NearestOptions{K: 10, Exact: true}); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkChromemExhaustive100k is the baseline the fast path replaces:
// chromem-go's own exhaustive QueryEmbedding over the same 100k vectors
// (in float32, one collection), top 10.
func BenchmarkChromemExhaustive100k(b *testing.B) {
	s, _ := embedded100k(b)
	col, err := chromem.NewDB().CreateCollection("bench", nil, noEmbed)
	require.NoError(b, err)
	var queries [][]float32
	seen := map[ContentKey]bool{}
	for n := range s.Nodes() {
		v, ok := s.Vector(n)
		if !ok || seen[n.ContentKey()] {
			continue
		}
		seen[n.ContentKey()] = true
		require.NoError(b, col.AddDocument(context.Background(), chromem.Document{ID: n.ContentKey().String(), Embedding: v}))
		if len(queries) < 1000 {
			queries = append(queries, v)
		}
	}
	b.ReportMetric(float64(col.Count()), "vectors")
	rng := rand.New(rand.NewPCG(7, 8))
	b.ResetTimer()
	for b.Loop() {
		if _, err := col.QueryEmbedding(context.Background(), queries[rng.IntN(len(queries))], 10, nil, nil); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkNearestMinScore100k asks for the 10 nearest neighbours scoring
// at least 0.75 (the context renderer's threshold) among 100k trigram
// vectors, without and with MinScore (without it, the answer is the top
// 10 cut at 0.75 by the caller), and reports the latency distribution,
// the recall of the threshold's neighbours against the exhaustive search,
// and how many neighbours pass on average.
func BenchmarkNearestMinScore100k(b *testing.B) {
	s, nodes := embedded100k(b)
	ctx := context.Background()
	const threshold = 0.75
	for _, minScore := range []float32{0, threshold} {
		b.Run(fmt.Sprintf("MinScore=%g", minScore), func(b *testing.B) {
			opts := NearestOptions{K: 10, MinScore: minScore}
			rng := rand.New(rand.NewPCG(3, 4))
			var hit, all, passed int
			for range 300 {
				n := nodes[rng.IntN(len(nodes))]
				fast, err := s.Nearest(ctx, n, opts)
				require.NoError(b, err)
				exact, err := s.Nearest(ctx, n, NearestOptions{K: 10, MinScore: threshold, Exact: true})
				require.NoError(b, err)
				got := map[Node]bool{}
				for _, r := range fast {
					if r.Score >= threshold {
						got[r.Node] = true
						passed++
					}
				}
				for _, r := range exact {
					all++
					if got[r.Node] {
						hit++
					}
				}
			}
			nearestLatency(b, s, nodes, rng, opts)
			b.ReportMetric(float64(hit)/float64(max(all, 1)), "recall@0.75")
			b.ReportMetric(float64(passed)/300, "passing/query")
		})
	}
}
