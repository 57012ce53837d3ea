//go:build !unix

package seal

import (
	"errors"
	"io/fs"
	"os"
)

// openNoFollow refuses a symlink by looking first (without O_NOFOLLOW
// there is a window between the look and the open; such systems have no
// sandbox either).
func openNoFollow(p string) (*os.File, error) {
	if fi, err := os.Lstat(p); err == nil && fi.Mode()&fs.ModeSymlink != 0 {
		return nil, errSymlink
	}
	return os.Open(p)
}

var errSymlink = errors.New("a symlink")

func isSymlinkErr(err error) bool { return err == errSymlink }

// OwnedByMe reports whether this user owns fi: always, where not known.
func OwnedByMe(fs.FileInfo) bool { return true }

// OwnedByMeOrRoot reports whether this user or root owns fi: always, where
// not known.
func OwnedByMeOrRoot(fs.FileInfo) bool { return true }

// WritableByOthers reports whether anyone but the owner may write fi:
// never known here.
func WritableByOthers(fs.FileInfo) bool { return false }
