package memory

import (
	"cmp"
	"slices"
	"sync"

	"pp-lsp/memory/internal/vecmath"
)

// Snapshot is one immutable state of the memex: every file's outline and
// index, the ID and link indexes, hashes and vectors as they were at one
// moment. Readers hold a *Snapshot without locks for as long as they like;
// nothing in it ever changes. A change to the memex makes a new Snapshot
// that shares every unchanged file and every untouched index shard with
// this one (the gopls model).
type Snapshot struct {
	gen uint64
	cfg *config

	files pmap[*fileEntry]
	// order lists file paths by root, then by path relative to the root.
	order []string
	// ids maps an :ID: value to the paths of the files whose nodes carry
	// it, one entry per carrier (two entries: a duplicate).
	ids pmap[[]string]
	// idLinks maps an id link target to the files linking to it.
	idLinks pmap[[]string]
	// fileLinks maps an absolute file path to the files linking to it.
	fileLinks pmap[[]string]
	// skipped are files and folders the scan could not index.
	skipped []Finding

	hashOnce   sync.Once
	rootHashes []Hash
	hash       Hash

	figOnce sync.Once
	fig     Figures

	flatOnce sync.Once
	flat     *flatIndex
}

// Home is the home folder "~/" stands for in the memex's files
// (Options.Home).
func (s *Snapshot) Home() string { return s.cfg.home }

// fileEntry is one file in one snapshot: its index (shared while the
// bytes are unchanged), its vectors, and where its bytes came from.
type fileEntry struct {
	idx  *fileIndex
	vecs *vecSeg
	// disk is the file's size and mtime when last read from disk (zero
	// when the file exists only in a buffer).
	disk diskState
	// buffer is set while an editor buffer overlays the file: idx then
	// holds the buffer's text, and disk changes do not replace it.
	buffer *bufferState
	// copy is, under a buffer, what the disk's copy of the file holds
	// private (nil: no copy on disk, or none read yet; diskcopy.go).
	copy *diskCopy
}

// bufferState is an open editor buffer over a file.
type bufferState struct {
	version int32
}

// config is what a memex was opened with; shared by its snapshots.
type config struct {
	roots        []root
	privacy      *privacySet
	maxFileBytes int64
	embedderID   string
	// home is the user's home folder, for a #+SETUPFILE: ~/… (setup.go).
	home string
	// kernel and search are the vector search's dot product and scratch
	// buffers, shared by every snapshot of the memex.
	kernel vecmath.Kernel
	search *searchPools
	// signCenter is what signatures are centred on (see vectorStore):
	// set only for an embedder each of whose vectors v has
	// v·signCenter = |signCenter|² (the trigram embedder's constant
	// component), which the MinScore bound relies on (minScoreReach).
	signCenter []float32
}

// projector returns a projector signing like the store's.
func (c *config) projector(dim int) *vecmath.Projector {
	return vecmath.NewCenteredProjector(dim, c.signCenter)
}

// Generation counts the snapshots of one memex: each update adds one.
func (s *Snapshot) Generation() uint64 { return s.gen }

// Roots returns the memex roots, absolute, in the order given.
func (s *Snapshot) Roots() []string {
	out := make([]string, len(s.cfg.roots))
	for i, r := range s.cfg.roots {
		out[i] = r.path
	}
	return out
}

// PrivacyTags returns the privacy tags the snapshot's private flags use.
func (s *Snapshot) PrivacyTags() []string { return slices.Clone(s.cfg.privacy.tags) }

// EmbedderID is the ID of the embedder the snapshot's vectors come from.
func (s *Snapshot) EmbedderID() string { return s.cfg.embedderID }

// entry returns the file entry at path (absolute, clean).
func (s *Snapshot) entry(path string) (*fileEntry, bool) { return s.files.get(path) }

// fileLess orders files by root, then relative path.
func fileLess(a, b *fileIndex) int {
	if c := cmp.Compare(a.root, b.root); c != 0 {
		return c
	}
	return cmp.Compare(a.rel, b.rel)
}

// snapBuilder makes the next snapshot from a base one.
type snapBuilder struct {
	base      *Snapshot
	cfg       *config
	files     *pmapBuilder[*fileEntry]
	ids       *pmapBuilder[[]string]
	idLinks   *pmapBuilder[[]string]
	fileLinks *pmapBuilder[[]string]
	order     []string
	// orderDirty: files were added or removed; order is re-sorted at build.
	orderDirty bool
	skipped    []Finding
}

func newBuilder(base *Snapshot) *snapBuilder {
	return &snapBuilder{
		base:      base,
		cfg:       base.cfg,
		files:     base.files.builder(),
		ids:       base.ids.builder(),
		idLinks:   base.idLinks.builder(),
		fileLinks: base.fileLinks.builder(),
		order:     base.order,
		skipped:   base.skipped,
	}
}

// put adds or replaces a file entry, updating the global indexes by the
// difference between the old and the new file's keys only.
func (b *snapBuilder) put(e *fileEntry) {
	path := e.idx.path
	old, had := b.files.get(path)
	oldKeys := &fileKeys{}
	if had {
		oldKeys = old.idx.keys
	} else {
		b.orderDirty = true
	}
	if nk := e.idx.keys; nk != oldKeys {
		applyDiff(b.ids, path, oldKeys.ids, nk.ids)
		applyDiff(b.idLinks, path, oldKeys.idTargets, nk.idTargets)
		applyDiff(b.fileLinks, path, oldKeys.fileTargets, nk.fileTargets)
	}
	b.files.set(path, e)
}

// putPatched is put for a file version reindex made from the entry's
// current one, whose keys changed as d says (nil: not at all): the global
// indexes are updated by the change alone.
func (b *snapBuilder) putPatched(e *fileEntry, d *keyDelta) {
	path := e.idx.path
	if d != nil {
		applyDiff(b.ids, path, d.ids[0], d.ids[1])
		applyDiff(b.idLinks, path, d.idTargets[0], d.idTargets[1])
		applyDiff(b.fileLinks, path, d.fileTargets[0], d.fileTargets[1])
	}
	b.files.set(path, e)
}

// remove drops the file at path.
func (b *snapBuilder) remove(path string) {
	old, had := b.files.get(path)
	if !had {
		return
	}
	ok := old.idx.keys
	applyDiff(b.ids, path, ok.ids, nil)
	applyDiff(b.idLinks, path, ok.idTargets, nil)
	applyDiff(b.fileLinks, path, ok.fileTargets, nil)
	b.files.del(path)
	b.orderDirty = true
}

// applyDiff moves path out of the lists of keys only in old and into the
// lists of keys only in new (both sorted multisets).
func applyDiff(m *pmapBuilder[[]string], path string, old, new []string) {
	i, j := 0, 0
	for i < len(old) || j < len(new) {
		switch {
		case j >= len(new) || (i < len(old) && old[i] < new[j]):
			listRemove(m, old[i], path)
			i++
		case i >= len(old) || new[j] < old[i]:
			listAdd(m, new[j], path)
			j++
		default:
			i++
			j++
		}
	}
}

// listAdd inserts path into the sorted list under key, copying the list
// (lists are shared with older snapshots and never modified in place).
func listAdd(m *pmapBuilder[[]string], key, path string) {
	l, _ := m.get(key)
	at, _ := slices.BinarySearch(l, path)
	nl := make([]string, 0, len(l)+1)
	nl = append(nl, l[:at]...)
	nl = append(nl, path)
	nl = append(nl, l[at:]...)
	m.set(key, nl)
}

// listRemove removes one occurrence of path from the list under key.
func listRemove(m *pmapBuilder[[]string], key, path string) {
	l, ok := m.get(key)
	if !ok {
		return
	}
	at, found := slices.BinarySearch(l, path)
	if !found {
		return
	}
	if len(l) == 1 {
		m.del(key)
		return
	}
	nl := make([]string, 0, len(l)-1)
	nl = append(nl, l[:at]...)
	nl = append(nl, l[at+1:]...)
	m.set(key, nl)
}

// build publishes the new snapshot.
func (b *snapBuilder) build(gen uint64) *Snapshot {
	s := &Snapshot{
		gen:       gen,
		cfg:       b.cfg,
		files:     b.files.build(gen),
		ids:       b.ids.build(gen),
		idLinks:   b.idLinks.build(gen),
		fileLinks: b.fileLinks.build(gen),
		order:     b.order,
		skipped:   b.skipped,
	}
	if b.orderDirty {
		order := make([]string, 0, s.files.len())
		s.files.each(func(p string, _ *fileEntry) bool {
			order = append(order, p)
			return true
		})
		slices.SortFunc(order, func(x, y string) int {
			ex, _ := s.files.get(x)
			ey, _ := s.files.get(y)
			return fileLess(ex.idx, ey.idx)
		})
		s.order = order
	}
	return s
}

// emptySnapshot is the snapshot before any file is read.
func emptySnapshot(cfg *config) *Snapshot {
	return &Snapshot{cfg: cfg}
}

// bulkSnapshot makes a snapshot from scratch out of many files at once:
// the global index lists are gathered in plain maps and set once each,
// instead of being copied on every insertion as put does.
func bulkSnapshot(cfg *config, entries []*fileEntry, skipped []Finding, gen uint64) *Snapshot {
	slices.SortFunc(entries, func(a, b *fileEntry) int { return fileLess(a.idx, b.idx) })
	files := pmap[*fileEntry]{}.builder()
	ids := map[string][]string{}
	idLinks := map[string][]string{}
	fileLinks := map[string][]string{}
	order := make([]string, 0, len(entries))
	for _, e := range entries {
		p := e.idx.path
		if _, dup := files.get(p); dup {
			continue
		}
		files.set(p, e)
		order = append(order, p)
	}
	// A key's first path is a one-element view of order (lists are
	// never changed in place; a second path copies it): most keys have
	// one path, and 100k of them would otherwise take as many
	// allocations.
	gather := func(m map[string][]string, keys func(*fileKeys) []string) {
		for j, p := range order {
			e, _ := files.get(p)
			for _, k := range keys(e.idx.keys) {
				if l, ok := m[k]; ok {
					m[k] = append(l, p)
				} else {
					m[k] = order[j : j+1 : j+1]
				}
			}
		}
	}
	var wg0 sync.WaitGroup
	wg0.Go(func() { gather(ids, func(k *fileKeys) []string { return k.ids }) })
	wg0.Go(func() { gather(idLinks, func(k *fileKeys) []string { return k.idTargets }) })
	gather(fileLinks, func(k *fileKeys) []string { return k.fileTargets })
	wg0.Wait()
	finish := func(m map[string][]string, out *pmap[[]string]) {
		b := pmap[[]string]{}.builder()
		for k, l := range m {
			if len(l) > 1 {
				slices.Sort(l)
			}
			b.set(k, l)
		}
		*out = b.build(gen)
	}
	s := &Snapshot{gen: gen, cfg: cfg, files: files.build(gen), order: order, skipped: skipped}
	var wg sync.WaitGroup
	wg.Go(func() { finish(ids, &s.ids) })
	wg.Go(func() { finish(idLinks, &s.idLinks) })
	finish(fileLinks, &s.fileLinks)
	wg.Wait()
	return s
}
