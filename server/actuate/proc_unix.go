//go:build unix

package actuate

import (
	"os/exec"
	"syscall"
)

// isolate puts the process in its own group and makes cancelling kill the
// whole group, so that a command's children die with it.
func isolate(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error {
		if cmd.Process == nil {
			return nil
		}
		return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL)
	}
}
