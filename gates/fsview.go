package gates

import (
	"errors"
	"io/fs"
	"path/filepath"
	"slices"
	"strings"
	"syscall"
)

// fsView resolves symlinks for one check. It walks a path exactly as
// filepath.EvalSymlinks does, but asks the file system about each
// directory once per check: the paths of one action share their roots and
// folders, and a command naming ten files inside a root would otherwise
// stat the root's ancestors ten times. It lives only as long as one check,
// so a change on disk is seen by the next check, as before.
type fsView struct {
	nodes smallMemo[string, fsNode]
	// names are the entries of the directories listed during the check
	// (nil: too many to keep), to tell cheaply that a word names no file
	// and to expand globs.
	names smallMemo[string, *dirNames]
	// asked counts the names looked up in directories not yet listed: a
	// few are asked of the system one by one, more list the directory.
	asked int
}

// namesBeforeListing is how many names are looked up one by one before
// a directory is listed instead.
const namesBeforeListing = 4

// maxListedNames bounds the entries kept of one directory.
const maxListedNames = 4096

// hasName says whether the directory dir holds an entry called name; known
// is false when that cannot be told from a listing (no view, a directory
// that cannot be read or is too large), and the caller must look.
func (v *fsView) hasName(dir, name string) (exists, known bool) {
	if v == nil {
		return false, false
	}
	set, ok := v.names.get(dir)
	if !ok && v.asked < namesBeforeListing {
		v.asked++
		n := v.lstat(dir + "/" + name)
		switch {
		case n.err == nil:
			return true, true
		case errors.Is(n.err, fs.ErrNotExist) || errors.Is(n.err, syscall.ENOTDIR) || errors.Is(n.err, syscall.ENAMETOOLONG):
			return false, true
		}
		return false, false
	}
	if !ok {
		set = v.list(dir)
	}
	if set == nil {
		return false, false
	}
	_, exists = set.set[name]
	return exists, true
}

// unlisted says whether p is a name its folder's listing, taken during
// the check, does not hold.
func (v *fsView) unlisted(p string) bool {
	i := strings.LastIndexByte(p, '/')
	if i < 0 || i == len(p)-1 {
		return false
	}
	dir, name := p[:i], p[i+1:]
	if i == 0 {
		dir = "/"
	}
	if name == "." || name == ".." {
		return false
	}
	d, ok := v.names.get(dir)
	if !ok || d == nil {
		return false
	}
	_, in := d.set[name]
	return !in
}

// list returns the listing of dir, reading it on first use in the check.
func (v *fsView) list(dir string) *dirNames {
	if d, ok := v.names.get(dir); ok {
		return d
	}
	d := listNames(dir)
	v.names.put(dir, d)
	return d
}

// dirNames is a directory's listing: its entry names as a set, and in
// sorted order once a glob asked for them so.
type dirNames struct {
	set    map[string]struct{}
	names  []string
	sorted bool
}

// sortedNames returns the entry names in sorted order.
func (d *dirNames) sortedNames() []string {
	if !d.sorted {
		slices.Sort(d.names)
		d.sorted = true
	}
	return d.names
}

// noEntries is the listing of a folder that does not exist. It is never
// changed: it has no names to sort.
var noEntries = &dirNames{set: map[string]struct{}{}, sorted: true}

// newDirNames is the dirNames of a directory's entry names, as listNames
// read them.
func newDirNames(names []string) *dirNames {
	set := make(map[string]struct{}, len(names))
	for _, n := range names {
		set[n] = struct{}{}
	}
	return &dirNames{set: set, names: names}
}

// glob is filepath.Glob for a pattern whose directory part holds no
// pattern characters, answered from the check's listing of that directory:
// the same matches in the same order (Glob sorts a folder's names before
// matching them), and the same error for a malformed pattern. ok is false
// when the listing cannot answer (no view, a pattern over several folders,
// a folder that cannot be read or is too large); the caller then asks
// filepath.Glob.
func (v *fsView) glob(pattern string) (matches []string, ok bool, err error) {
	if v == nil {
		return nil, false, nil
	}
	if _, err := filepath.Match(pattern, ""); err != nil {
		return nil, true, err
	}
	dir, file := filepath.Split(pattern)
	switch dir {
	case "":
		dir = "."
	case "/":
	default:
		dir = dir[:len(dir)-1] // as filepath.Glob cleans it: no trailing slash
	}
	if strings.ContainsAny(dir, `*?[\`) || !strings.ContainsAny(file, `*?[\`) {
		return nil, false, nil
	}
	d := v.list(dir)
	if d == nil {
		return nil, false, nil
	}
	for _, n := range d.sortedNames() {
		m, err := filepath.Match(file, n)
		if err != nil {
			return matches, true, err
		}
		if m {
			matches = append(matches, filepath.Join(dir, n))
		}
	}
	return matches, true, nil
}

// fsNode is what Lstat (and, for a symlink, Readlink) said about a path.
type fsNode struct {
	mode fs.FileMode
	err  error
	link string // the target of a symlink
	// A regular file's identity and link count: a file with another hard
	// link may be a protected file under a second name.
	dev, ino uint64
	nlink    uint64
}

func (v *fsView) lstat(p string) fsNode {
	if v != nil {
		if n, ok := v.nodes.get(p); ok {
			return n
		}
		if v.unlisted(p) {
			// Its folder was listed in this check without it: no
			// such file, as Lstat would say.
			n := fsNode{err: syscall.ENOENT}
			if v.nodes.len() < 4096 {
				v.nodes.put(p, n)
			}
			return n
		}
	}
	n := lstatNode(p)
	if v != nil && v.nodes.len() < 4096 {
		v.nodes.put(p, n)
	}
	return n
}

var errTooManyLinks = errors.New("EvalSymlinks: too many links")

// evalSymlinks is filepath.EvalSymlinks for an absolute path on Unix,
// step for step (the same lexical handling of "." and "..", the same
// ENOTDIR for a file followed by more components, the same limit of 255
// links), with its answers from the view. sawLink reports whether any
// component walked was a symlink.
func (v *fsView) evalSymlinks(path string) (resolved string, sawLink bool, err error) {
	if !strings.HasPrefix(path, "/") {
		r, err := filepath.EvalSymlinks(path)
		return r, true, err
	}
	const volLen = 1
	dest := "/"
	links := 0
	for start, end := volLen, volLen; start < len(path); start = end {
		for start < len(path) && path[start] == '/' {
			start++
		}
		end = start
		for end < len(path) && path[end] != '/' {
			end++
		}
		switch {
		case end == start:
			continue // trailing slashes: the loop ends
		case path[start:end] == ".":
			continue
		case path[start:end] == "..":
			r := strings.LastIndexByte(dest, '/')
			if r < volLen || dest[r+1:] == ".." {
				if len(dest) > volLen {
					dest += "/"
				}
				dest += ".."
			} else {
				dest = dest[:r]
			}
			continue
		}
		if len(dest) > 0 && dest[len(dest)-1] != '/' {
			dest += "/"
		}
		dest += path[start:end]
		n := v.lstat(dest)
		if n.mode&fs.ModeSymlink == 0 {
			if n.err != nil {
				return "", sawLink, n.err
			}
			if !n.mode.IsDir() && end < len(path) {
				return "", sawLink, syscall.ENOTDIR
			}
			continue
		}
		sawLink = true
		if links++; links > 255 {
			return "", sawLink, errTooManyLinks
		}
		if n.err != nil {
			return "", sawLink, n.err
		}
		path = n.link + path[end:]
		if strings.HasPrefix(n.link, "/") {
			dest, end = "/", 1
		} else {
			if r := strings.LastIndexByte(dest, '/'); r < volLen {
				dest = "/"
			} else {
				dest = dest[:r]
			}
			end = 0
		}
	}
	return filepath.Clean(dest), sawLink, nil
}

// resolveExisting resolves symlinks along the longest existing prefix of an
// absolute clean path and appends the rest unchanged: what
// EvalSymlinks(p) returns when it succeeds, and otherwise
// EvalSymlinks(parent)+rest for the nearest parent that succeeds. sawLink
// reports whether the walk of the whole path met a symlink: without one,
// nothing below a root can lead out of it.
//
// One walk answers it. A parent's walk is the same steps as the path's,
// up to the end of the parent's last component, so the walk records where
// it stood at the end of each component of p, and on failure answers from
// the last one it completed — or from the component it failed in, when
// the failure was only that a file was followed by more components (the
// parent ending there would not ask).
func (v *fsView) resolveExisting(p string) (resolved string, sawLink bool) {
	resolved, sawLink, _ = v.resolve(p)
	return resolved, sawLink
}

// resolve is resolveExisting that also says whether the whole path
// exists: whole is true when every component was walked, and resolved is
// then the canonical name of an existing file, whose Lstat the view
// holds. Otherwise no regular file has the name resolved: an Lstat of it
// fails, or finds the link the walk could not follow.
func (v *fsView) resolve(p string) (resolved string, sawLink, whole bool) {
	if !strings.HasPrefix(p, "/") || filepath.Clean(p) != p {
		return v.resolveExistingByParents(p)
	}
	path := p
	dest := "/"
	links := 0
	// The original component being walked ends where tail (p after it)
	// begins; good is where the walk stood after the last one completed,
	// rest the components after that one.
	tail := p[min(len(p), nextSlash(p, 1)):]
	good, rest := "/", p
	// aligned: no link has been followed, so the walk stands on a prefix
	// of p, which dest is a slice of rather than a new string.
	aligned := true
	for start, end := 1, 1; start < len(path); start = end {
		for start < len(path) && path[start] == '/' {
			start++
		}
		if start > len(path)-len(tail) {
			// The walk has left the current component of p: it
			// resolved, and so would a walk of p up to it.
			good, rest = dest, tail
			tail = tail[min(len(tail), nextSlash(tail, 1)):]
		}
		end = start
		for end < len(path) && path[end] != '/' {
			end++
		}
		switch {
		case end == start:
			continue
		case path[start:end] == ".":
			aligned = false // not in a clean path
			continue
		case path[start:end] == "..":
			aligned = false
			r := strings.LastIndexByte(dest, '/')
			if r < 1 || dest[r+1:] == ".." {
				if len(dest) > 1 {
					dest += "/"
				}
				dest += ".."
			} else {
				dest = dest[:r]
			}
			continue
		}
		if aligned {
			dest = p[:end]
		} else {
			if dest[len(dest)-1] != '/' {
				dest += "/"
			}
			dest += path[start:end]
		}
		n := v.lstat(dest)
		if n.mode&fs.ModeSymlink == 0 {
			if n.err != nil {
				return joinRestOf(p, good, rest), sawLink, false
			}
			if !n.mode.IsDir() && end < len(path) {
				if end == len(path)-len(tail) {
					// Only the components after this one fail: the walk
					// of p up to here succeeds.
					return joinRestOf(p, dest, tail), sawLink, false
				}
				return joinRestOf(p, good, rest), sawLink, false
			}
			continue
		}
		sawLink = true
		aligned = false
		if links++; links > 255 || n.err != nil {
			return joinRestOf(p, good, rest), sawLink, false
		}
		path = n.link + path[end:]
		if strings.HasPrefix(n.link, "/") {
			dest, end = "/", 1
		} else {
			if r := strings.LastIndexByte(dest, '/'); r < 1 {
				dest = "/"
			} else {
				dest = dest[:r]
			}
			end = 0
		}
	}
	if aligned {
		return p, sawLink, true // p, clean, walked as it is written
	}
	return filepath.Clean(dest), sawLink, true
}

// nextSlash is the index of the first '/' in s at or after from, or
// len(s).
func nextSlash(s string, from int) int {
	if from >= len(s) {
		return len(s)
	}
	if i := strings.IndexByte(s[from:], '/'); i >= 0 {
		return from + i
	}
	return len(s)
}

// joinRestOf is joinRest(dir, rest) for the walk of the clean path p:
// when dir and rest are p split in two, p itself.
func joinRestOf(p, dir, rest string) string {
	if len(dir)+len(rest) == len(p) && p[:len(dir)] == dir && p[len(dir):] == rest {
		return p
	}
	return joinRest(dir, rest)
}

// joinRest is filepath.Join(Clean(dir), rest) for rest "" or "/c/…".
func joinRest(dir, rest string) string {
	return filepath.Clean(dir + rest)
}

// resolveExistingByParents is resolveExisting as first written: the path,
// then each parent, until one resolves. It serves paths that are not
// absolute and clean.
func (v *fsView) resolveExistingByParents(p string) (resolved string, sawLink, whole bool) {
	r, sawLink, err := v.evalSymlinks(p)
	if err == nil {
		return r, sawLink, true
	}
	dir, rest := filepath.Dir(p), filepath.Base(p)
	for dir != "/" && dir != "." {
		if r, _, err := v.evalSymlinks(dir); err == nil {
			return filepath.Join(r, rest), sawLink, false
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = filepath.Dir(dir)
	}
	return p, sawLink, false
}
