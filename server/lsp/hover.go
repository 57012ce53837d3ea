package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"pp-lsp/memory/orgfeat"
)

// hoverResult is an LSP Hover.
type hoverResult struct {
	Contents markup          `json:"contents"`
	Range    *protocol.Range `json:"range,omitempty"`
}

// markup is an LSP MarkupContent.
type markup struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// hover previews what the cursor is on: a Flight Plan's state and gate
// trace on a plan headline; otherwise what orgfeat.HoverAt says (a link's
// target, a headline or the file's title lines).
func (s *Server) hover(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.HoverParams
	if err := decode(protocol.MethodTextDocumentHover, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	md := v.client.markdown
	if v.agent != nil && v.agent.IsPlansFile(f.path) {
		if text, ok := v.agent.PlanHover(f.org.Src, int(p.Position.Line)); ok {
			return hoverResult{Contents: markup{Kind: "markdown", Value: text}}, nil
		}
	}
	h, ok := orgfeat.HoverAt(v.scope(), f.fileNode(), offsetAt(f.org, p.Position), md)
	if !ok {
		return nil, nil
	}
	out := hoverResult{Contents: markupOf(h.Text, md)}
	if h.HasRange {
		r := rangeAt(f.org, h.Range)
		out.Range = &r
	}
	return out, nil
}

func markupOf(text string, md bool) markup {
	if md {
		return markup{Kind: "markdown", Value: text}
	}
	return markup{Kind: "plaintext", Value: text}
}
