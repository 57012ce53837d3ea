//go:build !unix

package seal

import "io/fs"

// OwnedByMe reports whether this user owns fi: always, where not known.
func OwnedByMe(fs.FileInfo) bool { return true }

// OwnedByMeOrRoot reports whether this user or root owns fi: always, where
// not known.
func OwnedByMeOrRoot(fs.FileInfo) bool { return true }

// WritableByOthers reports whether anyone but the owner may write fi:
// never known here.
func WritableByOthers(fs.FileInfo) bool { return false }
