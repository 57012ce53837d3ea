package protect

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"

	"pp-lsp/internal/regfile"
	"pp-lsp/server/seal"
)

// ErrNotOwn is wrapped by the refusal of a flightplans.org or journal.org
// that is not a regular file with one link that only its user may write.
var ErrNotOwn = errors.New("refused")

// MaxOwnFile bounds what ReadOwnFile reads.
const MaxOwnFile = 64 << 20

// OwnFile checks that path, one of the server's own files in a root, may be
// used: it does not exist yet, or it is a regular file with a single link,
// of this user's, that no other user may write. A symlink (into a synced
// folder, say) or a file with another hard link could carry someone else's
// plans in, or the server's writes out; a file another user may write (or
// owns) could carry their approval of a plan, which only its user gives.
func OwnFile(path string) error {
	fi, err := os.Lstat(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking %s: %w", path, err)
	}
	return ownInfo(path, fi)
}

func ownInfo(path string, fi fs.FileInfo) error {
	name := filepath.Base(path)
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		target, _ := os.Readlink(path)
		return fmt.Errorf("%s is a symlink (to %s): pp-lsp uses %s only as a regular file of its own in the root, so it is %w until the link is replaced by the file itself", path, target, name, ErrNotOwn)
	case !fi.Mode().IsRegular():
		return fmt.Errorf("%s is not a regular file: pp-lsp's use of it is %w", path, ErrNotOwn)
	case links(fi) > 1:
		return fmt.Errorf("%s has %d hard links: another name can change it behind pp-lsp, so its use is %w until it is a file with one link (copy it, remove it, move the copy back)", path, links(fi), ErrNotOwn)
	case !seal.OwnedByMe(fi):
		return fmt.Errorf("%s belongs to another user, who could approve a plan in it: its use is %w until it is a file of yours", path, ErrNotOwn)
	case seal.WritableByOthers(fi):
		return fmt.Errorf("%s can be written by other users (mode %04o), who could approve a plan by saving it: its use is %w until only you can write it (chmod go-w %s)", path, fi.Mode().Perm(), ErrNotOwn, path)
	}
	return nil
}

// ReadOwnFile reads path after the checks of OwnFile, on the very file it
// opened (no symlink is followed): its bytes, and false when it does not
// exist.
func ReadOwnFile(path string) ([]byte, bool, error) {
	f, err := OpenNoFollow(path)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, false, nil
	}
	if err != nil {
		if err2 := OwnFile(path); err2 != nil {
			return nil, false, err2
		}
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	if err := ownInfo(path, fi); err != nil {
		return nil, false, err
	}
	if fi.Size() > MaxOwnFile {
		return nil, false, fmt.Errorf("%s is %d bytes, more than pp-lsp reads (%d)", path, fi.Size(), MaxOwnFile)
	}
	b, err := io.ReadAll(io.LimitReader(f, MaxOwnFile+1))
	if err != nil {
		return nil, false, fmt.Errorf("reading %s: %w", path, err)
	}
	return b, true, nil
}

// OpenNoFollow opens p, one of the server's own files, to be read as
// internal/regfile opens a file: a regular file or an error, at once — a
// symlink is refused, and a FIFO or a device is neither waited on nor
// read.
func OpenNoFollow(p string) (*os.File, error) {
	f, _, err := regfile.Open(p, false)
	return f, err
}

// CheckOpenOwn checks an open descriptor of one of the server's own files
// (the journal appends through one).
func CheckOpenOwn(f *os.File, path string) error {
	fi, err := f.Stat()
	if err != nil {
		return fmt.Errorf("checking %s: %w", path, err)
	}
	return ownInfo(path, fi)
}

// OnlyTheUserWrites refuses a file, described by fi, that someone other
// than this user (or root) owns or may write: the configuration file, whose
// rules decide what runs unasked.
func OnlyTheUserWrites(path string, fi fs.FileInfo) error {
	switch {
	case !seal.OwnedByMeOrRoot(fi):
		return fmt.Errorf("%s belongs to another user, who could allow any action in it: pp-lsp does not use it", path)
	case seal.WritableByOthers(fi):
		return fmt.Errorf("%s can be written by other users (mode %04o), who could allow any action in it: pp-lsp does not use it until only you can write it (chmod go-w %s)", path, fi.Mode().Perm(), path)
	}
	return nil
}
