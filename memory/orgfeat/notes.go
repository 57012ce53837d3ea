package orgfeat

import (
	"slices"
	"strings"
	"sync"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// NoteIndex keeps what the org-roam features read across the memex: each
// node's aliases and refs, the links that name a ref or a title
// ([[roam:Title]], [[cite:key]], a URL), and on first use each file's
// words (for unlinked references, see Unlinked). What it reads from one
// file is made once per outline — outlines never change — and shared by
// every snapshot holding it; the tables across files are made once per
// snapshot, when a feature first asks. Safe for concurrent use.
type NoteIndex struct {
	mu    sync.Mutex
	files map[*orgast.File]*noteFile
	// last are the tables of the latest snapshot asked about.
	last *noteTables
}

// NewNoteIndex returns an empty index.
func NewNoteIndex() *NoteIndex { return &NoteIndex{files: map[*orgast.File]*noteFile{}} }

// noteFile is what one outline holds for the notes features.
type noteFile struct {
	path   string
	org    *orgast.File
	hidden bool
	// names are the nodes' titles and aliases (node 0 the file, i+1
	// headline i): names[k] for the nodes with aliases or a title.
	titles  []string   // titles[node]
	aliases [][]string // aliases[node], nil when none
	refs    []nodeRefs // the nodes with :ROAM_REFS:
	// links are the links naming a ref or a title.
	links []keyedLink

	wordsOnce sync.Once
	words     *fileWords
}

// nodeRefs are one node's refs.
type nodeRefs struct {
	node int32
	refs []Ref
}

// keyedLink is a link that names a node by ref or by title: key is a
// Ref.Key, or "roam:" and the title's key (nameKey).
type keyedLink struct {
	index int32
	key   string
}

// nameKey is how titles and aliases compare: case folded, white space
// runs as one space.
func nameKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// fileOf returns the notes of file (a file node of the memex), made once
// per outline. The caller holds x.mu.
func (x *NoteIndex) fileOf(file memory.Node) *noteFile {
	org := file.Org()
	if nf := x.files[org]; nf != nil {
		return nf
	}
	nf := &noteFile{path: file.Path(), org: org, hidden: file.InServerFile()}
	n := 1 + len(org.Headlines)
	nf.titles = make([]string, n)
	nf.aliases = make([][]string, n)
	nf.titles[0] = file.Title()
	for i := range org.Headlines {
		nf.titles[i+1] = org.Headlines[i].Title
	}
	visit := func(node int32, props []orgast.Property) {
		if len(props) == 0 {
			return
		}
		if v, ok := propertyValue(props, "ROAM_ALIASES"); ok {
			nf.aliases[node] = aliasesOf(v, nf.titles[node])
		}
		if v, ok := propertyValue(props, "ROAM_REFS"); ok {
			if rs := refsOf(v); len(rs) > 0 {
				nf.refs = append(nf.refs, nodeRefs{node: node, refs: rs})
			}
		}
	}
	if org.FileDrawer != nil {
		visit(0, org.FileDrawer.Properties)
	}
	for i := range org.Headlines {
		visit(int32(i+1), org.Headlines[i].Properties())
	}
	for i := range org.Links {
		l := &org.Links[i]
		if r, ok := LinkRef(l.Type, l.Path); ok {
			nf.links = append(nf.links, keyedLink{index: int32(i), key: r.Key()})
		} else if t, ok := RoamTitle(l.Type, l.Path); ok {
			nf.links = append(nf.links, keyedLink{index: int32(i), key: "roam:" + nameKey(t)})
		}
	}
	x.files[org] = nf
	return nf
}

// noteTables are the cross-file tables of one snapshot.
type noteTables struct {
	snap  *memory.Snapshot
	files []*noteFile // in memex order
	// byRef maps a Ref.Key to the nodes carrying it; links maps a
	// keyedLink key to the links naming it.
	byRef map[string][]noteNode
	links map[string][]noteLink

	titlesOnce sync.Once
	byName     map[string][]noteNode // nameKey of a title or alias → nodes
}

// noteNode is a node of a noteFile; noteLink a link of one.
type noteNode struct {
	file *noteFile
	node int32
}

type noteLink struct {
	file  *noteFile
	index int32
}

// tables returns the tables of snap, made on first use.
func (x *NoteIndex) tables(snap *memory.Snapshot) *noteTables {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.last != nil && x.last.snap == snap {
		return x.last
	}
	t := &noteTables{snap: snap, byRef: map[string][]noteNode{}, links: map[string][]noteLink{}}
	next := make(map[*orgast.File]*noteFile, snap.FileCount())
	for f := range snap.Files() {
		nf := x.fileOf(f)
		next[f.Org()] = nf
		t.files = append(t.files, nf)
		for _, nr := range nf.refs {
			for _, r := range nr.refs {
				t.byRef[r.Key()] = append(t.byRef[r.Key()], noteNode{nf, nr.node})
			}
		}
		for _, l := range nf.links {
			t.links[l.key] = append(t.links[l.key], noteLink{nf, l.index})
		}
	}
	x.files = next
	x.last = t
	return t
}

// names returns the title-and-alias table, made once per snapshot.
func (t *noteTables) names() map[string][]noteNode {
	t.titlesOnce.Do(func() {
		t.byName = map[string][]noteNode{}
		for _, nf := range t.files {
			if nf.hidden {
				continue
			}
			for node, title := range nf.titles {
				if k := nameKey(title); k != "" {
					t.byName[k] = append(t.byName[k], noteNode{nf, int32(node)})
				}
				for _, a := range nf.aliases[node] {
					if k := nameKey(a); k != "" {
						t.byName[k] = append(t.byName[k], noteNode{nf, int32(node)})
					}
				}
			}
		}
	})
	return t.byName
}

// node is the memex node of n.
func (t *noteTables) node(n noteNode) (memory.Node, bool) {
	return nodeOf(t.snap, n.file.path, n.file.org, n.node)
}

// nodeOf is node k (0 the file, i+1 headline i) of the file at path,
// when the snapshot holds that outline there.
func nodeOf(snap *memory.Snapshot, path string, org *orgast.File, k int32) (memory.Node, bool) {
	f, ok := snap.File(path)
	if !ok || f.Org() != org {
		return memory.Node{}, false
	}
	if k == 0 {
		return f, true
	}
	return snap.NodeAtOffset(path, org.Headlines[k-1].Line.Start)
}

// nodeIndex is the index of n within its file: 0 for the file, i+1 for
// headline i.
func nodeIndex(n memory.Node) int32 { return int32(n.Headline() + 1) }

// propertyValue is PropertyValue over a drawer's properties.
func propertyValue(props []orgast.Property, key string) (string, bool) {
	var base string
	var more []string
	hasBase, found := false, false
	for _, p := range props {
		switch {
		case strings.EqualFold(p.Key, key) && !hasBase:
			hasBase, found = true, true
			if p.Value != "nil" {
				base = p.Value
			}
		case strings.EqualFold(p.Key, key+"+"):
			more, found = append(more, p.Value), true
		}
	}
	vals := more
	if base != "" {
		vals = append([]string{base}, more...)
	}
	return strings.Join(vals, " "), found
}

// aliasesOf reads a :ROAM_ALIASES: value: its words, without repeats or
// the node's own title.
func aliasesOf(v, title string) []string {
	var out []string
	for _, a := range SplitAndUnquote(v) {
		a = strings.TrimSpace(a)
		if a == "" || a == title || slices.Contains(out, a) {
			continue
		}
		out = append(out, a)
	}
	return out
}

// refsOf reads a :ROAM_REFS: value.
func refsOf(v string) []Ref {
	var out []Ref
	for _, r := range SplitAndUnquote(v) {
		for _, ref := range parseRef(r) {
			if !slices.Contains(out, ref) {
				out = append(out, ref)
			}
		}
	}
	return out
}

// NodeAliases are the aliases of n (Aliases), from the index when it
// holds n's outline.
func (x *NoteIndex) NodeAliases(n memory.Node) []string {
	x.mu.Lock()
	nf := x.files[n.Org()]
	x.mu.Unlock()
	if nf == nil {
		return Aliases(n)
	}
	return nf.aliases[nodeIndex(n)]
}

// ByRef returns the nodes carrying ref r (by Ref.Key), in memex order.
func (x *NoteIndex) ByRef(snap *memory.Snapshot, r Ref) []memory.Node {
	t := x.tables(snap)
	var out []memory.Node
	for _, nn := range t.byRef[r.Key()] {
		if n, ok := t.node(nn); ok {
			out = append(out, n)
		}
	}
	return out
}

// ByName returns the nodes whose title or one of whose aliases is name
// (case and spacing aside), titles first, in memex order — what a
// [[roam:name]] link finds. The hidden files hold none.
func (x *NoteIndex) ByName(snap *memory.Snapshot, name string) []memory.Node {
	t := x.tables(snap)
	var titled, aliased []memory.Node
	k := nameKey(name)
	for _, nn := range t.names()[k] {
		n, ok := t.node(nn)
		if !ok {
			continue
		}
		if nameKey(nn.file.titles[nn.node]) == k {
			titled = append(titled, n)
		} else {
			aliased = append(aliased, n)
		}
	}
	return append(titled, aliased...)
}

// keyedBacklinks are the links naming n by one of its refs or by its
// title or an alias ([[roam:…]]).
func (x *NoteIndex) keyedBacklinks(snap *memory.Snapshot, n memory.Node) []memory.LinkSite {
	t := x.tables(snap)
	x.mu.Lock()
	nf := x.files[n.Org()]
	x.mu.Unlock()
	if nf == nil {
		return nil
	}
	k := nodeIndex(n)
	var keys []string
	for _, nr := range nf.refs {
		if nr.node == k {
			for _, r := range nr.refs {
				keys = append(keys, r.Key())
			}
		}
	}
	var out []memory.LinkSite
	for _, key := range keys {
		for _, l := range t.links[key] {
			if site, ok := t.site(l); ok {
				out = append(out, site)
			}
		}
	}
	// [[roam:name]] lands on the first node by that name.
	names := append([]string{nf.titles[k]}, nf.aliases[k]...)
	seen := map[string]bool{}
	for _, name := range names {
		nk := nameKey(name)
		if nk == "" || seen[nk] {
			continue
		}
		seen[nk] = true
		if first := x.ByName(snap, name); len(first) == 0 || !first[0].Same(n) {
			continue
		}
		for _, l := range t.links["roam:"+nk] {
			if site, ok := t.site(l); ok {
				out = append(out, site)
			}
		}
	}
	return out
}

// site is the memex's LinkSite of l.
func (t *noteTables) site(l noteLink) (memory.LinkSite, bool) {
	f, ok := nodeOf(t.snap, l.file.path, l.file.org, 0)
	if !ok {
		return memory.LinkSite{}, false
	}
	from, ok := nodeOf(t.snap, l.file.path, l.file.org, int32(l.file.org.Links[l.index].Node+1))
	if !ok {
		from = f
	}
	return memory.LinkSite{From: from, Index: int(l.index)}, true
}

// Forget drops what the index holds for the file at path, except for its
// outline keep (nil: every outline of it), and the tables of the last
// snapshot when they hold another: a buffer's old versions must not
// outlive its edits in this cache.
func (x *NoteIndex) Forget(path string, keep *orgast.File) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for org, nf := range x.files {
		if nf.path == path && org != keep {
			delete(x.files, org)
		}
	}
	if x.last == nil {
		return
	}
	if n, ok := x.last.snap.File(path); !ok || n.Org() != keep {
		x.last = nil
	}
}
