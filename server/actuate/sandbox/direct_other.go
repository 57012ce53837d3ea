//go:build !unix

package sandbox

import (
	"os"
	"os/exec"
)

// isolate: without process groups, cancelling kills the process itself.
func isolate(*exec.Cmd) {}

// exitStatus is the exit code.
func exitStatus(ps *os.ProcessState) int { return ps.ExitCode() }
