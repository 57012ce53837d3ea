//go:build !unix

package testenv

import "testing"

// MakeFIFO skips the test: this system has no FIFOs at paths.
func MakeFIFO(t testing.TB, p string) {
	t.Helper()
	t.Skip("this system has no FIFOs at paths")
}
