package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"pp-lsp/orgast"
)

// foldingRange is an LSP FoldingRange.
type foldingRange struct {
	StartLine int    `json:"startLine"`
	EndLine   int    `json:"endLine"`
	Kind      string `json:"kind,omitempty"`
}

// foldingRanges folds every subtree (from its headline line to its last
// line), every property drawer, and every block and drawer org-element
// reads (orgast's File.Blocks).
func (s *Server) foldingRanges(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.FoldingRangeParams
	if err := decode(protocol.MethodTextDocumentFoldingRange, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	return folds(f.org), nil
}

// folds lists the file drawer, then each subtree and its property drawer,
// then the blocks and drawers in document order. A block folds from its
// opening line (its #+NAME: and other affiliated keyword lines stay in
// view) to its closing line; an unclosed block is no block, as in Org, so
// it does not fold. Comment blocks fold as comments, the rest as regions.
func folds(org *orgast.File) []foldingRange {
	out := []foldingRange{}
	add := func(start, end int, kind string) {
		a, b := org.Lines.Line(start), lastLine(org, start, end)
		if b > a {
			out = append(out, foldingRange{StartLine: a, EndLine: b, Kind: kind})
		}
	}
	if org.FileDrawer != nil {
		add(org.FileDrawer.Range.Start, org.FileDrawer.Range.End, string(protocol.FoldingRangeKindRegion))
	}
	for i := range org.Headlines {
		h := &org.Headlines[i]
		add(h.Line.Start, subtreeEnd(org, h), "")
		if h.Drawer != nil {
			add(h.Drawer.Range.Start, h.Drawer.Range.End, string(protocol.FoldingRangeKindRegion))
		}
	}
	for _, b := range org.Blocks {
		kind := protocol.FoldingRangeKindRegion
		if b.Type == "comment-block" {
			kind = protocol.FoldingRangeKindComment
		}
		add(b.Line.Start, b.Range.End, string(kind))
	}
	return out
}
