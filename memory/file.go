package memory

import (
	"crypto/sha256"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"pp-lsp/orgast"
)

// fileIndex is everything the memex knows about one version of one file.
// It is immutable once built and shared by every snapshot in which the
// file has these bytes (and the same privacy tags).
//
// Nodes are numbered 0 for the file node and i+1 for orgast headline i, in
// document order, so that a parent always precedes its children.
type fileIndex struct {
	path string // absolute, clean: the file's identity in the memex
	root int
	rel  string // slash-separated, relative to the root
	org  *orgast.File

	nodes []nodeInfo
	// ids are the nodes carrying an :ID:, in document order.
	ids []idCarrier
	// links classifies org.Links one for one.
	links []linkInfo
	// privacy is the tag set private bits were computed with.
	privacy *privacySet
	// keys are what the file contributes to the global indexes.
	keys fileKeys
	// idLinks counts its id links.
	idLinks int

	// lookup holds the tables for resolving links into this file, and
	// internal the resolution of its own internal links, both made on
	// first use (and shared by the copies withPrivacy makes).
	lookup   *lookupCell
	internal *internalCell
}

type lookupCell struct {
	once sync.Once
	v    *fileLookup
}

// nodeInfo is the per-node data the memex computes on top of orgast.
type nodeInfo struct {
	merkle      Hash
	content     ContentKey
	parent      int32 // node index; -1 for the file node
	firstChild  int32 // -1 when none
	nextSibling int32 // -1 when none
	depth       int32 // 0 for the file node, 1 for its children…
	private     bool  // carries a privacy tag, itself or by inheritance
	embeddable  bool  // its embedding text is not blank
}

// idCarrier is one node carrying an :ID:.
type idCarrier struct {
	id   string
	node int32
}

// linkKind says how a link is resolved.
type linkKind uint8

const (
	linkExternal linkKind = iota // http, mailto…: nothing to resolve here
	linkID                       // id:ID, anywhere in the memex
	linkFile                     // file:PATH[::SEARCH]
	linkInternal                 // fuzzy, [[*heading]], [[#custom-id]]: within this file
	linkRadio                    // a radio link: its target exists by construction
	linkCoderef                  // (ref): not checked
)

// linkInfo is the memex's reading of one orgast link.
type linkInfo struct {
	kind linkKind
	// target is the absolute, clean target path of a file link (its search
	// is org.Links[i].Search).
	target string
}

// internalLink is where a link within its own file lands: a node index,
// or -1 with ok false when it finds nothing.
type internalLink struct {
	node int32
	ok   bool
}

type internalCell struct {
	once sync.Once
	v    []internalLink
}

// internalLinks resolves, once per file version, every link that lands in
// the file itself: [[*heading]], [[#custom-id]], fuzzy links, and file
// links naming the file. Other links get {-1, false}; see isInternal.
func (f *fileIndex) internalLinks() []internalLink {
	f.internal.once.Do(func() {
		out := make([]internalLink, len(f.links))
		for i := range f.links {
			l := &f.org.Links[i]
			out[i] = internalLink{node: -1}
			switch {
			case f.links[i].kind == linkInternal && strings.EqualFold(l.Type, "custom-id"):
				out[i].node, out[i].ok = f.resolveSearch("#"+l.Path, false)
			case f.links[i].kind == linkInternal:
				out[i].node, out[i].ok = f.resolveSearch(l.Path, false)
			case f.links[i].kind == linkFile && f.links[i].target == f.path:
				if l.HasSearch && strings.TrimSpace(l.Search) != "" {
					out[i].node, out[i].ok = f.resolveSearch(l.Search, true)
				} else {
					out[i].node, out[i].ok = 0, true
				}
			}
		}
		f.internal.v = out
	})
	return f.internal.v
}

// embedTextLimit bounds the bytes of body text a node's embedding sees:
// the title and the first 2 KiB of its body (cut at a character boundary).
// Long bodies are dominated by their opening anyway, and the bound keeps
// every embedder request and every content key cheap.
const embedTextLimit = 2048

// buildFile indexes one file's bytes. It never fails: any bytes are Org.
func buildFile(path string, rootIdx int, rel string, src []byte, priv *privacySet) *fileIndex {
	return indexParsed(path, rootIdx, rel, orgast.Parse(src), priv)
}

// indexParsed indexes an already parsed file.
func indexParsed(path string, rootIdx int, rel string, org *orgast.File, priv *privacySet) *fileIndex {
	f := newFileIndex(path, rootIdx, rel, org, priv)
	f.hashNodesReusing(nil, nil)
	f.keys = f.computeKeysReusing(nil)
	return f
}

// newFileIndex does the cheap part of indexing: the tree, IDs, privacy
// and link kinds. Hashes and keys come after.
func newFileIndex(path string, rootIdx int, rel string, org *orgast.File, priv *privacySet) *fileIndex {
	f := &fileIndex{path: path, root: rootIdx, rel: rel, org: org, privacy: priv, lookup: &lookupCell{}, internal: &internalCell{}}
	hs := org.Headlines
	n := 1 + len(hs)
	f.nodes = make([]nodeInfo, n)
	nodes := f.nodes
	for i := range nodes {
		nodes[i].parent, nodes[i].firstChild, nodes[i].nextSibling = -1, -1, -1
	}
	// Tree links, built backwards so that children end up in order.
	for i := len(hs) - 1; i >= 0; i-- {
		p := int32(hs[i].Parent + 1)
		if hs[i].Parent < -1 || hs[i].Parent >= i {
			p = 0 // defensive: orgast promises Parent < i
		}
		nodes[i+1].parent = p
		nodes[i+1].nextSibling = nodes[p].firstChild
		nodes[p].firstChild = int32(i + 1)
	}
	if id, ok := org.ID(); ok && id != "" {
		f.ids = append(f.ids, idCarrier{id: id, node: 0})
	}
	for i := range hs {
		ni := &nodes[i+1]
		ni.depth = nodes[ni.parent].depth + 1
		if id, ok := hs[i].Drawer.Get("ID"); ok && id != "" {
			f.ids = append(f.ids, idCarrier{id: id, node: int32(i + 1)})
		}
	}
	f.markPrivate()
	f.classifyLinks()
	return f
}

// markPrivate sets every node's private flag from f.privacy: a node is
// private when the file's tags, an ancestor's or its own hold a privacy tag.
func (f *fileIndex) markPrivate() {
	nodes := f.nodes
	nodes[0].private = f.privacy.any(allFileTags(f.org))
	for i := 1; i < len(nodes); i++ {
		nodes[i].private = nodes[nodes[i].parent].private || f.privacy.any(f.org.Headlines[i-1].Tags)
	}
}

// withPrivacy returns f with private flags computed for other privacy
// tags (f itself when they are the same).
func (f *fileIndex) withPrivacy(p *privacySet) *fileIndex {
	if f.privacy == p || f.privacy.equal(p) {
		return f
	}
	nf := *f
	nf.privacy = p
	nf.nodes = append([]nodeInfo(nil), f.nodes...)
	nf.markPrivate()
	return &nf
}

// allFileTags returns the tags of every #+FILETAGS: keyword in the file.
// Org applies them all (org-set-regexps-and-options collects every one),
// wherever they are; orgast's FileTags is only the first before the first
// headline, which is what the outline JSON shows.
func allFileTags(org *orgast.File) []string {
	var tags []string
	for _, k := range org.Keywords {
		if k.Key != "FILETAGS" {
			continue
		}
		for _, t := range strings.Split(k.Value, ":") {
			if t = strings.TrimSpace(t); t != "" {
				tags = append(tags, t)
			}
		}
	}
	return tags
}

// subtree returns node i's byte span: the whole file for the file node.
func (f *fileIndex) subtree(i int32) orgast.Range {
	if i == 0 {
		return orgast.Range{Start: 0, End: len(f.org.Src)}
	}
	return f.org.Headlines[i-1].Subtree()
}

// ownSegments calls fn with each run of node i's own bytes — its subtree
// minus its children's subtrees — and with each child, in document order.
// Every byte of the file belongs to exactly one node's own runs.
func (f *fileIndex) ownSegments(i int32, text func(orgast.Range), child func(int32)) {
	r := f.subtree(i)
	at := r.Start
	for c := f.nodes[i].firstChild; c >= 0; c = f.nodes[c].nextSibling {
		cr := f.subtree(c)
		s := min(max(cr.Start, at), r.End)
		if s > at {
			text(orgast.Range{Start: at, End: s})
		}
		child(c)
		at = max(at, min(cr.End, r.End))
	}
	if r.End > at {
		text(orgast.Range{Start: at, End: r.End})
	}
}

// hashNodesReusing computes every node's Merkle hash (its own bytes and
// its children's hashes, in document order) and content key (its
// embedding text), taking them from prev for nodes where reuse names a
// counterpart (reuse[i] >= 0; see reindex). Children come after parents,
// so a backward pass has every child's hash ready.
func (f *fileIndex) hashNodesReusing(prev *fileIndex, reuse []int32) {
	m := newMerkleHasher()
	src := f.org.Src
	ch := sha256.New()
	var sum [sha256.Size]byte
	for i := int32(len(f.nodes)) - 1; i >= 0; i-- {
		if reuse != nil && reuse[i] >= 0 {
			o := &prev.nodes[reuse[i]]
			f.nodes[i].merkle, f.nodes[i].content, f.nodes[i].embeddable = o.merkle, o.content, o.embeddable
			continue
		}
		m.begin(tagNode)
		f.ownSegments(i,
			func(r orgast.Range) { m.text(src[r.Start:r.End]) },
			func(c int32) { m.child(&f.nodes[c].merkle) })
		f.nodes[i].merkle = m.end()

		ch.Reset()
		blank := true
		f.embedText(i, func(b []byte) {
			ch.Write(b)
			if blank && strings.TrimSpace(string(b)) != "" {
				blank = false
			}
		})
		ch.Sum(sum[:0])
		copy(f.nodes[i].content[:], sum[:16])
		f.nodes[i].embeddable = !blank
	}
}

// embedTextLen bounds the length of node i's embedding text.
func (f *fileIndex) embedTextLen(i int32) int {
	n := len(f.title(i)) + 1
	f.bodySegments(i, func(r orgast.Range) bool {
		n += r.Len()
		return n < len(f.title(i))+1+embedTextLimit
	})
	return min(n, len(f.title(i))+1+embedTextLimit)
}

// embedText produces node i's embedding text in pieces: the title, a
// newline, then the body up to embedTextLimit bytes.
func (f *fileIndex) embedText(i int32, w func([]byte)) {
	w([]byte(f.title(i)))
	w([]byte{'\n'})
	budget := embedTextLimit
	f.bodySegments(i, func(r orgast.Range) bool {
		b := f.org.Src[r.Start:r.End]
		if len(b) > budget {
			b = b[:budget]
			for len(b) > 0 && !utf8.Valid(b[len(b)-min(len(b), utf8.UTFMax):]) {
				b = b[:len(b)-1]
			}
		}
		w(b)
		budget -= len(b)
		return budget > 0
	})
}

// title is node i's title: #+TITLE: or the file name for the file node.
func (f *fileIndex) title(i int32) string {
	if i > 0 {
		return f.org.Headlines[i-1].Title
	}
	if t, ok := f.org.Title(); ok {
		return t
	}
	return strings.TrimSuffix(filepath.Base(f.path), ".org")
}

// bodySegments calls fn with the runs of node i's body: for a headline,
// its section after the planning line and property drawer; for the file
// node, the zeroth section without the file drawer and keyword lines.
// fn returns false to stop.
func (f *fileIndex) bodySegments(i int32, fn func(orgast.Range) bool) {
	org := f.org
	if i > 0 {
		h := &org.Headlines[i-1]
		s, e := h.Section.Start, h.Section.End
		if h.Planning.Range.End > s && h.Planning.Range.Start < e {
			s = f.lineAfter(h.Planning.Range.End)
		}
		if h.Drawer != nil && h.Drawer.Range.End > s && h.Drawer.Range.Start < e {
			s = f.lineAfter(h.Drawer.Range.End)
		}
		if s < e {
			fn(orgast.Range{Start: s, End: e})
		}
		return
	}
	end := len(org.Src)
	if len(org.Headlines) > 0 {
		end = org.Headlines[0].Line.Start
	}
	var cuts []orgast.Range
	if d := org.FileDrawer; d != nil && d.Range.Start < end {
		cuts = append(cuts, orgast.Range{Start: d.Range.Start, End: f.lineAfter(d.Range.End)})
	}
	for _, k := range org.Keywords {
		if k.Node == -1 && k.Range.Start < end {
			cuts = append(cuts, orgast.Range{Start: k.Range.Start, End: f.lineAfter(k.Range.End)})
		}
	}
	at := 0
	sortRanges(cuts)
	for _, c := range cuts {
		if c.Start > at {
			if !fn(orgast.Range{Start: at, End: min(c.Start, end)}) {
				return
			}
		}
		at = max(at, c.End)
	}
	if end > at {
		fn(orgast.Range{Start: at, End: end})
	}
}

// lineAfter returns the start of the line after offset off (off itself
// when it already starts a line or is the end of the file).
func (f *fileIndex) lineAfter(off int) int {
	src := f.org.Src
	if off >= len(src) {
		return len(src)
	}
	eol := byte('\n')
	if f.org.EOL() == orgast.EOLMac {
		eol = '\r'
	}
	if off > 0 && src[off-1] == eol {
		return off
	}
	for off < len(src) && src[off] != eol {
		off++
	}
	return min(off+1, len(src))
}

func sortRanges(rs []orgast.Range) {
	for i := 1; i < len(rs); i++ {
		for j := i; j > 0 && rs[j].Start < rs[j-1].Start; j-- {
			rs[j], rs[j-1] = rs[j-1], rs[j]
		}
	}
}

// classifyLinks reads every link of the file: its kind, a file link's
// absolute target, and the resolution of links within the file.
func (f *fileIndex) classifyLinks() {
	links := f.org.Links
	f.links = make([]linkInfo, len(links))
	dir := filepath.Dir(f.path)
	for i := range links {
		l := &links[i]
		li := &f.links[i]
		switch strings.ToLower(l.Type) {
		case "id":
			li.kind = linkID
			f.idLinks++
		case "file":
			li.kind = linkFile
			li.target = fileLinkTarget(dir, l.Path)
		case "fuzzy", "custom-id":
			li.kind = linkInternal
		case "radio":
			li.kind = linkRadio
		case "coderef":
			li.kind = linkCoderef
		default:
			li.kind = linkExternal
		}
	}
}

// fileLinkTarget makes a file link's path absolute, as Org does: relative
// to the linking file's folder, "~" as the user's home.
func fileLinkTarget(dir, p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home, err := userHome(); err == nil {
			p = filepath.Join(home, p[1:])
		}
	case !filepath.IsAbs(p):
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// keys are the sorted lists a file contributes to the global indexes.
type fileKeys struct {
	ids         []string // ID values, one per carrier (a multiset)
	idTargets   []string // distinct targets of its id links
	fileTargets []string // distinct absolute targets of its file links to other files
	// sum fingerprints the three lists' sources in document order: equal
	// sums, equal lists, so an edit that touches no ID and no link target
	// reuses the sorted lists of the version before.
	sum [32]byte
}

// keySum fingerprints what computeKeys reads.
func (f *fileIndex) keySum() [32]byte {
	h := sha256.New()
	for _, c := range f.ids {
		h.Write([]byte(c.id))
		h.Write([]byte{0})
	}
	h.Write([]byte{1})
	for i, li := range f.links {
		switch li.kind {
		case linkID:
			h.Write([]byte{2})
			h.Write([]byte(f.org.Links[i].Path))
		case linkFile:
			h.Write([]byte{3})
			h.Write([]byte(li.target))
		}
	}
	var s [32]byte
	h.Sum(s[:0])
	return s
}

func (f *fileIndex) computeKeysReusing(prev *fileIndex) fileKeys {
	sum := f.keySum()
	if prev != nil && prev.keys.sum == sum {
		return prev.keys
	}
	k := fileKeys{sum: sum}
	for _, c := range f.ids {
		k.ids = append(k.ids, c.id)
	}
	slices.Sort(k.ids)
	for i, li := range f.links {
		switch li.kind {
		case linkID:
			k.idTargets = append(k.idTargets, f.org.Links[i].Path)
		case linkFile:
			if li.target != f.path {
				k.fileTargets = append(k.fileTargets, li.target)
			}
		}
	}
	slices.Sort(k.idTargets)
	k.idTargets = slices.Compact(k.idTargets)
	slices.Sort(k.fileTargets)
	k.fileTargets = slices.Compact(k.fileTargets)
	return k
}

// carrierOf returns the nodes of this file carrying id, in document order.
func (f *fileIndex) carriersOf(id string) []int32 {
	var out []int32
	for _, c := range f.ids {
		if c.id == id {
			out = append(out, c.node)
		}
	}
	return out
}
