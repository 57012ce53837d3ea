package memory

import (
	"slices"

	"pp-lsp/memory/internal/vecmath"
)

// vecSeg holds the vectors of one file version's nodes: rows in node
// order, each with its node index, its vector and its signature, and the
// nodes that should have a vector but found none in the store. It is
// immutable; a file whose nodes gain vectors gets a new segment, and nil
// stands for a file without a node that should have a vector.
//
// Rows are kept in chunks of at most chunkRows, each with a base added to
// its node indices. A new version of the file shares every chunk its edit
// did not touch — the chunks after the edit with their base moved by the
// change in node count — so an edit copies a few hundred rows, not the
// file's. Signatures live only here, contiguous within a chunk for the
// scan; a row is signed once, when its vector first enters the file.
type vecSeg struct {
	chunks []vecChunk
	n      int // rows
	// missing are the nodes, in order, that are neither private nor blank
	// and had no vector: waiting for the embedder, or refused by it.
	missing []int32
	// added is the store's count of added vectors when the segment was
	// made: while it is the same, no missing node can have gained one.
	added uint64
}

// vecChunk is a run of rows and the base of their node indices.
type vecChunk struct {
	base int32
	rows *vecRows
}

// vecRows are rows of a segment, shared by the segments of every version
// whose rows they are. Immutable.
type vecRows struct {
	nodes []int32  // plus the chunk's base
	vecs  []vecRef // half precision, shared with the store
	dim   int      // every row's dimension
	sigs  []uint64 // rows × SigWords
}

// vec returns row r's vector.
func (v *vecRows) vec(r int) []uint16 { return vecOf(v.vecs[r], v.dim) }

// sigOf returns row r's signature.
func (v *vecRows) sigOf(r int) []uint64 { return v.sigs[r*vecmath.SigWords : (r+1)*vecmath.SigWords] }

// Chunk sizes: a chunk holds at most chunkRows rows, and every chunk but
// a file's last holds at least chunkMin, so an edit copies at most a few
// chunks' rows and a file has at most rows/chunkMin+1 chunks.
const (
	chunkRows = 256
	chunkMin  = 64
)

func (v *vecSeg) rows() int {
	if v == nil {
		return 0
	}
	return v.n
}

// first and last return the first and last node of a chunk.
func (c vecChunk) first() int32 { return c.base + c.rows.nodes[0] }
func (c vecChunk) last() int32  { return c.base + c.rows.nodes[len(c.rows.nodes)-1] }

// vector returns node i's vector and signature, and whether it has a row.
func (v *vecSeg) vector(i int32) ([]uint16, []uint64, bool) {
	if v == nil {
		return nil, nil, false
	}
	c, _ := slices.BinarySearchFunc(v.chunks, i, func(c vecChunk, i int32) int { return int(c.last() - i) })
	if c == len(v.chunks) {
		return nil, nil, false
	}
	ch := v.chunks[c]
	r, ok := slices.BinarySearch(ch.rows.nodes, i-ch.base)
	if !ok {
		return nil, nil, false
	}
	return ch.rows.vec(r), ch.rows.sigOf(r), true
}

// eachRow calls fn with every row, in node order.
func (v *vecSeg) eachRow(fn func(node int32, vec []uint16, sig []uint64)) {
	if v == nil {
		return
	}
	for _, c := range v.chunks {
		for r, n := range c.rows.nodes {
			fn(c.base+n, c.rows.vec(r), c.rows.sigOf(r))
		}
	}
}

// prevVectors says where a file version's previous segment was, to take
// rows from: the version idx and its segment seg. With nm, the new
// version's nodes relate to idx's as nm says (see reindex); without it,
// rows are matched by content key. fresh holds signatures computed with
// vectors just embedded.
type prevVectors struct {
	idx   *fileIndex
	seg   *vecSeg
	nm    *nodeMap
	fresh map[ContentKey]*[vecmath.SigWords]uint64
}

// vectorsFor builds the vector segment of a file version from the store
// and the previous segment, and queues every node that should have a
// vector but has none. Private nodes and nodes with blank text never get
// one: private text is never sent to an embedder (which may be a remote
// service), and a private node can therefore never be anyone's neighbour.
//
// The cost follows what changed. For the same version (vectors arrived),
// only its missing nodes are looked up, and only the chunks that gain a
// row are copied; for a version made by reindex, the chunks of the nodes
// it kept are shared (moved) and only the nodes it indexed again are
// looked up. Callers hold m.mu.
func (m *Memex) vectorsFor(f *fileIndex, prev prevVectors) *vecSeg {
	st := m.store
	st.mu.Lock()
	defer st.mu.Unlock()
	b := &segBuilder{st: st, fresh: prev.fresh}
	switch {
	case prev.idx == f:
		// The same version: its missing nodes are queued already.
		return b.arrivals(f, prev.seg)
	case prev.nm != nil && prev.idx != nil:
		b.patched(f, prev)
	default:
		b.full(f, prev)
	}
	seg := b.done()
	if prev.seg == nil || prev.seg.added != st.added {
		seg = b.arrivals(f, seg)
	}
	m.queueMissing(f, seg)
	return seg
}

// restoredVectors returns the segment of a file version that becomes
// current again (a rollback restores it): with the vectors its missing
// nodes gained meanwhile, and those still missing queued again, since the
// queue dropped them as stale while another version was current.
// Callers hold m.mu.
func (m *Memex) restoredVectors(f *fileIndex, seg *vecSeg) *vecSeg {
	m.store.mu.Lock()
	defer m.store.mu.Unlock()
	b := &segBuilder{st: m.store}
	seg = b.arrivals(f, seg)
	m.queueMissing(f, seg)
	return seg
}

// queueMissing queues a segment's missing nodes for embedding, as nodes
// of f (an item naming an older version would be dropped as stale), except
// those the embedder refused. Callers hold m.store.mu.
func (m *Memex) queueMissing(f *fileIndex, seg *vecSeg) {
	if !m.opts.Embed || seg == nil || len(seg.missing) == 0 {
		return
	}
	items := make([]queued, 0, len(seg.missing))
	for _, i := range seg.missing {
		if k := f.nodes[i].content; !m.store.failed[k] {
			items = append(items, queued{key: k, path: f.path, i: i})
		}
	}
	m.queue.addAll(items)
}

// segBuilder makes one segment, in node order: fresh rows go to an open
// chunk, kept chunks are shared when whole. Callers hold st.mu.
type segBuilder struct {
	st      *vectorStore
	fresh   map[ContentKey]*[vecmath.SigWords]uint64
	scratch []float32
	chunks  []vecChunk
	open    vecRows
	n       int
	missing []int32
}

// eligible reports whether node i should have a vector.
func eligible(f *fileIndex, i int32) bool {
	nd := &f.nodes[i]
	return !nd.private && nd.embeddable && !f.serverFile()
}

// addRow appends a row to the open chunk.
func (b *segBuilder) addRow(i int32, v []uint16, sig []uint64) {
	if len(b.open.nodes) > 0 && len(v) != b.open.dim {
		b.close() // a chunk's rows share one dimension
	}
	if b.open.nodes == nil {
		b.open = vecRows{nodes: make([]int32, 0, chunkRows), vecs: make([]vecRef, 0, chunkRows),
			sigs: make([]uint64, 0, chunkRows*vecmath.SigWords)}
	}
	b.open.dim = len(v)
	b.open.nodes = append(b.open.nodes, i)
	b.open.vecs = append(b.open.vecs, refOf(v))
	b.open.sigs = append(b.open.sigs, sig...)
	b.n++
	if len(b.open.nodes) == chunkRows {
		b.close()
	}
}

// close ends the open chunk. Its rows are copied out at their exact
// size (a file of 40 nodes must not hold room for chunkRows: at 2,000
// files that was 46 MB of 100k headlines' 223), and the open chunk's
// room is used again for the next.
func (b *segBuilder) close() {
	if len(b.open.nodes) == 0 {
		return
	}
	rows := &vecRows{nodes: slices.Clone(b.open.nodes), vecs: slices.Clone(b.open.vecs), dim: b.open.dim, sigs: slices.Clone(b.open.sigs)}
	b.chunks = append(b.chunks, vecChunk{rows: rows})
	clear(b.open.vecs) // the store's vectors: not held past the chunk
	b.open = vecRows{nodes: b.open.nodes[:0], vecs: b.open.vecs[:0], sigs: b.open.sigs[:0]}
}

// share appends a whole chunk kept from an earlier segment, its nodes
// moved by shift — or its rows, when the open chunk is too small to stand
// alone.
func (b *segBuilder) share(c vecChunk, shift int32) {
	if n := len(b.open.nodes); n > 0 && n < chunkMin {
		for r, i := range c.rows.nodes {
			b.addRow(c.base+i+shift, c.rows.vec(r), c.rows.sigOf(r))
		}
		return
	}
	b.close()
	b.chunks = append(b.chunks, vecChunk{base: c.base + shift, rows: c.rows})
	b.n += len(c.rows.nodes)
}

// keep appends src's rows of the nodes [n0, n1), moved by shift.
func (b *segBuilder) keep(src *vecSeg, n0, n1, shift int32) {
	if src == nil || n0 >= n1 {
		return
	}
	at, _ := slices.BinarySearchFunc(src.chunks, n0, func(c vecChunk, n int32) int { return int(c.last() - n) })
	for _, c := range src.chunks[at:] {
		if c.first() >= n1 {
			return
		}
		if c.first() >= n0 && c.last() < n1 {
			b.share(c, shift)
			continue
		}
		for r, i := range c.rows.nodes {
			if i += c.base; i >= n0 && i < n1 {
				b.addRow(i+shift, c.rows.vec(r), c.rows.sigOf(r))
			}
		}
	}
}

// keepMissing appends src's missing nodes in [n0, n1), moved by shift.
func (b *segBuilder) keepMissing(src *vecSeg, n0, n1, shift int32) {
	if src == nil {
		return
	}
	lo, _ := slices.BinarySearch(src.missing, n0)
	hi, _ := slices.BinarySearch(src.missing, n1)
	for _, i := range src.missing[lo:hi] {
		b.missing = append(b.missing, i+shift)
	}
}

// lookup gives eligible node i of f its vector from the store, or notes
// it missing.
func (b *segBuilder) lookup(f *fileIndex, i int32) {
	k := f.nodes[i].content
	v := b.st.get(k)
	if v == nil {
		b.missing = append(b.missing, i)
		return
	}
	b.addRow(i, v, b.sign(k, v))
}

// sign returns the signature of a stored vector: computed by the
// embedding workers when it is fresh, here otherwise.
func (b *segBuilder) sign(k ContentKey, v []uint16) []uint64 {
	if sig, ok := b.fresh[k]; ok {
		return sig[:]
	}
	if len(b.scratch) == 0 {
		b.scratch = make([]float32, 3*len(v)+vecmath.SigBits)
	}
	sig := make([]uint64, vecmath.SigWords)
	full := vecmath.FromHalf(v, b.scratch[:len(v)])
	b.st.proj.Signature(full, sig, b.scratch[len(v):])
	return sig
}

// node adds node i of f, which was node j of prev (-1: none): prev's row
// when the embedding text is the same, the store's vector otherwise.
func (b *segBuilder) node(f *fileIndex, i int32, prev *fileIndex, ps *vecSeg, j int32) {
	if !eligible(f, i) {
		return
	}
	if j >= 0 && prev.nodes[j].content == f.nodes[i].content {
		if v, sig, ok := ps.vector(j); ok {
			b.addRow(i, v, sig)
			return
		}
	}
	b.lookup(f, i)
}

// patched builds the segment of a version reindex made from prev.idx:
// the rows of the nodes before nm.lo and from nm.hi on are kept (the
// file node's too when its text is the same), the others made again.
func (b *segBuilder) patched(f *fileIndex, prev prevVectors) {
	ps, nm := prev.seg, prev.nm
	from := int32(1)
	if eligible(f, 0) == eligible(prev.idx, 0) && f.nodes[0].content == prev.idx.nodes[0].content {
		from = 0
	} else {
		b.node(f, 0, prev.idx, ps, 0)
	}
	b.keep(ps, from, nm.lo, 0)
	b.keepMissing(ps, from, nm.lo, 0)
	for i := nm.lo; i < nm.hi; i++ {
		b.node(f, i, prev.idx, ps, nm.from[i-nm.lo])
	}
	tail := nm.hi - nm.shift
	b.keep(ps, tail, int32(len(prev.idx.nodes)), nm.shift)
	b.keepMissing(ps, tail, int32(len(prev.idx.nodes)), nm.shift)
}

// full builds a segment node by node, taking each row from prev's
// segment when a node there has the same embedding text.
func (b *segBuilder) full(f *fileIndex, prev prevVectors) {
	type row struct {
		vec []uint16
		sig []uint64
	}
	var byKey map[ContentKey]row
	if prev.seg != nil && prev.idx != nil {
		byKey = make(map[ContentKey]row, prev.seg.rows())
		prev.seg.eachRow(func(n int32, v []uint16, sig []uint64) { byKey[prev.idx.nodes[n].content] = row{v, sig} })
	}
	for i := range f.nodes {
		if !eligible(f, int32(i)) {
			continue
		}
		if r, ok := byKey[f.nodes[i].content]; ok {
			b.addRow(int32(i), r.vec, r.sig)
			continue
		}
		b.lookup(f, int32(i))
	}
}

// done returns the segment built, or nil when it holds nothing.
func (b *segBuilder) done() *vecSeg {
	b.close()
	if b.n == 0 && len(b.missing) == 0 {
		return nil
	}
	s := &vecSeg{chunks: slices.Clip(b.chunks), n: b.n, missing: slices.Clip(b.missing), added: b.st.added}
	*b = segBuilder{st: b.st, fresh: b.fresh, scratch: b.scratch}
	return s
}

// arrivals returns seg with the vectors its missing nodes have gained in
// the store since, as a new segment sharing every chunk that gains no
// row; seg itself when none has.
func (b *segBuilder) arrivals(f *fileIndex, seg *vecSeg) *vecSeg {
	if seg == nil || len(seg.missing) == 0 {
		return seg
	}
	var got []int32
	for _, i := range seg.missing {
		if b.st.get(f.nodes[i].content) != nil {
			got = append(got, i)
		}
	}
	if len(got) == 0 {
		return seg
	}
	nb := &segBuilder{st: b.st, fresh: b.fresh, scratch: b.scratch}
	at := int32(0)
	for _, i := range got {
		nb.keep(seg, at, i, 0)
		key := f.nodes[i].content
		v := b.st.get(key)
		nb.addRow(i, v, nb.sign(key, v))
		at = i + 1
	}
	nb.keep(seg, at, int32(len(f.nodes)), 0)
	for _, i := range seg.missing {
		if _, arrived := slices.BinarySearch(got, i); !arrived {
			nb.missing = append(nb.missing, i)
		}
	}
	b.scratch = nb.scratch
	return nb.done()
}
