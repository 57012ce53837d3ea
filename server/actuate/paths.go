package actuate

import (
	"errors"
	"fmt"
	"os"
	"path"
	"path/filepath"
	"strings"

	"pp-lsp/server/protect"
)

// ProtectedNames are the files in a root only a human changes.
var ProtectedNames = protect.Names

// paths resolves action paths the way DESIGN §6 reads them and knows the
// roots (canonical: absolute, symlinks resolved) and the protected places
// (DESIGN §8), which it recognises by identity.
type paths struct {
	roots  []string
	home   string
	places protect.Places
}

func newPaths(roots []string, home string, private []string) (*paths, error) {
	p := &paths{home: home}
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
	}
	p.places = protect.Places{Roots: p.roots, Private: private}
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
// anything outside the roots, and the protected places by any spelling.
func (p *paths) writable(arg string) (target, error) {
	abs, err := p.abs(arg)
	if err != nil {
		return target{}, err
	}
	c := protect.Canonical(abs)
	i, rel, ok := p.inRoot(c)
	if !ok {
		return target{}, fmt.Errorf("%s is outside the memex roots", arg)
	}
	if rel == "." {
		return target{}, fmt.Errorf("%s is a root folder, not a file", arg)
	}
	if err := p.places.Check(abs); err != nil {
		return target{}, fmt.Errorf("%w; only a human changes it", err)
	}
	return target{abs: abs, c: c, root: i, rel: rel}, nil
}

// protectedFile reports whether abs reaches a protected place.
func (p *paths) protectedFile(abs string) bool { return p.places.Check(abs) != nil }

// openFolder opens the folder of t inside its root (making it when
// needed) as a root of its own, and checks the entry t names in the folder
// actually opened: a symlink swapped into the path after writable's check
// cannot move the write into a protected place. It returns that root and
// the file's name in it.
func (p *paths) openFolder(t target) (*os.Root, string, error) {
	root, err := os.OpenRoot(p.roots[t.root])
	if err != nil {
		return nil, "", err
	}
	defer root.Close()
	dir, base := path.Split(t.rel)
	dir = path.Clean("./" + dir)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return nil, "", fmt.Errorf("making the folder of %s: %w", t.rel, err)
		}
	}
	sub, err := root.OpenRoot(dir)
	if err != nil {
		return nil, "", err
	}
	d, err := sub.Open(".")
	if err != nil {
		sub.Close()
		return nil, "", err
	}
	err = p.places.CheckEntry(d, filepath.Join(p.roots[t.root], filepath.FromSlash(dir)), base)
	d.Close()
	if err != nil {
		sub.Close()
		return nil, "", fmt.Errorf("%w; only a human changes it", err)
	}
	return sub, base, nil
}

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
