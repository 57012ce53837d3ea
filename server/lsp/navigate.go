package lsp

import (
	"context"
	"os"
	"path/filepath"
	"sort"
	"strconv"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// linkAt returns the index of the link whose text holds off, or -1. Links
// come in document order and never overlap.
func linkAt(org *orgast.File, off int) int {
	ls := org.Links
	i := sort.Search(len(ls), func(i int) bool { return ls[i].Range.End > off })
	if i < len(ls) && ls[i].Range.Start <= off {
		return i
	}
	// The cursor just after a link's last character still means the link.
	if i > 0 && ls[i-1].Range.End == off {
		return i - 1
	}
	return -1
}

// target is where a link leads.
type target struct {
	// node is the node the link lands in (Valid when it lands in the memex).
	node memory.Node
	// path and line place the target when it is not a whole node (a line
	// search, a <<target>>, a file outside the memex): line -1 means the
	// node's own place.
	path string
	off  int
	// status and reason tell a broken link.
	status memory.LinkStatus
	reason string
}

// resolve follows link i of f as Org would.
func (v *view) resolve(f *orgFile, i int) target {
	l := &f.org.Links[i]
	if f.inMemex() {
		r := v.snap.ResolveLink(f.path, i)
		t := target{node: r.Target, path: r.Path, off: -1, status: r.Status, reason: r.Reason}
		if r.Status != memory.LinkResolved {
			return t
		}
		if t.path == "" && t.node.Valid() {
			t.path = t.node.Path()
		}
		v.refine(&t, l)
		return t
	}
	return v.resolveLoose(f, l)
}

// refine points a resolved target at the exact place a link names within
// its node: the <<target>> or #+NAME: of a fuzzy link, the line of a
// "::NNN" search.
func (v *view) refine(t *target, l *orgast.Link) {
	tf, err := v.fileAt(t.path, "")
	if err != nil {
		return
	}
	switch {
	case strings.EqualFold(l.Type, "fuzzy"):
		for _, tg := range tf.org.Targets {
			if strings.EqualFold(tg.Name, l.Path) {
				t.off = tg.Range.Start
				return
			}
		}
		// A named element in the node the link landed in: its #+NAME:
		// line, where org-link-search leaves point.
		words := strings.Join(strings.Fields(l.Path), " ")
		for _, n := range tf.org.Names {
			if key, ok := memory.SearchName(tf.org.Src, n); ok && key == words && n.Node == t.node.Headline() {
				t.off = tf.org.Lines.LineRange(tf.org.Lines.Line(n.NameRange.Start)).Start
				return
			}
		}
	case strings.HasPrefix(l.Type, "file") && l.HasSearch:
		if n, err := strconv.Atoi(strings.TrimSpace(l.Search)); err == nil && n > 0 {
			t.off = tf.org.Lines.LineRange(n - 1).Start
		}
	}
}

// resolveLoose follows a link of a buffer outside the memex: id links
// through the memex, links within the buffer through its own outline,
// file links to the file.
func (v *view) resolveLoose(f *orgFile, l *orgast.Link) target {
	broken := target{status: memory.LinkBroken, off: -1}
	switch strings.ToLower(l.Type) {
	case "id":
		if v.snap != nil {
			if n, ok := v.snap.NodeByID(l.Path); ok {
				return target{node: n, path: n.Path(), off: -1, status: memory.LinkResolved}
			}
		}
		broken.reason = "no node in the memex carries the ID " + l.Path
		return broken
	case "custom-id":
		if h := f.org.CustomID(l.Path); h >= 0 {
			return target{path: f.path, off: f.org.Headlines[h].Line.Start, status: memory.LinkResolved}
		}
	case "fuzzy":
		title := strings.TrimPrefix(l.Path, "*")
		for _, tg := range f.org.Targets {
			if !strings.HasPrefix(l.Path, "*") && strings.EqualFold(tg.Name, l.Path) {
				return target{path: f.path, off: tg.Range.Start, status: memory.LinkResolved}
			}
		}
		for i := range f.org.Headlines {
			if f.org.Headlines[i].Title == title {
				return target{path: f.path, off: f.org.Headlines[i].Line.Start, status: memory.LinkResolved}
			}
		}
	case "file", "file+sys", "file+emacs":
		p := l.Path
		if !filepath.IsAbs(p) {
			p = filepath.Join(filepath.Dir(f.path), p)
		}
		if _, err := os.Stat(p); err == nil {
			return target{path: filepath.Clean(p), off: 0, status: memory.LinkResolved}
		}
		broken.reason = "the file " + l.Path + " does not exist"
		return broken
	default:
		return target{status: memory.LinkExternal, off: -1}
	}
	broken.reason = "nothing in this file matches the link [[" + l.Raw + "]]"
	return broken
}

// location is where an editor jumps for t.
func (v *view) targetLocation(t target) (protocol.Location, bool) {
	if t.status != memory.LinkResolved {
		return protocol.Location{}, false
	}
	if t.off < 0 && t.node.Valid() {
		return v.nodeLocation(t.node), true
	}
	tf, err := v.fileAt(t.path, "")
	if err != nil { // a file outside the memex (a PDF, a script): its start
		if t.path == "" {
			return protocol.Location{}, false
		}
		return protocol.Location{URI: uri.File(t.path)}, true
	}
	off := max(t.off, 0)
	p := positionAt(tf.org, off)
	return protocol.Location{URI: tf.uri, Range: protocol.Range{Start: p, End: p}}, true
}

// nodeLocation is a node's headline line (the start of the file for a
// file node).
func (v *view) nodeLocation(n memory.Node) protocol.Location {
	org := n.Org()
	u := v.uriOf(n.Path())
	if i := n.Headline(); i >= 0 {
		return protocol.Location{URI: u, Range: rangeAt(org, org.Headlines[i].Line)}
	}
	return protocol.Location{URI: u}
}

// definition jumps to the target of the link under the cursor: an id
// link's node, a file link's file (at its "::*heading", "::#custom-id" or
// "::NNN" search), a [[*Heading]], [[#custom-id]], [[target]] or
// [[name]] of a #+NAME: in the same file.
func (s *Server) definition(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.DefinitionParams
	if err := decode(protocol.MethodTextDocumentDefinition, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	i := linkAt(f.org, offsetAt(f.org, p.Position))
	if i < 0 {
		return nil, nil
	}
	loc, ok := v.targetLocation(v.resolve(f, i))
	if !ok {
		return nil, nil
	}
	return []protocol.Location{loc}, nil
}

// nodeAt is the node a request is about: the target of the link under the
// cursor, else the innermost node holding the cursor (the file node before
// the first headline: a file's own ID lives in its drawer there).
func (v *view) nodeAt(f *orgFile, off int) (memory.Node, bool) {
	if !f.inMemex() {
		return memory.Node{}, false
	}
	if i := linkAt(f.org, off); i >= 0 {
		if t := v.resolve(f, i); t.node.Valid() {
			return t.node, true
		}
	}
	return v.snap.NodeAtOffset(f.path, off)
}

// references lists the backlinks of the node at the cursor (or of the
// link's target): every link in the memex that lands on it.
func (s *Server) references(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.ReferenceParams
	if err := decode(protocol.MethodTextDocumentReferences, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	n, ok := v.nodeAt(f, offsetAt(f.org, p.Position))
	if !ok {
		return []protocol.Location{}, nil
	}
	out := []protocol.Location{}
	if p.Context.IncludeDeclaration {
		out = append(out, v.nodeLocation(n))
	}
	for _, site := range v.snap.Backlinks(n) {
		org := site.From.Org()
		out = append(out, protocol.Location{URI: v.uriOf(site.From.Path()), Range: rangeAt(org, site.Link().Range)})
	}
	return out, nil
}
