package memory

import (
	"context"
	"errors"
	"fmt"
	"math"
	"slices"
	"sync"

	"pp-lsp/memory/internal/vecmath"
)

// NearestOptions shape a nearest-neighbour query.
type NearestOptions struct {
	// K is how many neighbours to return (default 10).
	K int
	// MinScore drops neighbours below this cosine similarity (the context
	// renderer passes CONTEXT_SEMANTIC_THRESHOLD), and bounds the search
	// to the vectors that may reach it (see Nearest). Zero means no bound.
	MinScore float32
	// Exclude, when set, drops the nodes it returns true for (for example
	// the foveal node's own file). Private nodes never have a vector and
	// are never returned, whatever Exclude says.
	Exclude func(Node) bool
	// Exact scores every vector instead of a signature-filtered shortlist
	// (the reference the fast path is measured against).
	Exact bool
}

// Neighbour is one result: a node and its cosine similarity to the query.
type Neighbour struct {
	Node  Node
	Score float32
}

// ErrNoVector is returned for a query node without a vector: private,
// blank, or not embedded yet.
var ErrNoVector = errors.New("the node has no embedding")

// Vector returns n's embedding in this snapshot (unit length, widened
// from the half precision it is kept in; the caller owns the copy), and
// whether it has one.
func (s *Snapshot) Vector(n Node) ([]float32, bool) {
	e, ok := s.entry(n.f.path)
	if !ok || e.idx != n.f {
		return nil, false
	}
	v, _, ok := e.vecs.vector(n.i)
	if !ok {
		return nil, false
	}
	return vecmath.FromHalf(v, nil), true
}

// Nearest returns the K nodes whose embeddings are closest to n's, most
// similar first (ties in memex order), never n itself and never a private
// node.
//
// The search is two-staged. Every vector carries a 512-bit sign signature
// (a randomised Hadamard rotation's signs, vecmath.Projector); the
// Hamming distance between signatures estimates the angle, so a scan of
// the signatures — eight XOR-popcounts per node — picks a shortlist of the
// closest candidates (four thousand of 100k), which are then scored
// exactly by dot product. Small memexes, and Exact, score everything.
//
// MinScore bounds how far the search widens when fewer than K of the
// shortlist pass it: to every vector whose signature is close enough that
// it may score MinScore (within the Hamming distance its angle at
// MinScore gives, plus two standard deviations), and no further — never
// to the whole memex — so asking for the neighbours above a threshold
// costs about what asking for the top K does. A neighbour scoring exactly
// MinScore is missed with a probability of 2.3% under the binomial model
// of signature distances (0.5% with the spread measured), one scoring
// more with less: at 0.75 among 100k trigram vectors, 0.9996 of the
// neighbours the exhaustive search finds are found.
func (s *Snapshot) Nearest(ctx context.Context, n Node, opts NearestOptions) ([]Neighbour, error) {
	e, ok := s.entry(n.f.path)
	if !ok || e.idx != n.f {
		return nil, fmt.Errorf("nearest to %s: the node is not in this snapshot", n.SyntheticKey())
	}
	v, sig, ok := e.vecs.vector(n.i)
	if !ok {
		return nil, fmt.Errorf("nearest to %s: %w", n.SyntheticKey(), ErrNoVector)
	}
	return s.search(ctx, vecmath.FromHalf(v, nil), sig, n, opts)
}

// NearestToVector is Nearest for any vector of the store's dimension (an
// embedded query text, say).
func (s *Snapshot) NearestToVector(ctx context.Context, v []float32, opts NearestOptions) ([]Neighbour, error) {
	if why := vecmath.Check(v); why != "" {
		return nil, fmt.Errorf("nearest to a vector: it %s", why)
	}
	segs, _ := s.segments()
	for _, sg := range segs {
		if sg.vecs.dim != len(v) {
			return nil, fmt.Errorf("nearest to a vector of dimension %d: the memex's vectors have %d", len(v), sg.vecs.dim)
		}
		break
	}
	u := vecmath.Normalize(v)
	var sig [vecmath.SigWords]uint64
	s.cfg.projector(len(u)).Signature(u, sig[:], nil)
	return s.search(ctx, u, sig[:], Node{}, opts)
}

// segment is one chunk of a file's vectors in a snapshot: the rows, and
// the base of their node indices.
type segment struct {
	f    *fileIndex
	base int32
	vecs *vecRows
}

// flatIndex is the snapshot's list of vector segments, made on first use.
type flatIndex struct {
	segs []segment
	rows int
}

func (s *Snapshot) segments() ([]segment, int) {
	s.flatOnce.Do(func() {
		fl := &flatIndex{}
		for _, p := range s.order {
			e, _ := s.files.get(p)
			if e.vecs.rows() == 0 {
				continue
			}
			for _, c := range e.vecs.chunks {
				fl.segs = append(fl.segs, segment{e.idx, c.base, c.rows})
			}
			fl.rows += e.vecs.rows()
		}
		s.flat = fl
	})
	return s.flat.segs, s.flat.rows
}

// Shortlist sizing: the exact re-rank scores at least shortlistMin
// candidates, and shortlistPerK per neighbour asked for; memexes with at
// most exhaustiveMax vectors are scored in full (scanning signatures
// would not pay). Measured on 100k trigram vectors of a generated memex:
// recall@10 against the exhaustive search 0.976 with 2048 candidates,
// 0.995 with 4096, and 1.000 for every neighbour scoring 0.5 or more.
const (
	shortlistMin  = 4096
	shortlistPerK = 256
	exhaustiveMax = 8192
)

// searchPools recycles the per-query distance buffers (200 KB at 100k
// vectors), so queries do not feed the garbage collector.
type searchPools struct {
	dist sync.Pool
}

func (p *searchPools) get(n int) *[]uint16 {
	if b, ok := p.dist.Get().(*[]uint16); ok && cap(*b) >= n {
		*b = (*b)[:n]
		return b
	}
	b := make([]uint16, n)
	return &b
}

func (p *searchPools) put(b *[]uint16) { p.dist.Put(b) }

func (s *Snapshot) search(ctx context.Context, q []float32, qsig []uint64, self Node, opts NearestOptions) ([]Neighbour, error) {
	if opts.K <= 0 {
		opts.K = 10
	}
	segs, total := s.segments()
	if total == 0 {
		return nil, nil
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("nearest: %w", err)
	}
	kernel := s.cfg.kernel
	top := newTopK(opts.K)
	consider := func(si, r int) {
		sg := segs[si]
		node := Node{sg.f, sg.base + sg.vecs.nodes[r]}
		if node.Same(self) {
			return
		}
		score := kernel.DotHalf(q, sg.vecs.vec(r))
		if opts.MinScore != 0 && score < opts.MinScore {
			return
		}
		if !top.wants(score) {
			return
		}
		if opts.Exclude != nil && opts.Exclude(node) {
			return
		}
		top.add(Neighbour{Node: node, Score: score}, si, r)
	}
	if opts.Exact || total <= exhaustiveMax {
		for si, sg := range segs {
			for r := range sg.vecs.nodes {
				consider(si, r)
			}
		}
		return top.result(), nil
	}
	// A bound on the score is a bound on the Hamming distance: when the
	// shortlist does not fill the top K, every row whose signature is
	// close enough that it may score MinScore (see minScoreReach) is
	// scored, and none further, however few pass.
	reach := -1
	if opts.MinScore != 0 {
		if reach = s.minScoreReach(q, opts.MinScore); reach < 0 {
			return nil, nil
		}
	}
	// Stage 1: Hamming distances of all signatures, and their histogram.
	buf := s.cfg.search.get(total)
	defer s.cfg.search.put(buf)
	dist := *buf
	var hist [vecmath.SigBits + 1]int32
	k := 0
	for _, sg := range segs {
		sigs := sg.vecs.sigs
		for r := 0; r < len(sg.vecs.nodes); r++ {
			d := vecmath.Hamming(qsig, sigs[r*vecmath.SigWords:])
			dist[k] = uint16(d)
			hist[d]++
			k++
		}
	}
	want := max(shortlistMin, shortlistPerK*opts.K)
	done := -1 // rows at this distance or closer are scored
	for {
		if err := ctx.Err(); err != nil {
			return nil, fmt.Errorf("nearest: %w", err)
		}
		// Stage 2: the cut-off distance that admits about `want` rows —
		// or, in MinScore's second round, the rest of its reach — then the
		// exact score of each row admitted that no earlier round scored.
		cut, acc := 0, int32(0)
		for cut < len(hist) {
			acc += hist[cut]
			if int(acc) >= want || (done >= 0 && reach >= 0 && cut >= reach) {
				break
			}
			cut++
		}
		k = 0
		for si, sg := range segs {
			for r := range sg.vecs.nodes {
				if d := int(dist[k]); d <= cut && d > done {
					consider(si, r)
				}
				k++
			}
		}
		// Filters or MinScore may have emptied the shortlist; widen it
		// then: under MinScore to its reach, else up to all rows.
		if top.full() || int(acc) >= total || cut >= vecmath.SigBits || (reach >= 0 && cut >= reach) {
			return top.result(), nil
		}
		done = cut
		want *= 4
	}
}

// The reach of MinScore (see minScoreReach). scoreSlack covers the
// rounding of half-precision vectors in the identity the reach rests on
// (measured: 7e-5). reachMargin is in standard deviations of the binomial
// model of the Hamming distance: under it, a neighbour scoring exactly
// MinScore lies beyond the reach with probability 2.3%, one scoring more
// with less. The signatures of the randomised Hadamard rotation vary less
// than independent hyperplanes would: over the 23 million pairs scoring
// 0.6 or more among the 100k benchmark vectors, the distance's deviation
// from its expectation had a standard deviation of 0.77 of the binomial's
// (so 2.6 of its own at the margin: 0.5%). Measured on that memex at the
// context threshold 0.75, over 400 queries: the neighbours within reach
// are 0.9996 of those the exhaustive search finds (2798 of 2799), where
// the plain shortlist holds 0.9954; reach admits a median of 8k rows
// (18.8k at the 90th percentile) — a margin of 2.5 gave 1.0000 for twice
// the rows, 4.5 the whole memex.
const (
	scoreSlack  = 0.005
	reachMargin = 2.0
)

// minScoreReach returns the Hamming distance within which a stored vector
// may score minScore or more against q (beyond it, one does with the
// small probability reachMargin sets), or -1 when no vector can at all.
//
// Signatures sign v − c, c the projector's centre, and every stored unit
// vector v has v·c = |c|² (c is zero, or the trigram embedder's constant
// component, which every vector carries; see config.signCenter). So
// q·v = q·c + |q−c|·√(1−|c|²)·cos φ, φ the angle between q−c and v−c:
// the score grows as φ shrinks, and φ is what the Hamming distance
// estimates — SigBits·φ/π on average, with the binomial's spread. The
// reach is the distance at the angle where the score is minScore, plus
// reachMargin standard deviations.
func (s *Snapshot) minScoreReach(q []float32, minScore float32) int {
	c := s.cfg.signCenter
	var qc, wq2, cc float64
	for i, x := range q {
		ci := 0.0
		if c != nil {
			ci = float64(c[i])
		}
		qc += float64(x) * ci
		wq2 += (float64(x) - ci) * (float64(x) - ci)
		cc += ci * ci
	}
	denom := math.Sqrt(wq2 * (1 - cc))
	if denom == 0 || math.IsNaN(denom) {
		return vecmath.SigBits // no angle to bound
	}
	kappa := (float64(minScore) - scoreSlack - qc) / denom
	switch {
	case kappa <= -1:
		return vecmath.SigBits
	case kappa > 1:
		return -1
	}
	p := math.Acos(kappa) / math.Pi
	const n = vecmath.SigBits
	return min(n, int(math.Ceil(n*p+reachMargin*math.Sqrt(n*p*(1-p)))))
}

// topK keeps the best K neighbours, ties broken by memex order.
type topK struct {
	k     int
	items []ranked
}

type ranked struct {
	n       Neighbour
	seg, at int
}

func newTopK(k int) *topK { return &topK{k: k, items: make([]ranked, 0, k+1)} }

func (t *topK) full() bool { return len(t.items) >= t.k }

// wants reports whether a score could enter (ties might: checked in add).
func (t *topK) wants(score float32) bool {
	return len(t.items) < t.k || score >= t.items[len(t.items)-1].n.Score
}

func (t *topK) add(n Neighbour, seg, at int) {
	it := ranked{n, seg, at}
	i := len(t.items)
	for i > 0 && better(it, t.items[i-1]) {
		i--
	}
	if i >= t.k {
		return
	}
	t.items = slices.Insert(t.items, i, it)
	if len(t.items) > t.k {
		t.items = t.items[:t.k]
	}
}

func better(a, b ranked) bool {
	if a.n.Score != b.n.Score {
		return a.n.Score > b.n.Score
	}
	if a.seg != b.seg {
		return a.seg < b.seg
	}
	return a.at < b.at
}

func (t *topK) result() []Neighbour {
	out := make([]Neighbour, len(t.items))
	for i, it := range t.items {
		out[i] = it.n
	}
	return out
}
