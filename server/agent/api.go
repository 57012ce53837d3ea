package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/server/flightplan"
)

// The agent's API is plain data: a front end (the language server, the
// bridge, the CLI, MCP) turns its protocol's request into one of these,
// calls the agent, and turns the answer back into its protocol. Nothing
// here knows a protocol, and no front end flattens a result its own way:
// what a question led to is said once, by AskResult.

// AskRequest is a question from a front end.
type AskRequest struct {
	// Text is the question.
	Text string
	// File is where it was asked from: absolute, or relative to the first
	// root; "" for nowhere in particular.
	File string
	// Line is the 0-based line in File, Character the UTF-16 column in it
	// (LSP's; 0 from a front end that has none).
	Line, Character int
	// Source names the front end, for the journal.
	Source Source
	// Session groups a client's requests in the journal ("": a new one);
	// RequestID is the front end's own id of this request.
	Session, RequestID string
	// Depth counts the signals that led to this one, for a client that
	// passes the loop counter on (the bridge's :DEPTH): a question deeper
	// than MaxDepth is dropped.
	Depth int
	// Chat is the conversation the question continues (DESIGN §13): its
	// file, absolute or relative to the first root. A question asked from
	// a file in the conversations' folder continues that one. Otherwise
	// NewChat starts a conversation, and without it the question is in
	// none.
	Chat    string
	NewChat bool
}

// AskResult is what a question led to.
type AskResult struct {
	// Status is how the last pass ended, and Summary says so in one line
	// (Pass.Summary: the one rule every front end shows).
	Status  Status
	Summary string
	// Text is what was said to the user: everything that streamed through
	// emit, in order.
	Text string
	// Tool is the tool of the last pass's action, when a proposal got
	// past the gates' deny; Verdict is the gates' verdict on its last try
	// (zero when nothing was proposed).
	Tool    gates.Tool
	Verdict gates.Verdict
	// PlanID is the Flight Plan the action waits as (StatusFiled).
	PlanID string
	// Provider names the model that answered last, Model as
	// provider:model; Usage is what every model call of the question took.
	Provider, Model string
	Usage           Usage
	// Chat is the conversation file the turn was written to ("" when the
	// question is in none, or the turn could not be written: logged).
	Chat string
	// Tries counts the last pass's proposals; Passes are every pass, in
	// order (an action whose output went back to the model makes the
	// next), for a report of each (Describe).
	Tries  int
	Passes []Pass
}

// Summary says in one line how the pass ended: what its action did, or why
// it failed; the Flight Plan it waits as, or the gate that denied it, and
// why; or else its status.
func (p Pass) Summary() string {
	switch {
	case p.Result != nil:
		return summaryOf(*p.Result, p.Err)
	case p.Err != nil:
		return p.Err.Error()
	case p.PlanID != "":
		return "filed as a Flight Plan for your approval (" + p.Verdict.Gate + ": " + p.Verdict.Reason + ")"
	case p.Status == StatusDenied:
		return fmt.Sprintf("denied %s, nothing ran (%s: %s)", times(len(p.Tries)), p.Verdict.Gate, p.Verdict.Reason)
	}
	return string(p.Status)
}

// times is "once", "twice" or "N times".
func times(n int) string {
	switch n {
	case 1:
		return "once"
	case 2:
		return "twice"
	}
	return fmt.Sprintf("%d times", n)
}

// Ask runs a question through the pipeline: perceive, then passes of
// reason and act until one does not feed an output back (or the depth
// limit drops it). What the model says streams through emit as it comes
// (emit may be nil). The error is for a question that could not be
// handled at all (no model, a malformed question) or was cancelled; how
// each pass ended is in the result, which holds the passes made before
// any error.
func (a *Agent) Ask(ctx context.Context, req AskRequest, emit func(chunk string) error) (AskResult, error) {
	var said strings.Builder
	sig := Signal{
		Source: req.Source, Session: req.Session, RequestID: req.RequestID, Sensor: SensorUserInput,
		Text: req.Text, File: req.File, Line: req.Line, Character: req.Character, Depth: req.Depth,
	}
	var conv *conversation
	if req.Chat != "" || req.NewChat || req.File != "" {
		// A conversation needs a well-formed question and a model.
		s, err := Perceive(sig, a.roots)
		if err == nil && a.provider == nil {
			err = ErrNoProvider
		}
		if err == nil {
			sig = s
			conv, err = a.beginChat(ctx, req, &sig)
		}
		if err != nil && !errors.Is(err, ErrDepth) {
			return AskResult{}, err
		}
	}
	passes, err := a.handle(ctx, sig, func(s string) error {
		said.WriteString(s)
		if emit == nil {
			return nil
		}
		return emit(s)
	})
	res := AskResult{Text: said.String(), Passes: passes}
	for _, p := range passes {
		res.Usage.Prompt += p.Usage.InputTokens
		res.Usage.Completion += p.Usage.OutputTokens
		res.Usage.Estimated = res.Usage.Estimated || p.UsageEstimated
		if p.Model != "" {
			res.Model = p.Model
		}
	}
	if conv != nil {
		if len(passes) > 0 {
			last := passes[len(passes)-1]
			res.Status, res.Summary = last.Status, last.Summary()
		}
		a.finishChat(ctx, conv, sig, &res, err)
	}
	if len(passes) == 0 {
		return res, err
	}
	last := passes[len(passes)-1]
	res.Status, res.Summary, res.PlanID, res.Provider, res.Tries = last.Status, last.Summary(), last.PlanID, last.Provider, len(last.Tries)
	res.Verdict = last.Verdict
	res.Verdict.Action = nil
	if last.Action != nil {
		res.Tool = last.Action.Tool
	}
	return res, err
}

// ContextRequest asks for the foveal-peripheral context around a place
// (DESIGN §5).
type ContextRequest struct {
	// File is absolute, or relative to the first root; Line is 0-based.
	File string
	Line int
	// Budget is the token budget (0: the configured one).
	Budget int
}

// ContextResult is the context's Org text and the budget it was made in.
type ContextResult struct {
	Text   string
	Budget int
}

// Context renders the context the model would see from req's place, with
// the agent's own renderer.
func (a *Agent) Context(ctx context.Context, req ContextRequest) (ContextResult, error) {
	file := req.File
	if file != "" && !filepath.IsAbs(file) {
		file = filepath.Join(a.roots[0], file)
	}
	budget := req.Budget
	if budget <= 0 {
		budget = a.cfg.Budget
	}
	snap, err := a.fresh(ctx)
	if err != nil {
		return ContextResult{}, err
	}
	text, err := a.ctxsrc.Render(ctx, snap, file, max(req.Line, 0), budget)
	if err != nil {
		return ContextResult{}, err
	}
	// The agent's own renderer has redacted the view within its budget;
	// a source given to the agent may not have.
	return ContextResult{Text: a.redact(text), Budget: budget}, nil
}

// Overview is the memex's figures and the Flight Plans waiting for a
// human.
type Overview struct {
	Files, Headlines int
	RootHash         string
	// PlansPending counts the plans in PLAN or APPROVED.
	PlansPending int
}

// Overview says what the agent serves now.
func (a *Agent) Overview(ctx context.Context) Overview {
	f := a.memex.Snapshot().Figures()
	o := Overview{Files: f.Files, Headlines: f.Headlines, RootHash: f.RootHash.String()}
	if plans, err := a.Plans(ctx); err == nil {
		for _, p := range plans {
			if p.State == string(flightplan.StatePlan) || p.State == string(flightplan.StateApproved) {
				o.PlansPending++
			}
		}
	}
	return o
}
