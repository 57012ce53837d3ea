//go:build unix

package main

import "syscall"

// writableDir reports whether this process may make files in dir.
func writableDir(dir string) bool { return syscall.Access(dir, 0o2|0o1) == nil }
