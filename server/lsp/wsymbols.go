package lsp

import (
	"context"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
)

// workspaceSymbol searches every node of the memex, headlines and files
// (orgfeat.SymbolIndex.Search): an exact title first, then an exact
// alias, then fuzzy matches of the title, an alias or the file's title;
// flightplans.org and journal.org are never offered.
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
		si := symbolInformation{Name: h.Name, Kind: protocol.SymbolKindFile, Location: protocol.Location{URI: v.uriOf(h.Path)}, ContainerName: h.Container}
		if h.Headline >= 0 {
			hd := &h.Org.Headlines[h.Headline]
			si.Kind, si.Location.Range = symbolKind(hd), rangeAt(h.Org, hd.Line)
		}
		if h.Alias != "" {
			si.Name, si.ContainerName = h.Alias, "alias of "+h.Name+" · "+h.Container
		}
		out = append(out, si)
	}
	return out, nil
}
