//go:build !unix

package protect

import (
	"io/fs"
	"os"
)

// NoFollow is 0 where the system has no O_NOFOLLOW: OwnFile's look before
// the open is all there is (such systems have no sandbox either).
const NoFollow = 0

func links(fs.FileInfo) uint64 { return 1 }

func openedPath(*os.File) (string, bool) { return "", false }
