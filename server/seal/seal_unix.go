//go:build unix

package seal

import (
	"io/fs"
	"os"
	"syscall"
)

// OwnedByMe reports whether this process's effective user — the owner of
// the files it creates — owns fi; not when fi tells no owner.
func OwnedByMe(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && int(st.Uid) == os.Geteuid()
}

// OwnedByMeOrRoot reports whether this process's effective user or root
// owns fi; not when fi tells no owner.
func OwnedByMeOrRoot(fi fs.FileInfo) bool {
	st, ok := fi.Sys().(*syscall.Stat_t)
	return ok && (st.Uid == 0 || int(st.Uid) == os.Geteuid())
}

// WritableByOthers reports whether anyone but the owner may write fi — all
// others, or a group that is not this user's own. The data directory, the
// server's own files and the configuration file are refused when so.
func WritableByOthers(fi fs.FileInfo) bool {
	perm := fi.Mode().Perm()
	if perm&0o002 != 0 {
		return true
	}
	st, ok := fi.Sys().(*syscall.Stat_t)
	return perm&0o020 != 0 && (!ok || int(st.Gid) != os.Getgid())
}
