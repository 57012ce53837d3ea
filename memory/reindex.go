package memory

import (
	"crypto/sha256"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"pp-lsp/orgast"
)

// nodeMap relates the nodes of a file version made by reindex to those of
// the version before. New nodes [1, lo) are the old nodes of the same
// index and new nodes [hi, n) the old nodes i-shift, with the same
// embedding text; node 0 and the nodes [lo, hi) were indexed again, and
// from[i-lo] names the old node that new node i was (-1: none), whose
// embedding text may differ.
type nodeMap struct {
	lo, hi, shift int32
	from          []int32
	// keys, when set, is how the file's keys changed (see keyDelta); nil
	// when they are the same, or unknown.
	keys *keyDelta
}

// reindex indexes a new version of a file: org, which is prev's outline
// changed as edit says. The result always equals indexParsed of org.
//
// With the version before and the edit, the work is proportional to the
// edit, not to the file (patchIndex): the nodes before the edit keep
// their index and everything computed for them, the nodes after it keep
// everything but their place, and only the nodes the edit touched, their
// ancestors (whose Merkle hashes cover them) and the file node are
// indexed again. Where that cannot be proved — a file-wide setting
// changed, so every title or link may read differently — reindexAll
// compares every node instead. Without prev or the edit, everything is
// computed.
//
// It also returns how the nodes relate to prev's (nil without prev).
func reindex(prev *fileIndex, path string, rootIdx int, rel string, org *orgast.File, priv *privacySet, edit *orgast.Edit) (*fileIndex, *nodeMap) {
	if prev == nil || edit == nil {
		return indexParsed(path, rootIdx, rel, org, priv), nil
	}
	if f, nm := patchIndex(prev, path, rootIdx, rel, org, priv, *edit); f != nil {
		return f, nm
	}
	return reindexAll(prev, path, rootIdx, rel, org, priv, edit)
}

// sameFileSettings reports whether two outlines read every unchanged line
// alike: the same TODO keywords (which decide where a title starts), link
// abbreviations and radio targets (which decide what is a link), and line
// ends. The file tags are compared by the caller, through the file node's
// private flag.
func sameFileSettings(a, b *orgast.File) bool {
	if a.EOL() != b.EOL() || !slices.Equal(a.Todo.Keywords, b.Todo.Keywords) || !slices.Equal(a.Todo.Done, b.Todo.Done) ||
		!slices.Equal(a.LinkAbbrevs, b.LinkAbbrevs) {
		return false
	}
	var ra, rb []string
	for _, t := range a.Targets {
		if t.Radio {
			ra = append(ra, t.Name)
		}
	}
	for _, t := range b.Targets {
		if t.Radio {
			rb = append(rb, t.Name)
		}
	}
	return slices.Equal(ra, rb)
}

// patchIndex is reindex's fast path; it returns nil when the edit does
// not allow it.
//
// In headline terms (node i is headline i-1), with the edit replacing
// old[Start, OldEnd) by new[Start, NewEnd):
//
//   - the first a headlines, whose stars and the space after them lie
//     before Start, are the same headlines in both versions, with the
//     same parents. Every node before the last of them (node a) has its
//     whole subtree before Start, or is an ancestor of node a: an
//     ancestor's own text is its section, which ends at its first child,
//     so only its Merkle hash and its place among its siblings can change.
//   - the headlines whose lines start after NewEnd (after OldEnd in the
//     old version) are the same lines. Their structure is the same too
//     from the first of them whose parent is provably the same node in
//     both — none, a headline before node a, or node a when its private
//     flag did not change — (the anchor): every later headline's parent,
//     and so its depth, private flag and subtree end, is found without
//     looking at the changed headlines in between.
//
// The nodes from node a up to the anchor (excluded) are indexed again,
// reusing the hashes and embedding keys of those that are unchanged lines
// of the old version; then the ancestors and the file node.
func patchIndex(prev *fileIndex, path string, rootIdx int, rel string, org *orgast.File, priv *privacySet, e orgast.Edit) (*fileIndex, *nodeMap) {
	if prev.privacy != priv || prev.path != path || !sameFileSettings(prev.org, org) {
		return nil, nil
	}
	p := &patcher{prev: prev, e: e, G: prev.org.Headlines, H: org.Headlines, delta: e.NewEnd - e.OldEnd,
		f: &fileIndex{path: path, root: rootIdx, rel: rel, org: org, privacy: priv,
			usesSetup: prev.usesSetup, setupPrivate: prev.setupPrivate, setupTargets: prev.setupTargets, // judged again by the caller
			diskPrivate: prev.diskPrivate,
			lookup:      &lookupCell{}, internal: &internalCell{}, status: &statusCell{}}}
	if !p.window() {
		return nil, nil
	}
	p.nodes()
	carriers := p.ids()
	links, ok := p.links()
	if !ok {
		return nil, nil
	}
	f, nm := p.f, p.nm
	p.out.sort()
	p.in.sort()
	f.keys, nm.keys = prev.keys.patched(&p.out, &p.in)
	if ps := prev.status.p.Load(); ps != nil {
		f.derive = &statusSplice{prev: ps, carriers: carriers, links: links}
	}
	p.carryResolution()
	return f, nm
}

// patcher is one patchIndex at work: the two versions, the edit, and the
// window of nodes indexed again, in headline terms (see patchIndex) and
// in node terms (lo, mid, hi as nodeMap says; nodes [lo, mid) are new or
// touched lines, [mid, hi) unchanged lines whose structure may differ).
type patcher struct {
	prev, f *fileIndex
	G, H    []orgast.Headline // the old and new headlines
	e       orgast.Edit
	delta   int // the change in length
	// a is the number of headlines kept before the edit; sN and sO the
	// first headline after it, new and old.
	a, sN, sO             int
	n, lo, mid, hi, shift int32
	nm                    *nodeMap
	// out and in are the keys the nodes and links indexed again carried
	// before and carry now.
	out, in keySet
	// The bytes indexed again, [rs, reNew) now and [rs, reOld) before,
	// and their links, [la, lbNew) now and [la, lbOld) before.
	rs, reNew, reOld int
	la, lbNew, lbOld int
}

// window finds the nodes to index again; false when the edit does not
// allow the fast path.
func (p *patcher) window() bool {
	G, H, e := p.G, p.H, p.e
	p.a = sort.Search(len(G), func(k int) bool { return G[k].Line.Start+G[k].Stars+1 > e.Start })
	a := p.a
	if a > len(H) || (a > 0 && (H[a-1].Line.Start != G[a-1].Line.Start || H[a-1].Stars != G[a-1].Stars || H[a-1].Parent != G[a-1].Parent)) {
		return false
	}
	p.sN = sort.Search(len(H), func(k int) bool { return H[k].Line.Start > e.NewEnd })
	p.sO = sort.Search(len(G), func(k int) bool { return G[k].Line.Start > e.OldEnd })
	if len(H)-p.sN != len(G)-p.sO || p.sN < a || p.sO < a {
		return false
	}
	dh := p.sN - p.sO
	if p.sN < len(H) && (H[p.sN].Line.Start-p.delta != G[p.sO].Line.Start || H[p.sN].Stars != G[p.sO].Stars) {
		return false
	}
	// The file node's private flag comes from every #+FILETAGS: line;
	// when it changes, every node's may.
	priv := p.f.privacy
	if (p.f.setupPrivate || p.f.diskPrivate || priv.any(allFileTags(p.f.org))) != p.prev.nodes[0].private {
		return false
	}
	// Node a's own flag: its tags sit on its title line, which the edit
	// may touch (its parent's flag cannot change).
	aStable := a == 0 || priv.any(H[a-1].Tags) == priv.any(G[a-1].Tags)
	anchor := len(H)
	minStars := int(^uint(0) >> 1)
	for k := p.sN; k < len(H); k++ {
		if H[k].Stars > minStars {
			continue // its parent is a later headline than sN: an unchanged one
		}
		minStars = H[k].Stars
		pn, po := H[k].Parent, G[k-dh].Parent
		if pn == po && (pn < a-1 || (pn == a-1 && aStable)) {
			anchor = k
			break
		}
	}
	p.n = int32(len(H) + 1)
	p.lo, p.hi, p.mid = int32(max(a, 1)), int32(anchor+1), int32(p.sN+1)
	p.shift = int32(dh)
	p.nm = &nodeMap{lo: p.lo, hi: p.hi, shift: p.shift, from: make([]int32, p.hi-p.lo)}
	return true
}

// nodes makes the node table: copied before lo, copied and moved from
// hi on, indexed again between (reusing what unchanged lines had), then
// the ancestors' Merkle hashes and next siblings and the file node.
func (p *patcher) nodes() {
	prev, f, G, H, e := p.prev, p.f, p.G, p.H, p.e
	n, lo, mid, hi, shift := p.n, p.lo, p.mid, p.hi, p.shift
	f.nodes = make([]nodeInfo, n)
	nodes := f.nodes
	copy(nodes[:lo], prev.nodes[:lo])
	copy(nodes[hi:], prev.nodes[hi-shift:])
	if shift != 0 {
		// Tail nodes point to tail nodes, or (parents) to nodes before lo.
		oldHi := hi - shift
		move := func(x int32) int32 {
			if x >= oldHi {
				return x + shift
			}
			return x
		}
		for i := hi; i < n; i++ {
			nd := &nodes[i]
			nd.parent, nd.firstChild, nd.nextSibling = move(nd.parent), move(nd.firstChild), move(nd.nextSibling)
		}
	}

	// The reindexed nodes: tree, depth, privacy, then own data.
	ch := sha256.New()
	for i := lo; i < hi; i++ {
		h := &H[i-1]
		nd := &nodes[i]
		pa := int32(h.Parent + 1)
		if h.Parent < -1 || int32(h.Parent) >= i-1 {
			pa = 0 // defensive, as newFileIndex
		}
		nd.parent = pa
		nd.depth = nodes[pa].depth + 1
		nd.private = nodes[pa].private || f.privacy.any(h.Tags)
		nd.firstChild = -1
		if i+1 < n && H[i].Parent == int(i-1) {
			nd.firstChild = i + 1
		}
		nd.nextSibling = f.nextSiblingAfter(i)
		j := int32(-1)
		switch {
		case i >= mid:
			j = i - shift
		case i == int32(p.a):
			j = i
		case h.Line.Start >= e.NewEnd:
			// An unchanged line right at the end of the edit.
			if k, ok := slices.BinarySearchFunc(G[p.a:p.sO], h.Line.Start-p.delta, func(g orgast.Headline, off int) int { return g.Line.Start - off }); ok {
				j = int32(p.a+k) + 1
			}
		}
		p.nm.from[i-lo] = j
		// An unchanged line keeps its embedding text unless its section
		// ends elsewhere (a new parent may take its trailing blank lines).
		if i >= mid && G[j-1].Section.Start+p.delta == h.Section.Start && G[j-1].Section.End+p.delta == h.Section.End {
			o := &prev.nodes[j]
			nd.content, nd.embeddable = o.content, o.embeddable
		} else {
			f.hashContent(ch, i)
		}
	}
	// The ancestors of node lo keep everything but their Merkle hash and
	// next sibling (their subtree may end elsewhere now).
	var chain []int32
	if lo < n {
		for c := nodes[lo].parent; c > 0; c = nodes[c].parent {
			chain = append(chain, c)
			nodes[c].nextSibling = f.nextSiblingAfter(c)
		}
	}
	nodes[0].firstChild = -1
	if n > 1 {
		nodes[0].firstChild = 1
	}
	if p.a == 0 || f.title(0) != prev.title(0) {
		// The zeroth section, or the #+TITLE: (which may be anywhere),
		// changed; after the first headline's stars it cannot otherwise.
		f.hashContent(ch, 0)
	}

	// Merkle hashes, children first: the reindexed nodes (reusing those
	// whose subtree is the same bytes with the same number of nodes),
	// then the ancestors, then the file node.
	m := newMerkleHasher()
	for i := hi - 1; i >= lo; i-- {
		if j := p.nm.from[i-lo]; j > 0 && sameSubtree(prev, f, j, i, e) {
			nodes[i].merkle = prev.nodes[j].merkle
			continue
		}
		nodes[i].merkle = f.merkleOf(m, i)
	}
	for _, c := range chain {
		nodes[c].merkle = f.merkleOf(m, c)
	}
	nodes[0].merkle = f.merkleOf(m, 0)
}

// ids makes the ID carriers: the file node's, then those of the nodes
// before lo, of the nodes indexed again, and of the tail, moved. It
// returns which carriers are the previous version's.
func (p *patcher) ids() [2]copyRange {
	prev, f, H := p.prev, p.f, p.H
	carrierAt := func(node int32) int {
		k, _ := slices.BinarySearchFunc(prev.ids, node, func(c idCarrier, n int32) int { return int(c.node - n) })
		return k
	}
	c1, cLo, cMid := carrierAt(1), carrierAt(p.lo), carrierAt(p.mid-p.shift)
	for _, c := range prev.ids[:c1] {
		p.out.ids = append(p.out.ids, c.id)
	}
	for _, c := range prev.ids[cLo:cMid] {
		p.out.ids = append(p.out.ids, c.id)
	}
	f.ids = make([]idCarrier, 0, len(prev.ids)+int(p.mid-p.lo)+1)
	if id, ok := f.org.ID(); ok && id != "" {
		c := idCarrier{id: id, node: 0}
		if c1 > 0 && prev.ids[0].id == id {
			c.id = prev.ids[0].id // detached already
		} else {
			c.id = strings.Clone(id)
		}
		c.shard = uint8(shardOf(c.id))
		f.ids = append(f.ids, c)
		p.in.ids = append(p.in.ids, c.id)
	}
	prefixAt := len(f.ids)
	f.ids = append(f.ids, prev.ids[c1:cLo]...)
	for i := p.lo; i < min(p.mid, p.hi); i++ {
		if id, ok := H[i-1].Drawer.Get("ID"); ok && id != "" {
			c := idCarrier{id: strings.Clone(id), node: i}
			c.shard = uint8(shardOf(c.id))
			f.ids = append(f.ids, c)
			p.in.ids = append(p.in.ids, c.id)
		}
	}
	tailAt := len(f.ids)
	for _, c := range prev.ids[cMid:] {
		c.node += p.shift
		f.ids = append(f.ids, c)
	}
	if len(f.ids) == 0 {
		f.ids = nil
	}
	return [2]copyRange{{at: prefixAt, from: c1, n: cLo - c1}, {at: tailAt, from: cMid, n: len(prev.ids) - cMid}}
}

// links reads again the links in the bytes of the nodes indexed again,
// keeping the reading of those before and after them; it returns which
// links are the previous version's, and false when the two versions'
// links do not line up around the change.
func (p *patcher) links() ([2]copyRange, bool) {
	prev, f := p.prev, p.f
	org := f.org
	p.rs, p.reNew, p.reOld = 0, len(org.Src), len(prev.org.Src)
	if p.a > 0 {
		p.rs = p.H[p.a-1].Line.Start
	}
	if p.hi < p.n {
		p.reNew, p.reOld = p.H[p.hi-1].Line.Start, p.G[p.hi-p.shift-1].Line.Start
	}
	linkAt := func(ls []orgast.Link, off int) int {
		k, _ := slices.BinarySearchFunc(ls, off, func(l orgast.Link, off int) int { return l.Range.Start - off })
		for k > 0 && ls[k-1].Range.Start >= off {
			k--
		}
		return k
	}
	p.la, p.lbNew, p.lbOld = linkAt(org.Links, p.rs), linkAt(org.Links, p.reNew), linkAt(prev.org.Links, p.reOld)
	if linkAt(prev.org.Links, p.rs) != p.la || len(org.Links)-p.lbNew != len(prev.org.Links)-p.lbOld {
		return [2]copyRange{}, false
	}
	f.links = make([]linkInfo, len(org.Links))
	copy(f.links, prev.links[:p.la])
	copy(f.links[p.lbNew:], prev.links[p.lbOld:])
	f.lineSearches = prev.lineSearches
	dir := filepath.Dir(f.path)
	for k := p.la; k < p.lbOld; k++ {
		p.out.addLink(prev, k)
		if prev.isLineSearch(k) {
			f.lineSearches--
		}
	}
	for k := p.la; k < p.lbNew; k++ {
		li := classifyLink(dir, f.privacy.home, &org.Links[k])
		if li.target != "" {
			li.target = strings.Clone(li.target)
			li.shard = uint8(shardOf(li.target))
		}
		f.links[k] = li
		p.in.addLink(f, k)
		if f.isLineSearch(k) {
			f.lineSearches++
		}
	}
	return [2]copyRange{{n: p.la}, {at: p.lbNew, from: p.lbOld, n: len(org.Links) - p.lbNew}}, true
}

// carryResolution shares the previous version's lookup tables and
// internal-link resolutions when nothing they answer from changed, and
// otherwise carries over those that were made (so wanted) rather than
// leave the next question to make them again from the whole file.
func (p *patcher) carryResolution() {
	prev, f := p.prev, p.f
	switch {
	case p.shift == 0 && sameResolutionIn(prev, f, p.lo, p.hi, p.rs, p.reNew, p.la, p.lbNew, p.e):
		f.lookup, f.internal = prev.lookup, prev.internal
		return
	case prev.lookup.v.Load() != nil:
		f.lookup.v.Store(prev.lookup.v.Load().patched(prev, f, p.nm))
	}
	if old := prev.internal.v.Load(); old != nil {
		f.internal.v.Store(f.patchInternal(prev, *old, p.nm, [3]int{p.la, p.lbNew, p.lbOld}, [3]int{p.rs, p.reNew, p.reOld}, p.e))
	}
}

// nextSiblingAfter returns node i's next sibling: the node right after
// its subtree, when that node has the same parent.
func (f *fileIndex) nextSiblingAfter(i int32) int32 {
	H := f.org.Headlines
	end := H[i-1].End
	k := int(i) + sort.Search(len(H)-int(i), func(x int) bool { return H[int(i)+x].Line.Start >= end })
	if k < len(H) && H[k].Parent == H[i-1].Parent {
		return int32(k + 1)
	}
	return -1
}

// lastDescendant returns the last node of node i's subtree (i itself
// when it has no children): subtrees are contiguous.
func (f *fileIndex) lastDescendant(i int32) int32 {
	if i == 0 {
		return int32(len(f.nodes) - 1)
	}
	H := f.org.Headlines
	end := H[i-1].End
	return i + int32(sort.Search(len(H)-int(i), func(x int) bool { return H[int(i)+x].Line.Start >= end }))
}

// sameSubtree reports whether old node j and new node i have the same
// subtree: the same bytes (wholly before the edit, or wholly after it
// and shifted) holding the same number of nodes. Same bytes under the
// same settings parse alike, so the Merkle hash is the same.
func sameSubtree(prev, f *fileIndex, j, i int32, e orgast.Edit) bool {
	r, or := f.subtree(i), prev.subtree(j)
	shift := 0
	switch {
	case r.End < e.Start:
	case r.Start > e.NewEnd:
		shift = e.NewEnd - e.OldEnd
	default:
		return false
	}
	return or.Start+shift == r.Start && or.End+shift == r.End && prev.lastDescendant(j)-j == f.lastDescendant(i)-i
}

// merkleOf computes node i's Merkle hash from its own bytes and its
// children's hashes, which must be ready.
func (f *fileIndex) merkleOf(m *merkleHasher, i int32) Hash {
	src := f.org.Src
	m.begin(tagNode)
	f.ownSegments(i,
		func(r orgast.Range) { m.text(src[r.Start:r.End]) },
		func(c int32) { m.child(&f.nodes[c].merkle) })
	return m.end()
}
