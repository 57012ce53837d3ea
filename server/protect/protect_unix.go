//go:build unix

package protect

import (
	"io/fs"
	"os"
	"runtime"
	"strconv"
	"syscall"
)

// NoFollow is the open flag that refuses a symlink in the last component.
const NoFollow = syscall.O_NOFOLLOW

// OpenNoFollow opens p, one of the server's own files, to be read,
// refusing a symlink, and never waits: a FIFO opens at once (for the
// caller to refuse as no regular file), where a plain open would wait for
// a writer.
func OpenNoFollow(p string) (*os.File, error) {
	return os.OpenFile(p, os.O_RDONLY|syscall.O_NOFOLLOW|syscall.O_NONBLOCK|syscall.O_NOCTTY, 0)
}

func links(fi fs.FileInfo) uint64 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return uint64(st.Nlink)
	}
	return 1
}

// openedPath is the path the kernel has for an open file (Linux's
// /proc/self/fd); false where the system does not say.
func openedPath(f *os.File) (string, bool) {
	if runtime.GOOS != "linux" {
		return "", false
	}
	p, err := os.Readlink("/proc/self/fd/" + strconv.Itoa(int(f.Fd())))
	if err != nil || len(p) == 0 || p[0] != '/' {
		return "", false
	}
	return p, true
}
