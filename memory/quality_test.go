package memory

import (
	"context"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory/internal/vecmath"
	"pp-lsp/memory/trigram"
)

// scores summarises a sample of similarities.
type scores []float32

func (s scores) quantile(p float64) float32 {
	c := slices.Clone(s)
	slices.Sort(c)
	return c[int(p*float64(len(c)-1))]
}

func (s scores) shareAtLeast(th float32) float64 {
	n := 0
	for _, x := range s {
		if x >= th {
			n++
		}
	}
	return float64(n) / float64(len(s))
}

// auc is the probability that a related pair outscores an unrelated one.
func auc(related, unrelated scores) float64 {
	u := slices.Clone(unrelated)
	slices.Sort(u)
	var wins float64
	for _, r := range related {
		lo, _ := slices.BinarySearch(u, r)
		hi := lo
		for hi < len(u) && u[hi] == r {
			hi++
		}
		wins += float64(lo) + 0.5*float64(hi-lo)
	}
	return wins / float64(len(related)*len(u))
}

// TestTrigramQualityOnCorpus measures the default embedder on pairs from
// the public corpus whose relation is known — a note and the note it links
// to by ID (braindump), a page and its translation (worg's Org tutorial in
// Spanish and Portuguese), a headline and its parent, siblings — against
// random pairs from different files, and checks that the context rule's
// threshold of 0.75 lets related notes through and keeps unrelated ones out.
// A parent's own text (often a bare title or a one-line introduction)
// is measured and reported but not asserted on: lexically it is no closer
// to its children than any text of the same documentation corpus.
func TestTrigramQualityOnCorpus(t *testing.T) {
	testenv.SkipShort(t, "measures the embedder over the whole corpus")
	shared := testenv.SharedDir(t)
	m := openMemex(t, Options{Roots: []string{filepath.Join(shared, "corpus", "org")}, Embed: true})
	require.NoError(t, m.WaitEmbedded(context.Background()))
	s := m.Snapshot()
	cos := func(a, b Node) (float32, bool) {
		va, ok1 := s.Vector(a)
		vb, ok2 := s.Vector(b)
		if !ok1 || !ok2 {
			return 0, false
		}
		return vecmath.Dot(va, vb), true
	}
	var all []Node
	for n := range s.Nodes() {
		if _, ok := s.Vector(n); ok {
			all = append(all, n)
		}
	}
	var linked, parent, sibling, translation, random scores
	for _, n := range all {
		for i := range n.f.links {
			if n.f.links[i].kind != linkID || n.f.org.Links[i].Node+1 != int(n.i) {
				continue
			}
			if tgt, ok := s.NodeByID(n.f.org.Links[i].Path); ok && tgt.f != n.f {
				if c, ok := cos(n, tgt); ok {
					linked = append(linked, c)
				}
			}
		}
		if p, ok := n.Parent(); ok && !p.IsFile() {
			if c, ok := cos(n, p); ok {
				parent = append(parent, c)
			}
		}
		var prev Node
		for k := range n.Children() { // adjacent siblings, once per family
			if prev.Valid() {
				if x, ok := cos(prev, k); ok {
					sibling = append(sibling, x)
				}
			}
			prev = k
		}
	}
	dir := filepath.Join(shared, "corpus", "org", "worg", "org-tutorials")
	en, ok := s.File(filepath.Join(dir, "orgtutorial_dto.org"))
	require.True(t, ok)
	for _, name := range []string{"orgtutorial_dto-es.org", "orgtutorial_dto-pt.org"} {
		tr, ok := s.File(filepath.Join(dir, name))
		require.True(t, ok)
		for i := range min(len(en.f.nodes), len(tr.f.nodes)) {
			if c, ok := cos(Node{en.f, int32(i)}, Node{tr.f, int32(i)}); ok {
				translation = append(translation, c)
			}
		}
	}
	rng := rand.New(rand.NewPCG(1, 2))
	for len(random) < 100000 {
		a, b := all[rng.IntN(len(all))], all[rng.IntN(len(all))]
		if a.f == b.f {
			continue
		}
		if c, ok := cos(a, b); ok {
			random = append(random, c)
		}
	}
	report := func(name string, x scores) {
		t.Logf("%-12s n=%6d  p10 %.2f  p50 %.2f  p90 %.2f  p99 %.2f  ≥0.75: %5.1f%%  AUC vs random %.2f",
			name, len(x), x.quantile(.1), x.quantile(.5), x.quantile(.9), x.quantile(.99), 100*x.shareAtLeast(.75), auc(x, random))
	}
	report("id-linked", linked)
	report("translation", translation)
	report("sibling", sibling)
	report("parent", parent)
	report("random", random)

	assert.Less(t, random.shareAtLeast(.75), 0.01, "unrelated notes stay below the context threshold")
	assert.Less(t, random.quantile(.99), float32(.75))
	assert.GreaterOrEqual(t, translation.quantile(.5), float32(.75), "a page and its translation: half at least reach it")
	assert.GreaterOrEqual(t, linked.shareAtLeast(.75), 0.25, "a note and the notes it links to")
	assert.GreaterOrEqual(t, sibling.shareAtLeast(.75), 0.4, "adjacent siblings: about half")
	assert.Greater(t, auc(sibling, random), 0.8)
	assert.Greater(t, auc(linked, random), 0.8)
	assert.Greater(t, auc(translation, random), 0.8)

	e := trigram.New()
	pairs := []struct {
		a, b    string
		related bool
	}{
		{"authentication login form handler module", "authentication login form handler fix", true},
		{"Soil moisture sensors report over LoRa every ten minutes.", "The LoRa soil moisture sensor reports every ten minutes", true},
		{"authentication", "banana", false},
		{"Soil moisture sensors report over LoRa.", "Quarterly tax return for the pension fund.", false},
	}
	for _, p := range pairs {
		v := e.Vector(p.a)
		w := e.Vector(p.b)
		c := vecmath.Dot(v, w)
		t.Logf("%.3f  %q / %q", c, p.a, p.b)
		assert.Equal(t, p.related, c >= .75, "%q / %q: %.3f", p.a, p.b, c)
	}
}
