//go:build unix

package sandbox_test

import (
	"os"
	"syscall"
)

// statUID is the owner of a file.
func statUID(fi os.FileInfo) uint32 {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		return st.Uid
	}
	return ^uint32(0)
}
