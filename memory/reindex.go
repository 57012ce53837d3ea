package memory

import (
	"bytes"

	"pp-lsp/orgast"
)

// reindex indexes a new version of a file. With the previous version and
// the edit between them it reuses the hashes of every node the edit
// cannot have touched: a node whose subtree lies wholly before the edit,
// or wholly after it, has the same bytes as its counterpart in prev (the
// same index before the edit, shifted by the change in node count after
// it); when its range (shifted by the change in length) and its number of
// descendants also match, its Merkle hash, content key and blankness are
// the same, and only the nodes around the edit — the edited one and its
// ancestors — are hashed again. Without prev, everything is computed.
// Either way the result equals indexParsed of the same outline. It also
// returns the reuse mapping (new node → old node, -1 for none), or nil.
func reindex(prev *fileIndex, path string, rootIdx int, rel string, org *orgast.File, priv *privacySet, edit *orgast.Edit) (*fileIndex, []int32) {
	if prev == nil || edit == nil {
		return indexParsed(path, rootIdx, rel, org, priv), nil
	}
	f := newFileIndex(path, rootIdx, rel, org, priv)
	n := len(f.nodes)
	oldN := len(prev.nodes)
	dn := int32(n - oldN)
	delta := edit.NewEnd - edit.OldEnd
	last := lastDescendants(f)
	oldLast := lastDescendants(prev)
	reuse := make([]int32, n)
	for i := range reuse {
		reuse[i] = -1
	}
	for i := int32(1); i < int32(n); i++ {
		r := f.subtree(i)
		var j, shift int32
		switch {
		case r.End < edit.Start:
			j, shift = i, 0
		case r.Start > edit.NewEnd:
			j, shift = i-dn, int32(delta)
		default:
			continue
		}
		if j < 1 || j >= int32(oldN) {
			continue
		}
		or := prev.subtree(j)
		if or.Start+int(shift) != r.Start || or.End+int(shift) != r.End || oldLast[j]-j != last[i]-i {
			continue
		}
		// Same bytes may still read differently when a file-wide setting
		// changed (a #+TODO: line makes "DRAFT" a keyword, not part of the
		// title): the title enters the content key, so it must match.
		if f.title(i) != prev.title(j) {
			continue
		}
		reuse[i] = j
	}
	f.hashNodesReusing(prev, reuse)
	f.keys = f.computeKeysReusing(prev)
	if sameResolution(prev, f, reuse, edit) {
		f.lookup, f.internal = prev.lookup, prev.internal
	}
	return f, reuse
}

// sameResolution reports whether f resolves searches and internal links
// exactly as prev does, so that it can share prev's lookup tables and
// internal-link resolutions instead of building them again: the same
// nodes (every one either reused or, for those the edit touched, with the
// same title and CUSTOM_ID), the same <<targets>>, the same links (type,
// path, search, holding node), and no "#+" line touched by the edit (a
// #+NAME: may have changed). Typing in a body passes; anything else
// builds afresh.
func sameResolution(prev, f *fileIndex, reuse []int32, e *orgast.Edit) bool {
	if len(prev.nodes) != len(f.nodes) || len(prev.org.Targets) != len(f.org.Targets) || len(prev.links) != len(f.links) {
		return false
	}
	for i := range f.nodes {
		if reuse[i] == int32(i) {
			continue
		}
		if f.title(int32(i)) != prev.title(int32(i)) {
			return false
		}
		a, _ := Node{f, int32(i)}.Property("CUSTOM_ID")
		b, _ := Node{prev, int32(i)}.Property("CUSTOM_ID")
		if a != b {
			return false
		}
	}
	for k, t := range f.org.Targets {
		if o := prev.org.Targets[k]; o.Name != t.Name || o.Node != t.Node || o.Radio != t.Radio {
			return false
		}
	}
	for k := range f.links {
		a, b := &f.org.Links[k], &prev.org.Links[k]
		if a.Type != b.Type || a.Path != b.Path || a.Search != b.Search || a.HasSearch != b.HasSearch || a.Node != b.Node || f.links[k] != prev.links[k] {
			return false
		}
	}
	return !touchesKeywordLine(prev.org.Src, e.Start, e.OldEnd) && !touchesKeywordLine(f.org.Src, e.Start, e.NewEnd)
}

// touchesKeywordLine reports whether a line overlapping [start, end) of
// src holds "#+".
func touchesKeywordLine(src []byte, start, end int) bool {
	lo := start
	for lo > 0 && src[lo-1] != '\n' && src[lo-1] != '\r' {
		lo--
	}
	hi := min(end, len(src))
	for hi < len(src) && src[hi] != '\n' && src[hi] != '\r' {
		hi++
	}
	return bytes.Contains(src[lo:hi], []byte("#+"))
}

// lastDescendants returns, for each node, the index of its last
// descendant (itself when it has none): subtrees are contiguous.
func lastDescendants(f *fileIndex) []int32 {
	last := make([]int32, len(f.nodes))
	for i := range last {
		last[i] = int32(i)
	}
	for i := len(last) - 1; i >= 1; i-- {
		if p := f.nodes[i].parent; p >= 0 && last[i] > last[p] {
			last[p] = last[i]
		}
	}
	return last
}
