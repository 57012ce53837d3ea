//go:build !linux

package sandbox

import "runtime"

// Probe reports that Landlock exists only on Linux.
func Probe() Status {
	return Status{Reason: "Landlock exists only on Linux, and this is " + runtime.GOOS}
}

// probeMountNamespace: mount namespaces are Linux's.
func probeMountNamespace() string { return "not on Linux" }
