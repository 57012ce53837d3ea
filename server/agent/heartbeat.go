package agent

import (
	"context"
	"time"
)

// Heartbeat runs until ctx ends. At every tick (HEARTBEAT_INTERVAL) it
// reads again from disk what changed there without anyone saying so
// (memex Refresh), picks up approved plans and runs the skills that are
// due (RunSchedules, also once at its start); a NotifyPlansChanged
// nudge picks them up at once. Saving the memex's store and embedding
// stale nodes are memory's own background work (Options.AutoSave and
// Options.Embed, set up by Open), so the heartbeat does not repeat them.
func (a *Agent) Heartbeat(ctx context.Context) error {
	t := time.NewTicker(a.cfg.Heartbeat())
	defer t.Stop()
	// A run missed while the server was down runs now, once.
	a.RunSchedules(ctx)
	for {
		select {
		case <-ctx.Done():
			return nil
		case <-t.C:
			a.tick(ctx, true)
			a.RunSchedules(ctx)
		case <-a.wake:
			a.tick(ctx, false)
		}
	}
}

func (a *Agent) tick(ctx context.Context, refresh bool) {
	if refresh {
		if _, err := a.memex.Refresh(ctx); err != nil && ctx.Err() == nil {
			a.log.WarnContext(ctx, "the heartbeat could not refresh the memex", "err", err)
		}
	}
	runs, err := a.Pickup(ctx)
	if err != nil && ctx.Err() == nil {
		a.log.WarnContext(ctx, "the heartbeat could not pick up Flight Plans", "err", err)
	}
	for _, r := range runs {
		if r.Err != nil {
			lctx := ctx
			if r.Private {
				// A private conversation's plan: its error may name what
				// it was about, and the LOGS go to any model.
				lctx = keepOutOfPrompt(ctx)
			}
			a.log.WarnContext(lctx, "a Flight Plan could not be handled", "plan", r.ID, "err", r.Err)
		}
	}
}
