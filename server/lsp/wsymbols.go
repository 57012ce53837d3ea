package lsp

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"strings"
	"sync"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// symbolIndex keeps, for each file outline the memex holds, the list of
// its headlines as workspace/symbol searches them. An outline never
// changes, so its list is made once and shared by every snapshot holding
// that outline; a query scans the lists of the snapshot it reads.
type symbolIndex struct {
	mu    sync.Mutex
	files map[*orgast.File]*symbolFile
}

// symbolFile is one file's headlines.
type symbolFile struct {
	path      string
	rel       string // relative to its root
	container string // the file's title, shown beside each headline
	org       *orgast.File
	names     []string // headline i's name

	// once fills what completion needs: the IDs and the tag counts.
	once   sync.Once
	fileID string
	ids    []string // headline i's :ID:, "" when none
	tags   map[string]int
}

func newSymbolIndex() *symbolIndex {
	return &symbolIndex{files: map[*orgast.File]*symbolFile{}}
}

// of returns the lists of every file of snap, in memex order, dropping
// the lists of outlines no longer in it.
func (x *symbolIndex) of(snap *memory.Snapshot) []*symbolFile {
	x.mu.Lock()
	defer x.mu.Unlock()
	out := make([]*symbolFile, 0, snap.FileCount())
	next := make(map[*orgast.File]*symbolFile, len(x.files))
	for f := range snap.Files() {
		org := f.Org()
		sf := x.files[org]
		if sf == nil {
			sf = &symbolFile{path: f.Path(), rel: f.RelPath(), container: f.Title(), org: org, names: make([]string, len(org.Headlines))}
			for i := range org.Headlines {
				sf.names[i] = headlineName(&org.Headlines[i])
			}
		}
		next[org] = sf
		out = append(out, sf)
	}
	x.files = next
	return out
}

// symbolHit is one match of a query.
type symbolHit struct {
	file  *symbolFile
	h     int
	score int
	order int // memex order, for stable ties
}

// hitHeap is a min-heap by rank: the worst kept hit on top.
type hitHeap []symbolHit

func (h hitHeap) Len() int           { return len(h) }
func (h hitHeap) Less(i, j int) bool { return better(h[j], h[i]) }
func (h hitHeap) Swap(i, j int)      { h[i], h[j] = h[j], h[i] }
func (h *hitHeap) Push(x any)        { *h = append(*h, x.(symbolHit)) }
func (h *hitHeap) Pop() any {
	old := *h
	x := old[len(old)-1]
	*h = old[:len(old)-1]
	return x
}

// better ranks a before b: higher score, then the shorter name, then memex
// order.
func better(a, b symbolHit) bool {
	if a.score != b.score {
		return a.score > b.score
	}
	la, lb := len(a.file.names[a.h]), len(b.file.names[b.h])
	if la != lb {
		return la < lb
	}
	return a.order < b.order
}

// workspaceSymbol searches every headline of the memex: each word of the
// query must match, fuzzily, the headline's title or its file's title (a
// title match weighs more), and the best matches come first.
func (s *Server) workspaceSymbol(ctx context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.WorkspaceSymbolParams
	if err := decode(protocol.MethodWorkspaceSymbol, params, &p); err != nil {
		return nil, err
	}
	if v.snap == nil {
		return []symbolInformation{}, nil
	}
	hits := s.searchSymbols(ctx, v.snap, p.Query, v.settings.maxSymbols())
	out := make([]symbolInformation, 0, len(hits))
	for _, h := range hits {
		hd := &h.file.org.Headlines[h.h]
		out = append(out, symbolInformation{
			Name: h.file.names[h.h], Kind: symbolKind(hd),
			Location:      protocol.Location{URI: v.uriOf(h.file.path), Range: rangeAt(h.file.org, hd.Line)},
			ContainerName: h.file.container,
		})
	}
	return out, nil
}

// searchSymbols returns the best limit headlines for query, best first.
func (s *Server) searchSymbols(ctx context.Context, snap *memory.Snapshot, query string, limit int) []symbolHit {
	files := s.symbols.of(snap)
	var words []pattern
	for w := range strings.FieldsSeq(query) {
		words = append(words, compilePattern(w))
	}
	top := make(hitHeap, 0, limit+1)
	order := 0
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		for i, name := range f.names {
			order++
			score, ok := scoreHeadline(words, name, f.container)
			if !ok {
				continue
			}
			hit := symbolHit{file: f, h: i, score: score, order: order}
			if len(top) < limit {
				heap.Push(&top, hit)
			} else if better(hit, top[0]) {
				top[0] = hit
				heap.Fix(&top, 0)
			}
		}
	}
	slices.SortFunc(top, func(a, b symbolHit) int {
		if better(a, b) {
			return -1
		}
		if better(b, a) {
			return 1
		}
		return cmp.Compare(a.order, b.order)
	})
	return top
}

// scoreHeadline matches every word against the title, or else the file's
// title at a third of the weight.
func scoreHeadline(words []pattern, title, container string) (int, bool) {
	total := 0
	for _, w := range words {
		if sc, ok := w.match(title); ok {
			total += sc
			continue
		}
		sc, ok := w.match(container)
		if !ok {
			return 0, false
		}
		total += sc / 3
	}
	return total, true
}
