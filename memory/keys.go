package memory

import (
	"slices"
	"strings"
)

// fileKeys are what a file contributes to the global indexes, as sorted
// lists. A version whose keys are those of the version before shares them
// by pointer, so that snapBuilder.put diffs the global indexes only when
// the pointer changes. Immutable once made.
type fileKeys struct {
	ids     []string // ID values, one per carrier (a multiset)
	idLinks []string // id link targets, one per link (a multiset)
	// fileLinks are the absolute targets of file links to other files,
	// one per link (a multiset).
	fileLinks []string
	// idTargets and fileTargets are idLinks and fileLinks without repeats:
	// what the global indexes hold.
	idTargets   []string
	fileTargets []string
}

// keySet is a multiset of keys of each kind: a region's, or a file's.
type keySet struct {
	ids, idLinks, fileLinks []string
}

// add adds what link i of f contributes.
func (k *keySet) addLink(f *fileIndex, i int) {
	switch li := &f.links[i]; li.kind {
	case linkID:
		k.idLinks = append(k.idLinks, li.target)
	case linkFile:
		if li.target != f.path {
			k.fileLinks = append(k.fileLinks, li.target)
		}
	}
}

func (k *keySet) sort() {
	slices.Sort(k.ids)
	slices.Sort(k.idLinks)
	slices.Sort(k.fileLinks)
}

func (k *keySet) equal(o *keySet) bool {
	return slices.Equal(k.ids, o.ids) && slices.Equal(k.idLinks, o.idLinks) && slices.Equal(k.fileLinks, o.fileLinks)
}

// computeKeys lists every key of f.
func (f *fileIndex) computeKeys() *fileKeys {
	var ks keySet
	ks.ids = make([]string, 0, len(f.ids))
	for _, c := range f.ids {
		ks.ids = append(ks.ids, c.id)
	}
	for i := range f.links {
		ks.addLink(f, i)
	}
	ks.sort()
	k := &fileKeys{ids: nilIfEmpty(ks.ids), idLinks: nilIfEmpty(ks.idLinks), fileLinks: nilIfEmpty(ks.fileLinks)}
	k.idTargets, k.fileTargets = distinct(k.idLinks), distinct(k.fileLinks)
	return k
}

// keyDelta is how a file's keys changed from one version to the next,
// for each global index: the keys to take the file out of ([0]) and to
// put it in ([1]). Applying it to the indexes is what applyDiff of the
// whole lists would do, at the cost of the change.
type keyDelta struct {
	ids, idTargets, fileTargets [2][]string
}

// patched returns k with the keys of a changed region replaced: out are
// the region's keys before the change, in its keys after (sorted). When
// they are the same, k itself is returned, shared, and no delta.
func (k *fileKeys) patched(out, in *keySet) (*fileKeys, *keyDelta) {
	if out.equal(in) {
		return k, nil
	}
	nk := *k
	d := &keyDelta{}
	if !slices.Equal(out.ids, in.ids) {
		nk.ids = editSorted(k.ids, out.ids, in.ids)
		d.ids[0], d.ids[1] = sortedDiff(out.ids, in.ids)
	}
	if !slices.Equal(out.idLinks, in.idLinks) {
		nk.idLinks = editSorted(k.idLinks, out.idLinks, in.idLinks)
		nk.idTargets, d.idTargets = editDistinct(k.idTargets, k.idLinks, nk.idLinks, out.idLinks, in.idLinks)
	}
	if !slices.Equal(out.fileLinks, in.fileLinks) {
		nk.fileLinks = editSorted(k.fileLinks, out.fileLinks, in.fileLinks)
		nk.fileTargets, d.fileTargets = editDistinct(k.fileTargets, k.fileLinks, nk.fileLinks, out.fileLinks, in.fileLinks)
	}
	return &nk, d
}

// editSorted returns the sorted multiset all minus out plus in, in a new
// slice: by binary search and a copy when the change is small, by a merge
// otherwise.
func editSorted(all, out, in []string) []string {
	if len(out)+len(in) > 8 {
		return replaceSorted(all, out, in)
	}
	res := slices.Clone(all)
	for _, s := range out {
		if i, ok := slices.BinarySearch(res, s); ok {
			res = slices.Delete(res, i, i+1)
		}
	}
	for _, s := range in {
		i, _ := slices.BinarySearch(res, s)
		res = slices.Insert(res, i, s)
	}
	return nilIfEmpty(res)
}

// editDistinct returns the distinct list of a multiset that changed from
// old to now by removing out and adding in (all sorted), made from its
// distinct list before, set; and which keys left it and which joined.
func editDistinct(set, old, now, out, in []string) ([]string, [2][]string) {
	var d [2][]string
	for k, s := range out {
		if k > 0 && out[k-1] == s {
			continue
		}
		if _, still := slices.BinarySearch(now, s); !still {
			d[0] = append(d[0], s)
		}
	}
	for k, s := range in {
		if k > 0 && in[k-1] == s {
			continue
		}
		if _, was := slices.BinarySearch(old, s); !was {
			d[1] = append(d[1], s)
		}
	}
	if len(d[0])+len(d[1]) == 0 {
		return set, d
	}
	return editSorted(set, d[0], d[1]), d
}

// sortedDiff returns the elements of a not in b and of b not in a, as
// multisets (both sorted).
func sortedDiff(a, b []string) (onlyA, onlyB []string) {
	i, j := 0, 0
	for i < len(a) || j < len(b) {
		switch {
		case j >= len(b) || (i < len(a) && a[i] < b[j]):
			onlyA = append(onlyA, a[i])
			i++
		case i >= len(a) || b[j] < a[i]:
			onlyB = append(onlyB, b[j])
			j++
		default:
			i++
			j++
		}
	}
	return onlyA, onlyB
}

// replaceSorted returns the sorted multiset all minus out plus in (out a
// sub-multiset of all; all three sorted), in a new slice.
func replaceSorted(all, out, in []string) []string {
	res := make([]string, 0, len(all)-len(out)+len(in))
	i, j := 0, 0
	for _, s := range all {
		for i < len(out) && out[i] < s {
			i++ // not in all: nothing to remove
		}
		if i < len(out) && out[i] == s {
			i++
			continue
		}
		for j < len(in) && in[j] < s {
			res = append(res, in[j])
			j++
		}
		res = append(res, s)
	}
	res = append(res, in[j:]...)
	return nilIfEmpty(res)
}

// distinct returns a sorted list without its repeats (the list itself
// when it has none).
func distinct(sorted []string) []string {
	for i := 1; i < len(sorted); i++ {
		if sorted[i] == sorted[i-1] {
			return nilIfEmpty(slices.Compact(slices.Clone(sorted)))
		}
	}
	return sorted
}

func nilIfEmpty(s []string) []string {
	if len(s) == 0 {
		return nil
	}
	return s
}

// detachStrings gives each string a copy of its bytes, all in one
// allocation. orgast's strings view the file's bytes; a string that
// outlives its file version (a key in the global indexes, an ID carried
// on to the next version) would keep those bytes — megabytes for a large
// file — alive for as long as it lives.
func detachStrings(ps []*string) {
	n := 0
	for _, p := range ps {
		n += len(*p)
	}
	var b strings.Builder
	b.Grow(n)
	for _, p := range ps {
		b.WriteString(*p)
	}
	all := b.String()
	at := 0
	for _, p := range ps {
		l := len(*p)
		*p = all[at : at+l]
		at += l
	}
}
