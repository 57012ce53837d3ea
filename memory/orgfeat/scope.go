package orgfeat

import "pp-lsp/memory"

// Scope is what a feature reads: the memex as one snapshot, and the Org
// buffers open outside it.
type Scope struct {
	// Memex is the snapshot (nil: no memex — then only links within a
	// file, and files on disk, resolve).
	Memex *memory.Snapshot
	// Outside returns the buffer open at path when the memex does not
	// hold it (nil: none).
	Outside func(path string) (*memory.LooseFile, bool)
	// Notes resolves the links that name a node by title or ref
	// ([[roam:…]], [[cite:…]], a URL in a node's :ROAM_REFS:); nil: none.
	Notes *NoteIndex
}

// File is the file node of path: the buffer open outside the memex, else
// the memex's file (which is the open buffer when one is).
func (sc Scope) File(path string) (memory.Node, bool) {
	if sc.Outside != nil {
		if l, ok := sc.Outside(path); ok {
			return l.Node(), true
		}
	}
	if sc.Memex != nil {
		return sc.Memex.File(path)
	}
	return memory.Node{}, false
}
