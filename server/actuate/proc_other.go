//go:build !unix

package actuate

import "os/exec"

// isolate: without process groups, cancelling kills the process itself.
func isolate(*exec.Cmd) {}
