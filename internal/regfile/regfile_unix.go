//go:build unix

package regfile

import (
	"errors"
	"os"
	"syscall"
)

// open never waits (O_NONBLOCK: a FIFO opens at once, to be refused),
// never takes a terminal as its own (O_NOCTTY), and refuses a symlink
// unless follow (O_NOFOLLOW).
func open(path string, follow bool) (*os.File, error) {
	flags := os.O_RDONLY | syscall.O_NONBLOCK | syscall.O_NOCTTY
	if !follow {
		flags |= syscall.O_NOFOLLOW
	}
	return os.OpenFile(path, flags, 0)
}

func isSymlinkErr(err error) bool { return errors.Is(err, syscall.ELOOP) }
