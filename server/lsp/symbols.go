package lsp

import (
	"context"
	"strconv"
	"sync"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"pp-lsp/memory/orgfeat"
	"pp-lsp/orgast"
)

// documentSymbolResult is an LSP DocumentSymbol.
type documentSymbolResult struct {
	Name           string                 `json:"name"`
	Detail         string                 `json:"detail,omitempty"`
	Kind           protocol.SymbolKind    `json:"kind"`
	Range          protocol.Range         `json:"range"`
	SelectionRange protocol.Range         `json:"selectionRange"`
	Children       []documentSymbolResult `json:"children,omitempty"`
}

// symbolInformation is an LSP SymbolInformation (the flat form, for
// workspace/symbol and for clients without hierarchical outlines).
type symbolInformation struct {
	Name          string              `json:"name"`
	Kind          protocol.SymbolKind `json:"kind"`
	Location      protocol.Location   `json:"location"`
	ContainerName string              `json:"containerName,omitempty"`
}

// symbolKind is the kind an outline shows for a headline: a task (it has
// a TODO keyword) is an event, any other headline a namespace.
func symbolKind(h *orgast.Headline) protocol.SymbolKind {
	if h.Todo != "" {
		return protocol.SymbolKindEvent
	}
	return protocol.SymbolKindNamespace
}

// documentSymbol answers the outline of a file: every headline, nested as
// the outline nests them, with the TODO keyword, priority and tags as the
// detail.
func (s *Server) documentSymbol(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.DocumentSymbolParams
	if err := decode(protocol.MethodTextDocumentDocumentSymbol, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	if !v.client.hierarchicalSymbols {
		return flatSymbols(f), nil
	}
	return jsonrpc2.RawMessage(s.outlines.get(f.path, f.org)), nil
}

// outlineCache keeps the outline JSON of each file's latest outline: an
// editor asks for it again and again between edits (breadcrumbs, imenu),
// and an outline never changes. An entry is replaced by a newer outline
// and dropped when its buffer changes (forgetOld), so no old text stays.
type outlineCache struct {
	mu sync.Mutex
	m  map[string]outlineEntry
}

// maxOutlines bounds the outlines kept.
const maxOutlines = 16

type outlineEntry struct {
	org  *orgast.File
	json []byte
}

// get returns the outline JSON of org, the outline of path. The bytes
// are shared: never changed.
func (c *outlineCache) get(path string, org *orgast.File) []byte {
	c.mu.Lock()
	if e, ok := c.m[path]; ok && e.org == org {
		c.mu.Unlock()
		return e.json
	}
	c.mu.Unlock()
	out := appendOutline(nil, org)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.m == nil || len(c.m) >= maxOutlines {
		c.m = map[string]outlineEntry{} // a few files at a time: the ones being edited
	}
	c.m[path] = outlineEntry{org: org, json: out}
	return out
}

// forget drops path's entry.
func (c *outlineCache) forget(path string) {
	c.mu.Lock()
	defer c.mu.Unlock()
	delete(c.m, path)
}

// appendOutline appends the DocumentSymbol tree of an Org file as JSON.
// It is outline's answer written straight out: a file of 50,000
// headlines answers in a few milliseconds, where encoding the structs by
// reflection takes several times longer.
func appendOutline(dst []byte, org *orgast.File) []byte {
	hs := org.Headlines
	// next[i] is the next sibling of headline i, first[i] its first child.
	first := make([]int32, len(hs))
	next := make([]int32, len(hs))
	last := make([]int32, len(hs))
	for i := range first {
		first[i], next[i], last[i] = -1, -1, -1
	}
	root, rootLast := int32(-1), int32(-1)
	for i := range hs {
		i32 := int32(i)
		if p := hs[i].Parent; p >= 0 {
			if last[p] < 0 {
				first[p] = i32
			} else {
				next[last[p]] = i32
			}
			last[p] = i32
		} else {
			if rootLast < 0 {
				root = i32
			} else {
				next[rootLast] = i32
			}
			rootLast = i32
		}
	}
	if dst == nil {
		dst = make([]byte, 0, 160*len(hs)+2)
	}
	var walk func(dst []byte, i int32) []byte
	walk = func(dst []byte, i int32) []byte {
		dst = append(dst, '[')
		for ; i >= 0; i = next[i] {
			h := &hs[i]
			if dst[len(dst)-1] != '[' {
				dst = append(dst, ',')
			}
			sel := h.TitleRange
			if sel.Len() == 0 {
				sel = h.Line
			}
			dst = append(dst, `{"name":`...)
			dst = appendJSONString(dst, orgfeat.HeadlineName(h))
			if d := orgfeat.HeadlineDetail(h); d != "" {
				dst = append(dst, `,"detail":`...)
				dst = appendJSONString(dst, d)
			}
			dst = append(dst, `,"kind":`...)
			dst = strconv.AppendInt(dst, int64(symbolKind(h)), 10)
			// The headline line's own positions come from one lookup of
			// its line; the subtree's end (the end of its last line) from
			// one more.
			line := org.Lines.Line(h.Line.Start)
			endLine, endStart, endOff := line, h.Line.Start, h.Line.End
			if h.End > h.Line.End+1 {
				endLine = org.Lines.Line(h.End - 1)
				r := org.Lines.LineRange(endLine)
				endStart, endOff = r.Start, r.End
			}
			dst = append(dst, `,"range":`...)
			dst = appendRangeLC(dst, line, 0, endLine, lineCol(org, endStart, endOff))
			dst = append(dst, `,"selectionRange":`...)
			dst = appendRangeLC(dst, line, lineCol(org, h.Line.Start, sel.Start), line, lineCol(org, h.Line.Start, sel.End))
			if first[i] >= 0 {
				dst = append(dst, `,"children":`...)
				dst = walk(dst, first[i])
			}
			dst = append(dst, '}')
		}
		return append(dst, ']')
	}
	return walk(dst, root)
}

// lineCol is the UTF-16 column of off on the line starting at lineStart:
// the byte count when the line up to off is ASCII (every encoding counts
// ASCII the same), else orgast's own count.
func lineCol(f *orgast.File, lineStart, off int) int {
	for _, c := range f.Src[lineStart:off] {
		if c >= utf8.RuneSelf {
			_, _, col := f.Lines.Position(off)
			return col
		}
	}
	return off - lineStart
}

// appendRangeLC appends an LSP range from its lines and columns.
func appendRangeLC(dst []byte, l1, c1, l2, c2 int) []byte {
	dst = append(dst, `{"start":{"line":`...)
	dst = strconv.AppendInt(dst, int64(l1), 10)
	dst = append(dst, `,"character":`...)
	dst = strconv.AppendInt(dst, int64(c1), 10)
	dst = append(dst, `},"end":{"line":`...)
	dst = strconv.AppendInt(dst, int64(l2), 10)
	dst = append(dst, `,"character":`...)
	dst = strconv.AppendInt(dst, int64(c2), 10)
	return append(dst, "}}"...)
}

// appendJSONString appends s as a JSON string: quotes, backslashes and
// control characters escaped, invalid UTF-8 as U+FFFD.
func appendJSONString(dst []byte, s string) []byte {
	const hex = "0123456789abcdef"
	dst = append(dst, '"')
	start := 0
	for i := 0; i < len(s); {
		c := s[i]
		if c >= 0x20 && c != '"' && c != '\\' && c < utf8.RuneSelf {
			i++
			continue
		}
		if c >= utf8.RuneSelf {
			r, n := utf8.DecodeRuneInString(s[i:])
			if r == utf8.RuneError && n == 1 {
				dst = append(dst, s[start:i]...)
				dst = append(dst, `\ufffd`...)
				i++
				start = i
				continue
			}
			i += n
			continue
		}
		dst = append(dst, s[start:i]...)
		switch c {
		case '"', '\\':
			dst = append(dst, '\\', c)
		case '\n':
			dst = append(dst, '\\', 'n')
		case '\r':
			dst = append(dst, '\\', 'r')
		case '\t':
			dst = append(dst, '\\', 't')
		default:
			dst = append(dst, '\\', 'u', '0', '0', hex[c>>4], hex[c&0xf])
		}
		i++
		start = i
	}
	dst = append(dst, s[start:]...)
	return append(dst, '"')
}

// subtreeEnd is where a headline's subtree ends for an editor: the end of
// its last line (without the line end), so that the range never reaches
// into the next headline's line.
func subtreeEnd(org *orgast.File, h *orgast.Headline) int {
	end := h.End
	if end > h.Line.Start {
		end = lineEnd(org, end-1)
	}
	return max(end, h.Line.End)
}

// flatSymbols is the outline as SymbolInformation, each with its
// parent's title as its container.
func flatSymbols(f *orgFile) []symbolInformation {
	hs := f.org.Headlines
	out := make([]symbolInformation, 0, len(hs))
	for i := range hs {
		h := &hs[i]
		container := ""
		if h.Parent >= 0 {
			container = orgfeat.HeadlineName(&hs[h.Parent])
		}
		out = append(out, symbolInformation{Name: orgfeat.HeadlineName(h), Kind: symbolKind(h),
			Location: protocol.Location{URI: f.uri, Range: rangeAt(f.org, h.Line)}, ContainerName: container})
	}
	return out
}
