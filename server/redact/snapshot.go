package redact

import (
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"weak"

	"pp-lsp/memory"
)

// FromSnapshot indexes the private notes of a memex snapshot: each
// outermost private subtree as written (its descendants are private too),
// and as exact runs every private body, and every private subtree, of
// fewer than 4 words. A headline's title alone is not such a run: a
// private node titled "Notes" must not hide every "notes" of every output.
func FromSnapshot(s *memory.Snapshot) *Filter { return fromSnapshot(s, nil, nil) }

// fromSnapshot is FromSnapshot with the private notes of files outside
// the memex (their files, and their private subtrees' text) added.
func fromSnapshot(s *memory.Snapshot, looseFiles, looseTexts []string) *Filter {
	var texts, short, names []string
	files := map[string]bool{}
	for n := range s.Nodes() {
		if !n.Private() {
			continue
		}
		if n.IsFile() {
			names = append(names, filepath.Base(n.Path()))
		}
		files[n.Path()] = true
		text := string(n.Text())
		if p, ok := n.Parent(); !ok || !p.Private() {
			texts = append(texts, text)
		}
		short = append(short, strings.TrimSpace(n.Body()), text)
	}
	for _, t := range looseTexts {
		texts, short = append(texts, t), append(short, t)
	}
	for _, p := range looseFiles {
		files[p] = true
	}
	f := New(texts, short)
	f.names = newNames(names)
	for p := range files {
		f.files = append(f.files, p)
	}
	slices.Sort(f.files)
	return f
}

// Cache keeps the filter of the latest snapshot it was asked about, with
// the private notes of the files under its roots that are not memex files
// (looseScan): the index is made once per memex version and set of such
// notes, when an action first needs it. Each For walks the roots again to
// see whether those changed, reading only the files whose size, time or
// identity did.
type Cache struct {
	mu sync.Mutex
	// snap is held weakly: the cache never keeps an old snapshot (and
	// the old versions of a large buffer edited since) alive.
	snap  weak.Pointer[memory.Snapshot]
	f     *Filter
	loose map[string]looseFile
	// looseFiles and looseTexts are what the filter was made with.
	looseFiles, looseTexts []string
}

// For returns the filter of s and of the private notes outside its memex;
// home is the user's home folder (the agent's world.Home), where such a
// note's "~/" setup file is. A Cache is asked with one home.
func (c *Cache) For(s *memory.Snapshot, home string) *Filter {
	if s == nil {
		return nil
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	files, texts, seen := looseScan(s, c.loose, home)
	c.loose = seen
	if c.snap.Value() != s || !slices.Equal(files, c.looseFiles) || !slices.Equal(texts, c.looseTexts) {
		c.snap, c.f = weak.Make(s), fromSnapshot(s, files, texts)
		c.looseFiles, c.looseTexts = files, texts
	}
	return c.f
}
