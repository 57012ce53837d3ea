package actuate

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// ProtectedNames are the files in a root only a human changes.
var ProtectedNames = []string{"flightplans.org", "journal.org"}

// paths resolves action paths the way DESIGN §6 reads them and knows the
// roots and the protected files, all canonical (absolute, symlinks
// resolved).
type paths struct {
	roots     []string
	home      string
	protected map[string]bool
}

func newPaths(roots []string, home string) (*paths, error) {
	p := &paths{home: home, protected: map[string]bool{}}
	for _, r := range roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		c, err := filepath.EvalSymlinks(abs)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		p.roots = append(p.roots, c)
		for _, n := range ProtectedNames {
			p.protected[filepath.Join(c, n)] = true
		}
	}
	return p, nil
}

// abs makes an action's path absolute: "~" and "~/…" start at home, a
// relative path at the first root.
func (p *paths) abs(arg string) (string, error) {
	if arg == "" {
		return "", errors.New("the path is empty")
	}
	if strings.ContainsRune(arg, 0) {
		return "", errors.New("the path holds a NUL byte")
	}
	switch {
	case arg == "~" || strings.HasPrefix(arg, "~/"):
		if p.home == "" {
			return "", fmt.Errorf("%s: the home folder is unknown", arg)
		}
		return filepath.Join(p.home, arg[1:]), nil
	case filepath.IsAbs(arg):
		return filepath.Clean(arg), nil
	}
	return filepath.Join(p.roots[0], arg), nil
}

// canonical resolves the symlinks of abs's longest existing prefix; the
// part that does not exist yet is joined as it is.
func canonical(abs string) string {
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

// inRoot finds the root holding the canonical path c and c relative to it
// (slash-separated).
func (p *paths) inRoot(c string) (int, string, bool) {
	for i, r := range p.roots {
		if c == r {
			return i, ".", true
		}
		if rel, err := filepath.Rel(r, c); err == nil && rel != ".." && !strings.HasPrefix(rel, "../") {
			return i, filepath.ToSlash(rel), true
		}
	}
	return 0, "", false
}

// target is a path an action writes: where it is, canonically, and which
// root confines the write.
type target struct {
	abs  string // as the action named it, absolute
	c    string // canonical
	root int
	rel  string
}

// writable resolves a path to write and refuses what no action may write:
// anything outside the roots, and the protected files.
func (p *paths) writable(arg string) (target, error) {
	abs, err := p.abs(arg)
	if err != nil {
		return target{}, err
	}
	c := canonical(abs)
	i, rel, ok := p.inRoot(c)
	if !ok {
		return target{}, fmt.Errorf("%s is outside the memex roots", arg)
	}
	if rel == "." {
		return target{}, fmt.Errorf("%s is a root folder, not a file", arg)
	}
	if p.protected[c] {
		return target{}, fmt.Errorf("%s is %s, which only a human changes", arg, filepath.Base(c))
	}
	return target{abs: abs, c: c, root: i, rel: rel}, nil
}

// protectedFile reports whether the canonical form of abs is protected.
func (p *paths) protectedFile(abs string) bool { return p.protected[canonical(abs)] }

// dir resolves a working folder, which must be an existing folder inside
// the roots.
func (p *paths) dir(arg string) (string, error) {
	if arg == "" {
		arg = "."
	}
	abs, err := p.abs(arg)
	if err != nil {
		return "", err
	}
	c, err := filepath.EvalSymlinks(abs)
	if err != nil {
		return "", fmt.Errorf("the working folder %s does not exist", arg)
	}
	if _, _, ok := p.inRoot(c); !ok {
		return "", fmt.Errorf("the working folder %s is outside the memex roots", arg)
	}
	if fi, err := os.Stat(c); err != nil || !fi.IsDir() {
		return "", fmt.Errorf("the working folder %s is not a folder", arg)
	}
	return c, nil
}

// protectedPaths lists the protected files, for the guard around commands.
func (p *paths) protectedPaths() []string {
	var out []string
	for _, r := range p.roots {
		for _, n := range ProtectedNames {
			out = append(out, filepath.Join(r, n))
		}
	}
	return out
}
