package foveal

import "pp-lsp/memory"

// cand is a node waiting to be shown under rule 4 or 5, keyed by its
// distance from the foveal node, then memex order.
type cand struct {
	d    int32
	r    ref
	node memory.Node
}

func candLess(a, b cand) bool {
	if a.d != b.d {
		return a.d < b.d
	}
	return cmpRef(a.r, b.r) < 0
}

// candHeap is a binary min-heap of candidates. No two candidates share a
// key, so the order they come out in is the same however they went in.
type candHeap struct{ items []cand }

func (h *candHeap) len() int { return len(h.items) }

func (h *candHeap) push(c cand) {
	h.items = append(h.items, c)
	for i := len(h.items) - 1; i > 0; {
		p := (i - 1) / 2
		if !candLess(h.items[i], h.items[p]) {
			break
		}
		h.items[i], h.items[p] = h.items[p], h.items[i]
		i = p
	}
}

func (h *candHeap) pop() cand {
	top := h.items[0]
	last := len(h.items) - 1
	h.items[0] = h.items[last]
	h.items = h.items[:last]
	for i := 0; ; {
		l, m := 2*i+1, i
		if l < last && candLess(h.items[l], h.items[m]) {
			m = l
		}
		if l+1 < last && candLess(h.items[l+1], h.items[m]) {
			m = l + 1
		}
		if m == i {
			break
		}
		h.items[i], h.items[m] = h.items[m], h.items[i]
		i = m
	}
	return top
}

// anchor is where distances are measured from: the node at the cursor
// (private or not), or the top of the memex when there is no cursor.
type anchor struct {
	// file is the anchor's file index, -1 for none.
	file  int32
	depth int32
	// path holds the node indices from the file node (path[0] = 0) down
	// to the anchor (path[depth]).
	path []int32
}

func (c *chooser) makeAnchor(at memory.Node) anchor {
	if !at.Valid() {
		return anchor{file: -1}
	}
	anc := at.Ancestors()
	a := anchor{file: c.refOf(at).file, depth: int32(len(anc)), path: make([]int32, len(anc)+1)}
	for i, n := range anc {
		a.path[len(anc)-1-i] = int32(n.Headline() + 1)
	}
	a.path[len(anc)] = int32(at.Headline() + 1)
	return a
}

// dist is the outline distance from the anchor to n (in file f): the
// number of edges between them in the tree whose root holds the memex
// roots, each root its folders, each folder its subfolders and files, and
// each file its headlines. Without a cursor it is n's depth in that tree.
// Files in the foveal file's folder are so nearer than files elsewhere,
// the foveal node's siblings nearer than its cousins.
func (c *chooser) dist(n memory.Node, f int32) int32 {
	d := int32(n.Depth())
	a := &c.anchor
	if a.file < 0 {
		return int32(len(c.info.files[f].stats.chain)) + 1 + d
	}
	if f != a.file {
		return chainDist(c.info.files[a.file].stats.chain, c.info.files[f].stats.chain) + d + a.depth
	}
	x, xd := n, d
	for xd > a.depth {
		x, _ = x.Parent()
		xd--
	}
	for int32(x.Headline()+1) != a.path[xd] {
		x, _ = x.Parent()
		xd--
	}
	return d + a.depth - 2*xd
}

// chainDist is the distance between two different files with these
// folder chains.
func chainDist(a, b []string) int32 {
	cp := 0
	for cp < len(a) && cp < len(b) && a[cp] == b[cp] {
		cp++
	}
	return int32(len(a) + len(b) + 2 - 2*cp)
}
