package orgfeat

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"strings"
	"sync"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// SymbolIndex keeps, for each file outline the memex holds, the list of
// its headlines as a symbol search reads them. An outline never changes,
// so its list is made once and shared by every snapshot holding that
// outline; a search scans the lists of the snapshot it reads. Safe for
// concurrent use.
type SymbolIndex struct {
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

	// once fills what ID search and tag counts need.
	once   sync.Once
	fileID string
	ids    []string // headline i's :ID:, "" when none
	tags   map[string]int
}

// NewSymbolIndex returns an empty index.
func NewSymbolIndex() *SymbolIndex {
	return &SymbolIndex{files: map[*orgast.File]*symbolFile{}}
}

// of returns the lists of every file of snap, in memex order, dropping
// the lists of outlines no longer in it.
func (x *SymbolIndex) of(snap *memory.Snapshot) []*symbolFile {
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
				sf.names[i] = HeadlineName(&org.Headlines[i])
			}
		}
		next[org] = sf
		out = append(out, sf)
	}
	x.files = next
	return out
}

// loadIDs fills the file's IDs and tag counts, once.
func (sf *symbolFile) loadIDs() {
	sf.once.Do(func() {
		org := sf.org
		if id, ok := org.ID(); ok {
			sf.fileID = id
		}
		sf.ids = make([]string, len(org.Headlines))
		sf.tags = map[string]int{}
		for _, t := range org.FileTags() {
			sf.tags[t]++
		}
		for i := range org.Headlines {
			h := &org.Headlines[i]
			if h.Drawer != nil {
				if id, ok := h.Drawer.Get("ID"); ok {
					sf.ids[i] = id
				}
			}
			for _, t := range h.Tags {
				sf.tags[t]++
			}
		}
	})
}

// Symbol is one headline a search found.
type Symbol struct {
	// Path is its file, Org the file's outline (which Headline indexes).
	Path     string
	Org      *orgast.File
	Headline int
	// Name is HeadlineName; Container the file's title.
	Name, Container string
	// Score ranks it: higher is better.
	Score int
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

// Search returns the best limit headlines of snap for query, best first:
// each word of the query must match, fuzzily, the headline's title or its
// file's title (a title match weighs three times more). A cancelled ctx
// ends the search with what it found so far.
func (x *SymbolIndex) Search(ctx context.Context, snap *memory.Snapshot, query string, limit int) []Symbol {
	files := x.of(snap)
	var words []Pattern
	for w := range strings.FieldsSeq(query) {
		words = append(words, CompilePattern(w))
	}
	limit = max(limit, 0)
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
			} else if limit > 0 && better(hit, top[0]) {
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
	out := make([]Symbol, len(top))
	for i, h := range top {
		out[i] = Symbol{Path: h.file.path, Org: h.file.org, Headline: h.h, Name: h.file.names[h.h], Container: h.file.container, Score: h.score}
	}
	return out
}

// scoreHeadline matches every word against the title, or else the file's
// title at a third of the weight.
func scoreHeadline(words []Pattern, title, container string) (int, bool) {
	total := 0
	for _, w := range words {
		if sc, ok := w.Match(title); ok {
			total += sc
			continue
		}
		sc, ok := w.Match(container)
		if !ok {
			return 0, false
		}
		total += sc / 3
	}
	return total, true
}

// IDMatch is a node carrying an :ID: whose title matched.
type IDMatch struct {
	ID, Title string
	// Detail is the file (relative to its root), then for a headline its
	// HeadlineDetail.
	Detail string
	Score  int
}

// SearchIDs returns the best limit nodes of snap carrying an :ID: whose
// title matches query fuzzily, best first (then the shorter title, then
// memex order).
func (x *SymbolIndex) SearchIDs(ctx context.Context, snap *memory.Snapshot, query string, limit int) []IDMatch {
	type hit struct {
		IDMatch
		order int
	}
	pat := CompilePattern(query)
	var hits []hit
	order := 0
	for _, sf := range x.of(snap) {
		if ctx.Err() != nil {
			break
		}
		sf.loadIDs()
		add := func(id, title, detail string) {
			order++
			if id == "" {
				return
			}
			if score, ok := pat.Match(title); ok {
				hits = append(hits, hit{IDMatch{ID: id, Title: title, Detail: detail, Score: score}, order})
			}
		}
		add(sf.fileID, sf.container, sf.rel)
		for i, id := range sf.ids {
			add(id, sf.names[i], sf.rel+" "+HeadlineDetail(&sf.org.Headlines[i]))
		}
	}
	slices.SortFunc(hits, func(a, b hit) int {
		return cmp.Or(cmp.Compare(b.Score, a.Score), cmp.Compare(len(a.Title), len(b.Title)), cmp.Compare(a.order, b.order))
	})
	out := make([]IDMatch, min(max(limit, 0), len(hits)))
	for i := range out {
		out[i] = hits[i].IDMatch
	}
	return out
}

// TagCounts counts the uses of every tag in snap: on headlines and in
// each file's #+FILETAGS:.
func (x *SymbolIndex) TagCounts(snap *memory.Snapshot) map[string]int {
	count := map[string]int{}
	for _, sf := range x.of(snap) {
		sf.loadIDs()
		for t, n := range sf.tags {
			count[t] += n
		}
	}
	return count
}

// HeadlineName is the name a headline shows as a symbol: its title, which
// symbol lists want non-blank.
func HeadlineName(h *orgast.Headline) string {
	if h.Title == "" { // orgast trims titles: empty is blank
		return "(untitled)"
	}
	return h.Title
}

// HeadlineDetail is the TODO keyword, the priority and the tags:
// "NEXT [#A] :orgast:".
func HeadlineDetail(h *orgast.Headline) string {
	var b strings.Builder
	if h.Todo != "" {
		b.WriteString(h.Todo)
	}
	if h.Priority != 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteString("[#")
		b.WriteRune(h.Priority)
		b.WriteByte(']')
	}
	if len(h.Tags) > 0 {
		if b.Len() > 0 {
			b.WriteByte(' ')
		}
		b.WriteByte(':')
		b.WriteString(strings.Join(h.Tags, ":"))
		b.WriteByte(':')
	}
	return b.String()
}
