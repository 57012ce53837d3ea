package agent

import (
	"context"
	"errors"
	"fmt"
	"runtime/debug"
	"slices"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/providers"
	"pp-lsp/server/actuate"
	"pp-lsp/server/journal"
	"pp-lsp/server/protect"
	"pp-lsp/server/workspace"
)

// Status is how a pass ended.
type Status string

// The statuses.
const (
	// StatusAnswered: the model answered in words (shown, or offered into
	// the node the user asked from).
	StatusAnswered Status = "answered"
	// StatusRan: the action ran (it may still have failed: see Result.OK).
	StatusRan Status = "ran"
	// StatusFiled: the action waits as a Flight Plan (PlanID).
	StatusFiled Status = "filed"
	// StatusDenied: every try was denied; nothing ran.
	StatusDenied Status = "denied"
	// StatusFailed: the pass failed (Err) and the memex was rolled back.
	StatusFailed Status = "failed"
	// StatusDropped: the signal was deeper than MaxDepth.
	StatusDropped Status = "dropped"
	// StatusCancelled: the caller cancelled.
	StatusCancelled Status = "cancelled"
)

// Try is one proposal of a pass and the gates' verdict on it.
type Try struct {
	N int
	// Proposal is the action's canonical JSON, or what the model said when
	// it was no action.
	Proposal string
	Action   *gates.Action
	Verdict  gates.Verdict
}

// Pass is what one perceive → reason → act cycle did.
type Pass struct {
	Depth  int
	Sensor Sensor
	Status Status
	Tries  []Try
	// Action and Verdict are the last try's: what ran or was filed.
	Action  *gates.Action
	Verdict gates.Verdict
	// Provider names who answered; Model is its provider:model.
	Provider, Model string
	// Usage is the tokens of the pass's model calls, as the providers
	// reported them, or, when one reported none, our counter's estimate
	// (UsageEstimated).
	Usage          providers.Usage
	UsageEstimated bool
	// PlanID is the Flight Plan filed.
	PlanID string
	// Result is what the action did.
	Result *actuate.Result
	// Err is why the pass failed or what cancelled it.
	Err error
	// RolledBack is what the rollback after a failure did.
	RolledBack *memory.RollbackResult
	// Skills are the titles of the skills the pass applied, in order.
	Skills []string
}

// ErrNoProvider is returned when a question needs a model and none is
// configured; its text names PASSEPARTOUT_PROVIDERS.
var ErrNoProvider = providers.ErrNoProvider

// handle runs a signal through the pipeline: perceive, then passes of
// reason and act until one does not feed an output back (or the depth
// limit drops it), each pass in the list. Text the model says streams
// through emit as it comes. A heartbeat does maintenance instead (see
// Pickup). The error is for a signal that could not be handled at all (no
// model, a malformed signal) or a cancelled one.
func (a *Agent) handle(ctx context.Context, sig Signal, emit func(string) error) ([]Pass, error) {
	if sig.LocalOnly {
		// A private conversation's passes (their feedback is as private)
		// log nothing into the LOGS of later prompts.
		ctx = keepOutOfPrompt(ctx)
	}
	var out []Pass
	for {
		s, err := Perceive(sig, a.roots)
		if errors.Is(err, ErrDepth) {
			a.log.WarnContext(ctx, "signal dropped: too deep", "depth", sig.Depth, "max", MaxDepth, "source", sig.Source, "session", sig.Session)
			a.appendJournal(ctx, journal.Entry{Kind: journal.KindDropped, Title: fmt.Sprintf("signal at depth %d (limit %d)", sig.Depth, MaxDepth),
				Source: string(sig.Source), Session: sig.Session, RequestID: sig.RequestID})
			out = append(out, Pass{Depth: sig.Depth, Sensor: sig.Sensor, Status: StatusDropped, Err: err})
			return out, nil
		}
		if err != nil {
			return out, err
		}
		if s.Sensor == SensorHeartbeat {
			_, err := a.Pickup(ctx)
			return out, err
		}
		if a.provider == nil {
			return out, ErrNoProvider
		}
		p, next := a.pass(ctx, s, emit)
		out = append(out, p)
		if p.Status == StatusCancelled {
			return out, p.Err
		}
		if next == nil {
			return out, nil
		}
		sig = *next
	}
}

// pass is one cycle. A panic anywhere in it is recovered, the memex rolled
// back to the snapshot taken before the pass changed anything, and the pass
// reported failed.
func (a *Agent) pass(ctx context.Context, sig Signal, emit func(string) error) (p Pass, next *Signal) {
	p = Pass{Depth: sig.Depth, Sensor: sig.Sensor}
	var snap *memory.Snapshot
	defer func() {
		r := recover()
		if r == nil {
			return
		}
		a.log.ErrorContext(ctx, "a pass panicked", "panic", fmt.Sprint(r), "session", sig.Session, "stack", string(debug.Stack()))
		p.Status, p.Err, next = StatusFailed, fmt.Errorf("the pass failed: %v", r), nil
		if snap != nil {
			p.RolledBack = a.rollback(ctx, snap)
		}
	}()
	view, err := a.freshFor(ctx, sig)
	if err != nil {
		p.Status, p.Err = StatusFailed, err
		return p, nil
	}
	applied := a.skillsFor(ctx, view, sig)
	env, err := a.env(ctx, view, narrowing(sig, applied)...)
	if err != nil {
		p.Status, p.Err = StatusFailed, err
		return p, nil
	}
	defer env.Close()

	p.Skills = applied.Titles()
	prop, h, err := a.reason(ctx, &p, sig, view, env, applied, emit)
	if err != nil {
		p.Err = err
		p.Status = StatusFailed
		if ctx.Err() != nil {
			p.Status, p.Err = StatusCancelled, ctx.Err()
		}
		return p, nil
	}
	if p.Status == StatusDenied {
		return p, nil
	}
	action := *p.Action
	if p.Verdict.Verdict == gates.VerdictAsk || a.tools.NeedsApproval(action.Tool) {
		id, err := a.file(ctx, sig, action, p.Verdict, narrowedBy(sig, applied))
		if err != nil {
			p.Status, p.Err = StatusFailed, err
			return p, nil
		}
		p.Status, p.PlanID = StatusFiled, id
		return p, nil
	}
	// Allowed: act, with a snapshot to roll back to.
	place := sig.File
	if sig.FollowUp {
		place = "" // a follow-up's answer goes into its conversation, not a note
	}
	res, err := a.act(ctx, &p, sig, actuate.Request{Action: action, File: place, Line: sig.Line, Question: sig.Text, Snapshot: view}, &snap)
	if err != nil {
		p.Status, p.Err = StatusFailed, err
		if ctx.Err() != nil {
			p.Status, p.Err = StatusCancelled, ctx.Err()
		}
		return p, nil
	}
	p.Status = StatusRan
	if action.Tool == gates.ToolMessage {
		p.Status = StatusAnswered
		switch {
		case prop.message && !h.streamed():
			h.flush()
		case !prop.message && res.Shown != "":
			emit(res.Shown)
		}
	}
	if res.Feedback {
		return p, a.feedback(sig, prop, action, res)
	}
	return p, nil
}

// act runs an allowed action with a snapshot to roll back to — *snap
// while it runs, for the caller's recovery from a panic — and rolls back
// when it fails; then it counts the action for the rate limits and
// journals its result in p.
func (a *Agent) act(ctx context.Context, p *Pass, sig Signal, req actuate.Request, snap **memory.Snapshot) (actuate.Result, error) {
	if a.acts.WritesNothing(req.Action.Tool) {
		// An answer shown, a file read: nothing to roll back or undo, and
		// no reason to wait for an action that writes.
		res, err := a.acts.Run(ctx, req)
		a.gates().Record(req.Action.Tool, a.now())
		p.Result = &res
		a.journalResult(ctx, sig, req.Action, "", res, err)
		return res, err
	}
	a.actMu.Lock()
	a.actMark = a.own.Mark()
	a.refreshFirst(ctx, req.Action)
	*snap = a.memex.Snapshot()
	res, err := func() (actuate.Result, error) {
		defer a.actMu.Unlock()
		defer a.locks.lock(a.acts.Targets(req.Action)...)()
		pre := a.capture(ctx, req.Action)
		res, err := a.acts.Run(ctx, req)
		if err != nil {
			p.RolledBack = a.rollbackLocked(ctx, *snap)
		} else {
			a.recordChange(ctx, req.Action, "", sig.LocalOnly, res, pre, a.orgChanges(ctx, req.Action, *snap))
		}
		return res, err
	}()
	*snap = nil
	a.gates().Record(req.Action.Tool, a.now())
	p.Result = &res
	a.journalResult(ctx, sig, req.Action, "", res, err)
	return res, err
}

// feedback is the signal that carries an action's output back to the
// model, one level deeper, with the conversation so far.
func (a *Agent) feedback(sig Signal, prop proposal, action gates.Action, res actuate.Result) *Signal {
	hist := append([]providers.Message(nil), sig.History...)
	if len(hist) == 0 {
		hist = append(hist, providers.Message{Role: providers.RoleUser, Content: sig.Text})
	}
	out := fmt.Sprintf("%s\n%s", a.forModel(res.Summary), res.Output)
	if prop.call != nil {
		hist = append(hist,
			providers.Message{Role: providers.RoleAssistant, ToolCalls: []providers.ToolCall{*prop.call}},
			providers.Message{Role: providers.RoleTool, ToolCallID: prop.call.ID, ToolName: prop.call.Name, Content: out})
	} else {
		hist = append(hist,
			providers.Message{Role: providers.RoleAssistant, Content: prop.raw},
			providers.Message{Role: providers.RoleUser, Content: fmt.Sprintf("OUTPUT OF THE %s ACTION:\n%s", action.Tool, out)})
	}
	return &Signal{
		Source: SourceFeedback, Session: sig.Session, RequestID: sig.RequestID, Sensor: SensorToolOutput,
		Text: sig.Text, File: sig.File, Line: sig.Line, Character: sig.Character, Depth: sig.Depth + 1, History: hist,
		Prior: sig.Prior, Provider: sig.Provider, LocalOnly: sig.LocalOnly, FollowUp: sig.FollowUp,
		Skill: sig.Skill,
	}
}

// rollback takes actMu and returns the memex to snap.
func (a *Agent) rollback(ctx context.Context, snap *memory.Snapshot) *memory.RollbackResult {
	a.actMu.Lock()
	defer a.actMu.Unlock()
	return a.rollbackLocked(ctx, snap)
}

// rollbackLocked returns the memex to snap (actMu held): files the pass
// changed on disk are written back; open buffers are restored through the
// editor; files someone else changed meanwhile are left alone and logged.
// flightplans.org and journal.org are kept out of it: what they hold is a
// human's decisions and the audit record, which a failed pass never takes
// back (a watcher may have read an append into the memex after the
// snapshot, which would otherwise make the rollback undo it). So are the
// files the agent changed itself since the action began (a conversation's
// turn, a schedule moved on): they never waited for it, and are not its.
func (a *Agent) rollbackLocked(ctx context.Context, snap *memory.Snapshot) *memory.RollbackResult {
	ctx = context.WithoutCancel(ctx)
	var res *memory.RollbackResult
	var err error
	// No own change is made on disk, and no entry appended, between
	// reading the kept files as they are and writing them back (keepOut):
	// the rollback and keepOut write files only, the open buffers are
	// restored below, after it.
	a.own.Locked(func() {
		a.journalMu.Lock()
		defer a.journalMu.Unlock()
		kept := map[string][]byte{}
		keep := []string{a.plansPath, a.journal.Path()}
		for p := range a.own.ChangedSince(a.actMark) {
			keep = append(keep, p)
		}
		for _, p := range keep {
			if b, err := readRegular(p, -1); err == nil {
				kept[protect.Canonical(p)] = b
			}
		}
		res, err = a.memex.Rollback(ctx, snap)
		if err != nil {
			return
		}
		res.Restored = a.keepOut(ctx, res.Restored, kept)
		res.Removed = a.keepOut(ctx, res.Removed, kept)
		res.Buffers = slices.DeleteFunc(res.Buffers, func(b memory.BufferRestore) bool {
			_, own := kept[protect.Canonical(b.Path)]
			return own
		})
	})
	if err != nil {
		a.log.ErrorContext(ctx, "the memex could not be rolled back", "err", err)
		return nil
	}
	for _, b := range res.Buffers {
		a.restoreBuffer(ctx, b)
	}
	for _, c := range res.Conflicts {
		a.log.WarnContext(ctx, "rollback left a file alone: someone else changed it", "file", c.Path, "why", c.Reason)
	}
	if n := len(res.Restored) + len(res.Removed) + len(res.Buffers); n > 0 {
		a.log.InfoContext(ctx, "rolled the memex back after a failed pass", "restored", len(res.Restored), "removed", len(res.Removed), "buffers", len(res.Buffers))
	}
	return res
}

// keepOut writes back the kept bytes of any protected file the rollback
// touched, and returns the list without them.
func (a *Agent) keepOut(ctx context.Context, paths []string, kept map[string][]byte) []string {
	out := paths[:0]
	for _, p := range paths {
		b, own := kept[protect.Canonical(p)]
		if !own {
			out = append(out, p)
			continue
		}
		if err := workspace.WriteFile(p, b, 0o644); err != nil {
			a.log.ErrorContext(ctx, "a rollback touched a protected file and it could not be put back", "file", p, "err", err)
			continue
		}
		a.memex.ReloadFiles(ctx, p)
	}
	return out
}
