package protect

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
)

// Names are the server's own files in a root, which only a human (and the
// server's bookkeeping) changes.
var Names = []string{"flightplans.org", "journal.org"}

// ErrProtected is wrapped by every refusal of Check.
var ErrProtected = errors.New("a protected place")

// Places are the protected places of one install.
type Places struct {
	// Roots are the memex roots: Names in each are protected.
	Roots []string
	// Private are folders and files protected with everything below them:
	// the data, config and runtime dirs, the configuration file.
	Private []string
}

// maxWalk bounds the files a hard-link check compares with; beyond it the
// path is refused (see the package invariant).
const maxWalk = 100_000

// place is one protected place, in the spellings Check compares with.
type place struct {
	what     string   // how a refusal names it
	spelled  []string // the path as configured and resolved
	info     fs.FileInfo
	contents bool // everything below it is protected too
}

// places lists every place, each with its spellings and, when it exists,
// its identity (a symlink's target's).
func (p Places) places() []place {
	var out []place
	add := func(what, path string, contents bool) {
		if path == "" {
			return
		}
		abs, err := filepath.Abs(path)
		if err != nil {
			return
		}
		pl := place{what: what, spelled: []string{abs}, contents: contents}
		if c := Canonical(abs); c != abs {
			pl.spelled = append(pl.spelled, c)
		}
		pl.info, _ = os.Stat(abs)
		out = append(out, pl)
	}
	for _, r := range p.Roots {
		for _, n := range Names {
			add(n, filepath.Join(r, n), false)
		}
	}
	for _, d := range p.Private {
		add(filepath.Base(d), d, true)
	}
	return out
}

// Check refuses path (absolute) when it is, or reaches, a protected place:
// the same name in any case, inside a protected folder, a symlink to one,
// or the same file by another link. The error names the place and wraps
// ErrProtected.
func (p Places) Check(path string) error {
	abs := filepath.Clean(path)
	c := Canonical(abs)
	fi, err := os.Stat(c)
	if err != nil {
		fi = nil
	}
	return p.check(path, []string{abs, c}, fi)
}

// CheckOpen refuses the file f, opened by the name path, when it is a
// protected place. It checks what was opened — the file's own path as the
// kernel has it where the system says so, and its identity — so that a
// symlink swapped in between a Check and the open does not slip through.
func (p Places) CheckOpen(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	spellings := []string{filepath.Clean(path), Canonical(filepath.Clean(path))}
	if real, ok := openedPath(f); ok {
		spellings = append(spellings, real)
	}
	return p.check(path, spellings, fi)
}

// CheckEntry refuses the entry name of the open folder dir (opened by the
// path dirPath) when it is a protected place, comparing the folder's own
// path as the kernel has it, so that a symlink swapped in after a Check
// does not move what is written there. Entries are replaced by a rename
// (never written through), so the name is what counts.
func (p Places) CheckEntry(dir *os.File, dirPath, name string) error {
	shown := filepath.Join(dirPath, name)
	spellings := []string{shown, Canonical(shown)}
	if real, ok := openedPath(dir); ok {
		spellings = append(spellings, filepath.Join(real, name))
	}
	return p.check(shown, spellings, nil)
}

func (p Places) check(path string, spellings []string, fi fs.FileInfo) error {
	refuse := func(pl place, how string) error {
		return fmt.Errorf("%s is %s%s, which no action may read or write: %w", path, pl.what, how, ErrProtected)
	}
	all := p.places()
	for _, pl := range all {
		for _, s := range spellings {
			for _, ps := range pl.spelled {
				if strings.EqualFold(s, ps) {
					return refuse(pl, "")
				}
				if pl.contents && within(s, ps) {
					return refuse(pl, fmt.Sprintf(" (%s is inside it)", filepath.Base(s)))
				}
			}
		}
	}
	if fi == nil {
		return nil
	}
	for _, pl := range all {
		if pl.info != nil && os.SameFile(fi, pl.info) {
			return refuse(pl, " by another name")
		}
	}
	if !fi.Mode().IsRegular() || links(fi) < 2 {
		return nil
	}
	// Another link of the file may be anywhere; the protected ones are in
	// the protected places (the names of a root were compared above).
	seen := 0
	for _, pl := range all {
		if !pl.contents || pl.info == nil || !pl.info.IsDir() {
			continue
		}
		err := filepath.WalkDir(pl.spelled[len(pl.spelled)-1], func(_ string, d fs.DirEntry, err error) error {
			if err != nil {
				return nil
			}
			if seen++; seen > maxWalk {
				return errTooMany
			}
			if d.Type().IsRegular() {
				if i, err := d.Info(); err == nil && os.SameFile(fi, i) {
					return errSame
				}
			}
			return nil
		})
		switch {
		case errors.Is(err, errSame):
			return refuse(pl, fmt.Sprintf(" (%s is a hard link to a file in it)", filepath.Base(path)))
		case errors.Is(err, errTooMany):
			return fmt.Errorf("%s has %d links, and %s holds too many files to rule out that one is there: %w", path, links(fi), pl.what, ErrProtected)
		}
	}
	return nil
}

var (
	errSame    = errors.New("same file")
	errTooMany = errors.New("too many files")
)

// within reports whether path is below dir, comparing without regard to
// case.
func within(path, dir string) bool {
	if len(path) <= len(dir) || !strings.EqualFold(path[:len(dir)], dir) {
		return false
	}
	return path[len(dir)] == filepath.Separator || strings.HasSuffix(dir, string(filepath.Separator))
}

// Canonical resolves the symlinks of abs's longest existing prefix; the
// part that does not exist yet is joined as it is. It is the one rule by
// which the actuators, the sandbox and the agent tell that two spellings
// name one place.
func Canonical(abs string) string {
	abs = filepath.Clean(abs)
	rest := ""
	cur := abs
	for {
		if c, err := filepath.EvalSymlinks(cur); err == nil {
			return filepath.Join(c, rest)
		}
		parent := filepath.Dir(cur)
		if parent == cur {
			return abs
		}
		rest = filepath.Join(filepath.Base(cur), rest)
		cur = parent
	}
}

// Inside reports the root that holds dir (canonically, without regard to
// case), if one does: the data directory must never be inside a root.
func Inside(dir string, roots []string) (string, bool) {
	abs, err := filepath.Abs(dir)
	if err != nil {
		return "", false
	}
	c := Canonical(abs)
	for _, r := range roots {
		ra, err := filepath.Abs(r)
		if err != nil {
			continue
		}
		for _, rs := range []string{ra, Canonical(ra)} {
			for _, s := range []string{abs, c} {
				if strings.EqualFold(s, rs) || within(s, rs) {
					return r, true
				}
			}
		}
	}
	return "", false
}
