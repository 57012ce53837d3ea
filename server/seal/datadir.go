package seal

import (
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
)

// CheckDir reports why dataDir could not be kept from other local users,
// or nil: the folder (when it exists) and every folder above it, as
// written and with symlinks resolved, must belong to this user or root and
// be writable by no one else (a folder others may write is fine when it
// has the sticky bit, as /tmp has, for then they cannot remove or rename
// what is ours in it), and dataDir itself must belong to this user. A
// folder others could change lets them remove the key or the records, or
// swap the folder itself for theirs.
func CheckDir(dataDir string) error {
	dir, err := filepath.Abs(dataDir)
	if err != nil {
		return fmt.Errorf("the data directory %s: %w", dataDir, err)
	}
	paths := []string{dir}
	if real, ok := resolveExisting(dir); ok && real != dir {
		paths = append(paths, real)
	}
	for _, p := range paths {
		for a := p; ; a = filepath.Dir(a) {
			if err := checkFolder(a, a == p); err != nil {
				return err
			}
			if a == filepath.Dir(a) {
				break
			}
		}
	}
	return nil
}

// resolveExisting resolves the symlinks of the longest part of p that
// exists, and joins the rest.
func resolveExisting(p string) (string, bool) {
	rest := ""
	for a := p; ; a = filepath.Dir(a) {
		if real, err := filepath.EvalSymlinks(a); err == nil {
			return filepath.Join(real, rest), true
		}
		if a == filepath.Dir(a) {
			return "", false
		}
		rest = filepath.Join(filepath.Base(a), rest)
	}
}

// checkFolder checks one folder on the way to the data directory (own:
// the data directory itself). A folder not made yet has nothing to check.
func checkFolder(p string, own bool) error {
	li, err := os.Lstat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("checking %s, on the way to the data directory: %w", p, err)
	}
	if li.Mode()&fs.ModeSymlink != 0 && !OwnedByMeOrRoot(li) {
		return fmt.Errorf("%s, on the way to the data directory, is a symlink that belongs to another user", p)
	}
	fi, err := os.Stat(p)
	if errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("%s, on the way to the data directory, is a symlink to nothing", p)
	}
	if err != nil {
		return fmt.Errorf("checking %s, on the way to the data directory: %w", p, err)
	}
	switch {
	case !fi.IsDir():
		return fmt.Errorf("%s, on the way to the data directory, is not a folder", p)
	case own && !OwnedByMe(fi):
		return fmt.Errorf("the data directory %s belongs to another user: set PASSEPARTOUT_DATA_DIR to a folder of your own", p)
	case own && fi.Mode()&fs.ModeSticky != 0:
		// A sticky folder is one made for everyone's files (/tmp): making
		// it ours alone would lock every other user out of theirs.
		return fmt.Errorf("the data directory %s is a folder shared with other users (it has the sticky bit, as /tmp has): set PASSEPARTOUT_DATA_DIR to a folder of your own", p)
	case !OwnedByMeOrRoot(fi):
		return fmt.Errorf("%s, above the data directory, belongs to another user, who could swap the data directory for theirs: set PASSEPARTOUT_DATA_DIR to a folder of your own", p)
	case !own && WritableByOthers(fi) && fi.Mode()&fs.ModeSticky == 0:
		return fmt.Errorf("%s, above the data directory, can be written by other users, who could swap the data directory for theirs (chmod go-w %s)", p, p)
	}
	return nil
}

// prepareDir makes dataDir (mode 0700) after CheckDir, and makes a folder
// of ours that others could read or write its owner's alone (never a
// shared, sticky one: CheckDir refuses it).
func prepareDir(dataDir string) error {
	if err := CheckDir(dataDir); err != nil {
		return err
	}
	if err := os.MkdirAll(dataDir, 0o700); err != nil {
		return fmt.Errorf("making the data directory %s: %w", dataDir, err)
	}
	// Made meanwhile by someone else? Look again.
	if err := CheckDir(dataDir); err != nil {
		return err
	}
	fi, err := os.Stat(dataDir)
	if err != nil {
		return fmt.Errorf("the data directory %s: %w", dataDir, err)
	}
	if fi.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dataDir, 0o700); err != nil {
			return fmt.Errorf("restricting the data directory %s to its owner: %w", dataDir, err)
		}
	}
	return nil
}
