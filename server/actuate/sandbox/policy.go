package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

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

// gitHooks lists .git/hooks and .git/config of the repositories at a
// root or one level below: what git runs later, outside any sandbox, when
// the user commits (core.hooksPath, core.fsmonitor, the hooks).
func gitHooks(roots []string) []string {
	var out []string
	add := func(dir string) {
		g := filepath.Join(dir, ".git")
		if fi, err := os.Lstat(g); err == nil && fi.IsDir() {
			out = append(out, filepath.Join(g, "hooks"), filepath.Join(g, "config"))
		}
	}
	for _, r := range roots {
		add(r)
		names, _ := readNames(r)
		for _, n := range names {
			p := filepath.Join(r, n)
			if fi, err := os.Lstat(p); err == nil && fi.IsDir() {
				add(p)
			}
		}
	}
	return out
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
