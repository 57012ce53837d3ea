package memory

import (
	"context"
	"fmt"
	"sync"
	"unsafe"

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
	vecs   map[ContentKey]vecRef
	failed map[ContentKey]bool // the embedder gave a zero or non-finite vector
	proj   *vecmath.Projector
	// center is subtracted before signing (the trigram embedder's
	// calibration component), nil for none.
	center []float32
	dirty  bool
	// added counts the vectors ever added: while it stays the same, a
	// node that found no vector still finds none.
	added uint64
}

// storeShards is how many chromem-go collections a save writes.
const storeShards = 64

func newVectorStore(id string, center []float32) (*vectorStore, error) {
	return &vectorStore{id: id, vecs: map[ContentKey]vecRef{}, failed: map[ContentKey]bool{}, center: center}, nil
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
func (s *vectorStore) get(k ContentKey) []uint16 {
	if r := s.vecs[k]; r != nil {
		return vecOf(r, s.dim)
	}
	return nil
}

// vecRef is a stored vector: the address of its first component, whose
// length is the store's dimension. The store's map and every segment row
// hold one, 8 bytes where a slice header takes 24 (at 100k vectors, 4 MB
// of a settled memex). A vector is never changed once stored, and the
// reference keeps it alive like a slice would.
type vecRef *uint16

// refOf is the reference of a stored vector (never empty).
func refOf(v []uint16) vecRef { return &v[0] }

// vecOf is the vector r refers to, of dimension dim.
func vecOf(r vecRef, dim int) []uint16 { return unsafe.Slice((*uint16)(r), dim) }

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
	s.vecs[k] = refOf(vecmath.ToHalf(v))
	s.dirty = true
	s.added++
	return nil
}
