//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"path/filepath"

	"golang.org/x/sys/unix"
)

// openDir opens a folder of the roots to list it or move an entry of it
// aside, through no symlink: another command, running meanwhile, may have
// put one in the path to lead the server (unconfined) out of the roots.
// Roots are canonical, so a path of theirs holds none.
func openDir(dir string) (*os.File, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, dir, &unix.OpenHow{
		Flags:   unix.O_RDONLY | unix.O_DIRECTORY | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if errors.Is(err, unix.ENOSYS) { // before Linux 5.6
		return os.Open(dir)
	}
	if err != nil {
		return nil, &os.PathError{Op: "open", Path: dir, Err: err}
	}
	return os.NewFile(uintptr(fd), dir), nil
}

// moveAsideAt is moveAside for the entry name of the folder open as dir.
func moveAsideAt(dir *os.File, path, name string) (string, error) {
	dfd := int(dir.Fd())
	to := name + ".refused"
	for i := 2; ; i++ {
		var st unix.Stat_t
		if errors.Is(unix.Fstatat(dfd, to, &st, unix.AT_SYMLINK_NOFOLLOW), unix.ENOENT) {
			break
		}
		to = fmt.Sprintf("%s.refused-%d", name, i)
	}
	err := unix.Renameat2(dfd, name, dfd, to, unix.RENAME_NOREPLACE)
	if errors.Is(err, unix.EINVAL) { // a file system without RENAME_NOREPLACE
		err = unix.Renameat(dfd, name, dfd, to)
	}
	if err != nil {
		return "", fmt.Errorf("moving aside %s, which a command made: %w", filepath.Join(path, name), err)
	}
	return filepath.Join(path, name) + " (now " + to + ")", nil
}
