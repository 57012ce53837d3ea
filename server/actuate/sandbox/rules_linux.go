//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"syscall"

	"github.com/landlock-lsm/go-landlock/landlock"
	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// The access rights granted (go-landlock's names for the kernel's).
const (
	rightsReadFile  = llsys.AccessFSReadFile | llsys.AccessFSExecute
	rightsReadDir   = llsys.AccessFSReadDir
	rightsWriteFile = llsys.AccessFSWriteFile | llsys.AccessFSTruncate
	// rightsWriteDir makes, removes, renames and writes beneath a folder.
	// Character and block devices and sockets are never made.
	rightsWriteDir = rightsWriteFile | llsys.AccessFSRemoveDir | llsys.AccessFSRemoveFile |
		llsys.AccessFSMakeDir | llsys.AccessFSMakeReg | llsys.AccessFSMakeFifo | llsys.AccessFSMakeSym |
		llsys.AccessFSRefer
	// rightsOnFile are the rights a rule on a file (not a folder) may carry.
	rightsOnFile = llsys.AccessFSExecute | llsys.AccessFSWriteFile | llsys.AccessFSReadFile |
		llsys.AccessFSTruncate | llsys.AccessFSIoctlDev
)

// abiConfigs are go-landlock's configurations by ABI: everything each
// version can restrict is restricted (handled), so that only what a rule
// grants is allowed.
var abiConfigs = []landlock.Config{
	landlock.V1, landlock.V2, landlock.V3, landlock.V4, landlock.V5, landlock.V6,
	landlock.V7, landlock.V8, landlock.V9, landlock.V10, landlock.V11,
}

// ruleset is a Landlock ruleset being filled.
type ruleset struct {
	fd      int
	handled uint64
	rules   int
}

// newRuleset creates a ruleset that handles everything abi can restrict:
// files, TCP (ABI ≥ 4) and UDP (ABI ≥ 10) with no port allowed, signals
// and abstract UNIX sockets scoped to the sandbox (ABI ≥ 6).
func newRuleset(abi int) (*ruleset, error) {
	cfg := abiConfigs[min(abi, len(abiConfigs))-1]
	attr := llsys.RulesetAttr{
		HandledAccessFS:  uint64(cfg.HandledAccessFS),
		HandledAccessNet: uint64(cfg.HandledAccessNet),
		Scoped:           uint64(cfg.Scoped),
	}
	fd, err := llsys.LandlockCreateRuleset(&attr, 0)
	if err != nil {
		return nil, fmt.Errorf("creating the Landlock ruleset: %w", err)
	}
	syscall.CloseOnExec(fd)
	return &ruleset{fd: fd, handled: attr.HandledAccessFS}, nil
}

// file is the ruleset as an *os.File, for the helper's descriptor 3.
func (r *ruleset) file() *os.File { return os.NewFile(uintptr(r.fd), "landlock-ruleset") }

// addFD grants access beneath the file or folder open as fd (O_PATH).
func (r *ruleset) addFD(fd int, isDir bool, access uint64) error {
	access &= r.handled
	if !isDir {
		access &= rightsOnFile
	}
	if access == 0 {
		return nil
	}
	r.rules++
	return llsys.LandlockAddPathBeneathRule(r.fd, &llsys.PathBeneathAttr{AllowedAccess: access, ParentFd: fd}, 0)
}

// addPath grants access beneath a system path, following its symlinks
// (/bin → usr/bin); a missing path is skipped.
func (r *ruleset) addPath(p string, access uint64) error {
	fd, err := unix.Open(p, unix.O_PATH|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) || errors.Is(err, unix.ENOTDIR) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("opening %s for the sandbox: %w", p, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	if err := r.addFD(fd, st.Mode&unix.S_IFMT == unix.S_IFDIR, access); err != nil {
		return fmt.Errorf("granting %s: %w", p, err)
	}
	return nil
}

// grantTree grants read and/or write on the folder dir (open as fd, with
// O_PATH) and everything beneath it, except the hidden places. Landlock
// only allows, and a right on a folder holds for all of it: a folder with
// a hidden place somewhere inside gets only the right to list it, and its
// entries are granted one by one, descending toward the hidden places.
// Entries are opened relative to their folder without following symlinks:
// a symlink is never granted (what it points to is granted, or not, in
// its own place), and no rename can redirect a grant.
func (r *ruleset) grantTree(fd int, dir string, read, write bool, hideRead, hideWrite *hidden) error {
	wholeRead := read && !hideRead.below(dir)
	wholeWrite := write && !hideWrite.below(dir)
	var access uint64
	if read {
		access |= rightsReadDir
	}
	if wholeRead {
		access |= rightsReadFile
	}
	if wholeWrite {
		access |= rightsWriteDir
	}
	if err := r.addFD(fd, true, access); err != nil {
		return fmt.Errorf("granting %s: %w", dir, err)
	}
	splitRead, splitWrite := read && !wholeRead, write && !wholeWrite
	if !splitRead && !splitWrite {
		return nil
	}
	lfd, err := unix.Openat(fd, ".", unix.O_RDONLY|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("listing %s for the sandbox: %w", dir, err)
	}
	list := os.NewFile(uintptr(lfd), dir)
	names, err := list.Readdirnames(-1)
	list.Close()
	if err != nil {
		return fmt.Errorf("listing %s for the sandbox: %w", dir, err)
	}
	for _, name := range names {
		if err := r.grantEntry(fd, filepath.Join(dir, name), name, splitRead, splitWrite, hideRead, hideWrite); err != nil {
			return err
		}
	}
	return nil
}

// grantEntry grants one entry of a folder being split.
func (r *ruleset) grantEntry(dirFD int, p, name string, read, write bool, hideRead, hideWrite *hidden) error {
	fd, err := unix.Openat(dirFD, name, unix.O_PATH|unix.O_NOFOLLOW|unix.O_CLOEXEC, 0)
	if errors.Is(err, unix.ENOENT) {
		return nil // gone meanwhile
	}
	if err != nil {
		return fmt.Errorf("opening %s for the sandbox: %w", p, err)
	}
	defer unix.Close(fd)
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		return fmt.Errorf("%s: %w", p, err)
	}
	id := fileID{uint64(st.Dev), st.Ino}
	read = read && !hideRead.is(p, id)
	write = write && !hideWrite.is(p, id)
	switch st.Mode & unix.S_IFMT {
	case unix.S_IFLNK:
		return nil
	case unix.S_IFDIR:
		if !read && !write {
			return nil
		}
		return r.grantTree(fd, p, read, write, hideRead, hideWrite)
	}
	var access uint64
	if read {
		access |= rightsReadFile
	}
	if write {
		access |= rightsWriteFile
	}
	if err := r.addFD(fd, false, access); err != nil {
		return fmt.Errorf("granting %s: %w", p, err)
	}
	return nil
}

// grantRoot grants a memex root (canonical) minus the hidden places: an
// entry of its parent folder like any other.
func (r *ruleset) grantRoot(root string, hideRead, hideWrite *hidden) error {
	parent, err := unix.Open(filepath.Dir(root), unix.O_PATH|unix.O_DIRECTORY|unix.O_CLOEXEC, 0)
	if err != nil {
		return fmt.Errorf("opening the folder of the root %s for the sandbox: %w", root, err)
	}
	defer unix.Close(parent)
	return r.grantEntry(parent, root, filepath.Base(root), true, true, hideRead, hideWrite)
}

// globEtc expands one entry of etcReads under /etc.
func globEtc(pattern string) ([]string, error) {
	return filepath.Glob(filepath.Join("/etc", pattern))
}
