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
