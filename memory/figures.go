package memory

import (
	"runtime"
	"sync"
	"sync/atomic"
)

// Figures are the counts `pp-lsp index --json` prints, with the meanings
// DESIGN §4 gives them.
type Figures struct {
	// Files is the number of Org files; Headlines the number of headlines;
	// Nodes both together (every file is a node too).
	Files     int `json:"files"`
	Headlines int `json:"headlines"`
	Nodes     int `json:"nodes"`
	// IDs counts distinct :ID: values over file drawers and headlines.
	IDs int `json:"ids"`
	// Links counts every link, as the outline lists them; IDLinks the id
	// links among them, FileLinks the file links.
	Links     int `json:"links"`
	IDLinks   int `json:"id_links"`
	FileLinks int `json:"file_links"`
	// BrokenIDLinks counts id links whose ID is nowhere in the memex.
	BrokenIDLinks int `json:"broken_id_links"`
	// DuplicateIDs counts ID values carried by more than one node.
	DuplicateIDs int `json:"duplicate_ids"`
	// BrokenFileLinks counts file links to a missing file or whose search
	// finds nothing; BrokenInternalLinks [[*heading]], [[#id]] and fuzzy
	// links that find nothing in their own file.
	BrokenFileLinks     int `json:"broken_file_links"`
	BrokenInternalLinks int `json:"broken_internal_links"`
	// PrivateNodes counts nodes carrying a privacy tag (own, inherited or
	// from #+FILETAGS:).
	PrivateNodes int `json:"private_nodes"`
	// Embedded counts nodes that have a vector in this snapshot.
	Embedded int `json:"embedded"`
	// Skipped counts files and folders left out (too large, unreadable,
	// not text); SkippedFiles the files among them.
	Skipped      int `json:"skipped"`
	SkippedFiles int `json:"skipped_files"`
	// RootHash is the memex's Merkle root.
	RootHash Hash `json:"root_hash"`
}

// Figures counts the snapshot (once; the result is kept). Files are
// counted in parallel: resolving every internal link needs each file's
// lookup tables, which dominate.
func (s *Snapshot) Figures() Figures {
	s.figOnce.Do(func() {
		var fg Figures
		fg.Files = s.files.len()
		fg.IDs = s.ids.len()
		fg.Skipped = len(s.skipped)
		for _, f := range s.skipped {
			if f.Code != CodeUnreadableFolder {
				fg.SkippedFiles++
			}
		}
		s.ids.each(func(_ string, paths []string) bool {
			if len(paths) > 1 {
				fg.DuplicateIDs++
			}
			return true
		})
		workers := max(1, min(runtime.GOMAXPROCS(0), len(s.order)))
		parts := make([]Figures, workers)
		var next atomic.Int64
		var wg sync.WaitGroup
		for w := range workers {
			wg.Go(func() {
				for {
					k := int(next.Add(1) - 1)
					if k >= len(s.order) {
						return
					}
					e, _ := s.files.get(s.order[k])
					s.countFile(e, &parts[w])
				}
			})
		}
		wg.Wait()
		for _, p := range parts {
			fg.Headlines += p.Headlines
			fg.Nodes += p.Nodes
			fg.Links += p.Links
			fg.IDLinks += p.IDLinks
			fg.FileLinks += p.FileLinks
			fg.BrokenIDLinks += p.BrokenIDLinks
			fg.BrokenFileLinks += p.BrokenFileLinks
			fg.BrokenInternalLinks += p.BrokenInternalLinks
			fg.PrivateNodes += p.PrivateNodes
			fg.Embedded += p.Embedded
		}
		fg.RootHash = s.Hash()
		s.fig = fg
	})
	return s.fig
}

// countFile adds one file's counts to fg.
func (s *Snapshot) countFile(e *fileEntry, fg *Figures) {
	f := e.idx
	fg.Headlines += len(f.org.Headlines)
	fg.Nodes += len(f.nodes)
	fg.Links += len(f.links)
	for i := range f.nodes {
		if f.nodes[i].private {
			fg.PrivateNodes++
		}
	}
	fg.Embedded += e.vecs.rows()
	var internal []internalLink
	for i, li := range f.links {
		switch li.kind {
		case linkID:
			fg.IDLinks++
			if !s.HasID(f.org.Links[i].Path) {
				fg.BrokenIDLinks++
			}
		case linkFile:
			fg.FileLinks++
			if r := s.resolveFileLink(f, i); r.Status == LinkBroken || r.Status == LinkSearchBroken {
				fg.BrokenFileLinks++
			}
		case linkInternal:
			if internal == nil {
				internal = f.internalLinks()
			}
			if !internal[i].ok {
				fg.BrokenInternalLinks++
			}
		}
	}
}

// Hash is the memex's Merkle root: over each root's hash, in root order.
// A root's hash covers its files by path relative to the root, in sorted
// order, each with its Merkle hash; a file's hash is its file node's. No
// absolute path, time or map order enters it, so two copies of a tree at
// different places hash the same, a touch changes nothing, and any byte of
// any Org file under the roots moves it.
func (s *Snapshot) Hash() Hash {
	s.hashOnce.Do(s.computeHashes)
	return s.hash
}

// RootHash is the Merkle hash of root i.
func (s *Snapshot) RootHash(i int) Hash {
	s.hashOnce.Do(s.computeHashes)
	if i < 0 || i >= len(s.rootHashes) {
		return Hash{}
	}
	return s.rootHashes[i]
}

func (s *Snapshot) computeHashes() {
	m := newMerkleHasher()
	s.rootHashes = make([]Hash, len(s.cfg.roots))
	k := 0
	for r := range s.cfg.roots {
		m.begin(tagRoot)
		for ; k < len(s.order); k++ {
			e, _ := s.files.get(s.order[k])
			if e.idx.root != r {
				break
			}
			m.named(e.idx.rel, &e.idx.nodes[0].merkle)
		}
		s.rootHashes[r] = m.end()
	}
	m.begin(tagMemex)
	for r := range s.rootHashes {
		m.child(&s.rootHashes[r])
	}
	s.hash = m.end()
}
