//go:build !unix

package flock

import (
	"errors"
	"os"
)

// errUnsupported: without flock(2) there is no lock between processes
// here; refusing is safer than pretending (a plan could run twice).
var errUnsupported = errors.New("file locks are not supported on this system")

func tryLock(*os.File) (bool, error) { return false, errUnsupported }

func unlock(*os.File) error { return nil }
