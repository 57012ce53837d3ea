package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"pp-lsp/internal/protname"
	"pp-lsp/server/protect"
)

// systemReads are the folders every command may read and execute from:
// the programs, libraries and shared data of the system (hier(7)). A
// missing one is skipped.
var systemReads = []string{
	"/usr",    // hier(7): programs, libraries, shared data (terminfo, zoneinfo, locales)
	"/bin",    // hier(7): essential programs (a link to /usr/bin where /usr is merged)
	"/sbin",   // hier(7)
	"/lib",    // hier(7): essential shared libraries, the dynamic loader
	"/lib32",  // multiarch (Debian policy §9.1.1)
	"/lib64",  // the x86-64 dynamic loader's path (System V ABI, AMD64 supplement §5.2.1)
	"/libx32", // multiarch
	"/opt",    // hier(7): add-on application packages
}

// etcReads are the entries of /etc a shell and its common programs read
// — an allow-list: /etc also holds credentials (ssh host keys, ssl/private,
// shadow, NetworkManager connections), and none of those is here. Globs
// follow filepath.Match.
var etcReads = []string{
	"ld.so.cache", "ld.so.conf", "ld.so.conf.d", "ld.so.preload", // ld.so(8)
	"nsswitch.conf", "passwd", "group", // nsswitch.conf(5), getpwuid(3): `ls -l`, `id`, git's author (no secrets: those are in shadow)
	"localtime", "timezone", // tzset(3), Debian's tzdata
	"locale.alias", "locale.conf", "default/locale", // setlocale(3), locale.conf(5)
	"gitconfig",           // git-config(1): the system-wide file
	"magic", "magic.mime", // file(1), magic(5)
	"mime.types",                   // Python's mimetypes, mailcap(5)
	"terminfo",                     // terminfo(5)
	"python3*",                     // Debian's sitecustomize.py, which /usr/lib/python3.*/sitecustomize.py links to
	"perl",                         // Debian perl's @INC starts with /etc/perl
	"os-release", "debian_version", // os-release(5): platform probes of Python, Node, Go
	"ssl/openssl.cnf", // config(5ssl): Node and Python's ssl read it at start (ssl/private is not listed)
}

// devices are the character devices a command may read and write.
var devices = []string{"/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom"}

// hidden is a set of places a command may not reach with some right:
// canonical paths, and the identities of those that exist (a hard link
// or a case-variant spelling of one is the same file).
type hidden struct {
	paths []string // sorted
	ids   map[fileID]bool
}

// fileID is a file's identity on its device.
type fileID struct{ dev, ino uint64 }

func newHidden(paths []string) *hidden {
	h := &hidden{ids: map[fileID]bool{}}
	for _, p := range paths {
		c := protect.Canonical(p)
		h.paths = append(h.paths, c)
		if p != c {
			h.paths = append(h.paths, filepath.Clean(p))
		}
		if id, ok := identity(c); ok {
			h.ids[id] = true
		}
	}
	slices.Sort(h.paths)
	h.paths = slices.Compact(h.paths)
	return h
}

// is reports whether the entry at path, of identity id, is hidden.
func (h *hidden) is(path string, id fileID) bool {
	if h.ids[id] {
		return true
	}
	_, ok := slices.BinarySearch(h.paths, path)
	return ok
}

// below reports whether a hidden place lies strictly inside dir.
func (h *hidden) below(dir string) bool {
	prefix := dir + string(filepath.Separator)
	if dir == string(filepath.Separator) {
		prefix = dir
	}
	i, _ := slices.BinarySearch(h.paths, prefix)
	return i < len(h.paths) && strings.HasPrefix(h.paths[i], prefix)
}

// within reports whether p is dir or lies inside it (both clean).
func within(p, dir string) bool {
	if p == dir || dir == string(filepath.Separator) {
		return true
	}
	return strings.HasPrefix(p, dir+string(filepath.Separator))
}

// checkRoots refuses a root that holds the system's folders: writes
// inside a root are allowed, and /usr or /etc must never be writable.
func checkRoots(roots []string) error {
	for _, r := range roots {
		for _, sys := range append(slices.Clone(systemReads), "/etc", "/dev", "/proc", "/sys", "/boot", "/var", "/run") {
			if within(sys, r) {
				return fmt.Errorf("the root %s holds the system folder %s; the sandbox cannot confine a command's writes inside it (choose a narrower root)", r, sys)
			}
		}
	}
	return nil
}

// privateVariants are the other names under which an editor keeps a
// file's text: Emacs's backup, auto-save and lock files, Org's archive.
func privateVariants(p string) []string {
	dir, base := filepath.Split(p)
	return []string{p, p + "~", dir + "#" + base + "#", dir + ".#" + base, p + "_archive"}
}

// dotEntries lists home's entries whose name starts with a dot — shell
// start-up files, credentials, every program's configuration — when home
// lies inside a root (a root of ~ would otherwise open them all).
func dotEntries(home string, roots []string) []string {
	if home == "" {
		return nil
	}
	home = protect.Canonical(home)
	inside := false
	for _, r := range roots {
		inside = inside || within(home, r)
	}
	if !inside {
		return nil
	}
	names, _ := readNames(home)
	var out []string
	for _, n := range names {
		if strings.HasPrefix(n, ".") {
			out = append(out, filepath.Join(home, n))
		}
	}
	return out
}

// maxNamedWalk bounds the entries walked in the roots to find the
// protected names (namedPlaces); past it a command is not run, as its
// writes could not be confined.
const maxNamedWalk = 1_000_000

// namedPlace is an entry of a root that internal/protname's table names.
type namedPlace struct {
	path string
	// hide are the paths kept unwritable for it: the entry, or for a
	// .git folder its hooks and config.
	hide []string
	// folder is the identity of the folder that held it: the same path
	// under a folder put in the place of that one (its parent, or one
	// higher up, renamed away) is a new entry.
	folder fileID
}

// namedPlaces walks the roots (never following a symlink, never below a
// named folder) for every entry protname's table names — .git, .vscode,
// .husky, .envrc, .dir-locals.el, the hook managers' files… at any depth —
// and returns them. What the gates refuse to write, the sandbox keeps
// unwritable where it exists; Landlock cannot keep a name that does not
// exist yet from being made in a folder a command may write, so the runs
// look for those afterwards (newNamed).
//
// visit, when not nil, is called with every folder walked and its depth
// below its root (0: the root).
func namedPlaces(roots []string, visit func(dir string, depth int)) ([]namedPlace, error) {
	var out []namedPlace
	n := 0
	var walk func(dir string, depth int) error
	walk = func(dir string, depth int) error {
		if visit != nil {
			visit(dir, depth)
		}
		f, err := openDir(dir)
		if err != nil {
			return nil // gone, or unreadable to us and so to the command
		}
		var folder fileID
		if fi, err := f.Stat(); err == nil {
			folder, _ = infoIdentity(fi)
		}
		ents, err := f.ReadDir(-1)
		f.Close()
		if err != nil {
			return nil
		}
		n += len(ents)
		if n > maxNamedWalk {
			return fmt.Errorf("the roots hold more than %d entries; the sandbox cannot look for the files it must keep unwritable (.envrc, .git/hooks…) in them all", maxNamedWalk)
		}
		for _, e := range ents {
			p := filepath.Join(dir, e.Name())
			if ent, ok := protname.Match(e.Name(), depth); ok {
				np := namedPlace{path: p, hide: []string{p}, folder: folder}
				if ent.Kind == protname.Folder && ent.Sandbox != nil && e.IsDir() {
					np.hide = nil
					for _, sub := range ent.Sandbox {
						np.hide = append(np.hide, filepath.Join(p, sub))
					}
				}
				out = append(out, np)
				continue
			}
			if e.IsDir() {
				if err := walk(p, depth+1); err != nil {
					return err
				}
			}
		}
		return nil
	}
	for _, r := range roots {
		if err := walk(r, 0); err != nil {
			return nil, err
		}
	}
	return out, nil
}

// newNamed renames aside every entry namedPlaces finds now that was not
// among before — a protected name a command made in a folder it may write
// — and returns what it did, one "OLD (now NEW)" each.
func newNamed(roots []string, before []namedPlace) ([]string, error) {
	after, err := namedPlaces(roots, nil)
	if err != nil {
		return nil, err
	}
	had := make(map[string]fileID, len(before))
	for _, b := range before {
		had[b.path] = b.folder
	}
	var moved []string
	for _, a := range after {
		if folder, ok := had[a.path]; ok && folder == a.folder {
			continue
		}
		if len(a.hide) > 0 && a.hide[0] != a.path {
			// A new repository (git init, git clone a human approved) stays:
			// only what it runs is moved aside (its hooks but git's samples,
			// a config with a setting that is not plain, a commondir that
			// would take git's config and hooks from another folder).
			m, err := newRepository(a.path, a.hide[0])
			moved = append(moved, m...)
			if err != nil {
				return moved, err
			}
			continue
		}
		m, err := moveAside(a.path)
		if err != nil {
			return moved, err
		}
		moved = append(moved, m)
	}
	return moved, nil
}

// newRepository moves aside what a new repository's .git folder would
// run: its hooks but git's samples, its config unless every setting is
// plain (gitConfigPlain), and a commondir file (git would read the config
// and hooks of the folder it names).
func newRepository(gitDir, hooks string) ([]string, error) {
	var moved []string
	if fi, err := os.Lstat(hooks); err == nil && !fi.IsDir() {
		// A symlink (to a folder outside the roots, perhaps) is moved
		// aside itself, never listed and its entries renamed.
		m, err := moveAside(hooks)
		if err != nil {
			return nil, err
		}
		moved = append(moved, m)
	} else if moved, err = newHooks(hooks); err != nil {
		return moved, err
	}
	config := filepath.Join(gitDir, "config")
	if fi, err := os.Lstat(config); err == nil {
		plain := false
		if fi.Mode().IsRegular() && fi.Size() <= maxGitConfig {
			data, err := os.ReadFile(config)
			_, plain = gitConfigPlain(data)
			plain = plain && err == nil
		}
		if !plain {
			m, err := moveAside(config)
			if err != nil {
				return moved, err
			}
			moved = append(moved, m)
		}
	}
	common := filepath.Join(gitDir, "commondir")
	if _, err := os.Lstat(common); err == nil {
		m, err := moveAside(common)
		if err != nil {
			return moved, err
		}
		moved = append(moved, m)
	}
	return moved, nil
}

// maxGitConfig bounds the config of a new repository that is read: git
// init and clone write a few hundred bytes.
const maxGitConfig = 1 << 20

// newHooks moves aside every entry of a new repository's hooks folder but
// git's own samples (*.sample, which git never runs).
func newHooks(dir string) ([]string, error) {
	var names []string
	if f, err := openDir(dir); err == nil {
		names, _ = f.Readdirnames(-1)
		f.Close()
	}
	var moved []string
	for _, n := range names {
		if strings.HasSuffix(n, ".sample") {
			continue
		}
		m, err := moveAside(filepath.Join(dir, n))
		if err != nil {
			return moved, err
		}
		moved = append(moved, m)
	}
	return moved, nil
}

// moveAside renames p to p.refused (or p.refused-N, the first free) and
// says so: "P (now NAME)".
func moveAside(p string) (string, error) {
	dir, err := openDir(filepath.Dir(p))
	if err != nil {
		return "", fmt.Errorf("moving aside %s, which a command made: %w", p, err)
	}
	defer dir.Close()
	return moveAsideAt(dir, filepath.Dir(p), filepath.Base(p))
}

// readNames lists a folder's entry names.
func readNames(dir string) ([]string, error) {
	f, err := os.Open(dir)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return f.Readdirnames(-1)
}
