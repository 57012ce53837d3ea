package memory

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"time"

	"pp-lsp/internal/regfile"
)

// What counts as a memex file (DESIGN §4), decided here once:
//
//   - every regular file whose name ends in ".org" (case-sensitive, as the
//     contract says "*.org") below a root;
//   - hidden entries are skipped, folders and files alike: a name starting
//     with "." is hidden. That covers Emacs lock files (".#note.org", which
//     are dangling symlinks while a buffer is modified) and editor or sync
//     tool state (.git, .stfolder…). Emacs auto-save files ("#note.org#")
//     and backups ("note.org~") do not end in ".org" and are not files of
//     the memex either;
//   - a symlink is followed only when its target resolves inside the same
//     root; one leaving the root is ignored. Each real file is indexed once,
//     under its path without symlinks when the walk finds one, else under
//     the first symlinked path in sorted order; a symlinked folder already
//     walked (a loop, or a second way into the same folder) is not walked
//     again, so loops end;
//   - roots are taken in the order given; a file a earlier root already
//     holds (nested or overlapping roots) belongs to that earlier root;
//   - fifos, sockets and devices are never opened; a file larger than
//     Options.MaxFileBytes, or one that is not text (text.go), is skipped
//     with a finding.

// root is one memex root.
type root struct {
	path string // absolute and clean, as given (not resolved)
	real string // with symlinks resolved, for containment checks
}

// foundFile is one Org file the walk found.
type foundFile struct {
	root  int
	rel   string // slash-separated, relative to the root
	path  string // absolute: root.path joined with rel
	real  string
	size  int64
	mtime time.Time
}

// diskState is what a file looked like on disk when last read: enough for
// Refresh to tell an untouched file without reading it. Content, not this,
// decides every hash.
type diskState struct {
	size  int64
	mtime time.Time
	// id is the stat of the file as read (os.SameFile tells a file
	// replaced under the same name); nil when not read from the disk.
	id os.FileInfo
	// unsettled: the file was read within settleGrain of its
	// modification time, so a write after the read may have left size and
	// time as they were. Recheck reads it again.
	unsettled bool
}

// settleGrain bounds the granularity of file times (2 s on FAT; the
// kernel's tick on most others): a file read later than this after its
// modification time has not been changed since without its time moving.
const settleGrain = 2 * time.Second

// readState is the disk state of a file whose opened stat is fi, read now.
func readState(fi os.FileInfo) diskState {
	age := time.Since(fi.ModTime())
	return diskState{size: fi.Size(), mtime: fi.ModTime(), id: fi, unsettled: age < settleGrain}
}

// same says whether d and e describe one reading of the same file state.
func (d diskState) same(e diskState) bool {
	return d.id != nil && e.id != nil && os.SameFile(d.id, e.id) && d.size == e.size && d.mtime.Equal(e.mtime) && d.unsettled == e.unsettled
}

// looksUnchanged says whether fi, the file's stat now, tells that the
// file still holds the bytes read: the same file, size and modification
// time, and read late enough for the time to be trusted.
func (d diskState) looksUnchanged(fi os.FileInfo) bool {
	return d.id != nil && !d.unsettled && os.SameFile(d.id, fi) && fi.Size() == d.size && fi.ModTime().Equal(d.mtime)
}

// ErrRoot is wrapped by errors about a root itself (missing, not a folder).
var ErrRoot = errors.New("bad memex root")

// resolveRoots makes the roots absolute and checks each is a folder.
func resolveRoots(paths []string) ([]root, error) {
	if len(paths) == 0 {
		return nil, fmt.Errorf("%w: no root given", ErrRoot)
	}
	out := make([]root, 0, len(paths))
	for _, p := range paths {
		abs, err := filepath.Abs(p)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrRoot, p, err)
		}
		fi, err := os.Stat(abs)
		if errors.Is(err, fs.ErrNotExist) {
			return nil, fmt.Errorf("%w: %s does not exist", ErrRoot, p)
		}
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrRoot, p, err)
		}
		if !fi.IsDir() {
			return nil, fmt.Errorf("%w: %s is not a folder", ErrRoot, p)
		}
		real, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("%w: %s: %w", ErrRoot, p, err)
		}
		out = append(out, root{path: abs, real: real})
	}
	return out, nil
}

// within reports whether path p (resolved) lies in folder dir (resolved).
func within(p, dir string) bool {
	if p == dir {
		return true
	}
	rel, err := filepath.Rel(dir, p)
	return err == nil && rel != ".." && !strings.HasPrefix(rel, ".."+string(filepath.Separator))
}

// isHidden is the hidden-entry rule above.
func isHidden(name string) bool { return strings.HasPrefix(name, ".") }

// isOrgName reports whether a file name is a memex file name.
func isOrgName(name string) bool { return strings.HasSuffix(name, ".org") && !isHidden(name) }

// scanner walks the roots once.
type scanner struct {
	ctx      context.Context
	roots    []root
	visited  map[string]bool // real folders walked
	realSeen map[string]int  // real file → index in files
	files    []foundFile
	// problems are unreadable folders found on the way.
	problems []Finding
}

// scanRoots lists every memex file below the roots, in root order and,
// within a root, in sorted path order.
func scanRoots(ctx context.Context, roots []root) ([]foundFile, []Finding, error) {
	s := &scanner{ctx: ctx, roots: roots, visited: map[string]bool{}, realSeen: map[string]int{}}
	for i := range roots {
		if err := s.walkRoot(i); err != nil {
			return nil, nil, err
		}
	}
	return s.files, s.problems, nil
}

// pendingLink is a symlink met during the walk, followed after the plain
// walk of the root so that real paths win over symlinked ones.
type pendingLink struct {
	path string // absolute, through the link
	rel  string
}

func (s *scanner) walkRoot(ri int) error {
	r := s.roots[ri]
	var pending []pendingLink
	if err := s.walkDir(ri, r.path, "", r.real, &pending); err != nil {
		return err
	}
	for len(pending) > 0 {
		l := pending[0]
		pending = pending[1:]
		real, err := filepath.EvalSymlinks(l.path)
		if err != nil || !within(real, r.real) {
			continue // dangling, or leaving the root: ignored
		}
		fi, err := os.Stat(real)
		if err != nil {
			continue
		}
		switch {
		case fi.IsDir():
			if err := s.walkDir(ri, l.path, l.rel, real, &pending); err != nil {
				return err
			}
		case fi.Mode().IsRegular() && isOrgName(filepath.Base(l.path)):
			s.add(foundFile{root: ri, rel: l.rel, path: l.path, real: real, size: fi.Size(), mtime: fi.ModTime()})
		}
	}
	return nil
}

// walkDir walks one folder whose resolved path is real.
func (s *scanner) walkDir(ri int, dir, rel, real string, pending *[]pendingLink) error {
	if err := s.ctx.Err(); err != nil {
		return fmt.Errorf("scanning %s: %w", s.roots[ri].path, err)
	}
	if s.visited[real] {
		return nil
	}
	s.visited[real] = true
	entries, err := os.ReadDir(dir)
	if err != nil {
		if rel == "" {
			return fmt.Errorf("%w: reading %s: %w", ErrRoot, dir, err)
		}
		s.problems = append(s.problems, Finding{Path: dir, Code: CodeUnreadableFolder, Severity: SeverityWarning,
			Message: fmt.Sprintf("the folder %s cannot be read, so its Org files are not in the memex: %v", dir, err)})
		return nil
	}
	for _, e := range entries { // os.ReadDir sorts by name
		name := e.Name()
		if isHidden(name) {
			continue
		}
		p := filepath.Join(dir, name)
		r := joinRel(rel, name)
		switch t := e.Type(); {
		case t&fs.ModeSymlink != 0:
			*pending = append(*pending, pendingLink{path: p, rel: r})
		case t.IsDir():
			if err := s.walkDir(ri, p, r, filepath.Join(real, name), pending); err != nil {
				return err
			}
		case t.IsRegular() && isOrgName(name):
			fi, err := e.Info()
			if err != nil {
				continue // removed meanwhile
			}
			s.add(foundFile{root: ri, rel: r, path: p, real: filepath.Join(real, name), size: fi.Size(), mtime: fi.ModTime()})
		}
	}
	return nil
}

func (s *scanner) add(f foundFile) {
	if _, ok := s.realSeen[f.real]; ok {
		return
	}
	s.realSeen[f.real] = len(s.files)
	s.files = append(s.files, f)
}

func joinRel(rel, name string) string {
	if rel == "" {
		return name
	}
	return rel + "/" + name
}

// errTooLarge marks a file skipped for its size.
var errTooLarge = errors.New("larger than the memex's file size limit")

// readOrgFile reads a regular file of at most max bytes. It refuses
// anything else (a fifo would block), and a file that grew past max while
// being read.
func readOrgFile(path string, max int64) ([]byte, diskState, error) {
	// Opened without waiting and judged by the file opened: a FIFO swapped
	// in after the folder was listed would hold the scan for ever.
	f, fi, err := regfile.Open(path, true)
	if err != nil {
		return nil, diskState{}, err
	}
	defer f.Close()
	if fi.Size() > max {
		return nil, diskState{}, fmt.Errorf("%s holds %d bytes: %w (%d)", path, fi.Size(), errTooLarge, max)
	}
	// Read exactly the size stat gave (no growth slack kept for the life
	// of the snapshot), then make sure nothing follows.
	data := make([]byte, fi.Size())
	if _, err := io.ReadFull(f, data); err != nil {
		return nil, diskState{}, fmt.Errorf("%s changed while being read: %w", path, err)
	}
	var one [1]byte
	if n, _ := f.Read(one[:]); n > 0 {
		rest, err := io.ReadAll(io.LimitReader(f, max))
		if err != nil {
			return nil, diskState{}, err
		}
		data = append(append(data, one[0]), rest...)
		if int64(len(data)) > max {
			return nil, diskState{}, fmt.Errorf("%s: %w (%d)", path, errTooLarge, max)
		}
	}
	return data, readState(fi), nil
}
