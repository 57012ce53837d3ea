//go:build unix

package bridge

import (
	"io/fs"
	"os"
	"syscall"
)

// ownedByUs reports whether the file belongs to the effective user.
func ownedByUs(info fs.FileInfo) bool {
	st, ok := info.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}
