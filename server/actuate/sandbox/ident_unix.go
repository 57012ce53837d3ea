//go:build unix

package sandbox

import (
	"os"
	"syscall"
)

// identity is the device and inode of the file at p (not following a
// final symlink).
func identity(p string) (fileID, bool) {
	fi, err := os.Lstat(p)
	if err != nil {
		return fileID{}, false
	}
	return infoIdentity(fi)
}

// infoIdentity is the device and inode an os.FileInfo carries.
func infoIdentity(fi os.FileInfo) (fileID, bool) {
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		return fileID{}, false
	}
	return fileID{uint64(st.Dev), uint64(st.Ino)}, true
}
