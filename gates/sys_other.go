//go:build !unix

package gates

import (
	"errors"
	"io"
	"io/fs"
	"os"
)

// The file system as the gates ask it where there is no Unix system
// (sys_unix.go asks the system calls directly): through package os. What
// cannot be told here is taken for the worse: a regular file's link count
// is unknown, so it is taken to have other names (hard links), whose
// writes the gates then do not allow on their own.

// unknownLinks is the link count of a regular file here: more than one.
const unknownLinks = 2

// listNames reads a directory's entry names: empty when there is no such
// folder, nil when it cannot be read or its entries are too many.
func listNames(dir string) *dirNames {
	f, err := os.Open(dir)
	if errors.Is(err, fs.ErrNotExist) {
		return noEntries
	}
	if err != nil {
		return nil
	}
	defer f.Close()
	names, err := f.Readdirnames(maxListedNames + 1)
	if err != nil && !errors.Is(err, io.EOF) || len(names) > maxListedNames {
		return nil
	}
	return newDirNames(names)
}

// lstatNode asks the system about p, as os.Lstat and os.Readlink do.
func lstatNode(p string) fsNode {
	fi, err := os.Lstat(p)
	if err != nil {
		return fsNode{err: err}
	}
	switch m := fi.Mode(); {
	case m&fs.ModeSymlink != 0:
		link, err := os.Readlink(p)
		return fsNode{mode: fs.ModeSymlink, link: link, err: err}
	case m.IsDir():
		return fsNode{mode: fs.ModeDir}
	case m.IsRegular():
		return fsNode{nlink: unknownLinks}
	}
	return fsNode{mode: fs.ModeIrregular}
}

// regularFile: a file's identity is not known here.
func regularFile(fs.DirEntry) (key [2]uint64, nlink uint64, ok bool) {
	return key, 0, false
}

// statKind is what is at abs (following a symlink) and, for a regular
// file, its size.
func statKind(abs string) (fileKind, int64) {
	fi, err := os.Stat(abs)
	switch {
	case err != nil:
		return kindNone, 0
	case fi.IsDir():
		return kindDir, 0
	case fi.Mode().IsRegular():
		return kindRegular, fi.Size()
	}
	return kindOther, 0
}

// readBounded reads at most limit bytes of a regular file.
func readBounded(abs string, limit int64) ([]byte, error) {
	f, err := os.Open(abs)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		return nil, errors.New("not a regular file")
	}
	return io.ReadAll(io.LimitReader(f, limit))
}
