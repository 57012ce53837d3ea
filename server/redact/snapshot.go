package redact

import (
	"slices"
	"strings"
	"sync"

	"pp-lsp/memory"
)

// FromSnapshot indexes the private notes of a memex snapshot: each
// outermost private subtree as written (its descendants are private too),
// and as exact runs every private body, and every private subtree, of
// fewer than 4 words. A headline's title alone is not such a run: a
// private node titled "Notes" must not hide every "notes" of every output.
func FromSnapshot(s *memory.Snapshot) *Filter {
	var texts, short []string
	files := map[string]bool{}
	for n := range s.Nodes() {
		if !n.Private() {
			continue
		}
		files[n.Path()] = true
		text := string(n.Text())
		if p, ok := n.Parent(); !ok || !p.Private() {
			texts = append(texts, text)
		}
		short = append(short, strings.TrimSpace(n.Body()), text)
	}
	f := New(texts, short)
	for p := range files {
		f.files = append(f.files, p)
	}
	slices.Sort(f.files)
	return f
}

// Cache keeps the filter of the latest snapshot it was asked about: the
// index is made once per memex version, when an action first needs it.
type Cache struct {
	mu   sync.Mutex
	snap *memory.Snapshot
	f    *Filter
}

// For returns the filter of s.
func (c *Cache) For(s *memory.Snapshot) *Filter {
	if s == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap != s {
		c.snap, c.f = s, FromSnapshot(s)
	}
	return c.f
}
