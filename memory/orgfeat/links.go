package orgfeat

import (
	"sort"
	"strconv"
	"strings"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// LinkAt returns the index in org.Links of the link whose text holds off,
// or -1. The cursor just after a link's last character still means the
// link.
func LinkAt(org *orgast.File, off int) int {
	ls := org.Links // in document order, never overlapping
	i := sort.Search(len(ls), func(i int) bool { return ls[i].Range.End > off })
	if i < len(ls) && ls[i].Range.Start <= off {
		return i
	}
	if i > 0 && ls[i-1].Range.End == off {
		return i - 1
	}
	return -1
}

// Target is where a link leads.
type Target struct {
	// Status says whether it leads anywhere; Reason, when it is broken,
	// says why in one sentence.
	Status memory.LinkStatus
	Reason string
	// Node is the node the link lands in: in the memex, or in the buffer
	// outside it that holds the link (Valid then).
	Node memory.Node
	// Path is the file it leads to ("" for a link Org opens elsewhere).
	Path string
	// Offset is the exact place the link names within its node — a
	// <<target>>, a #+NAME: line, the line of a "::NNN" search — as a byte
	// offset into File's outline; -1 means Node's own place (or the start
	// of Path when there is no node).
	Offset int
	// File is the file Offset counts in (Valid when Offset >= 0 and the
	// file is one the Scope reads).
	File memory.Node
}

// Resolve follows link i of file (a file node of the Scope) as Org would:
// the memex's rules (memory.Snapshot.ResolveLinkIn) for a file of the
// memex and a buffer outside it alike, then the exact place within the
// node it lands in.
func Resolve(sc Scope, file memory.Node, i int) Target {
	org := file.Org()
	if i < 0 || i >= len(org.Links) {
		return Target{Status: memory.LinkBroken, Offset: -1, Reason: "there is no link here"}
	}
	r := sc.Memex.ResolveLinkIn(file, i)
	t := Target{Status: r.Status, Reason: r.Reason, Node: r.Target, Path: r.Path, Offset: -1}
	if n, ok, why := sc.resolveNoted(&org.Links[i]); why != "" || ok {
		if !ok {
			return Target{Status: memory.LinkBroken, Offset: -1, Reason: why}
		}
		return Target{Status: memory.LinkResolved, Node: n, Path: n.Path(), Offset: -1}
	}
	if r.Status != memory.LinkResolved {
		return t
	}
	if t.Path == "" && t.Node.Valid() {
		t.Path = t.Node.Path()
	}
	refine(sc, &t, &org.Links[i])
	return t
}

// refine points a resolved target at the exact place a link names within
// its node: the <<target>> or #+NAME: of a fuzzy link, the line of a
// "::NNN" search.
func refine(sc Scope, t *Target, l *orgast.Link) {
	tf := t.Node.File()
	if !t.Node.Valid() {
		var ok bool
		if tf, ok = sc.File(t.Path); !ok {
			return
		}
	}
	org := tf.Org()
	switch {
	case strings.EqualFold(l.Type, "fuzzy"):
		for _, tg := range org.Targets {
			if strings.EqualFold(tg.Name, l.Path) {
				t.Offset, t.File = tg.Range.Start, tf
				return
			}
		}
		// A named element in the node the link landed in: its #+NAME:
		// line, where org-link-search leaves point.
		words := strings.Join(strings.Fields(l.Path), " ")
		for _, n := range org.Names {
			if key, ok := memory.SearchName(org.Src, n); ok && key == words && n.Node == t.Node.Headline() {
				t.Offset, t.File = org.Lines.LineRange(org.Lines.Line(n.NameRange.Start)).Start, tf
				return
			}
		}
	case strings.HasPrefix(l.Type, "file") && l.HasSearch:
		if n, err := strconv.Atoi(strings.TrimSpace(l.Search)); err == nil && n > 0 { // past the last line: its end, as org-goto-line
			t.Offset, t.File = org.Lines.LineRange(n-1).Start, tf
		}
	}
}

// NodeAt is the node a request at off is about: the target of the link
// under the cursor, else the innermost node holding the cursor (the file
// node before the first headline: a file's own ID lives in its drawer
// there). A buffer outside the memex has none: its nodes are nobody's
// neighbours and nobody's targets.
func NodeAt(sc Scope, file memory.Node, off int) (memory.Node, bool) {
	if sc.Memex == nil || file.Loose() {
		return memory.Node{}, false
	}
	if i := LinkAt(file.Org(), off); i >= 0 {
		if t := Resolve(sc, file, i); t.Node.Valid() {
			return t.Node, true
		}
	}
	return sc.Memex.NodeAtOffset(file.Path(), off)
}

// resolveNoted resolves a link that names a node by title ([[roam:…]]) or
// by ref ([[cite:…]], a URL): ok with the node it lands on; else why it
// is broken ("" when the link is no such link, or a URL no node has as a
// ref — a URL then leads where it says).
func (sc Scope) resolveNoted(l *orgast.Link) (memory.Node, bool, string) {
	if sc.Notes == nil || sc.Memex == nil {
		return memory.Node{}, false, ""
	}
	if title, ok := RoamTitle(l.Type, l.Path); ok {
		if ns := sc.Notes.ByName(sc.Memex, title); len(ns) > 0 {
			return ns[0], true, ""
		}
		return memory.Node{}, false, "no node in the memex has the title or alias " + title
	}
	if ref, ok := LinkRef(l.Type, l.Path); ok {
		if ns := sc.Notes.ByRef(sc.Memex, ref); len(ns) > 0 {
			return ns[0], true, ""
		}
		if ref.Type == "cite" {
			return memory.Node{}, false, "no node in the memex has the ref cite:" + ref.Path
		}
	}
	return memory.Node{}, false, ""
}
