package memory

import (
	"crypto/sha256"
	"encoding/binary"
	"encoding/hex"
	"fmt"
	"hash"
)

// Hash is a SHA-256 digest: of a node's Merkle tree, a file, a root or the
// whole memex. It depends on bytes and outline structure only — never on
// absolute paths, modification times or map order — so it is the same on
// every run and every machine for the same Org text.
type Hash [32]byte

// String is the lower-case hex form.
func (h Hash) String() string { return hex.EncodeToString(h[:]) }

// IsZero reports whether h is the zero value (no hash computed).
func (h Hash) IsZero() bool { return h == Hash{} }

// MarshalText writes the hex form (JSON strings, logs).
func (h Hash) MarshalText() ([]byte, error) { return []byte(h.String()), nil }

// UnmarshalText reads the hex form.
func (h *Hash) UnmarshalText(b []byte) error {
	if len(b) != 2*len(h) {
		return fmt.Errorf("hash %q is not %d hex digits", b, 2*len(h))
	}
	_, err := hex.Decode(h[:], b)
	if err != nil {
		return fmt.Errorf("hash %q: %w", b, err)
	}
	return nil
}

// ContentKey identifies a node's embedding text: the first 16 bytes of its
// SHA-256. Vectors are stored under it (with the embedder's ID), so a node
// whose text is unchanged — in this run or the last — is never embedded
// twice, and nodes with the same text share one vector.
type ContentKey [16]byte

// String is the lower-case hex form.
func (k ContentKey) String() string { return hex.EncodeToString(k[:]) }

// Domain tags keep the different hashes apart: a node's Merkle hash can
// never equal a file's or a root's by construction.
const (
	tagNode  = 'n'
	tagRoot  = 'r'
	tagMemex = 'm'
	tagText  = 0
	tagChild = 1
	tagFile  = 2
)

// merkleHasher computes Merkle hashes with one reusable SHA-256 state.
type merkleHasher struct {
	h   hash.Hash
	buf [binary.MaxVarintLen64 + 1]byte
	sum []byte
}

func newMerkleHasher() *merkleHasher {
	return &merkleHasher{h: sha256.New(), sum: make([]byte, 0, sha256.Size)}
}

func (m *merkleHasher) begin(tag byte) {
	m.h.Reset()
	m.buf[0] = tag
	m.h.Write(m.buf[:1])
}

// text adds a length-prefixed run of bytes: the prefix makes the
// boundaries between text and children unambiguous.
func (m *merkleHasher) text(b []byte) {
	m.buf[0] = tagText
	n := binary.PutUvarint(m.buf[1:], uint64(len(b)))
	m.h.Write(m.buf[:1+n])
	m.h.Write(b)
}

func (m *merkleHasher) child(h *Hash) {
	m.buf[0] = tagChild
	m.h.Write(m.buf[:1])
	m.h.Write(h[:])
}

// named adds a length-prefixed name and a hash (a file in a root).
func (m *merkleHasher) named(name string, h *Hash) {
	m.buf[0] = tagFile
	n := binary.PutUvarint(m.buf[1:], uint64(len(name)))
	m.h.Write(m.buf[:1+n])
	m.h.Write([]byte(name))
	m.h.Write(h[:])
}

func (m *merkleHasher) end() Hash {
	var out Hash
	m.sum = m.h.Sum(m.sum[:0])
	copy(out[:], m.sum)
	return out
}
