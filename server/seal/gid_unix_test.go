//go:build unix

package seal

import (
	"io/fs"
	"syscall"
	"testing"
)

// fileGID is the group that owns fi.
func fileGID(t *testing.T, fi fs.FileInfo) uint32 {
	t.Helper()
	st, ok := fi.Sys().(*syscall.Stat_t)
	if !ok {
		t.Fatal("no owner")
	}
	return st.Gid
}
