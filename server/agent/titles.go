package agent

import (
	"strings"
	"sync"
	"weak"

	"pp-lsp/memory"
	"pp-lsp/memory/orgfeat"
	"pp-lsp/orgast"
)

// titleIndex finds the nodes whose title or alias is a name (case and
// spacing aside), as orgfeat's NoteIndex.ByName does, at a cost that does
// not grow with the memex after an edit: each file's names are read once
// per outline (outlines never change; an edit makes a new one for its file
// only), and a snapshot's list of files is made from them on its first
// search. (ByName makes one table of every name of the memex per snapshot:
// on 100,000 headlines a search after an edit, or after the rescan that
// finds the journal grown, paid ~0.1 s for it.) The snapshot and the
// outlines are held weakly, and the names are copies, never views of an
// outline's text: the index never keeps an old snapshot, nor the old
// versions of a large buffer edited since, alive (issue 23).
type titleIndex struct {
	mu    sync.Mutex
	files map[weak.Pointer[orgast.File]]*fileNames
	snap  weak.Pointer[memory.Snapshot]
	list  []*fileNames
}

// fileNames are one outline's names: its file node's (0) and headlines'
// (i+1) titles and aliases.
type fileNames struct {
	path   string
	org    weak.Pointer[orgast.File]
	byName map[string][]nameHit
}

// nameHit is a node a name names, and whether by an alias.
type nameHit struct {
	node  int32
	alias bool
}

// nameKey is what two names that are the same compare as.
func nameKey(s string) string { return strings.ToLower(strings.Join(strings.Fields(s), " ")) }

// of returns the files of snap with their names, made on first use.
func (x *titleIndex) of(snap *memory.Snapshot) []*fileNames {
	x.mu.Lock()
	defer x.mu.Unlock()
	if x.snap.Value() == snap && x.list != nil {
		return x.list
	}
	next := make(map[weak.Pointer[orgast.File]]*fileNames, snap.FileCount())
	list := make([]*fileNames, 0, snap.FileCount())
	for f := range snap.Files() {
		if f.InServerFile() {
			continue
		}
		org := weak.Make(f.Org())
		fn := x.files[org]
		if fn == nil {
			fn = namesOf(f)
		}
		next[org] = fn
		list = append(list, fn)
	}
	x.files, x.snap, x.list = next, weak.Make(snap), list
	return list
}

// namesOf reads the names of file f's nodes. The keys are copies: a
// title is a view of the outline's text, which a key must not pin.
func namesOf(f memory.Node) *fileNames {
	fn := &fileNames{path: strings.Clone(f.Path()), org: weak.Make(f.Org()), byName: map[string][]nameHit{}}
	put := func(name string, h nameHit) {
		key := nameKey(name)
		if key == "" {
			return
		}
		// Always a copy: assigning to a string key the map has replaces
		// the key with the one assigned.
		fn.byName[strings.Clone(key)] = append(fn.byName[key], h)
	}
	add := func(n memory.Node) {
		k := int32(n.Headline() + 1)
		put(n.Title(), nameHit{node: k})
		for _, a := range orgfeat.Aliases(n) {
			put(a, nameHit{node: k, alias: true})
		}
	}
	add(f)
	for n := range f.Descendants() {
		add(n)
	}
	return fn
}

// byName returns the nodes of snap that name names, with whether by an
// alias, in memex order.
func (x *titleIndex) byName(snap *memory.Snapshot, name string) ([]memory.Node, []bool) {
	key := nameKey(name)
	if key == "" {
		return nil, nil
	}
	var nodes []memory.Node
	var aliases []bool
	for _, fn := range x.of(snap) {
		for _, h := range fn.byName[key] {
			n, ok := snap.File(fn.path)
			if !ok || n.Org() != fn.org.Value() {
				continue
			}
			if h.node > 0 {
				if n, ok = snap.NodeAtOffset(fn.path, n.Org().Headlines[h.node-1].Line.Start); !ok {
					continue
				}
			}
			nodes, aliases = append(nodes, n), append(aliases, h.alias)
		}
	}
	return nodes, aliases
}
