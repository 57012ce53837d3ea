package lsp

import (
	"bytes"
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
// line), every property drawer, and every block (#+begin_… #+end_…).
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

func folds(org *orgast.File) []foldingRange {
	out := []foldingRange{}
	add := func(start, end int, kind string) {
		a, b := org.Lines.Line(start), lastLine(org, start, end)
		if b > a {
			out = append(out, foldingRange{StartLine: a, EndLine: b, Kind: kind})
		}
	}
	if org.FileDrawer != nil {
		add(org.FileDrawer.Range.Start, org.FileDrawer.Range.End, "region")
	}
	for i := range org.Headlines {
		h := &org.Headlines[i]
		add(h.Line.Start, subtreeEnd(org, h), "")
		if h.Drawer != nil {
			add(h.Drawer.Range.Start, h.Drawer.Range.End, "region")
		}
	}
	for _, b := range blocks(org) {
		add(b.Start, b.End, "region")
	}
	return out
}

// blocks finds the #+begin_NAME … #+end_NAME blocks, line by line, within
// each section (a headline line always ends a block, as Org reads it).
//
// orgast reads blocks but does not expose them yet; this line scan is the
// stopgap for folding only, and never decides what a link or a node is.
func blocks(org *orgast.File) []orgast.Range {
	var out []orgast.Range
	var open []byte
	start := -1
	for line := range org.Lines.LineCount() {
		r := org.Lines.LineRange(line)
		text := org.Src[r.Start:r.End]
		if len(text) > 1 && text[0] == '*' && bytes.IndexAny(bytes.TrimLeft(text, "*"), " \t") == 0 {
			open, start = nil, -1
			continue
		}
		t := bytes.ToLower(bytes.TrimLeft(text, " \t"))
		switch {
		case open == nil && bytes.HasPrefix(t, []byte("#+begin_")):
			name := t[len("#+begin_"):]
			if i := bytes.IndexAny(name, " \t"); i >= 0 {
				name = name[:i]
			}
			if len(name) > 0 {
				open, start = bytes.Clone(name), r.Start
			}
		case open != nil && bytes.HasPrefix(t, []byte("#+end_")):
			name := bytes.TrimRight(t[len("#+end_"):], " \t")
			if bytes.Equal(name, open) {
				out = append(out, orgast.Range{Start: start, End: r.End})
				open, start = nil, -1
			}
		}
	}
	return out
}
