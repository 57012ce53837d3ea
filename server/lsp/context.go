package lsp

import (
	"context"
	"errors"
	"fmt"
	"reflect"
	"sync"

	"go.lsp.dev/protocol"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/server/agent"
)

// passepartout.context answers memory/foveal's View: the JSON of DESIGN
// §5, whose "text" is exactly what the model would be sent from that
// place. The server does not open a document of its own for it: the
// editor commands (pp-lsp.el's pp-lsp-context, Neovim's
// :PassepartoutContext) show "text" in a read-only Org buffer, and a
// client without them reads the same JSON.

// contextArgs are {"uri", "position", "budget"}; without a uri the view is
// the memex's outline from its roots.
type contextArgs struct {
	URI      string             `json:"uri"`
	Position *protocol.Position `json:"position"`
	Budget   int                `json:"budget"`
}

func (s *Server) contextCommand(ctx context.Context, v *view, a contextArgs, _ protocol.ProgressToken) (any, error) {
	if v.snap == nil {
		return nil, errors.New("the memex is not open (see the server's earlier message)")
	}
	var cur foveal.Cursor
	if a.URI != "" {
		f, err := v.fileArg(a.URI)
		if err != nil {
			return nil, err
		}
		if !f.inMemex() {
			return nil, userErrorf("%s is not a file of the memex (its roots are %v)", f.path, v.roots)
		}
		cur.Path = f.path
		if a.Position != nil {
			cur.Line = int(a.Position.Line)
		}
	}
	r, err := s.renderer(v.settings)
	if err != nil {
		return nil, err
	}
	if a.Budget < 0 {
		return nil, userErrorf("the budget must be positive, not %d", a.Budget)
	}
	// The view is what a model would be sent, so it is rendered from the
	// memex checked against the disk (memory.Memex.Recheck), as the
	// agent's are: a note made private outside the editor, which no
	// editor may have reported, is private in it.
	mx := s.memex()
	if mx == nil {
		return nil, errors.New("the memex is not open (see the server's earlier message)")
	}
	snap, err := mx.Recheck(ctx)
	if err != nil {
		return nil, fmt.Errorf("the memex could not be checked against the disk: %w", err)
	}
	view, err := r.View(ctx, snap, cur, a.Budget)
	if errors.Is(err, foveal.ErrOptions) || errors.Is(err, foveal.ErrLine) {
		return nil, &userError{msg: err.Error()}
	}
	return view, err
}

// renderers keeps the renderer for the current budget and threshold: a
// renderer caches per snapshot what every cursor shares, so one is kept
// as long as the settings stay. Its views are redacted (the secrets the
// gates' rules find replaced by their marks): they are what the model is
// shown, and the agent's context.
type renderers struct {
	mu   sync.Mutex
	opts foveal.Options // without Redact, which follows the agent
	// agent is the agent whose redactor the renderer's views go through
	// (the vault's secrets and the rules'); nil before it is up, when the
	// rules alone redact.
	agent *agent.Agent
	r     *foveal.Renderer
}

// renderer returns the renderer for the settings (laid over the
// environment's CONTEXT_BUDGET and CONTEXT_SEMANTIC_THRESHOLD).
func (s *Server) renderer(set Settings) (*foveal.Renderer, error) {
	opts, err := foveal.EnvOptions(set.env(s.getenv))
	if err != nil {
		return nil, err
	}
	a, _ := s.host.Ready()
	s.views.mu.Lock()
	defer s.views.mu.Unlock()
	if s.views.r != nil && s.views.agent == a && reflect.DeepEqual(s.views.opts, opts) { // no Redact in either: equal fields
		return s.views.r, nil
	}
	ro := opts
	ro.Redact = gates.RedactSecrets
	if a != nil {
		ro.Redact = a.Redact // the agent's one redactor: the vault's secrets too
	}
	r, err := foveal.NewRenderer(ro)
	if err != nil {
		return nil, err
	}
	s.views.opts, s.views.agent, s.views.r = opts, a, r
	return r, nil
}

// agentContext is the agent's context source: the same renderer, with the
// settings of the moment.
func (s *Server) agentContext() agent.ContextSource { return contextSource{s} }

type contextSource struct{ s *Server }

// Render implements agent.ContextSource.
func (c contextSource) Render(ctx context.Context, snap *memory.Snapshot, file string, line, budget int) (string, error) {
	c.s.mu.Lock()
	set := c.s.settings
	c.s.mu.Unlock()
	r, err := c.s.renderer(set)
	if err != nil {
		return "", err
	}
	return r.Render(ctx, snap, file, line, budget)
}
