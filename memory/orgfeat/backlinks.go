package orgfeat

import (
	"cmp"
	"slices"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// Backlink is one link landing on a node: where it is, the node holding
// it, and the line around it.
type Backlink struct {
	Site memory.LinkSite
	// Range is the link's own text in Site.From's file.
	Range   orgast.Range
	Context string
}

// Backlinks are the links landing on n: the memex's (memory's Backlinks:
// id, file and internal links) and, with a NoteIndex, those naming it by
// one of its refs or, [[roam:…]], by its title or an alias. In memex
// order, then document order.
func Backlinks(sc Scope, n memory.Node) []Backlink {
	if sc.Memex == nil || !n.Valid() || n.Loose() {
		return nil
	}
	sites := sc.Memex.Backlinks(n)
	if sc.Notes != nil {
		sites = append(sites, sc.Notes.keyedBacklinks(sc.Memex, n)...)
	}
	sortSites(sites)
	out := make([]Backlink, 0, len(sites))
	for _, s := range sites {
		r := s.Link().Range
		out = append(out, Backlink{Site: s, Range: r, Context: ContextLine(s.From.Org(), r)})
	}
	return out
}

// sortSites orders link sites as the memex does (root, path, link) and
// drops repeats.
func sortSites(sites []memory.LinkSite) {
	slices.SortStableFunc(sites, func(a, b memory.LinkSite) int {
		return cmp.Or(cmp.Compare(a.From.Root(), b.From.Root()), cmp.Compare(a.From.RelPath(), b.From.RelPath()), cmp.Compare(a.Index, b.Index))
	})
}

// BacklinkCounts counts the backlinks of every node of file (a file of
// the memex), by node: 0 for the file node, i+1 for headline i — what a
// code lens shows above each. One pass over the links landing in the
// file (memory's IncomingLinks), plus those naming its nodes by ref or
// title; the same counts as len(Backlinks) of each node.
func BacklinkCounts(sc Scope, file memory.Node) map[int]int {
	counts := map[int]int{}
	if sc.Memex == nil || !file.Valid() || file.Loose() {
		return counts
	}
	for _, in := range sc.Memex.IncomingLinks(file) {
		counts[in.Target.Headline()+1]++
	}
	if sc.Notes == nil {
		return counts
	}
	t := sc.Notes.tables(sc.Memex)
	sc.Notes.mu.Lock()
	nf := sc.Notes.files[file.Org()]
	sc.Notes.mu.Unlock()
	if nf == nil {
		return counts
	}
	// Nodes with refs, aliases, or a title some [[roam:]] names.
	for k := range nf.titles {
		if !nf.keyed(t, int32(k)) {
			continue
		}
		n, ok := nodeOf(sc.Memex, nf.path, nf.org, int32(k))
		if !ok {
			continue
		}
		counts[k] += len(sc.Notes.keyedBacklinks(sc.Memex, n))
	}
	return counts
}

// keyed reports whether some link may name node k by ref or name.
func (nf *noteFile) keyed(t *noteTables, k int32) bool {
	for _, nr := range nf.refs {
		if nr.node == k {
			return true
		}
	}
	if len(t.links) == 0 {
		return false
	}
	if _, ok := t.links["roam:"+nameKey(nf.titles[k])]; ok {
		return true
	}
	for _, a := range nf.aliases[k] {
		if _, ok := t.links["roam:"+nameKey(a)]; ok {
			return true
		}
	}
	return false
}
