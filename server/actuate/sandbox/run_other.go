//go:build !linux

package sandbox

import (
	"context"
	"runtime"
)

// processBound: without Linux there is nothing to bound processes with.
type processBound struct{}

func newProcessBound() processBound { return processBound{} }

func (processBound) describe() string {
	return "the process count is not bounded on " + runtime.GOOS
}

// helperProc exists only on Linux.
type helperProc struct{}

func (*helperProc) discard() {}

// runHelper: there is no helper off Linux (Probe reports no Landlock, so
// only BestEffort and Off get here): the command runs unconfined.
func (s *Sandbox) runHelper(ctx context.Context, c Command, argv, env []string, _ string) (int, error) {
	s.log.Warn("no sandbox on this system: the command runs unconfined", "os", runtime.GOOS)
	return runDirect(ctx, c, argv, env)
}
