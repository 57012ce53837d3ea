package actuate

import (
	"crypto/sha256"
	"slices"
	"sync"

	"pp-lsp/server/protect"
)

// OwnWrites tells the server's own changes of files made outside its
// actions — a conversation's turn, a Flight Plan filed or its state
// written, a schedule moved on — from an action's, now that those changes
// no longer wait for the action (which may wait up to a timeout for the
// editor's user or for a command):
//
//   - an own change on disk is made under one short lock (never held while
//     anything waits for an editor or a process), which a rollback and the
//     guard around a command take for their looks at the disk;
//   - every path with an own change under way, or ended after a mark
//     (Mark, ChangedSince), is kept out of what an action is taken to
//     have changed (a rollback, the undo's view of a command);
//   - an own change of a protected file (flightplans.org) made while a
//     command runs is shown to the command's guard as a step from the
//     text it was made on to the text it wrote, so that the guard tells it
//     from the command's.
//
// It is safe for concurrent use; the zero value is ready.
type OwnWrites struct {
	// disk is held across an own change on disk (Write) and by Locked.
	disk sync.Mutex

	mu      sync.Mutex
	gen     uint64
	busy    map[string]int
	ended   map[string]uint64
	watches map[*ownWatch]struct{}
}

// ownWatch is what the guard around one command sees of the own changes
// made while it runs: for each path it puts back (paths, canonical), the
// text each change wrote, by the hash of the text it was made on. Only
// those paths, and texts the guard could put back (maxKeep), are kept: a
// conversation's turns during a long command are no copies of it.
type ownWatch struct {
	paths map[string]bool
	steps map[string]map[[32]byte][]byte
}

// Write makes an own change of path: write changes it (on disk when
// onDisk, under the lock; through the editor otherwise, with no lock held)
// and returns the text written; base is the text it was made on.
func (o *OwnWrites) Write(path string, base []byte, onDisk bool, write func() ([]byte, error)) ([]byte, error) {
	c := protect.Canonical(path)
	o.begin(c)
	defer o.end(c)
	if !onDisk {
		return write()
	}
	o.disk.Lock()
	defer o.disk.Unlock()
	text, err := write()
	if err == nil {
		o.step(c, base, text)
	}
	return text, err
}

// WriteNew makes an own new file: create makes it on disk and returns its
// path, under the lock, so that no rollback sees the file before it is
// known as the server's.
func (o *OwnWrites) WriteNew(create func() (string, error)) (string, error) {
	o.disk.Lock()
	defer o.disk.Unlock()
	p, err := create()
	if err == nil {
		c := protect.Canonical(p)
		o.begin(c)
		o.end(c)
	}
	return p, err
}

// Locked runs f while no own change on disk is under way (a rollback).
func (o *OwnWrites) Locked(f func()) {
	o.disk.Lock()
	defer o.disk.Unlock()
	f()
}

// Mark is the point from which ChangedSince counts.
func (o *OwnWrites) Mark() uint64 {
	o.mu.Lock()
	defer o.mu.Unlock()
	return o.gen
}

// ChangedSince lists the paths (canonical) with an own change under way or
// ended after mark.
func (o *OwnWrites) ChangedSince(mark uint64) map[string]bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	out := map[string]bool{}
	for p := range o.busy {
		out[p] = true
	}
	for p, g := range o.ended {
		if g > mark {
			out[p] = true
		}
	}
	return out
}

func (o *OwnWrites) begin(c string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.busy == nil {
		o.busy, o.ended = map[string]int{}, map[string]uint64{}
	}
	o.gen++
	o.busy[c]++
}

func (o *OwnWrites) end(c string) {
	o.mu.Lock()
	defer o.mu.Unlock()
	o.gen++
	o.ended[c] = o.gen
	if o.busy[c]--; o.busy[c] <= 0 {
		delete(o.busy, c)
	}
}

// step shows the own change of c from base to text to every guard
// watching (o.disk held).
func (o *OwnWrites) step(c string, base, text []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	for w := range o.watches {
		if !w.paths[c] || len(text) > maxKeep {
			continue
		}
		if w.steps[c] == nil {
			w.steps[c] = map[[32]byte][]byte{}
		}
		w.steps[c][sha256.Sum256(base)] = slices.Clone(text)
	}
}

// watch starts a guard's watch of paths (o.disk held).
func (o *OwnWrites) watch(paths ...string) *ownWatch {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.watches == nil {
		o.watches = map[*ownWatch]struct{}{}
	}
	w := &ownWatch{paths: map[string]bool{}, steps: map[string]map[[32]byte][]byte{}}
	for _, p := range paths {
		w.paths[protect.Canonical(p)] = true
	}
	o.watches[w] = struct{}{}
	return w
}

// unwatch ends it.
func (o *OwnWrites) unwatch(w *ownWatch) {
	o.mu.Lock()
	defer o.mu.Unlock()
	delete(o.watches, w)
}

// follow walks the own changes of path c from was (the file's text; none
// is taken as empty), each made on the text the one before wrote: the text
// the last of them wrote, which is the file's text when only own changes
// were made to it, and whether any was.
func (w *ownWatch) follow(c string, was []byte) (last []byte, stepped bool) {
	last = was
	steps := w.steps[c]
	for range len(steps) {
		next, ok := steps[sha256.Sum256(last)]
		if !ok {
			break
		}
		last, stepped = next, true
	}
	return last, stepped
}
