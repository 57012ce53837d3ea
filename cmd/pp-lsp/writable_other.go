//go:build !unix

package main

import "os"

// writableDir reports whether this process may make files in dir: where
// there is no access(2), by making one (and removing it).
func writableDir(dir string) bool {
	f, err := os.CreateTemp(dir, ".pp-lsp-doctor-*")
	if err != nil {
		return false
	}
	f.Close()
	os.Remove(f.Name())
	return true
}
