//go:build unix

package testenv

import (
	"syscall"
	"testing"
)

// MakeFIFO makes a FIFO (a named pipe) at p.
func MakeFIFO(t testing.TB, p string) {
	t.Helper()
	if err := syscall.Mkfifo(p, 0o600); err != nil {
		t.Fatalf("making the FIFO %s: %v", p, err)
	}
}
