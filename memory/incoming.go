package memory

import (
	"maps"
	"slices"
)

// Incoming is one link that lands in a file: the link, and the node of
// that file it lands on.
type Incoming struct {
	Site   LinkSite
	Target Node
}

// IncomingLinks returns every link in the memex that lands in file's file
// — what Backlinks returns for each of its nodes, all at once: id links
// to the IDs its nodes carry, file links to it, and its own internal
// links — in file order, then document order. One pass over the linking
// files, where asking Backlinks of each node would read them once per
// node (a code lens on every headline of a large file).
func (s *Snapshot) IncomingLinks(file Node) []Incoming {
	if !file.Valid() {
		return nil
	}
	f := file.f
	var out []Incoming
	// id links: a link to an ID lands on every node of this file
	// carrying it (as Backlinks of each carrier lists it).
	carriers := map[string][]int32{}
	for _, c := range f.ids {
		carriers[c.id] = append(carriers[c.id], c.node)
	}
	linking := map[string]bool{}
	for id := range carriers {
		paths, _ := s.idLinks.get(id)
		for _, p := range paths {
			linking[p] = true
		}
	}
	if paths, ok := s.fileLinks.get(f.path); ok {
		for _, p := range paths {
			linking[p] = true
		}
	}
	for _, p := range slices.Sorted(maps.Keys(linking)) {
		var from *fileIndex
		if p == f.path {
			from = f
		} else if e, ok := s.files.get(p); ok {
			from = e.idx
		} else {
			continue
		}
		for i := range from.links {
			site := LinkSite{From: Node{from, int32(from.org.Links[i].Node + 1)}, Index: i}
			switch li := &from.links[i]; li.kind {
			case linkID:
				for _, n := range carriers[from.org.Links[i].Path] {
					out = append(out, Incoming{Site: site, Target: Node{f, n}})
				}
			case linkFile:
				if li.target != f.path || from == f {
					continue
				}
				if r := s.resolveFileLink(from, i); r.Status == LinkResolved && r.Target.Valid() && r.Target.f == f {
					out = append(out, Incoming{Site: site, Target: r.Target})
				}
			}
		}
	}
	internal := f.internalLinks()
	for i := range f.links {
		li, in := &f.links[i], internal[i]
		if !in.ok || !(li.kind == linkInternal || li.kind == linkFile && li.target == f.path) {
			continue
		}
		out = append(out, Incoming{Site: LinkSite{From: Node{f, int32(f.org.Links[i].Node + 1)}, Index: i}, Target: Node{f, max(in.node, 0)}})
	}
	slices.SortStableFunc(out, func(a, b Incoming) int {
		if c := fileLess(a.Site.From.f, b.Site.From.f); c != 0 {
			return c
		}
		return a.Site.Index - b.Site.Index
	})
	return slices.CompactFunc(out, func(a, b Incoming) bool {
		return a.Site.From.f == b.Site.From.f && a.Site.Index == b.Site.Index && a.Target.i == b.Target.i
	})
}

// FileLinksTo returns every file link in the memex whose target is the
// file at path (absolute), resolved or not — what a rename of that file
// must rewrite — in file order, then document order. A file's links to
// itself are among them.
func (s *Snapshot) FileLinksTo(path string) []LinkSite {
	paths, _ := s.fileLinks.get(path)
	if _, ok := s.files.get(path); ok && !slices.Contains(paths, path) {
		paths = append(slices.Clone(paths), path)
	}
	return s.linkSites(paths, func(f *fileIndex, i int) bool {
		return f.links[i].kind == linkFile && f.links[i].target == path
	})
}
