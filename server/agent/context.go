package agent

import (
	"context"
	"fmt"

	"pp-lsp/memory"
)

// ContextSource renders the foveal-peripheral context the model sees from
// a position (DESIGN §5): file absolute ("" for none), line 0-based, budget
// in tokens. memory/foveal's Renderer is the one the agent uses unless told
// otherwise.
type ContextSource interface {
	Render(ctx context.Context, snap *memory.Snapshot, file string, line, budget int) (string, error)
}

// fresh is the snapshot whose text may leave for a model: the memex
// checked against the disk first (memory.Memex.Recheck), so that a note
// made private outside the editor — its own text or its #+SETUPFILE:'s
// #+FILETAGS: changed on disk, which no editor may have reported — is
// private in it. Every model-bound view (a pass's prompt, Context, the
// memex API an agent client reads, an action it proposes, a chat's
// beginning, the Scribe's text) takes its snapshot here; when the check
// fails, nothing is sent.
func (a *Agent) fresh(ctx context.Context) (*memory.Snapshot, error) {
	snap, err := a.memex.Recheck(ctx)
	if err != nil {
		return nil, fmt.Errorf("the memex could not be checked against the disk: %w", err)
	}
	return snap, nil
}

// freshFor is fresh for sig's pass: once per question. A question whose
// conversation was begun with a Recheck (sig.checked) reads the memex's
// current snapshot, never older than that one (a conversation file made
// since is in it); any other signal checks the disk.
func (a *Agent) freshFor(ctx context.Context, sig Signal) (*memory.Snapshot, error) {
	if sig.checked != nil {
		if cur := a.memex.Snapshot(); cur != nil && cur.Generation() >= sig.checked.Generation() {
			return cur, nil
		}
	}
	return a.fresh(ctx)
}
