package lsp

import (
	"bytes"
	"context"
	"maps"
	"slices"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/memory"
	"pp-lsp/memory/orgfeat"
	"pp-lsp/orgast"
)

// An ID is renamed everywhere at once: the :ID: property of every node
// carrying it and the path of every id link to it, across the memex (and
// the open buffers outside it), in one WorkspaceEdit whose open documents
// carry their versions, so that an editor refuses it rather than apply it
// to text that moved on.

// idAt finds the ID under the cursor: an :ID: property's value, or the
// path of an id link.
func idAt(f *orgFile, off int) (id string, r orgast.Range, ok bool) {
	if i := orgfeat.LinkAt(f.org, off); i >= 0 {
		l := &f.org.Links[i]
		if strings.EqualFold(l.Type, "id") {
			if r, ok := idLinkPath(f.org.Src, l); ok {
				return l.Path, r, true
			}
		}
		return "", orgast.Range{}, false
	}
	var props []orgast.Property
	if h := f.org.NodeAt(off); h >= 0 {
		props = f.org.Headlines[h].Properties()
	} else if f.org.FileDrawer != nil {
		props = f.org.FileDrawer.Properties
	}
	for _, p := range props {
		if strings.EqualFold(p.Key, "ID") && p.Value != "" && p.Range.Start <= off && off <= p.Range.End {
			return p.Value, p.ValueRange, true
		}
	}
	return "", orgast.Range{}, false
}

// idLinkPath is the span of an id link's ID in the text (not found when an
// abbreviation wrote the link).
func idLinkPath(src []byte, l *orgast.Link) (orgast.Range, bool) {
	text := src[l.Range.Start:l.Range.End]
	i := bytes.Index(bytes.ToLower(text), []byte("id:"+strings.ToLower(l.Path)))
	if i < 0 {
		return orgast.Range{}, false
	}
	start := l.Range.Start + i + len("id:")
	return orgast.Range{Start: start, End: start + len(l.Path)}, true
}

// prepareRenameResult is { range, placeholder }.
type prepareRenameResult struct {
	Range       protocol.Range `json:"range"`
	Placeholder string         `json:"placeholder"`
}

func (s *Server) prepareRename(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.PrepareRenameParams
	if err := decode(protocol.MethodTextDocumentPrepareRename, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off := offsetAt(f.org, p.Position)
	id, r, ok := idAt(f, off)
	if !ok {
		if h, tr, ok := orgfeat.TitleAt(f.org, off); ok && f.inMemex() {
			return prepareRenameResult{Range: rangeAt(f.org, tr), Placeholder: f.org.Headlines[h].Title}, nil
		}
		return nil, nil
	}
	return prepareRenameResult{Range: rangeAt(f.org, r), Placeholder: id}, nil
}

// rename renames the ID under the cursor to newName.
func (s *Server) rename(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.RenameParams
	if err := decode(protocol.MethodTextDocumentRename, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off := offsetAt(f.org, p.Position)
	old, _, ok := idAt(f, off)
	if !ok {
		if h, _, ok := orgfeat.TitleAt(f.org, off); ok && f.inMemex() {
			return v.renameTitle(f, h, p.NewName)
		}
		return nil, userErrorf("nothing to rename here: put the cursor on an :ID: property, an id: link or a headline's title")
	}
	name := p.NewName
	switch {
	case name == "" || strings.ContainsAny(name, " \t\r\n[]"):
		return nil, userErrorf("%q cannot be an ID: an ID is one word without brackets", name)
	case name == old:
		return nil, userErrorf("the ID is already %s", name)
	case v.snap != nil && v.snap.HasID(name):
		return nil, userErrorf("the ID %s is already carried by another node", name)
	}
	spans := v.idSpans(old)
	we := v.workspaceEdit(spans, name)
	return we, nil
}

// span is one place to rewrite.
type span struct {
	path string
	r    orgast.Range
}

// idSpans are the places that spell id: the :ID: values of its carriers
// and the paths of the id links to it.
func (v *view) idSpans(id string) []span {
	seen := map[span]bool{}
	var out []span
	add := func(sp span) {
		if !seen[sp] {
			seen[sp] = true
			out = append(out, sp)
		}
	}
	if v.snap != nil {
		for _, n := range v.snap.NodesByID(id) {
			if r, ok := idValue(n); ok {
				add(span{n.Path(), r})
			}
			for _, site := range v.snap.Backlinks(n) {
				l := site.Link()
				if strings.EqualFold(l.Type, "id") && l.Path == id {
					if r, ok := idLinkPath(site.From.Org().Src, l); ok {
						add(span{site.From.Path(), r})
					}
				}
			}
		}
	}
	for _, path := range slices.Sorted(maps.Keys(v.docs)) {
		d := v.docs[path]
		if d.memex {
			continue
		}
		org := d.loose.Org()
		for i := range org.Links {
			l := &org.Links[i]
			if strings.EqualFold(l.Type, "id") && l.Path == id {
				if r, ok := idLinkPath(org.Src, l); ok {
					add(span{path, r})
				}
			}
		}
	}
	return out
}

// idValue is the span of a node's :ID: value.
func idValue(n memory.Node) (orgast.Range, bool) {
	for _, p := range n.Properties() {
		if strings.EqualFold(p.Key, "ID") {
			return p.ValueRange, true
		}
	}
	return orgast.Range{}, false
}

// workspaceEdit replaces every span by text: one TextDocumentEdit per
// file, versioned when the file is open.
func (v *view) workspaceEdit(spans []span, text string) protocol.WorkspaceEdit {
	edits := make([]orgfeat.FileEdit, len(spans))
	for i, sp := range spans {
		edits[i] = orgfeat.FileEdit{Path: sp.path, TextEdit: memory.TextEdit{Start: sp.r.Start, End: sp.r.End, Text: text}}
	}
	return v.fileEdits(edits)
}

// addEdits adds edits to one file to we, as a versioned TextDocumentEdit
// (documentChanges) or, for a client without them, as plain changes.
func (v *view) addEdits(we protocol.WorkspaceEdit, f *orgFile, edits []protocol.TextEdit) protocol.WorkspaceEdit {
	if !v.client.documentChanges {
		if we.Changes == nil {
			we.Changes = map[uri.URI][]protocol.TextEdit{}
		}
		we.Changes[f.uri] = append(we.Changes[f.uri], edits...)
		return we
	}
	doc := protocol.OptionalVersionedTextDocumentIdentifier{TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: f.uri}}
	if f.doc != nil {
		doc.Version = new(f.doc.version)
	}
	elems := make([]protocol.TextDocumentEditElement, len(edits))
	for i := range edits {
		elems[i] = &edits[i]
	}
	we.DocumentChanges = append(we.DocumentChanges, &protocol.TextDocumentEdit{TextDocument: doc, Edits: elems})
	return we
}

// renameTitle retitles headline h of f and rewrites the links that find
// it by its title: [[*Title]] in its file, [[file:x.org::*Title]]
// everywhere (orgfeat.RenameTitleEdits).
func (v *view) renameTitle(f *orgFile, h int, title string) (any, error) {
	switch {
	case strings.TrimSpace(title) == "" || strings.ContainsAny(title, "\r\n"):
		return nil, userErrorf("%q cannot be a headline's title: a title is one line of text", title)
	case strings.ContainsAny(title, "[]"):
		return nil, userErrorf("%q cannot be a title the links keep finding: a link's search cannot hold brackets", title)
	}
	n, ok := v.snap.NodeAtOffset(f.path, f.org.Headlines[h].Line.Start)
	if !ok {
		return nil, userErrorf("%s is not a file of the memex", f.path)
	}
	return v.fileEdits(orgfeat.RenameTitleEdits(v.scope(), n, strings.TrimSpace(title))), nil
}
