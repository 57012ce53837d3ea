//go:build !linux

package redact

import "io/fs"

// identify: off Linux a file is known by its size and time alone.
func identify(fs.FileInfo, *fileStamp) {}
