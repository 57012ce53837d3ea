package memory

import (
	"iter"
	"path/filepath"
	"slices"
	"strconv"
	"strings"

	"pp-lsp/orgast"
)

// Files iterates over the file nodes, by root and then by path relative
// to the root.
func (s *Snapshot) Files() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		for _, p := range s.order {
			e, _ := s.files.get(p)
			if !yield(Node{e.idx, 0}) {
				return
			}
		}
	}
}

// FileCount is the number of files in the memex.
func (s *Snapshot) FileCount() int { return s.files.len() }

// Nodes iterates over every node of the memex: each file node followed by
// its headlines in document order, files in Files order.
func (s *Snapshot) Nodes() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		for _, p := range s.order {
			e, _ := s.files.get(p)
			for i := range e.idx.nodes {
				if !yield(Node{e.idx, int32(i)}) {
					return
				}
			}
		}
	}
}

// File returns the file node of the file at path (absolute).
func (s *Snapshot) File(path string) (Node, bool) {
	e, ok := s.entry(filepath.Clean(path))
	if !ok {
		return Node{}, false
	}
	return Node{e.idx, 0}, true
}

// BufferVersion returns the version of the editor buffer overlaying the
// file at path, and whether one does.
func (s *Snapshot) BufferVersion(path string) (int32, bool) {
	e, ok := s.entry(filepath.Clean(path))
	if !ok || e.buffer == nil {
		return 0, false
	}
	return e.buffer.version, true
}

// BufferText returns the text of the editor buffer overlaying the file at
// path (what the snapshot's nodes are read from, and what an edit through
// the editor changes), and whether one does. The caller must not change
// it.
func (s *Snapshot) BufferText(path string) ([]byte, bool) {
	e, ok := s.entry(filepath.Clean(path))
	if !ok || e.buffer == nil {
		return nil, false
	}
	return e.idx.org.Src, true
}

// NodeAt returns the innermost node holding the 0-based line of the file
// at path: a headline, or the file node before the first headline.
func (s *Snapshot) NodeAt(path string, line int) (Node, bool) {
	e, ok := s.entry(filepath.Clean(path))
	if !ok {
		return Node{}, false
	}
	off := e.idx.org.Lines.LineRange(max(line, 0)).Start
	return Node{e.idx, int32(e.idx.org.NodeAt(off) + 1)}, true
}

// NodeAtOffset is NodeAt for a byte offset.
func (s *Snapshot) NodeAtOffset(path string, off int) (Node, bool) {
	e, ok := s.entry(filepath.Clean(path))
	if !ok {
		return Node{}, false
	}
	return Node{e.idx, int32(e.idx.org.NodeAt(off) + 1)}, true
}

// NodesByID returns every node carrying id, by file order, then document
// order. More than one is a duplicate ID.
func (s *Snapshot) NodesByID(id string) []Node {
	paths, ok := s.ids.get(id)
	if !ok {
		return nil
	}
	var out []Node
	for k, p := range paths {
		if k > 0 && paths[k-1] == p {
			continue
		}
		e, ok := s.files.get(p)
		if !ok {
			continue
		}
		for _, i := range e.idx.carriersOf(id) {
			out = append(out, Node{e.idx, i})
		}
	}
	slices.SortStableFunc(out, func(a, b Node) int {
		if c := fileLess(a.f, b.f); c != 0 {
			return c
		}
		return int(a.i - b.i)
	})
	return out
}

// NodeByID returns the node carrying id (the first, when duplicated).
func (s *Snapshot) NodeByID(id string) (Node, bool) {
	ns := s.NodesByID(id)
	if len(ns) == 0 {
		return Node{}, false
	}
	return ns[0], true
}

// HasID reports whether some node carries id.
func (s *Snapshot) HasID(id string) bool {
	_, ok := s.ids.get(id)
	return ok
}

// FileOfID returns the absolute path of the file holding the node whose
// :ID: is id. With NodeByID and PrivateTexts it makes *Snapshot the gates'
// view of the memex. A private node is no node a model may name: none is
// found (a memory_edit of one is judged as of an ID no node has, so that
// its verdict tells nobody the node exists, and nothing is changed in a
// note its proposer cannot see without a human's approval).
func (s *Snapshot) FileOfID(id string) (string, bool) {
	n, ok := s.NodeByID(id)
	if !ok || n.Private() {
		return "", false
	}
	return n.f.path, true
}

// NodeByKey finds a node by its Key: an :ID:, or a synthetic key.
func (s *Snapshot) NodeByKey(key string) (Node, bool) {
	if !strings.HasPrefix(key, "file:") {
		return s.NodeByID(key)
	}
	rest := key[len("file:"):]
	if e, ok := s.entry(rest); ok {
		return Node{e.idx, 0}, true
	}
	for at := 0; ; {
		k := strings.Index(rest[at:], "::")
		if k < 0 {
			break
		}
		at += k
		if e, ok := s.entry(rest[:at]); ok {
			if n, ok := e.idx.walkPath(rest[at+2:]); ok {
				return Node{e.idx, n}, true
			}
		}
		at += 2
	}
	if n, ok := s.NodeByID(key); ok {
		return n, true
	}
	return Node{}, false
}

// ordinalSuffix finds a trailing "[digits]" and returns where it starts
// and the number, or -1.
func ordinalSuffix(s string) (int, int) {
	if !strings.HasSuffix(s, "]") {
		return -1, 0
	}
	i := strings.LastIndexByte(s, '[')
	if i < 0 || i+2 > len(s)-1 {
		return -1, 0
	}
	n, err := strconv.Atoi(s[i+1 : len(s)-1])
	if err != nil || n < 0 || strings.ContainsAny(s[i+1:len(s)-1], "+-") {
		return -1, 0
	}
	return i, n
}

// walkPath follows a synthetic outline path ("*A/*B[2]") from the file node.
func (f *fileIndex) walkPath(p string) (int32, bool) {
	cur := int32(0)
	for _, seg := range splitUnescaped(p) {
		if !strings.HasPrefix(seg, "*") {
			return 0, false
		}
		seg = seg[1:]
		ord := 1
		if at, n := ordinalSuffix(seg); at >= 0 {
			if n < 1 {
				return 0, false
			}
			ord, seg = n, seg[:at]
		}
		found := int32(-1)
		for c := f.nodes[cur].firstChild; c >= 0; c = f.nodes[c].nextSibling {
			if f.title(c) == seg {
				ord--
				if ord == 0 {
					found = c
					break
				}
			}
		}
		if found < 0 {
			return 0, false
		}
		cur = found
	}
	return cur, true
}

// splitUnescaped splits at "/" not escaped by "\" and removes the escapes.
func splitUnescaped(p string) []string {
	var out []string
	var b strings.Builder
	for i := 0; i < len(p); i++ {
		switch c := p[i]; {
		case c == '\\' && i+1 < len(p):
			i++
			b.WriteByte(p[i])
		case c == '/':
			out = append(out, b.String())
			b.Reset()
		default:
			b.WriteByte(c)
		}
	}
	return append(out, b.String())
}

// LinkSite is one link in the memex: in the file of From, at index Index
// of From.Org().Links.
type LinkSite struct {
	// From is the node whose text holds the link.
	From  Node
	Index int
}

// Link returns the orgast link.
func (l LinkSite) Link() *orgast.Link { return &l.From.f.org.Links[l.Index] }

// IDLinks returns every id link in the memex whose target is id, whether
// or not a node carries it (a rename of the ID rewrites them all; a broken
// one is still a link), in file order, then document order.
func (s *Snapshot) IDLinks(id string) []LinkSite {
	paths, _ := s.idLinks.get(id)
	return s.linkSites(paths, func(f *fileIndex, i int) bool {
		return f.links[i].kind == linkID && f.org.Links[i].Path == id
	})
}

// linkSites returns the links of the files at paths for which match
// holds, in file order, then document order.
func (s *Snapshot) linkSites(paths []string, match func(f *fileIndex, i int) bool) []LinkSite {
	var out []LinkSite
	for _, p := range paths {
		e, ok := s.files.get(p)
		if !ok {
			continue
		}
		f := e.idx
		for i := range f.links {
			if match(f, i) {
				out = append(out, LinkSite{From: Node{f, int32(f.org.Links[i].Node + 1)}, Index: i})
			}
		}
	}
	slices.SortStableFunc(out, func(a, b LinkSite) int {
		if c := fileLess(a.From.f, b.From.f); c != 0 {
			return c
		}
		return a.Index - b.Index
	})
	return out
}

// Backlinks returns every link in the memex that lands on n: id links to
// its :ID: (also for a file's own ID), file links to its file (with a
// search that finds n, or none for the file node), and [[*heading]],
// [[#custom-id]] and fuzzy links within its file. Pass a node of this
// snapshot. Results are in file order, then document order.
func (s *Snapshot) Backlinks(n Node) []LinkSite {
	if !n.Valid() {
		return nil
	}
	var out []LinkSite
	seen := map[*fileIndex]bool{}
	scan := func(f *fileIndex, match func(i int) bool) {
		for i := range f.links {
			if match(i) {
				out = append(out, LinkSite{From: Node{f, int32(f.org.Links[i].Node + 1)}, Index: i})
			}
		}
	}
	if id := n.ID(); id != "" {
		out = append(out, s.IDLinks(id)...)
	}
	paths, _ := s.fileLinks.get(n.f.path)
	for _, p := range paths {
		e, ok := s.files.get(p)
		if !ok || seen[e.idx] {
			continue
		}
		seen[e.idx] = true
		f := e.idx
		scan(f, func(i int) bool {
			if f.links[i].kind != linkFile || f.links[i].target != n.f.path {
				return false
			}
			r := s.resolveFileLink(f, i)
			return r.Status == LinkResolved && r.Target.Valid() && r.Target.i == n.i
		})
	}
	own := n.f
	internal := own.internalLinks()
	scan(own, func(i int) bool {
		li := &own.links[i]
		in := internal[i]
		switch li.kind {
		case linkInternal:
			return in.ok && max(in.node, 0) == n.i
		case linkFile:
			return li.target == own.path && in.ok && max(in.node, 0) == n.i
		}
		return false
	})
	slices.SortStableFunc(out, func(a, b LinkSite) int {
		if c := fileLess(a.From.f, b.From.f); c != 0 {
			return c
		}
		return a.Index - b.Index
	})
	return slices.CompactFunc(out, func(a, b LinkSite) bool { return a.From.f == b.From.f && a.Index == b.Index })
}

// Findings returns every finding of the memex, by file order then
// position: duplicate IDs, broken links, and files left out.
func (s *Snapshot) Findings() []Finding {
	var out []Finding
	out = append(out, s.skipped...)
	for _, p := range s.order {
		out = append(out, s.FileFindings(p)...)
	}
	return out
}

// PrivateTexts returns the body of every node that carries one of tags,
// itself, by inheritance from an ancestor, or through #+FILETAGS: (its
// own, or its setup files': setup.go; a note the memex found private by
// its setup files stays private). It is what the gates' privacy check
// compares outgoing text against.
func (s *Snapshot) PrivateTexts(tags []string) []string {
	ps := newPrivacySet(tags, s.cfg.home)
	j := &setupJudge{home: s.cfg.home, tags: ps.tags}
	var out []string
	for _, p := range s.order {
		e, _ := s.files.get(p)
		f := e.idx
		priv := make([]bool, len(f.nodes))
		priv[0] = ps.any(allFileTags(f.org)) || f.setupPrivate || f.diskPrivate || f.usesSetup && j.privateBy(f.path, f.setupTargets)
		for i := 1; i < len(f.nodes); i++ {
			priv[i] = priv[f.nodes[i].parent] || ps.any(f.org.Headlines[i-1].Tags)
		}
		for i, isPriv := range priv {
			if !isPriv {
				continue
			}
			if b := strings.TrimSpace((Node{f, int32(i)}).Body()); b != "" {
				out = append(out, b)
			}
		}
	}
	return out
}
