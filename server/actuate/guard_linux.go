package actuate

import (
	"io/fs"
	"syscall"
)

// sysID adds the device, inode and change time a stat says.
func sysID(fi fs.FileInfo, id *fileID) {
	if st, ok := fi.Sys().(*syscall.Stat_t); ok {
		id.dev, id.ino = uint64(st.Dev), uint64(st.Ino)
		id.ctime = st.Ctim.Nano()
	}
}
