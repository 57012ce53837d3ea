//go:build !unix

package sandbox

import "os"

// identity is unknown without inode numbers.
func identity(string) (fileID, bool) { return fileID{}, false }

// infoIdentity is unknown without inode numbers.
func infoIdentity(os.FileInfo) (fileID, bool) { return fileID{}, false }
