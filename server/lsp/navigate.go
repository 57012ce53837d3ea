package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"pp-lsp/memory"
	"pp-lsp/memory/orgfeat"
)

// targetLocation is where an editor jumps for t.
func (v *view) targetLocation(t orgfeat.Target) (protocol.Location, bool) {
	switch {
	case t.Status != memory.LinkResolved:
		return protocol.Location{}, false
	case t.Offset >= 0 && t.File.Valid():
		p := positionAt(t.File.Org(), t.Offset)
		return protocol.Location{URI: v.uriOf(t.File.Path()), Range: protocol.Range{Start: p, End: p}}, true
	case t.Node.Valid():
		return v.nodeLocation(t.Node), true
	case t.Path != "": // a file no one reads as Org (a PDF, a script): its start
		return protocol.Location{URI: v.uriOf(t.Path)}, true
	}
	return protocol.Location{}, false
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
// [[name]] of a #+NAME: in the same file (orgfeat.Resolve).
func (s *Server) definition(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.DefinitionParams
	if err := decode(protocol.MethodTextDocumentDefinition, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	i := orgfeat.LinkAt(f.org, offsetAt(f.org, p.Position))
	if i < 0 {
		return nil, nil
	}
	loc, ok := v.targetLocation(orgfeat.Resolve(v.scope(), f.fileNode(), i))
	if !ok {
		return nil, nil
	}
	return []protocol.Location{loc}, nil
}

// references lists the backlinks of the node at the cursor (or of the
// link's target, orgfeat.NodeAt): every link in the memex that lands on
// it.
func (s *Server) references(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.ReferenceParams
	if err := decode(protocol.MethodTextDocumentReferences, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	n, ok := orgfeat.NodeAt(v.scope(), f.fileNode(), offsetAt(f.org, p.Position))
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
