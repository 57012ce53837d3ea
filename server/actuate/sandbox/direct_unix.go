//go:build unix

package sandbox

import (
	"context"
	"fmt"
	"os/exec"
	"syscall"
)

// runDirect runs a command without the helper: scrubbed environment, its
// own process group killed whole when ctx ends, nothing more.
func runDirect(ctx context.Context, c Command, argv, env []string) (int, error) {
	path, err := lookPath(argv[0], env)
	if err != nil {
		return -1, err
	}
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir, cmd.Env = c.Dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	cmd.Cancel = func() error { return syscall.Kill(-cmd.Process.Pid, syscall.SIGKILL) }
	cmd.WaitDelay = helperWait
	err = cmd.Run()
	if ctx.Err() != nil {
		return cmd.ProcessState.ExitCode(), fmt.Errorf("the command was stopped: %w", ctx.Err())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		return -1, fmt.Errorf("%s could not start: %w", argv[0], err)
	}
	if ws, ok := cmd.ProcessState.Sys().(syscall.WaitStatus); ok && ws.Signaled() {
		return 128 + int(ws.Signal()), nil
	}
	return cmd.ProcessState.ExitCode(), nil
}
