package agent

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/server/actuate"
	"pp-lsp/server/journal"
)

// An action proposed by another agent (a front end's client that is itself
// a model, as MCP's are) takes the path a model's proposal takes after
// reasoning: the same gates, journal, Flight Plans and actuators — gated
// once, with no model of ours to try again — so such a client gets nothing
// the agent's own model could not, and cannot approve what it proposed.

// ErrBadAction is wrapped by Propose's error for input that is no action
// (DESIGN §6); the proposal is journalled, denied by the validator.
var ErrBadAction = errors.New("not a valid action")

// badAction is a decoding error, marked as ErrBadAction with its text
// unchanged (the gates' own: "not a valid action: …").
type badAction struct{ error }

func (e badAction) Is(target error) bool { return target == ErrBadAction }
func (e badAction) Unwrap() error        { return e.error }

// ProposeRequest is an action another agent proposes.
type ProposeRequest struct {
	// Action is the action as DESIGN §6's JSON object.
	Action []byte
	// Source names the front end; Session and RequestID say who asked.
	Source             Source
	Session, RequestID string
}

// ProposeResult is what became of a proposed action.
type ProposeResult struct {
	// Status is StatusRan (Result says how it went), StatusAnswered (a
	// message, shown), StatusFiled (PlanID waits for a human),
	// StatusDenied (nothing ran), StatusFailed (Err) or StatusCancelled.
	Status  Status
	Verdict gates.Verdict
	// Tool is the action's tool ("" when it was no action).
	Tool   gates.Tool
	PlanID string
	// Result is what the action did when it ran; its Output has passed the
	// privacy filter and the vault's scrubbing.
	Result *actuate.Result
	// Summary says in one line how it ended (Pass.Summary's rule).
	Summary string
	Err     error
}

// Propose gates an action and acts on the verdict: allow runs it through
// the actuators (shell and eval sandboxed), ask — or a tool that runs only
// from an approved plan — files a Flight Plan, deny runs nothing. The
// proposal, the plan and the result are journalled with req's source; a
// proposal that cannot be journalled does nothing. The error is for input
// that is no action (wrapping ErrBadAction, the validator's verdict in the
// result) or a request that could not be handled at all.
func (a *Agent) Propose(ctx context.Context, req ProposeRequest) (res ProposeResult, err error) {
	defer func() {
		// The client is another model: a gate's reason reaches it as the
		// rejection trace reaches ours.
		res.Verdict.Reason, res.Summary = a.forModel(res.Verdict.Reason), a.forModel(res.Summary)
	}()
	sig, err := Perceive(Signal{Source: req.Source, Session: req.Session, RequestID: req.RequestID, Sensor: SensorProposal}, a.roots)
	if err != nil {
		return ProposeResult{}, err
	}
	p := Pass{Sensor: sig.Sensor}
	var snap *memory.Snapshot
	defer func() {
		if r := recover(); r != nil {
			a.log.ErrorContext(ctx, "a proposal panicked", "panic", fmt.Sprint(r), "session", sig.Session, "stack", string(debug.Stack()))
			p.Status, p.Err = StatusFailed, fmt.Errorf("the proposal failed: %v", r)
			if snap != nil {
				p.RolledBack = a.rollback(ctx, snap)
			}
			res, err = resultOf(p), nil
		}
	}()
	// The gates judge, and the actuators filter what the proposer is
	// answered, by the memex checked against the disk: a note made
	// private there meanwhile is private to this action.
	view, err := a.fresh(ctx)
	if err != nil {
		return ProposeResult{}, err
	}
	env, err := a.env(ctx, view)
	if err != nil {
		return ProposeResult{}, err
	}
	defer env.Close()

	action, decodeErr := a.tools.DecodeJSON(req.Action)
	t := Try{N: 1}
	var prop proposal
	if decodeErr != nil {
		t.Verdict, t.Proposal = a.gates().Malformed(decodeErr), string(req.Action)
		prop.err = decodeErr
	} else {
		t.Verdict = a.gates().Check(ctx, action, env)
		if t.Verdict.Action != nil {
			action = *t.Verdict.Action
		}
		t.Action, t.Proposal = &action, string(action.CanonicalJSON())
		prop.action = action
	}
	p.Tries, p.Verdict = []Try{t}, t.Verdict
	if err := a.journalProposal(ctx, sig, t, prop, nil); err != nil {
		return ProposeResult{}, fmt.Errorf("nothing was done: %w", err)
	}
	a.log.InfoContext(ctx, "proposal gated", "tool", toolOf(t), "verdict", t.Verdict.Verdict, "gate", t.Verdict.Gate, "source", sig.Source, "session", sig.Session)
	if decodeErr != nil {
		p.Status = StatusDenied
		return resultOf(p), badAction{decodeErr}
	}
	p.Action = &action
	switch {
	case p.Verdict.Verdict == gates.VerdictDeny:
		p.Status = StatusDenied
		return resultOf(p), nil
	case p.Verdict.Verdict == gates.VerdictAsk || a.tools.NeedsApproval(action.Tool):
		id, err := a.file(ctx, sig, action, p.Verdict, filedNarrowing{})
		if err != nil {
			p.Status, p.Err = StatusFailed, err
			return resultOf(p), nil
		}
		p.Status, p.PlanID = StatusFiled, id
		return resultOf(p), nil
	}
	_, runErr := a.act(ctx, &p, sig, actuate.Request{Action: action, Snapshot: view}, &snap)
	switch {
	case runErr != nil && ctx.Err() != nil:
		p.Status, p.Err = StatusCancelled, ctx.Err()
	case runErr != nil:
		p.Status, p.Err = StatusFailed, runErr
	case action.Tool == gates.ToolMessage:
		p.Status = StatusAnswered
	default:
		p.Status = StatusRan
	}
	return resultOf(p), nil
}

// resultOf is a proposal's pass as its result.
func resultOf(p Pass) ProposeResult {
	r := ProposeResult{Status: p.Status, Verdict: p.Verdict, PlanID: p.PlanID, Result: p.Result, Summary: p.Summary(), Err: p.Err}
	r.Verdict.Action = nil
	if p.Action != nil {
		r.Tool = p.Action.Tool
	}
	return r
}

// Call is one request of a front end's client that reads the memex (a
// search, a node, a view), for the journal: who asked, what, and what it
// came to.
type Call struct {
	Source             Source
	Session, RequestID string
	// Name is what was called ("memex_search"); Args says with what, in
	// one line; Outcome what it came to ("3 hits", or the error).
	Name, Args, Outcome string
	// Failed reports that the call was refused or failed.
	Failed bool
}

// Record journals a call. A call that cannot be journalled is an error:
// the front end then answers nothing. A call reads and changes nothing, so
// its entry is written before Record returns but fsynced a moment later
// (journal.AppendDeferred: within journal.SyncDelay, or with the next
// entry that must be durable, or at Close).
func (a *Agent) Record(ctx context.Context, c Call) error {
	status := "ok"
	if c.Failed {
		status = "error"
	}
	return a.appendJournalDeferred(ctx, journal.Entry{
		Kind: journal.KindCall, Source: string(c.Source), Session: c.Session, RequestID: c.RequestID, Status: status,
		Title: fmt.Sprintf("%s %s: %s", c.Name, c.Args, c.Outcome),
	})
}

// Refresh reads again from disk what changed there without anyone saying
// so (another process's writes), and when flightplans.org changed, picks
// up approved plans at once (NotifyPlansChanged).
func (a *Agent) Refresh(ctx context.Context) error {
	before := a.memex.Snapshot()
	after, err := a.memex.Refresh(ctx)
	if err != nil {
		return err
	}
	b, had := before.File(a.plansPath)
	n, has := after.File(a.plansPath)
	if had != has || had && b.Hash() != n.Hash() {
		a.NotifyPlansChanged()
	}
	return nil
}
