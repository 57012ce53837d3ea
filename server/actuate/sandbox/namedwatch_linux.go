//go:build linux

package sandbox

import (
	"bytes"
	"errors"
	"fmt"
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
	id    fileID // the folder watched: its path may lead elsewhere by now
}

// watchMask: new entries of a folder. IN_DONT_FOLLOW is for the walk's
// paths; a folder open as a descriptor is named by its /proc/self/fd
// link, which must be followed.
// maxWatches bounds the watches of one run: they come out of the user's
// fs.inotify.max_user_watches, which their editors' file watchers share,
// and a command making folders by the thousand must not take them all.
// Past it the walk after the run is the only look.
const maxWatches = 50_000

const watchMask = unix.IN_CREATE | unix.IN_MOVED_TO | unix.IN_ONLYDIR | unix.IN_EXCL_UNLINK

// newNamedWatch starts watching nothing yet: add each folder, then start.
// nil when inotify is unavailable.
func newNamedWatch() *namedWatch {
	fd, err := unix.InotifyInit1(unix.IN_NONBLOCK | unix.IN_CLOEXEC)
	if err != nil {
		return nil
	}
	return &namedWatch{f: os.NewFile(uintptr(fd), "inotify"), dirs: map[int32]watchedDir{}, done: make(chan struct{})}
}

// add watches a folder the walk before the run passed (the command has
// not started: its path leads where the walk went).
func (w *namedWatch) add(dir string, depth int) {
	if w == nil || w.full {
		return
	}
	if w.full = len(w.dirs) >= maxWatches; w.full {
		return
	}
	wd, err := unix.InotifyAddWatch(int(w.f.Fd()), dir, watchMask|unix.IN_DONT_FOLLOW)
	if err != nil {
		w.full = w.full || errors.Is(err, unix.ENOSPC)
		return
	}
	var st unix.Stat_t
	if unix.Lstat(dir, &st) != nil {
		return
	}
	w.mu.Lock()
	w.dirs[int32(wd)] = watchedDir{dir, depth, fileID{uint64(st.Dev), st.Ino}}
	w.mu.Unlock()
}

// addOpen watches a folder the command made, open as f.
func (w *namedWatch) addOpen(f *os.File, path string, depth int) {
	w.mu.Lock()
	n := len(w.dirs)
	w.mu.Unlock()
	if w.full = w.full || n >= maxWatches; w.full {
		return
	}
	var st unix.Stat_t
	if unix.Fstat(int(f.Fd()), &st) != nil {
		return
	}
	wd, err := unix.InotifyAddWatch(int(w.f.Fd()), fmt.Sprintf("/proc/self/fd/%d", f.Fd()), watchMask)
	if err != nil {
		w.full = w.full || errors.Is(err, unix.ENOSPC)
		return
	}
	w.mu.Lock()
	w.dirs[int32(wd)] = watchedDir{path, depth, fileID{uint64(st.Dev), st.Ino}}
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
			dir, err := openWatched(d)
			if err != nil {
				continue // renamed or replaced meanwhile: the walk after the run sees it
			}
			w.entry(dir, d.path, string(name), d.depth, ev.Mask&unix.IN_ISDIR != 0)
			dir.Close()
		}
	}
}

// openWatched opens the watched folder at its path, through no symlink,
// and only if it is still that folder: the command, running, may have
// renamed it and put a symlink to a folder outside the roots in its place.
func openWatched(d watchedDir) (*os.File, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, d.path, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return nil, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil || (fileID{uint64(st.Dev), st.Ino}) != d.id {
		unix.Close(fd)
		return nil, errors.New("the watched folder was replaced")
	}
	return os.NewFile(uintptr(fd), d.path), nil
}

// entry judges a new entry name of the folder open as dir (at path): a
// protected name is moved aside, a new folder is watched and what it
// already holds judged — all relative to the open folders, never through
// a path the command could have redirected.
func (w *namedWatch) entry(dir *os.File, path, name string, depth int, isDir bool) {
	p := filepath.Join(path, name)
	if ent, ok := protname.Match(name, depth); ok {
		if ent.Kind == protname.Folder && ent.Sandbox != nil && isDir {
			return // a new repository: judged when the command has ended
		}
		if m, err := moveAsideAt(dir, path, name); err == nil {
			w.moved = append(w.moved, m)
		}
		return
	}
	if !isDir {
		return
	}
	fd, err := unix.Openat(int(dir.Fd()), name, unix.O_RDONLY|unix.O_DIRECTORY|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if err != nil {
		return
	}
	sub := os.NewFile(uintptr(fd), p)
	defer sub.Close()
	w.addOpen(sub, p, depth+1)
	ents, _ := sub.ReadDir(-1)
	for _, e := range ents {
		w.entry(sub, p, e.Name(), depth+1, e.IsDir())
	}
}
