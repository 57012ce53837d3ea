package memory

import (
	"bytes"
	"crypto/sha256"
	"hash"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"
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
	// usesSetup: the file has a #+SETUPFILE: line; setupPrivate: a setup
	// file makes it private as a whole (setup.go). Both are set by judged.
	usesSetup, setupPrivate bool
	// setupTargets are the values of its #+SETUPFILE: lines (judged sets
	// them, for a judgement again without reading the text: rejudged).
	setupTargets []string
	// diskPrivate: f is an editor buffer's text, and the disk's copy of
	// its file holds a private node f does not hold as private: every
	// node is private (diskcopy.go).
	diskPrivate bool
	// keys are what the file contributes to the global indexes, shared
	// with the version before when they are the same.
	keys *fileKeys
	// lineSearches counts the links into the file itself whose search is
	// a line number: their resolution moves with every line added above.
	lineSearches int

	// lookup holds the tables for resolving links into this file, and
	// internal the resolution of its own internal links, both made on
	// first use (and shared by the copies withPrivacy makes).
	lookup   *lookupCell
	internal *internalCell
	// status holds what the file's findings last learnt from the rest of
	// the memex (see fileStatus); derive, for a version reindex made, says
	// how to carry the previous version's over.
	status *statusCell
	derive *statusSplice
}

// lookupCell holds a file version's lookup tables, made on first use —
// or, for a version reindex made from one whose tables were made, right
// away from those (see fileLookup.patched), so that typing never pays for
// the whole file's tables.
type lookupCell struct {
	mu sync.Mutex
	v  atomic.Pointer[fileLookup]
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

// idCarrier is one node carrying an :ID:. The id is detached from the
// file's bytes (see detachStrings): carriers outlive their version.
type idCarrier struct {
	id    string
	node  int32
	shard uint8 // shardOf(id)
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
	// target is the key the link contributes to the global indexes: the
	// ID of an id link, the absolute, clean target path of a file link
	// (its search is org.Links[i].Search), "" for other kinds. Like every
	// string an index keeps beyond its version, it does not view the
	// file's bytes.
	target string
	// shard is shardOf(target): where the global indexes keep it.
	shard uint8
	kind  linkKind // beside shard: 24 bytes a link, not 32
}

// internalLink is where a link within its own file lands: a node index,
// or -1 with ok false when it finds nothing. dep and key say what the
// answer came from, so that the next version of the file can tell whether
// the answer may have changed (see patchInternal): key is the hash of the
// search words when dep is depWords.
type internalLink struct {
	node int32
	ok   bool
	dep  searchDep
	key  uint64
}

// searchDep is what a search inside a file asked.
type searchDep uint8

const (
	depNone     searchDep = iota // nothing: not a search, blank, or never checked
	depWords                     // <<targets>>, #+NAME: lines and titles, by its words
	depCustomID                  // the CUSTOM_IDs
	depLine                      // the line numbers
)

// internalCell holds a file version's internal-link resolutions, made on
// first use, or carried over from the version before (see patchInternal).
type internalCell struct {
	mu sync.Mutex
	v  atomic.Pointer[[]internalLink]
}

// internalLinks resolves, once per file version, every link that lands in
// the file itself: [[*heading]], [[#custom-id]], fuzzy links, and file
// links naming the file. Other links get {-1, false}.
func (f *fileIndex) internalLinks() []internalLink {
	c := f.internal
	if v := c.v.Load(); v != nil {
		return *v
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if v := c.v.Load(); v != nil {
		return *v
	}
	out := make([]internalLink, len(f.links))
	for i := range f.links {
		out[i] = f.resolveInternal(i)
	}
	c.v.Store(&out)
	return out
}

// resolveInternal resolves link i when it lands in the file itself.
func (f *fileIndex) resolveInternal(i int) internalLink {
	l := &f.org.Links[i]
	switch li := &f.links[i]; {
	case li.kind == linkInternal && strings.EqualFold(l.Type, "custom-id"):
		return f.search("#"+l.Path, false)
	case li.kind == linkInternal:
		return f.search(l.Path, false)
	case li.kind == linkFile && li.target == f.path:
		if l.HasSearch && strings.TrimSpace(l.Search) != "" {
			return f.search(l.Search, true)
		}
		return internalLink{node: 0, ok: true}
	}
	return internalLink{node: -1}
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
	f.keys = f.computeKeys()
	return f
}

// newFileIndex does the cheap part of indexing: the tree, IDs, privacy
// and link kinds. Hashes and keys come after.
func newFileIndex(path string, rootIdx int, rel string, org *orgast.File, priv *privacySet) *fileIndex {
	f := &fileIndex{path: path, root: rootIdx, rel: rel, org: org, privacy: priv, lookup: &lookupCell{}, internal: &internalCell{}, status: &statusCell{}}
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
	keep := make([]*string, 0, len(f.ids)+len(f.links))
	for k := range f.ids {
		keep = append(keep, &f.ids[k].id)
	}
	for k := range f.links {
		keep = append(keep, &f.links[k].target)
	}
	detachStrings(keep)
	for k := range f.ids {
		f.ids[k].shard = uint8(shardOf(f.ids[k].id))
	}
	for k := range f.links {
		if t := f.links[k].target; t != "" {
			f.links[k].shard = uint8(shardOf(t))
		}
	}
	return f
}

// markPrivate sets every node's private flag from f.privacy: a node is
// private when the file's tags, an ancestor's or its own hold a privacy
// tag, or the file's setup files make it private (setup.go), or the
// disk's copy under a buffer does (diskcopy.go).
func (f *fileIndex) markPrivate() {
	nodes := f.nodes
	nodes[0].private = f.setupPrivate || f.diskPrivate || f.privacy.any(allFileTags(f.org))
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
// counterpart (reuse[i] >= 0; see reindexAll). Children come after
// parents, so a backward pass has every child's hash ready.
func (f *fileIndex) hashNodesReusing(prev *fileIndex, reuse []int32) {
	m := newMerkleHasher()
	ch := sha256.New()
	for i := int32(len(f.nodes)) - 1; i >= 0; i-- {
		if reuse != nil && reuse[i] >= 0 {
			o := &prev.nodes[reuse[i]]
			f.nodes[i].merkle, f.nodes[i].content, f.nodes[i].embeddable = o.merkle, o.content, o.embeddable
			continue
		}
		f.nodes[i].merkle = f.merkleOf(m, i)
		f.hashContent(ch, i)
	}
}

// hashContent computes node i's content key (the hash of its embedding
// text, with ch, a SHA-256 state to reuse) and whether that text is more
// than white space.
func (f *fileIndex) hashContent(ch hash.Hash, i int32) {
	ch.Reset()
	blank := true
	f.embedText(i, func(b []byte) {
		ch.Write(b)
		if blank && len(bytes.TrimSpace(b)) > 0 {
			blank = false
		}
	})
	var sum [sha256.Size]byte
	ch.Sum(sum[:0])
	copy(f.nodes[i].content[:], sum[:16])
	f.nodes[i].embeddable = !blank
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
		if h.Planning().Range.End > s && h.Planning().Range.Start < e {
			s = f.lineAfter(h.Planning().Range.End)
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

// classifyLinks reads every link of the file: its kind and its key.
// The keys view the file's bytes until indexParsed detaches them.
func (f *fileIndex) classifyLinks() {
	links := f.org.Links
	f.links = make([]linkInfo, len(links))
	dir := filepath.Dir(f.path)
	for i := range links {
		f.links[i] = classifyLink(dir, f.privacy.home, &links[i])
		if f.isLineSearch(i) {
			f.lineSearches++
		}
	}
}

// classifyLink reads one link: its kind, and its key (viewing the link's
// strings where it can).
func classifyLink(dir, home string, l *orgast.Link) linkInfo {
	switch strings.ToLower(l.Type) {
	case "id":
		return linkInfo{kind: linkID, target: l.Path}
	case "file":
		return linkInfo{kind: linkFile, target: fileLinkTarget(dir, home, l.Path)}
	case "fuzzy":
		if noteLink(l.Path) {
			return linkInfo{kind: linkExternal}
		}
		return linkInfo{kind: linkInternal}
	case "custom-id":
		return linkInfo{kind: linkInternal}
	case "radio":
		return linkInfo{kind: linkRadio}
	case "coderef":
		return linkInfo{kind: linkCoderef}
	}
	return linkInfo{kind: linkExternal}
}

// noteLink reports a fuzzy link to "roam:…" or "cite:…": org-roam's and
// org-ref's link types, which Org without those packages reads as fuzzy.
// They name a node by title or by ref, not a place in the file:
// memory/orgfeat resolves them (NoteIndex), and the file is not searched
// for them — an org-roam memex would otherwise be full of broken links.
func noteLink(p string) bool {
	for _, prefix := range []string{"roam:", "cite:"} {
		if len(p) > len(prefix) && strings.EqualFold(p[:len(prefix)], prefix) {
			return true
		}
	}
	return false
}

// isLineSearch reports whether link i is a link into the file itself
// whose search is a line number (see fileIndex.lineSearches).
func (f *fileIndex) isLineSearch(i int) bool {
	li, l := &f.links[i], &f.org.Links[i]
	if li.kind != linkFile || li.target != f.path || !l.HasSearch {
		return false
	}
	_, err := strconv.Atoi(l.Search)
	return err == nil
}

// fileLinkTarget makes a file link's path absolute, as Org does: relative
// to the linking file's folder, "~" as the home folder home (the world's;
// "" knows none: the path is left as written, and leads nowhere).
func fileLinkTarget(dir, home, p string) string {
	switch {
	case p == "~" || strings.HasPrefix(p, "~/"):
		if home != "" {
			p = filepath.Join(home, p[1:])
		}
	case !filepath.IsAbs(p):
		p = filepath.Join(dir, p)
	}
	return filepath.Clean(p)
}

// carriersOf returns the nodes of this file carrying id, in document order.
func (f *fileIndex) carriersOf(id string) []int32 {
	var out []int32
	for _, c := range f.ids {
		if c.id == id {
			out = append(out, c.node)
		}
	}
	return out
}
