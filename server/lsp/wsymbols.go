package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// workspaceSymbol searches every headline of the memex
// (orgfeat.SymbolIndex.Search): each word of the query must match,
// fuzzily, the headline's title or its file's title, and the best matches
// come first.
func (s *Server) workspaceSymbol(ctx context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.WorkspaceSymbolParams
	if err := decode(protocol.MethodWorkspaceSymbol, params, &p); err != nil {
		return nil, err
	}
	if v.snap == nil {
		return []symbolInformation{}, nil
	}
	hits := s.symbols.Search(ctx, v.snap, p.Query, v.settings.maxSymbols())
	out := make([]symbolInformation, 0, len(hits))
	for _, h := range hits {
		hd := &h.Org.Headlines[h.Headline]
		out = append(out, symbolInformation{
			Name: h.Name, Kind: symbolKind(hd),
			Location:      protocol.Location{URI: v.uriOf(h.Path), Range: rangeAt(h.Org, hd.Line)},
			ContainerName: h.Container,
		})
	}
	return out, nil
}
