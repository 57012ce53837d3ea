package memory

import (
	"context"
	"math/rand/v2"
	"testing"

	chromem "github.com/philippgille/chromem-go"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/memory/internal/vecmath"
	"pp-lsp/memory/memexgen"
)

// embeddedMemex opens and fully embeds a generated memex.
func embeddedMemex(t *testing.T, o memexgen.Options) *Memex {
	t.Helper()
	dir, _ := writeGenerated(t, memexgen.BuiltinSource(), o)
	m := openMemex(t, Options{Roots: []string{dir}, Embed: true})
	require.NoError(t, m.WaitEmbedded(context.Background()))
	return m
}

// TestNearestMatchesChromem checks the exact search against chromem-go's
// own exhaustive QueryEmbedding over the same vectors, and the fast path
// against the exact one (recall@10 over random queries).
func TestNearestMatchesChromem(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Headlines, o.PrivateShare, o.PrivateFileShare = 50, 10000, 0, 0
	m := embeddedMemex(t, o)
	s := m.Snapshot()
	ctx := context.Background()
	db := chromem.NewDB()
	col, err := db.CreateCollection("ref", nil, noEmbed)
	require.NoError(t, err)
	byKey := map[string]Node{}
	var nodes []Node
	for n := range s.Nodes() {
		v, ok := s.Vector(n)
		if !ok {
			continue
		}
		nodes = append(nodes, n)
		if _, dup := byKey[n.ContentKey().String()]; dup {
			continue // nodes with the same text share a vector
		}
		byKey[n.ContentKey().String()] = n
		require.NoError(t, col.AddDocument(ctx, chromem.Document{ID: n.ContentKey().String(), Embedding: v}))
	}
	require.Greater(t, len(nodes), exhaustiveMax, "the fast path must be exercised")
	rng := rand.New(rand.NewPCG(1, 2))
	hits, total := 0, 0
	for range 40 {
		q := nodes[rng.IntN(len(nodes))]
		qv, _ := s.Vector(q)
		exact, err := s.Nearest(ctx, q, NearestOptions{K: 10, Exact: true})
		require.NoError(t, err)
		require.Len(t, exact, 10)
		ref, err := col.QueryEmbedding(ctx, qv, 11, nil, nil)
		require.NoError(t, err)
		var want []float32
		for _, r := range ref {
			if r.ID == q.ContentKey().String() {
				continue
			}
			want = append(want, r.Similarity)
		}
		for i, r := range exact {
			assert.InDelta(t, want[i], r.Score, 1e-3, "rank %d", i)
			assert.False(t, r.Node.Same(q), "never the query itself")
		}
		fast, err := s.Nearest(ctx, q, NearestOptions{K: 10})
		require.NoError(t, err)
		got := map[Node]bool{}
		for _, r := range fast {
			got[r.Node] = true
		}
		for _, r := range exact {
			total++
			if got[r.Node] {
				hits++
			}
		}
	}
	recall := float64(hits) / float64(total)
	t.Logf("recall@10 of the fast path against the exact search: %.3f", recall)
	assert.GreaterOrEqual(t, recall, 0.95)

	// MinScore: the fast path scores only the rows within reach, never
	// the whole memex, and finds what the exhaustive search finds above
	// the threshold.
	for _, minScore := range []float32{0.6, 0.75, 0.9} {
		hits, total := 0, 0
		for range 40 {
			q := nodes[rng.IntN(len(nodes))]
			exact, err := s.Nearest(ctx, q, NearestOptions{K: 10, MinScore: minScore, Exact: true})
			require.NoError(t, err)
			fast, err := s.Nearest(ctx, q, NearestOptions{K: 10, MinScore: minScore})
			require.NoError(t, err)
			got := map[Node]bool{}
			for i, r := range fast {
				assert.GreaterOrEqual(t, r.Score, minScore)
				if i > 0 {
					assert.GreaterOrEqual(t, fast[i-1].Score, r.Score)
				}
				got[r.Node] = true
			}
			for _, r := range exact {
				total++
				if got[r.Node] {
					hits++
				}
			}
		}
		if total > 0 {
			t.Logf("MinScore %g: %d of %d neighbours above it found", minScore, hits, total)
			assert.GreaterOrEqual(t, float64(hits)/float64(total), 0.98, "MinScore %g", minScore)
		}
	}
}

// TestMinScoreReach checks what the MinScore cut rests on: every stored
// vector v has v·c = |c|² for the signatures' centre c, and the reach
// grows as the threshold falls, from nothing above a score no vector can
// have to every row below any score a vector can have.
func TestMinScoreReach(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Headlines = 10, 600
	m := embeddedMemex(t, o)
	s := m.Snapshot()
	c := s.cfg.signCenter
	require.NotNil(t, c, "the trigram embedder's vectors are signed centred")
	var cc float64
	for _, x := range c {
		cc += float64(x) * float64(x)
	}
	var q []float32
	segs, _ := s.segments()
	for _, sg := range segs {
		for r := range sg.vecs.nodes {
			v := vecmath.FromHalf(sg.vecs.vec(r), nil)
			q = v
			var vc float64
			for i := range v {
				vc += float64(v[i]) * float64(c[i])
			}
			require.InDelta(t, cc, vc, 1e-3, "v·c = |c|² for every stored vector")
		}
	}
	assert.Equal(t, -1, s.minScoreReach(q, 1.5), "no vector scores above 1")
	assert.Equal(t, vecmath.SigBits, s.minScoreReach(q, -1), "every vector scores -1 or more")
	prev := -1
	for _, th := range []float32{0.99, 0.9, 0.75, 0.6, 0.5} {
		r := s.minScoreReach(q, th)
		assert.GreaterOrEqual(t, r, prev, "threshold %g", th)
		prev = r
	}
}

// TestNearestOptions covers K, MinScore, Exclude and the edge cases.
func TestNearestOptions(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Headlines = 4, 40
	m := embeddedMemex(t, o)
	s := m.Snapshot()
	ctx := context.Background()
	var q Node
	for n := range s.Nodes() {
		if _, ok := s.Vector(n); ok && !n.IsFile() {
			q = n
			break
		}
	}
	all, err := s.Nearest(ctx, q, NearestOptions{K: 1000})
	require.NoError(t, err)
	assert.Equal(t, s.Figures().Embedded-1, len(all), "K above the count: everything but the query")
	for i := 1; i < len(all); i++ {
		assert.GreaterOrEqual(t, all[i-1].Score, all[i].Score)
	}
	top3, err := s.Nearest(ctx, q, NearestOptions{K: 3})
	require.NoError(t, err)
	assert.Equal(t, all[:3], top3)

	min := all[5].Score
	above, err := s.Nearest(ctx, q, NearestOptions{K: 1000, MinScore: min})
	require.NoError(t, err)
	for _, r := range above {
		assert.GreaterOrEqual(t, r.Score, min)
	}
	assert.GreaterOrEqual(t, len(above), 6)

	otherFiles, err := s.Nearest(ctx, q, NearestOptions{K: 5, Exclude: func(n Node) bool { return n.Path() == q.Path() }})
	require.NoError(t, err)
	for _, r := range otherFiles {
		assert.NotEqual(t, q.Path(), r.Node.Path())
	}

	v, _ := s.Vector(q)
	byVec, err := s.NearestToVector(ctx, v, NearestOptions{K: 1})
	require.NoError(t, err)
	require.Len(t, byVec, 1)
	assert.InDelta(t, 1, byVec[0].Score, 1e-3, "a node's own vector finds it")
	_, err = s.NearestToVector(ctx, v[:10], NearestOptions{})
	assert.Error(t, err, "wrong dimension")
	_, err = s.NearestToVector(ctx, make([]float32, len(v)), NearestOptions{})
	assert.Error(t, err, "zero vector")

	empty := openMemex(t, Options{Roots: []string{t.TempDir()}, Embed: true})
	res, err := empty.Snapshot().NearestToVector(ctx, v, NearestOptions{})
	require.NoError(t, err)
	assert.Empty(t, res)
}

// TestSignaturesAreConsistent: however a row's signature was made (by the
// embedding workers, copied from an older segment, or computed while
// publishing), it is the signature of the stored half-precision vector.
func TestSignaturesAreConsistent(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Headlines = 6, 300
	dir, g := writeGenerated(t, memexgen.BuiltinSource(), o)
	m := openMemex(t, Options{Roots: []string{dir}, Embed: true})
	ctx := context.Background()
	require.NoError(t, m.WaitEmbedded(ctx))
	path := dir + "/" + g.Files[0].Path
	_, err := m.SetBuffer(ctx, path, 1, append(append([]byte(nil), g.Files[0].Data...), "* Fresh heading\nfresh words\n"...))
	require.NoError(t, err)
	require.NoError(t, m.WaitEmbedded(ctx))
	s := m.Snapshot()
	proj := s.cfg.projector(256)
	segs, total := s.segments()
	require.Positive(t, total)
	var sig [8]uint64
	for _, sg := range segs {
		for r := range sg.vecs.nodes {
			proj.Signature(vecmath.FromHalf(sg.vecs.vec(r), nil), sig[:], nil)
			require.Equal(t, sig[:], sg.vecs.sigOf(r))
		}
	}
}
