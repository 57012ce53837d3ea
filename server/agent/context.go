package agent

import (
	"context"

	"pp-lsp/memory"
)

// ContextSource renders the foveal-peripheral context the model sees from
// a position (DESIGN §5): file absolute ("" for none), line 0-based, budget
// in tokens. memory/foveal's Renderer is the one the agent uses unless told
// otherwise.
type ContextSource interface {
	Render(ctx context.Context, snap *memory.Snapshot, file string, line, budget int) (string, error)
}
