//go:build unix

package gates

import (
	"errors"
	"io/fs"
	"os"
	"slices"
	"syscall"
)

// The file system as the gates ask it on a Unix system: straight from
// the system calls, for speed (sys_other.go has the portable twin).

// listNames reads a directory's entry names: empty when there is no such
// folder, nil when it cannot be read or its entries are too many. It asks
// the system directly (open, getdents, close): os.Open would also register
// the folder with the runtime's poller, for nothing.
func listNames(dir string) *dirNames {
	fd, err := syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(dir, syscall.O_RDONLY|syscall.O_DIRECTORY|syscall.O_CLOEXEC, 0)
	}
	if err == syscall.ENOENT || err == syscall.ENOTDIR {
		return noEntries
	}
	if err != nil {
		return nil
	}
	defer syscall.Close(fd)
	var buf [8192]byte
	names := make([]string, 0, 16)
	for {
		n, err := syscall.ReadDirent(fd, buf[:])
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil
		}
		if n <= 0 {
			break
		}
		_, _, names = syscall.ParseDirent(buf[:n], -1, names)
		if len(names) > maxListedNames {
			return nil
		}
	}
	return newDirNames(names)
}

// lstatNode asks the system about p, as os.Lstat and os.Readlink would,
// keeping only what the walk needs: whether it is a symlink (and its
// target) or a directory. syscall.Lstat into a Stat_t on the stack saves
// os.Lstat's FileInfo, built for every component of every path.
func lstatNode(p string) fsNode {
	var st syscall.Stat_t
	err := syscall.Lstat(p, &st)
	for err == syscall.EINTR {
		err = syscall.Lstat(p, &st)
	}
	if err != nil {
		return fsNode{err: err}
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFLNK:
		link, err := os.Readlink(p)
		return fsNode{mode: fs.ModeSymlink, link: link, err: err}
	case syscall.S_IFDIR:
		return fsNode{mode: fs.ModeDir}
	case syscall.S_IFREG:
		return fsNode{dev: uint64(st.Dev), ino: st.Ino, nlink: uint64(st.Nlink)}
	}
	return fsNode{mode: fs.ModeIrregular}
}

// regularFile returns the device and inode of a regular file's entry and
// its link count.
func regularFile(de fs.DirEntry) (key [2]uint64, nlink uint64, ok bool) {
	if !de.Type().IsRegular() {
		return key, 0, false
	}
	fi, err := de.Info()
	if err != nil {
		return key, 0, false
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return key, 0, false
	}
	return [2]uint64{uint64(st.Dev), st.Ino}, uint64(st.Nlink), true
}

// statKind is what is at abs (following a symlink) and, for a regular
// file, its size: a Stat_t on the stack, no FileInfo.
func statKind(abs string) (fileKind, int64) {
	var st syscall.Stat_t
	if err := syscall.Stat(abs, &st); err != nil {
		return kindNone, 0
	}
	switch st.Mode & syscall.S_IFMT {
	case syscall.S_IFDIR:
		return kindDir, 0
	case syscall.S_IFREG:
		return kindRegular, st.Size
	}
	return kindOther, 0
}

// readBounded reads at most limit bytes of a file, never blocking on a
// FIFO swapped in after the check that it was a regular file. It asks the
// system directly: os.NewFile would try to register the descriptor with
// the runtime's poller, and io.ReadAll would read the file in small,
// growing pieces where its size is known.
func readBounded(abs string, limit int64) ([]byte, error) {
	fd, err := syscall.Open(abs, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
	for err == syscall.EINTR {
		fd, err = syscall.Open(abs, syscall.O_RDONLY|syscall.O_NONBLOCK|syscall.O_CLOEXEC|syscall.O_NOCTTY, 0)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: abs, Err: err}
	}
	defer syscall.Close(fd)
	var st syscall.Stat_t
	if err := syscall.Fstat(fd, &st); err != nil || st.Mode&syscall.S_IFMT != syscall.S_IFREG {
		return nil, errors.New("not a regular file")
	}
	// Room for the file as it is now and one byte more, so that a file
	// that did not grow is read whole by the first read; the next says
	// it ended.
	buf := make([]byte, 0, max(512, min(st.Size, limit)+1))
	for int64(len(buf)) < limit {
		if len(buf) == cap(buf) {
			buf = slices.Grow(buf, 4096)
		}
		room := buf[len(buf):min(cap(buf), len(buf)+int(limit-int64(len(buf))))]
		n, err := syscall.Read(fd, room)
		if err == syscall.EINTR {
			continue
		}
		if err != nil {
			return nil, &os.PathError{Op: "read", Path: abs, Err: err}
		}
		if n <= 0 {
			break
		}
		buf = buf[:len(buf)+n]
	}
	return buf, nil
}
