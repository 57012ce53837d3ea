package workspace

import (
	"crypto/rand"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
)

// WriteFile replaces the file at path (absolute) with data atomically; see
// WriteFileIn. perm is used for a new file; an existing file keeps its own.
func WriteFile(p string, data []byte, perm os.FileMode) error {
	root, err := os.OpenRoot(filepath.Dir(p))
	if err != nil {
		return fmt.Errorf("writing %s: %w", p, err)
	}
	defer root.Close()
	return WriteFileIn(root, filepath.Base(p), data, perm)
}

// WriteFileIn replaces the file rel (slash-separated, relative to root)
// with data: a hidden temp file in the same folder, written and fsynced,
// given the old file's permissions (perm for a new one), renamed over the
// old one, and the folder fsynced, so that a crash leaves either the old
// file or the new one, never a mix. Every step goes through root, so
// nothing outside it can be touched, whatever symlinks the folder holds.
// A symlink in rel's place is refused rather than replaced by a file.
func WriteFileIn(root *os.Root, rel string, data []byte, perm os.FileMode) (err error) {
	rel = path.Clean(filepath.ToSlash(rel))
	name := filepath.Join(root.Name(), filepath.FromSlash(rel))
	if fi, err := root.Lstat(rel); err == nil {
		if fi.Mode()&fs.ModeSymlink != 0 {
			return fmt.Errorf("writing %s: it is a symlink, which an atomic write would replace by a file", name)
		}
		if !fi.Mode().IsRegular() {
			return fmt.Errorf("writing %s: it is not a regular file", name)
		}
		perm = fi.Mode().Perm()
	} else if !errors.Is(err, fs.ErrNotExist) {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	dir := path.Dir(rel)
	if dir != "." {
		if err := root.MkdirAll(dir, 0o755); err != nil {
			return fmt.Errorf("writing %s: making its folder: %w", name, err)
		}
	}
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	tmp := path.Join(dir, "."+path.Base(rel)+".pp-"+hex.EncodeToString(rnd[:])+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return fmt.Errorf("writing %s: creating the temp file: %w", name, err)
	}
	defer func() {
		if err != nil {
			f.Close()
			root.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err = f.Chmod(perm); err != nil {
		return fmt.Errorf("writing %s: setting its permissions: %w", name, err)
	}
	if err = f.Sync(); err != nil {
		return fmt.Errorf("writing %s: fsync: %w", name, err)
	}
	if err = f.Close(); err != nil {
		return fmt.Errorf("writing %s: %w", name, err)
	}
	if err = root.Rename(tmp, rel); err != nil {
		return fmt.Errorf("writing %s: renaming the temp file into place: %w", name, err)
	}
	if d, derr := root.Open(dir); derr == nil {
		// The rename is durable once the folder is: a failure here is
		// reported, but the new file is already in place.
		serr := d.Sync()
		d.Close()
		if serr != nil {
			return fmt.Errorf("writing %s: fsync of its folder: %w", name, serr)
		}
	}
	return nil
}
