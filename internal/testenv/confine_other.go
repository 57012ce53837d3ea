//go:build !unix

package testenv

import (
	"os/exec"
	"testing"
)

// Unprivileged does nothing where there is no root to drop.
func Unprivileged(testing.TB, *exec.Cmd) {}
