package memory

import (
	"strings"
	"sync/atomic"
)

// fileStatus is what the rest of the memex answered, at one snapshot, to
// the questions a file version's findings ask of it: how many nodes carry
// each of its IDs, whether each of its id links finds a carrier, and
// where each of its links to another file lands. It is kept with the file
// version, and a later question — in a later snapshot, or about the next
// version of the file — asks again only what may have changed since: a
// key whose shard of the global indexes has another stamp (see pmap), a
// link or ID the edit added. Immutable once made.
type fileStatus struct {
	// ids and files are the stamps of the snapshot's ids and files maps:
	// the maps' own stamp arrays (immutable, shared by every status made
	// while a map was the same, 2 KiB each instead of 4 KiB per file
	// status), nil for an empty map (every stamp 0).
	ids, files *[pmapShards]uint64
	// carriers[k] counts the nodes in the memex carrying f.ids[k].id.
	carriers []int32
	// links[i] is link i's status: for an id link LinkResolved or
	// LinkBroken; for a file link to another file what resolving it
	// found, linkOnDisk when its target is not in the memex (the disk is
	// asked at every question, as nothing tells when it changes); zero
	// for other links.
	links []LinkStatus
}

// linkOnDisk marks a file link whose target is not a memex file.
const linkOnDisk LinkStatus = 255

// statusCell holds a file version's latest fileStatus.
type statusCell struct {
	p atomic.Pointer[fileStatus]
}

// copyRange says that items [at, at+n) of a file version are items
// [from, from+n) of the version before, unchanged.
type copyRange struct {
	at, from, n int
}

// statusSplice carries a version's fileStatus over to the next version
// reindex made: which carriers and links are the previous version's.
type statusSplice struct {
	prev     *fileStatus
	carriers [2]copyRange
	links    [2]copyRange
}

// statusOf returns what the rest of s says about f's IDs and links, from
// the status f (or, through f.derive, its previous version) last kept
// where the global indexes did not change since.
func (s *Snapshot) statusOf(f *fileIndex) *fileStatus {
	base := f.status.p.Load()
	if base != nil && s.sameStamps(base) {
		return base
	}
	var carriers, links []copyRange
	switch {
	case base != nil:
		carriers = []copyRange{{n: len(f.ids)}}
		links = []copyRange{{n: len(f.links)}}
	case f.derive != nil:
		base = f.derive.prev
		carriers, links = f.derive.carriers[:], f.derive.links[:]
	}
	st := s.computeStatus(f, base, carriers, links)
	f.status.p.Store(st)
	return st
}

func (s *Snapshot) sameStamps(st *fileStatus) bool {
	return sameStampArrays(st.ids, s.ids.stamps) && sameStampArrays(st.files, s.files.stamps)
}

// sameStampArrays tells whether two pmaps' stamp arrays (nil: all 0) hold
// the same stamps.
func sameStampArrays(a, b *[pmapShards]uint64) bool {
	if a == b {
		return true
	}
	for i := range pmapShards {
		if stampAt(a, i) != stampAt(b, i) {
			return false
		}
	}
	return true
}

// stampAt is stamp i of a pmap's stamp array (0 for nil: an empty map).
func stampAt(a *[pmapShards]uint64, i int) uint64 {
	if a == nil {
		return 0
	}
	return a[i]
}

// computeStatus makes f's status in s, copying from base the answers for
// the items the ranges map whose key's shard has the same stamp in s.
func (s *Snapshot) computeStatus(f *fileIndex, base *fileStatus, carriers, links []copyRange) *fileStatus {
	st := &fileStatus{ids: s.ids.stamps, files: s.files.stamps, carriers: make([]int32, len(f.ids)), links: make([]LinkStatus, len(f.links))}
	var idsSame, filesSame [pmapShards]bool
	if base != nil {
		for i := range pmapShards {
			idsSame[i] = stampAt(base.ids, i) == stampAt(st.ids, i)
			filesSame[i] = stampAt(base.files, i) == stampAt(st.files, i)
		}
	}
	done := make([]bool, len(f.ids))
	for _, r := range carriers {
		for k := range r.n {
			if c := &f.ids[r.at+k]; idsSame[c.shard] {
				st.carriers[r.at+k], done[r.at+k] = base.carriers[r.from+k], true
			}
		}
	}
	for k := range f.ids {
		if !done[k] {
			c := &f.ids[k]
			paths, _ := s.ids.getIn(c.shard, c.id)
			st.carriers[k] = int32(len(paths))
		}
	}
	done = make([]bool, len(f.links))
	for _, r := range links {
		for k := range r.n {
			li := &f.links[r.at+k]
			switch {
			case li.kind == linkID && idsSame[li.shard], li.kind == linkFile && filesSame[li.shard]:
				st.links[r.at+k], done[r.at+k] = base.links[r.from+k], true
			}
		}
	}
	for i := range f.links {
		if !done[i] {
			st.links[i] = s.linkStatus(f, i)
		}
	}
	return st
}

// linkStatus answers for link i of f what fileStatus keeps.
func (s *Snapshot) linkStatus(f *fileIndex, i int) LinkStatus {
	li := &f.links[i]
	switch {
	case li.kind == linkID:
		if _, ok := s.ids.getIn(li.shard, li.target); ok {
			return LinkResolved
		}
		return LinkBroken
	case li.kind != linkFile || li.target == f.path:
		return 0
	case isRemote(f.org.Links[i].Path):
		return LinkUnchecked
	}
	e, ok := s.files.getIn(li.shard, li.target)
	if !ok {
		return linkOnDisk
	}
	l := &f.org.Links[i]
	if !l.HasSearch || strings.TrimSpace(l.Search) == "" {
		return LinkResolved
	}
	if _, ok := e.idx.resolveSearch(l.Search, true); !ok {
		return LinkSearchBroken
	}
	return LinkResolved
}
