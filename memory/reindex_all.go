package memory

import (
	"slices"

	"pp-lsp/orgast"
)

// reindexAll is reindex for an edit patchIndex cannot take: it indexes
// the new outline in full and reuses the hashes of every node the edit
// cannot have touched — a node whose subtree lies wholly before the edit,
// or wholly after it (the same index before the edit, shifted by the
// change in node count after it) with the same range (shifted by the
// change in length), number of descendants and title — so that only the
// nodes around the edit are hashed again.
func reindexAll(prev *fileIndex, path string, rootIdx int, rel string, org *orgast.File, priv *privacySet, edit *orgast.Edit) (*fileIndex, *nodeMap) {
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
	f.keys = f.computeKeys()
	if equalKeys(f.keys, prev.keys) {
		f.keys = prev.keys
	}
	if sameResolution(prev, f, reuse, edit) {
		f.lookup, f.internal = prev.lookup, prev.internal
	}
	return f, &nodeMap{lo: 1, hi: int32(n), shift: dn, from: reuse[1:]}
}

func equalKeys(a, b *fileKeys) bool {
	return slices.Equal(a.ids, b.ids) && slices.Equal(a.idLinks, b.idLinks) && slices.Equal(a.fileLinks, b.fileLinks)
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
