//go:build !linux

package sandbox

import (
	"fmt"
	"os"
)

// helperMain exists only on Linux; elsewhere the server never starts it.
func helperMain([]string) int {
	fmt.Fprintln(os.Stderr, "pp-lsp: the sandbox helper runs only on Linux")
	return exitSetup
}

// nsProbeMain exists only on Linux.
func nsProbeMain(string, string) int { return exitSetup }
