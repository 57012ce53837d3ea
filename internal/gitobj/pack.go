package gitobj

import (
	"bytes"
	"compress/zlib"
	"encoding/binary"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"strings"
)

// Packed objects (gitformat-pack(5)): an index file (.idx, version 2)
// maps an object's name to its offset in the pack, where the object is
// stored whole or as a delta against another object of the pack
// (OFS_DELTA, by offset; REF_DELTA, by name). packedBlob follows the
// deltas, bounded in depth and size, to the blob's bytes.

// Object types of a pack entry.
const (
	packCommit   = 1
	packBlob     = 3
	packOfsDelta = 6
	packRefDelta = 7
)

// maxDeltaDepth bounds a delta chain (git's own default is 50).
const maxDeltaDepth = 64

// objectStore reads the blobs of one git directory: its packs are listed
// once, and each pack's index read and the pack opened once, however many
// blobs are read (up to maxKeptPacks packs and maxKeptIdx bytes of their
// indexes; a pack past them is opened again for each blob).
type objectStore struct {
	gitDir  string
	listed  bool
	bases   []string // the packs, named without ".idx"
	kept    map[string]*pack
	keptIdx int64
}

// Bounds of the packs an objectStore keeps open.
const (
	maxKeptPacks = 64
	maxKeptIdx   = 256 << 20
)

func (s *objectStore) close() {
	for _, p := range s.kept {
		p.close()
	}
}

// pack opens the pack named base, or returns it kept from an earlier
// blob; kept false means the caller closes it.
func (s *objectStore) pack(base string) (p *pack, kept bool, err error) {
	if p, ok := s.kept[base]; ok {
		return p, true, nil
	}
	if p, err = openPack(base); err != nil {
		return nil, false, err
	}
	if len(s.kept) < maxKeptPacks && s.keptIdx+int64(len(p.idx)) <= maxKeptIdx {
		if s.kept == nil {
			s.kept = map[string]*pack{}
		}
		s.kept[base] = p
		s.keptIdx += int64(len(p.idx))
		return p, true, nil
	}
	return p, false, nil
}

// packedBlob reads a blob from the packs of the git directory.
func (s *objectStore) packedBlob(oid [20]byte) ([]byte, string) {
	typ, data, found, err := s.packedObject(oid)
	switch {
	case !found:
		return nil, "its staged version is in no pack pp-lsp can read"
	case err != nil:
		return nil, "its staged version cannot be read from its pack"
	case typ != packBlob:
		return nil, "its staged version is not a blob"
	}
	return data, ""
}

// packedObject reads the object oid from the first pack of the store
// that holds it (deltas resolved): its type and bytes; found is false
// when no pack holds it.
func (s *objectStore) packedObject(oid [20]byte) (typ int, data []byte, found bool, err error) {
	s.listPacks()
	for _, base := range s.bases {
		p, kept, err := s.pack(base)
		if err != nil {
			continue
		}
		off, ok := p.find(oid)
		if !ok {
			if !kept {
				p.close()
			}
			continue
		}
		typ, data, err := p.object(off, 0)
		if !kept {
			p.close()
		}
		return typ, data, true, err
	}
	return 0, nil, false, nil
}

// pack is one opened pack and its index.
type pack struct {
	f       *os.File
	size    int64
	idx     []byte
	count   int
	names   []byte // count×20
	offsets []byte // count×4
	large   []byte // the 8-byte offsets
}

// listPacks finds the store's packs, once.
func (s *objectStore) listPacks() {
	if s.listed {
		return
	}
	s.listed = true
	idxs, _ := filepath.Glob(filepath.Join(s.gitDir, "objects", "pack", "pack-*.idx"))
	for _, idx := range idxs {
		s.bases = append(s.bases, strings.TrimSuffix(idx, ".idx"))
	}
}

// packedType is the type of the object oid as a pack of the store holds
// it (deltas resolved), or 0 when none does or it cannot be read.
func (s *objectStore) packedType(oid [20]byte) int {
	typ, _, found, err := s.packedObject(oid)
	if !found || err != nil {
		return 0
	}
	return typ
}

func openPack(base string) (*pack, error) {
	idx, err := readBounded(base+".idx", MaxBytes)
	if err != nil {
		return nil, err
	}
	if len(idx) < 8+256*4 || string(idx[:4]) != "\xfftOc" || binary.BigEndian.Uint32(idx[4:]) != 2 {
		return nil, fmt.Errorf("%s.idx: %w", base, ErrUnknown)
	}
	count := int(binary.BigEndian.Uint32(idx[8+255*4:]))
	start := 8 + 256*4
	need := start + count*(20+4+4) + 40
	if count < 0 || count > len(idx) || need > len(idx) {
		return nil, fmt.Errorf("%s.idx: %w", base, ErrUnknown)
	}
	p := &pack{idx: idx, count: count}
	p.names = idx[start : start+count*20]
	p.offsets = idx[start+count*24 : start+count*28]
	p.large = idx[start+count*28 : len(idx)-40]
	f, size, err := openRegular(base + ".pack")
	if err != nil {
		return nil, err
	}
	p.f, p.size = f, size
	return p, nil
}

func (p *pack) close() { p.f.Close() }

// find returns the offset of an object in the pack.
func (p *pack) find(oid [20]byte) (int64, bool) {
	fan := func(b int) int {
		if b < 0 {
			return 0
		}
		return int(binary.BigEndian.Uint32(p.idx[8+b*4:]))
	}
	lo, hi := fan(int(oid[0])-1), fan(int(oid[0]))
	if lo > hi || hi > p.count {
		return 0, false
	}
	for lo < hi {
		mid := (lo + hi) / 2
		switch c := bytes.Compare(p.names[mid*20:mid*20+20], oid[:]); {
		case c == 0:
			off := int64(binary.BigEndian.Uint32(p.offsets[mid*4:]))
			if off&0x80000000 != 0 {
				k := int(off & 0x7fffffff)
				if (k+1)*8 > len(p.large) {
					return 0, false
				}
				off = int64(binary.BigEndian.Uint64(p.large[k*8:]))
			}
			return off, off >= 12 && off < p.size
		case c < 0:
			lo = mid + 1
		default:
			hi = mid
		}
	}
	return 0, false
}

// object reads the object at off: its type and bytes, deltas applied.
func (p *pack) object(off int64, depth int) (int, []byte, error) {
	if depth > maxDeltaDepth || off < 12 || off >= p.size {
		return 0, nil, ErrUnknown
	}
	var hdr [32]byte
	n, _ := p.f.ReadAt(hdr[:], off)
	if n == 0 {
		return 0, nil, ErrUnknown
	}
	c := hdr[0]
	typ := int(c>>4) & 7
	size := uint64(c & 15)
	i, shift := 1, 4
	for c&0x80 != 0 {
		if i >= n || shift > 56 {
			return 0, nil, ErrUnknown
		}
		c = hdr[i]
		i++
		size |= uint64(c&0x7f) << shift
		shift += 7
	}
	if size > MaxBytes {
		return 0, nil, ErrUnknown
	}
	var base func() (int, []byte, error)
	switch typ {
	case packOfsDelta:
		if i >= n {
			return 0, nil, ErrUnknown
		}
		c = hdr[i]
		i++
		rel := int64(c & 127)
		for c&0x80 != 0 {
			if i >= n || rel > 1<<48 {
				return 0, nil, ErrUnknown
			}
			c = hdr[i]
			i++
			rel = (rel+1)<<7 | int64(c&127)
		}
		base = func() (int, []byte, error) { return p.object(off-rel, depth+1) }
	case packRefDelta:
		if i+20 > n {
			return 0, nil, ErrUnknown
		}
		var oid [20]byte
		copy(oid[:], hdr[i:i+20])
		i += 20
		base = func() (int, []byte, error) {
			o, ok := p.find(oid)
			if !ok {
				return 0, nil, ErrUnknown
			}
			return p.object(o, depth+1)
		}
	case 1, 2, 3, 4:
	default:
		return 0, nil, ErrUnknown
	}
	zr, err := zlib.NewReader(io.NewSectionReader(p.f, off+int64(i), p.size-off-int64(i)))
	if err != nil {
		return 0, nil, ErrUnknown
	}
	defer zr.Close()
	data, err := io.ReadAll(io.LimitReader(zr, int64(size)+1))
	if err != nil || uint64(len(data)) != size {
		return 0, nil, ErrUnknown
	}
	if base == nil {
		return typ, data, nil
	}
	btyp, src, err := base()
	if err != nil {
		return 0, nil, err
	}
	out, err := applyDelta(src, data)
	return btyp, out, err
}

// applyDelta applies a git delta (gitformat-pack(5), "Deltified
// representation") to src.
func applyDelta(src, delta []byte) ([]byte, error) {
	varint := func() (uint64, bool) {
		var v uint64
		for shift := 0; shift < 64; shift += 7 {
			if len(delta) == 0 {
				return 0, false
			}
			c := delta[0]
			delta = delta[1:]
			v |= uint64(c&0x7f) << shift
			if c&0x80 == 0 {
				return v, true
			}
		}
		return 0, false
	}
	srcSize, ok1 := varint()
	dstSize, ok2 := varint()
	if !ok1 || !ok2 || srcSize != uint64(len(src)) || dstSize > MaxBytes {
		return nil, ErrUnknown
	}
	out := make([]byte, 0, min(dstSize, 1<<20))
	for len(delta) > 0 {
		op := delta[0]
		delta = delta[1:]
		switch {
		case op&0x80 != 0:
			var off, n uint64
			for k := range 7 {
				if op&(1<<k) == 0 {
					continue
				}
				if len(delta) == 0 {
					return nil, ErrUnknown
				}
				if k < 4 {
					off |= uint64(delta[0]) << (8 * k)
				} else {
					n |= uint64(delta[0]) << (8 * (k - 4))
				}
				delta = delta[1:]
			}
			if n == 0 {
				n = 0x10000
			}
			if off+n > uint64(len(src)) || uint64(len(out))+n > dstSize {
				return nil, ErrUnknown
			}
			out = append(out, src[off:off+n]...)
		case op != 0:
			if int(op) > len(delta) || uint64(len(out))+uint64(op) > dstSize {
				return nil, ErrUnknown
			}
			out = append(out, delta[:op]...)
			delta = delta[op:]
		default:
			return nil, ErrUnknown
		}
	}
	if uint64(len(out)) != dstSize {
		return nil, ErrUnknown
	}
	return out, nil
}
