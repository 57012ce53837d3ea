package lsp

import (
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/orgast"
	"pp-lsp/server/workspace"
)

// annotationID names the one change annotation an Edit carries.
const annotationID protocol.ChangeAnnotationIdentifier = "passepartout"

// workspaceEdit renders e as the LSP message workspace/applyEdit sends:
// one TextDocumentEdit, versioned when the file is open (null otherwise:
// the disk's content is the truth) whose edits are AnnotatedTextEdits pointing at one
// change annotation with e's label, description and needsConfirmation.
// Positions are UTF-16 columns, counted the way orgast counts them for the
// editor that decoded the buffer.
func workspaceEdit(e workspace.Edit) (protocol.WorkspaceEdit, error) {
	cs, err := e.Sorted()
	if err != nil {
		return protocol.WorkspaceEdit{}, err
	}
	lines := orgast.Parse(e.Base).Lines
	pos := func(off int) protocol.Position {
		l, _, c := lines.Position(off)
		return protocol.Position{Line: uint32(l), Character: uint32(c)}
	}
	edits := make([]protocol.TextDocumentEditElement, 0, len(cs))
	for _, c := range cs {
		edits = append(edits, &protocol.AnnotatedTextEdit{
			TextEdit: protocol.TextEdit{
				Range:   protocol.Range{Start: pos(c.Start), End: pos(c.End)},
				NewText: c.NewText,
			},
			AnnotationID: annotationID,
		})
	}
	doc := protocol.OptionalVersionedTextDocumentIdentifier{
		TextDocumentIdentifier: protocol.TextDocumentIdentifier{URI: uri.File(e.Path)},
	}
	if e.Open {
		v := e.Version
		doc.Version = &v
	}
	confirm := e.NeedsConfirmation
	ann := protocol.ChangeAnnotation{Label: e.Label, NeedsConfirmation: &confirm}
	if e.Description != "" {
		d := e.Description
		ann.Description = &d
	}
	if ann.Label == "" {
		ann.Label = "Passepartout"
	}
	return protocol.WorkspaceEdit{
		DocumentChanges:   []protocol.DocumentChange{&protocol.TextDocumentEdit{TextDocument: doc, Edits: edits}},
		ChangeAnnotations: map[protocol.ChangeAnnotationIdentifier]protocol.ChangeAnnotation{annotationID: ann},
	}, nil
}
