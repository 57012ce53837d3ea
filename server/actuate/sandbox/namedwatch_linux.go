//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"os"
	"path/filepath"
	"sync"
	"unsafe"

	"golang.org/x/sys/unix"

	"pp-lsp/internal/protname"
)

// namedWatch moves aside, while a command runs, a protected name it makes
// in a folder it may write — an .envrc, a .dir-locals.el, a .husky folder
// — as soon as the kernel reports it (inotify), so that another process (an
// editor that visits a file there, a shell that enters the folder) has
// only that moment to use it; Landlock cannot refuse one name in a folder
// it grants. A new repository's .git is left to the end of the run
// (newRepository), as is everything when the watches run out
// (fs.inotify.max_user_watches): the walk after the run finds it then.
type namedWatch struct {
	f     *os.File
	mu    sync.Mutex
	dirs  map[int32]watchedDir // by watch descriptor
	moved []string
	done  chan struct{}
	full  bool // a watch could not be added
	// started: loop runs (and closes done when it ends).
	started bool
}

type watchedDir struct {
	path  string
	depth int
}

const watchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_ONLYDIR | unix.IN_DONT_FOLLOW | unix.IN_EXCL_UNLINK

// newNamedWatch starts watching nothing yet: add each folder, then start.
// nil when inotify is unavailable.
func newNamedWatch() *namedWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &namedWatch{f: os.NewFile(uintptr(fd), "inotify"), dirs: map[int32]watchedDir{}, done: make(chan struct{})}
}

// add watches a folder for new entries.
func (w *namedWatch) add(dir string, depth int) {
	if w == nil || w.full {
		return
	}
	wd, err := unix.InotifyAddWatch(int(w.f.Fd()), dir, watchMask)
	if err != nil {
		w.full = w.full || errors.Is(err, unix.ENOSPC)
		return
	}
	w.mu.Lock()
	w.dirs[int32(wd)] = watchedDir{dir, depth}
	w.mu.Unlock()
}

// start reads the events until stop.
func (w *namedWatch) start() {
	if w == nil {
		return
	}
	w.started = true
	go w.loop()
}

// stop ends the watch and returns what it moved aside, "P (now NAME)"
// each.
func (w *namedWatch) stop() []string {
	if w == nil {
		return nil
	}
	w.f.Close()
	if w.started {
		<-w.done
	}
	return w.moved
}

func (w *namedWatch) loop() {
	defer close(w.done)
	buf := make([]byte, 64<<10)
	for {
		n, err := w.f.Read(buf)
		if err != nil {
			return // closed
		}
		for off := 0; off+unix.SizeofInotifyEvent <= n; {
			ev := (*unix.InotifyEvent)(unsafe.Pointer(&buf[off]))
			name := buf[off+unix.SizeofInotifyEvent : min(n, off+unix.SizeofInotifyEvent+int(ev.Len))]
			off += unix.SizeofInotifyEvent + int(ev.Len)
			if i := bytes.IndexByte(name, 0); i >= 0 {
				name = name[:i]
			}
			w.mu.Lock()
			d, ok := w.dirs[ev.Wd]
			w.mu.Unlock()
			if !ok || len(name) == 0 || ev.Mask&(unix.IN_CREATE|unix.IN_MOVED_TO) == 0 {
				continue
			}
			w.entry(filepath.Join(d.path, string(name)), string(name), d.depth, ev.Mask&unix.IN_ISDIR != 0)
		}
	}
}

// entry judges a new entry of a watched folder: a protected name is moved
// aside, a new folder is watched and what it already holds judged.
func (w *namedWatch) entry(p, name string, depth int, isDir bool) {
	if ent, ok := protname.Match(name, depth); ok {
		if ent.Kind == protname.Folder && ent.Sandbox != nil && isDir {
			return // a new repository: judged when the command has ended
		}
		if m, err := moveAside(p); err == nil {
			w.moved = append(w.moved, m)
		}
		return
	}
	if !isDir {
		return
	}
	w.add(p, depth+1)
	f, err := os.Open(p)
	if err != nil {
		return
	}
	ents, _ := f.ReadDir(-1)
	f.Close()
	for _, e := range ents {
		w.entry(filepath.Join(p, e.Name()), e.Name(), depth+1, e.IsDir())
	}
}
