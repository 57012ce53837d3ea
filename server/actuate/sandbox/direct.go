package sandbox

import (
	"context"
	"fmt"
	"os/exec"
)

// runDirect runs a command without the helper: scrubbed environment, its
// own process group (where there are groups) killed whole when ctx ends,
// nothing more.
func runDirect(ctx context.Context, c Command, argv, env []string) (int, error) {
	path, err := lookPath(argv[0], env)
	if err != nil {
		return -1, err
	}
	cmd := exec.CommandContext(ctx, path, argv[1:]...)
	cmd.Args[0] = argv[0]
	cmd.Dir, cmd.Env = c.Dir, env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = c.Stdin, c.Stdout, c.Stderr
	isolate(cmd)
	cmd.WaitDelay = helperWait
	err = cmd.Run()
	if ctx.Err() != nil {
		return cmd.ProcessState.ExitCode(), fmt.Errorf("the command was stopped: %w", ctx.Err())
	}
	if _, ok := err.(*exec.ExitError); err != nil && !ok {
		return -1, fmt.Errorf("%s could not start: %w", argv[0], err)
	}
	return exitStatus(cmd.ProcessState), nil
}
