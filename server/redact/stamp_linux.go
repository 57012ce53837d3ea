package redact

import (
	"io/fs"
	"syscall"
	"time"
)

// identify adds the file's device, inode and change time to st: a file
// replaced, or written with its time set back, shows.
func identify(fi fs.FileInfo, st *fileStamp) {
	if sys, ok := fi.Sys().(*syscall.Stat_t); ok {
		st.dev, st.ino = uint64(sys.Dev), sys.Ino
		st.ctime = time.Unix(sys.Ctim.Sec, sys.Ctim.Nsec)
	}
}
