package memory

import (
	"bytes"

	"pp-lsp/orgast"
)

// sameResolutionIn reports whether f resolves searches and internal links
// exactly as prev does, so that it can share prev's lookup tables and
// internal-link resolutions, when f differs from prev only in the nodes
// [lo, hi) (the same number of them), the bytes [rs, re) and the links
// [la, lb) there: the file node and those nodes have the same titles and
// CUSTOM_IDs, the targets and links there are the same, so are the named
// elements, and no link into the file by line number can have moved.
func sameResolutionIn(prev, f *fileIndex, lo, hi int32, rs, re, la, lb int, e orgast.Edit) bool {
	if len(prev.org.Targets) != len(f.org.Targets) || len(prev.links) != len(f.links) {
		return false
	}
	if !sameLookupNode(prev, f, 0) {
		return false
	}
	for i := lo; i < hi; i++ {
		if !sameLookupNode(prev, f, i) {
			return false
		}
	}
	for k, t := range f.org.Targets {
		if t.Range.Start < rs || t.Range.Start >= re {
			continue
		}
		if o := prev.org.Targets[k]; o.Name != t.Name || o.Node != t.Node || o.Radio != t.Radio {
			return false
		}
	}
	for k := la; k < lb; k++ {
		if !sameLink(prev, f, k) {
			return false
		}
	}
	if f.lineSearches > 0 && (bytes.ContainsAny(prev.org.Src[e.Start:e.OldEnd], "\n\r") || bytes.ContainsAny(f.org.Src[e.Start:e.NewEnd], "\n\r")) {
		return false
	}
	return sameNames(prev, f)
}

// sameLookupNode reports whether node i reads the same to a search in
// both versions: its title and CUSTOM_ID.
func sameLookupNode(prev, f *fileIndex, i int32) bool {
	if f.title(i) != prev.title(i) {
		return false
	}
	a, _ := Node{f, i}.Property("CUSTOM_ID")
	b, _ := Node{prev, i}.Property("CUSTOM_ID")
	return a == b
}

// sameLink reports whether link k reads the same in both versions.
func sameLink(prev, f *fileIndex, k int) bool {
	a, b := &f.org.Links[k], &prev.org.Links[k]
	return a.Type == b.Type && a.Path == b.Path && a.Search == b.Search && a.HasSearch == b.HasSearch && a.Node == b.Node && f.links[k] == prev.links[k]
}

// sameResolution is sameResolutionIn for reindexAll: every node that is
// not reused with its own index must read the same.
func sameResolution(prev, f *fileIndex, reuse []int32, e *orgast.Edit) bool {
	if len(prev.nodes) != len(f.nodes) || len(prev.org.Targets) != len(f.org.Targets) || len(prev.links) != len(f.links) {
		return false
	}
	for i := range f.nodes {
		if reuse[i] != int32(i) && !sameLookupNode(prev, f, int32(i)) {
			return false
		}
	}
	for k, t := range f.org.Targets {
		if o := prev.org.Targets[k]; o.Name != t.Name || o.Node != t.Node || o.Radio != t.Radio {
			return false
		}
	}
	for k := range f.links {
		if !sameLink(prev, f, k) {
			return false
		}
	}
	if f.lineSearches > 0 && (bytes.ContainsAny(prev.org.Src[e.Start:e.OldEnd], "\n\r") || bytes.ContainsAny(f.org.Src[e.Start:e.NewEnd], "\n\r")) {
		return false
	}
	return sameNames(prev, f)
}

// patchInternal carries prev's internal-link resolutions (old) over to f,
// a version reindex made from prev as nm says, where the links [la, lb)
// (lbOld in prev) and the bytes [rs, re) (reOld in prev) are new. A link
// outside them keeps its answer, moved with its node, unless it landed in
// a node indexed again or asked what may answer differently now: words
// that are a title, a #+NAME: or a <<target>> of the bytes indexed again
// (before or after), the CUSTOM_IDs when such a node carries one, the
// line numbers when the edit added or removed a line end. The others, and
// the new links, are resolved again.
func (f *fileIndex) patchInternal(prev *fileIndex, old []internalLink, nm *nodeMap, links, bytesAt [3]int, e orgast.Edit) *[]internalLink {
	la, lb, lbOld := links[0], links[1], links[2]
	rs, re, reOld := bytesAt[0], bytesAt[1], bytesAt[2]
	H, G := f.org.Headlines, prev.org.Headlines
	oldHi := nm.hi - nm.shift
	words := map[uint64]bool{}
	customs := false
	for i := nm.lo; i < nm.hi; i++ {
		words[hashString(titleKey(H[i-1].Title))] = true
		_, c := H[i-1].Drawer.Get("CUSTOM_ID")
		customs = customs || c
	}
	for i := nm.lo; i < oldHi; i++ {
		words[hashString(titleKey(G[i-1].Title))] = true
		_, c := G[i-1].Drawer.Get("CUSTOM_ID")
		customs = customs || c
	}
	a, _ := f.org.FileDrawer.Get("CUSTOM_ID")
	b, _ := prev.org.FileDrawer.Get("CUSTOM_ID")
	customs = customs || a != b
	namesIn(f, rs, re, words)
	namesIn(prev, rs, reOld, words)
	targets := targetsIn(f.org.Targets, rs, re) || targetsIn(prev.org.Targets, rs, reOld) || len(f.org.Targets) != len(prev.org.Targets)
	lines := bytes.ContainsAny(prev.org.Src[e.Start:e.OldEnd], "\n\r") || bytes.ContainsAny(f.org.Src[e.Start:e.NewEnd], "\n\r")
	out := make([]internalLink, len(f.links))
	for k := range f.links {
		j := k
		switch {
		case k >= lb:
			j = lbOld + k - lb
		case k >= la:
			out[k] = f.resolveInternal(k)
			continue
		}
		r := old[j]
		redo := r.node >= nm.lo && r.node < oldHi
		switch r.dep {
		case depWords:
			redo = redo || words[r.key] || targets
		case depCustomID:
			redo = redo || customs
		case depLine:
			redo = redo || lines
		}
		if redo {
			out[k] = f.resolveInternal(k)
			continue
		}
		if r.node >= oldHi {
			r.node += nm.shift
		}
		out[k] = r
	}
	return &out
}

// namesIn adds to words the names of the elements of f that overlap the
// bytes [from, to): an edit there may have named, renamed or unnamed them.
func namesIn(f *fileIndex, from, to int, words map[uint64]bool) {
	for _, n := range f.org.Names {
		if n.Range.Start <= to && n.Range.End >= from {
			if key, ok := SearchName(f.org.Src, n); ok {
				words[hashString(key)] = true
			}
		}
	}
}

// targetsIn reports whether a <<target>> (not a radio one) starts in
// [from, to).
func targetsIn(ts []orgast.Target, from, to int) bool {
	for _, t := range ts {
		if !t.Radio && t.Range.Start >= from && t.Range.Start < to {
			return true
		}
	}
	return false
}
