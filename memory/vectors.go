package memory

import (
	"context"
	"fmt"
	"slices"
	"sync"

	"pp-lsp/memory/internal/vecmath"
)

// vectorStore keeps every vector the memex has, by content key, for one
// embedder: unit length, in half precision (vecmath.ToHalf), so 100k
// vectors of dimension 256 take 51 MB instead of 102 — the one copy of
// the vectors in memory. chromem-go is the store's persistent form: a
// save builds one chromem-go DB per shard (NewDB, never the persistent
// DB with its file per document), adds that shard's vectors and exports
// it, so a save never holds more than a shard in float32 (DESIGN §10).
//
// Only writers touch the store (under its own mutex); snapshots hold the
// vector slices, which never change once stored.
type vectorStore struct {
	mu     sync.Mutex
	id     string
	dim    int // 0 until the first vector
	vecs   map[ContentKey][]uint16
	failed map[ContentKey]bool // the embedder gave a zero or non-finite vector
	proj   *vecmath.Projector
	// center is subtracted before signing (the trigram embedder's
	// calibration component), nil for none.
	center []float32
	dirty  bool
}

// storeShards is how many chromem-go collections a save writes.
const storeShards = 64

func newVectorStore(id string, center []float32) (*vectorStore, error) {
	return &vectorStore{id: id, vecs: map[ContentKey][]uint16{}, failed: map[ContentKey]bool{}, center: center}, nil
}

// collectionName is "<embedder ID>#<shard>": vectors of another embedder
// can never be read as this one's.
func collectionName(id string, shard int) string { return fmt.Sprintf("%s#%02x", id, shard) }

// noEmbed is the embedding function given to chromem-go: never called,
// since every document comes with its vector, and given at all so that
// chromem-go does not default to calling OpenAI.
func noEmbed(context.Context, string) ([]float32, error) {
	return nil, fmt.Errorf("memory computes its own embeddings")
}

func shardOfKey(k ContentKey) int { return int(k[0]) % storeShards }

// get returns the vector for k, nil when there is none. Callers hold s.mu.
func (s *vectorStore) get(k ContentKey) []uint16 { return s.vecs[k] }

// add stores v (from the embedder) under k after checking it: the
// dimension must be the store's, the values finite and not all zero.
// Callers hold s.mu.
func (s *vectorStore) add(k ContentKey, v []float32) error {
	if why := vecmath.Check(v); why != "" {
		s.failed[k] = true
		return fmt.Errorf("the embedding %s", why)
	}
	if s.dim == 0 {
		s.dim = len(v)
		s.proj = vecmath.NewCenteredProjector(s.dim, s.center)
	}
	if len(v) != s.dim {
		return fmt.Errorf("the embedding has dimension %d, not the store's %d (a wrong dimension would break every later query)", len(v), s.dim)
	}
	if !vecmath.IsUnit(v) {
		v = vecmath.Normalize(v)
	}
	s.vecs[k] = vecmath.ToHalf(v)
	s.dirty = true
	return nil
}

// vecSeg holds the vectors of one file version's nodes: rows in node
// order, each with its node index, its vector and its signature. It is
// immutable; a file whose nodes gain vectors gets a new segment.
// Signatures live only here, contiguous for the scan; a new segment
// copies them from the segment it replaces wherever the vector is the
// same, and computes them only for vectors new to the file.
type vecSeg struct {
	nodes []int32
	vecs  [][]uint16 // half precision, shared with the store
	sigs  []uint64   // rows × SigWords
}

func (v *vecSeg) rows() int {
	if v == nil {
		return 0
	}
	return len(v.nodes)
}

// row returns the row of node i, or -1.
func (v *vecSeg) row(i int32) int {
	if v == nil {
		return -1
	}
	lo, hi := 0, len(v.nodes)
	for lo < hi {
		m := (lo + hi) / 2
		if v.nodes[m] < i {
			lo = m + 1
		} else {
			hi = m
		}
	}
	if lo < len(v.nodes) && v.nodes[lo] == i {
		return lo
	}
	return -1
}

// sigOf returns the row's signature.
func (v *vecSeg) sigOf(r int) []uint64 { return v.sigs[r*vecmath.SigWords : (r+1)*vecmath.SigWords] }

// prevVectors says where a file version's previous segment was, to copy
// signatures from: node i of the new version was node from[i] of prevIdx
// (-1: new or changed). With from nil, the content keys match rows.
type prevVectors struct {
	idx  *fileIndex
	seg  *vecSeg
	from []int32
	// fresh holds signatures computed with vectors just embedded.
	fresh map[ContentKey]*[vecmath.SigWords]uint64
}

// vectorsFor builds the vector segment of a file version from the store,
// and queues every node that should have a vector but has none. Private
// nodes and nodes with blank text never get one: private text is never
// sent to an embedder (which may be a remote service), and a private node
// can therefore never be anyone's neighbour. Callers hold m.mu.
func (m *Memex) vectorsFor(f *fileIndex, prev prevVectors) *vecSeg {
	seg := &vecSeg{}
	var byKey map[ContentKey]int
	if prev.seg != nil && prev.from == nil && prev.idx != f {
		byKey = make(map[ContentKey]int, prev.seg.rows())
		for r, n := range prev.seg.nodes {
			byKey[prev.idx.nodes[n].content] = r
		}
	}
	var scratch []float32
	m.store.mu.Lock()
	defer m.store.mu.Unlock()
	for i := range f.nodes {
		n := &f.nodes[i]
		if n.private || !n.embeddable {
			continue
		}
		v := m.store.get(n.content)
		if v == nil {
			if m.opts.Embed && !m.store.failed[n.content] {
				m.queue.add(queued{key: n.content, f: f, i: int32(i)})
			}
			continue
		}
		seg.nodes = append(seg.nodes, int32(i))
		seg.vecs = append(seg.vecs, v)
		r := -1
		switch {
		case prev.seg == nil:
		case prev.idx == f:
			r = prev.seg.row(int32(i))
		case prev.from != nil:
			if j := prev.from[i]; j >= 0 {
				r = prev.seg.row(j)
			}
		default:
			if k, ok := byKey[n.content]; ok {
				r = k
			}
		}
		if r >= 0 {
			seg.sigs = append(seg.sigs, prev.seg.sigOf(r)...)
			continue
		}
		if sig, ok := prev.fresh[n.content]; ok {
			seg.sigs = append(seg.sigs, sig[:]...)
			continue
		}
		if len(scratch) == 0 {
			scratch = make([]float32, 3*len(v)+vecmath.SigBits)
		}
		var sig [vecmath.SigWords]uint64
		full := vecmath.FromHalf(v, scratch[:len(v)])
		m.store.proj.Signature(full, sig[:], scratch[len(v):])
		seg.sigs = append(seg.sigs, sig[:]...)
	}
	if len(seg.nodes) == 0 {
		return nil
	}
	// Segments live as long as their file version: keep them exact.
	seg.nodes, seg.vecs, seg.sigs = slices.Clip(slices.Clone(seg.nodes)), slices.Clone(seg.vecs), slices.Clone(seg.sigs)
	return seg
}
