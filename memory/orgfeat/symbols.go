package orgfeat

import (
	"cmp"
	"container/heap"
	"context"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

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
	// hidden: one of memory.ServerFiles, never offered.
	hidden bool
	// titled: the file has a #+title:, and is a symbol by it.
	titled bool
	// aliases are each node's :ROAM_ALIASES: (node 0 the file, i+1
	// headline i), nil when it has none.
	aliases [][]string

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
			sf = &symbolFile{path: f.Path(), rel: f.RelPath(), container: f.Title(), org: org, names: make([]string, len(org.Headlines)), hidden: f.InServerFile()}
			for i := range org.Headlines {
				sf.names[i] = HeadlineName(&org.Headlines[i])
			}
			sf.aliases = fileAliases(org, sf.container)
			_, sf.titled = org.Title()
		}
		next[org] = sf
		out = append(out, sf)
	}
	x.files = next
	return out
}

// fileAliases are the :ROAM_ALIASES: of each node of org (node 0 the
// file, titled title), nil when none has any.
func fileAliases(org *orgast.File, title string) [][]string {
	var out [][]string
	set := func(k int, props []orgast.Property, title string) {
		v, ok := propertyValue(props, "ROAM_ALIASES")
		if !ok {
			return
		}
		if out == nil {
			out = make([][]string, 1+len(org.Headlines))
		}
		out[k] = aliasesOf(v, title)
	}
	if org.FileDrawer != nil {
		set(0, org.FileDrawer.Properties, title)
	}
	for i := range org.Headlines {
		if h := &org.Headlines[i]; h.Drawer != nil {
			set(i+1, h.Drawer.Properties, h.Title)
		}
	}
	return out
}

// aliasesOfNode are node k's aliases.
func (sf *symbolFile) aliasesOfNode(k int) []string {
	if sf.aliases == nil {
		return nil
	}
	return sf.aliases[k]
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

// Symbol is one node a search found: a headline, or a file (Headline -1).
type Symbol struct {
	// Path is its file, Org the file's outline (which Headline indexes).
	Path     string
	Org      *orgast.File
	Headline int
	// Name is HeadlineName, or the file's title; Container the file's
	// title (for a file, its path relative to its root).
	Name, Container string
	// Alias is the alias the query matched ("" when it matched the name).
	Alias string
	// Score ranks it: higher is better.
	Score int
}

// symbolHit is one match of a query.
type symbolHit struct {
	file  *symbolFile
	h     int // headline, -1 for the file
	score int
	order int // memex order, for stable ties
	alias string
}

// name is the hit's name: the alias it matched, or its title.
func (h symbolHit) name() string {
	switch {
	case h.alias != "":
		return h.alias
	case h.h < 0:
		return h.file.container
	}
	return h.file.names[h.h]
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
	la, lb := len(a.name()), len(b.name())
	if la != lb {
		return la < lb
	}
	return a.order < b.order
}

// Ranks of a match, above any fuzzy score: the query is the title, or
// one of the aliases, exactly (case and spacing aside).
const (
	rankExactTitle = 1 << 24
	rankExactAlias = 1 << 23
)

// Search returns the best limit nodes of snap for query, best first: the
// nodes whose title is the query, then those with the query as an alias,
// then fuzzy matches — each word of the query must match, fuzzily, the
// node's title or one of its aliases, or its file's title (a title or
// alias match weighs three times more). Headlines and files (by their
// #+title:) are nodes; the hidden files' are never offered. A cancelled
// ctx ends the search with what it found so far.
func (x *SymbolIndex) Search(ctx context.Context, snap *memory.Snapshot, query string, limit int) []Symbol {
	files := x.of(snap)
	var words []Pattern
	for w := range strings.FieldsSeq(query) {
		words = append(words, CompilePattern(w))
	}
	exact := nameKey(query)
	limit = max(limit, 0)
	top := make(hitHeap, 0, limit+1)
	order := 0
	push := func(hit symbolHit) {
		if len(top) < limit {
			heap.Push(&top, hit)
		} else if limit > 0 && better(hit, top[0]) {
			top[0] = hit
			heap.Fix(&top, 0)
		}
	}
	for _, f := range files {
		if ctx.Err() != nil {
			break
		}
		if f.hidden {
			continue
		}
		for i := -1; i < len(f.names); i++ {
			order++
			if i < 0 && !f.titled {
				continue
			}
			title, container := f.container, ""
			if i >= 0 {
				title, container = f.names[i], f.container
			}
			aliases := f.aliasesOfNode(i + 1)
			hit, ok := scoreNode(words, exact, title, aliases, container)
			if !ok {
				continue
			}
			hit.file, hit.h, hit.order = f, i, order
			push(hit)
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
		name, container := h.file.container, h.file.rel
		if h.h >= 0 {
			name, container = h.file.names[h.h], h.file.container
		}
		out[i] = Symbol{Path: h.file.path, Org: h.file.org, Headline: h.h, Name: name, Container: container, Score: h.score, Alias: h.alias}
	}
	return out
}

// scoreNode ranks a node for the query words: an exact title, an exact
// alias, else the best fuzzy match of its title or an alias (each word
// matching the name, or else the container at a third of the weight).
func scoreNode(words []Pattern, exact, title string, aliases []string, container string) (symbolHit, bool) {
	if exact != "" && sameName(title, exact) {
		s, _ := scoreHeadline(words, title, container)
		return symbolHit{score: rankExactTitle + s}, true
	}
	for _, a := range aliases {
		if exact != "" && sameName(a, exact) {
			s, _ := scoreHeadline(words, a, container)
			return symbolHit{score: rankExactAlias + s, alias: a}, true
		}
	}
	best, ok := scoreHeadline(words, title, container)
	hit := symbolHit{score: best}
	for _, a := range aliases {
		if s, aok := scoreHeadline(words, a, container); aok && (!ok || s > hit.score) {
			hit, ok = symbolHit{score: s, alias: a}, true
		}
	}
	return hit, ok
}

// sameName reports whether name, compared as nameKey compares, is key (a
// nameKey): without allocating, since a search asks it of every node.
func sameName(name, key string) bool {
	i, j := 0, 0
	space := false
	for i < len(name) {
		r, n := utf8.DecodeRuneInString(name[i:])
		if unicode.IsSpace(r) {
			space = true
			i += n
			continue
		}
		if space && j > 0 {
			if j >= len(key) || key[j] != ' ' {
				return false
			}
			j++
		}
		space = false
		k, m := utf8.DecodeRuneInString(key[j:])
		if j >= len(key) || (k != r && unicode.ToLower(r) != k) {
			return false
		}
		i += n
		j += m
	}
	return j == len(key)
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

// IDMatch is a node carrying an :ID: whose title or alias matched.
type IDMatch struct {
	// ID is the node's; Title what matched: its title, or the alias
	// (Alias true) — what a link to it reads as.
	ID, Title string
	Alias     bool
	// NodeTitle is the node's own title.
	NodeTitle string
	// Detail is the file (relative to its root), then for a headline its
	// HeadlineDetail.
	Detail string
	Score  int
	// Node is the node's place: its file and headline (-1: the file).
	Path     string
	Headline int
}

// SearchIDs returns the best limit nodes of snap carrying an :ID: whose
// title or an alias matches query, ranked as Search ranks them (then the
// shorter name, then memex order). The hidden files' are never offered.
func (x *SymbolIndex) SearchIDs(ctx context.Context, snap *memory.Snapshot, query string, limit int) []IDMatch {
	type hit struct {
		IDMatch
		order int
	}
	pats := []Pattern{CompilePattern(query)}
	exact := nameKey(query)
	var hits []hit
	order := 0
	for _, sf := range x.of(snap) {
		if ctx.Err() != nil {
			break
		}
		if sf.hidden {
			continue
		}
		sf.loadIDs()
		add := func(k int, id, title, detail string) {
			order++
			if id == "" {
				return
			}
			h, ok := scoreNode(pats, exact, title, sf.aliasesOfNode(k), "")
			if !ok {
				return
			}
			m := IDMatch{ID: id, Title: title, NodeTitle: title, Detail: detail, Score: h.score, Path: sf.path, Headline: k - 1}
			if h.alias != "" {
				m.Title, m.Alias = h.alias, true
			}
			hits = append(hits, hit{m, order})
		}
		add(0, sf.fileID, sf.container, sf.rel)
		for i, id := range sf.ids {
			add(i+1, id, sf.names[i], sf.rel+" "+HeadlineDetail(&sf.org.Headlines[i]))
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

// Forget drops what the index holds for the file at path, except for its
// outline keep (nil: every outline of it): a buffer's old versions must
// not outlive its edits in this cache (the next search would drop them,
// but a session may go long without one).
func (x *SymbolIndex) Forget(path string, keep *orgast.File) {
	x.mu.Lock()
	defer x.mu.Unlock()
	for org, sf := range x.files {
		if sf.path == path && org != keep {
			delete(x.files, org)
		}
	}
}
