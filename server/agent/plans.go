package agent

import (
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/google/uuid"

	"pp-lsp/gates"
	"pp-lsp/server/actuate"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
	"pp-lsp/server/workspace"
)

// PlanInfo is one plan as listed.
type PlanInfo struct {
	ID      string `json:"id"`
	State   string `json:"state"`
	Tool    string `json:"tool"`
	Created string `json:"created"`
	Title   string `json:"title"`
	Gate    string `json:"gate"`
	// Line is the headline's 1-based line in flightplans.org.
	Line int `json:"line"`
	// Edited reports that the action is no longer the one filed.
	Edited bool `json:"edited"`
	// Problem says why the plan cannot run as it is, if it cannot.
	Problem string `json:"problem,omitempty"`
}

// PlanRun is what happened to one plan when it was approved, rejected or
// picked up.
type PlanRun struct {
	ID    string
	Title string
	Tool  string
	// State is the plan's state afterwards.
	State flightplan.State
	// Ran reports that its action ran now.
	Ran bool
	// Summary says what happened in one line; Output is the action's.
	Summary string
	Output  string
	// Verdict is the gates' verdict at approval (or on the edited action).
	Verdict *gates.Verdict
	// Err is why the plan could not be handled.
	Err error
}

// Plans lists the Flight Plans in flightplans.org (the editor's buffer
// when it is open).
func (a *Agent) Plans(_ context.Context) ([]PlanInfo, error) {
	cur, err := a.files.Read(a.plansPath)
	if err != nil {
		return nil, err
	}
	var out []PlanInfo
	for _, p := range flightplan.Parse(cur.Text) {
		info := PlanInfo{ID: p.ID, State: string(p.State), Tool: p.Tool, Created: p.Created, Title: p.Title, Gate: p.Gate, Line: p.Line + 1}
		switch {
		case p.ID == "":
			info.Problem = "no :ID:"
		case p.ActionErr != nil:
			info.Problem = p.ActionErr.Error()
			info.Edited = true
		case p.Edited():
			info.Edited = true
		}
		out = append(out, info)
	}
	return out, nil
}

// PlanDiagnostics are the diagnostics the language server shows on a
// Flight Plans buffer (see flightplan.Diagnostics).
func (a *Agent) PlanDiagnostics(text []byte) []flightplan.Diagnostic {
	return flightplan.Diagnostics(text, a.store)
}

// PlanHover is the hover text over a plan's headline at the 0-based line.
func (a *Agent) PlanHover(text []byte, line int) (string, bool) {
	return flightplan.Hover(text, line, a.store)
}

// IsPlansFile reports whether path is this agent's flightplans.org.
func (a *Agent) IsPlansFile(path string) bool {
	return filepath.Clean(path) == a.plansPath
}

// NotifyPlansChanged tells the heartbeat that flightplans.org changed (the
// language server calls it on didChange, didSave and a change on disk), so
// that approved plans are picked up now rather than at the next tick. It
// never blocks.
func (a *Agent) NotifyPlansChanged() {
	select {
	case a.wake <- struct{}{}:
	default:
	}
}

// file files action as a Flight Plan: appended to flightplans.org (through
// the editor when it is open), its verdict recorded in the data directory,
// and journalled.
func (a *Agent) file(ctx context.Context, sig Signal, action gates.Action, v gates.Verdict) (string, error) {
	if v.Verdict != gates.VerdictAsk {
		// Allowed by the gates, but the actuator runs this tool only from
		// an approved plan: the plan says so in its trace.
		v = gates.Verdict{Verdict: gates.VerdictAsk, Gate: "agent",
			Reason: fmt.Sprintf("the gates allow it (%s), but %s always needs a human's approval", v.Reason, action.Tool),
			Trace:  append(append([]gates.TraceEntry(nil), v.Trace...), gates.TraceEntry{Gate: "agent", Priority: 0, Result: gates.TraceApproval})}
	}
	id := uuid.NewString()
	lk, err := a.store.Lock(ctx, a.plansPath)
	if err != nil {
		return "", fmt.Errorf("filing a Flight Plan: %w", err)
	}
	defer lk.Release()
	err = func() error {
		a.actMu.Lock()
		defer a.actMu.Unlock()
		cur, err := a.files.Read(a.plansPath)
		if err != nil {
			return err
		}
		plan := flightplan.Render(flightplan.Filing{ID: id, Created: a.now(), Action: action, Gate: v.Gate})
		if _, err := a.files.Write(ctx, cur, flightplan.AppendTo(cur.Text, plan), workspace.Meta{Label: "Passepartout: a Flight Plan to approve"}); err != nil {
			return err
		}
		if !cur.Open {
			a.memex.ReloadFiles(context.WithoutCancel(ctx), a.plansPath)
		}
		return a.store.Save(flightplan.Record{ID: id, File: a.plansPath, ActionHash: action.Hash(), Verdict: &v, Filed: a.now()})
	}()
	if err != nil {
		return "", fmt.Errorf("filing a Flight Plan: %w", err)
	}
	a.log.Info("Flight Plan filed", "plan", id, "tool", action.Tool, "gate", v.Gate, "session", sig.Session)
	a.appendJournal(ctx, journal.Entry{Kind: journal.KindPlan, Source: string(sig.Source), Session: sig.Session, RequestID: sig.RequestID,
		Tool: string(action.Tool), ActionHash: action.Hash(), PlanID: id, Status: string(flightplan.StatePlan), Verdict: &v,
		Title: flightplan.TitleFor(action), Action: a.journalAction(action, v)})
	return id, nil
}

// Approve approves the plan with the given ID on a human's command (the
// passepartout.approve command, a code action, the bridge's :APPROVE, the
// CLI) and runs it, exactly as an APPROVED keyword in the file would.
func (a *Agent) Approve(ctx context.Context, id string) (PlanRun, error) {
	return a.onPlan(ctx, id, func(p *flightplan.Plan, text []byte) PlanRun {
		if p.State.Final() {
			return PlanRun{ID: id, Title: p.Title, State: p.State, Err: fmt.Errorf("plan %s is already %s", id, p.State)}
		}
		return a.runPlan(ctx, p, "by command")
	})
}

// Reject rejects the plan with the given ID on a human's command.
func (a *Agent) Reject(ctx context.Context, id string) (PlanRun, error) {
	return a.onPlan(ctx, id, func(p *flightplan.Plan, text []byte) PlanRun {
		if p.State.Final() && p.State != flightplan.StateRejected {
			return PlanRun{ID: id, Title: p.Title, State: p.State, Err: fmt.Errorf("plan %s is already %s", id, p.State)}
		}
		return a.rejectPlan(ctx, p, p.State != flightplan.StateRejected)
	})
}

// onPlan runs f on the plan with id, under the plans lock.
func (a *Agent) onPlan(ctx context.Context, id string, f func(*flightplan.Plan, []byte) PlanRun) (PlanRun, error) {
	if !flightplan.ValidID(id) {
		return PlanRun{ID: id}, fmt.Errorf("%q is not a Flight Plan ID (a UUID)", id)
	}
	lk, err := a.store.Lock(ctx, a.plansPath)
	if err != nil {
		return PlanRun{ID: id}, err
	}
	defer lk.Release()
	cur, err := a.files.Read(a.plansPath)
	if err != nil {
		return PlanRun{ID: id}, err
	}
	p, err := flightplan.Find(flightplan.Parse(cur.Text), id)
	if err != nil {
		return PlanRun{ID: id}, err
	}
	run := f(p, cur.Text)
	return run, run.Err
}

// Pickup handles what humans did in flightplans.org: every APPROVED plan
// runs, every REJECTED one is journalled once, and a plan whose run is
// recorded but whose state was not written gets it. The heartbeat calls
// it; so does `pp-lsp plans --run-approved`.
func (a *Agent) Pickup(ctx context.Context) ([]PlanRun, error) {
	lk, err := a.store.Lock(ctx, a.plansPath)
	if err != nil {
		return nil, err
	}
	defer lk.Release()
	cur, err := a.files.Read(a.plansPath)
	if err != nil || !cur.Exists {
		return nil, err
	}
	plans := flightplan.Parse(cur.Text)
	seen := map[string]int{}
	for _, p := range plans {
		seen[p.ID]++
	}
	var runs []PlanRun
	for i := range plans {
		p := &plans[i]
		if !flightplan.ValidID(p.ID) || seen[p.ID] > 1 {
			continue
		}
		switch p.State {
		case flightplan.StateApproved:
			runs = append(runs, a.runPlan(ctx, p, "in flightplans.org"))
		case flightplan.StateRejected:
			if rec, ok, _ := a.store.Load(p.ID); !ok || rec.State != flightplan.StateRejected {
				runs = append(runs, a.rejectPlan(ctx, p, false))
			}
		}
		if ctx.Err() != nil {
			return runs, ctx.Err()
		}
	}
	return runs, nil
}

// rejectPlan records a rejection (and writes REJECTED when write is set).
func (a *Agent) rejectPlan(ctx context.Context, p *flightplan.Plan, write bool) PlanRun {
	run := PlanRun{ID: p.ID, Title: p.Title, Tool: p.Tool, State: flightplan.StateRejected, Summary: "rejected"}
	if claimed, _ := a.store.Claimed(p.ID); claimed {
		run.State, run.Err = p.State, fmt.Errorf("plan %s has already run", p.ID)
		return run
	}
	if write {
		if err := a.setState(ctx, p.ID, flightplan.StateRejected, "REJECTED by command: it will not run", ""); err != nil {
			run.Err = err
			return run
		}
	}
	rec, _, _ := a.store.Load(p.ID)
	rec.ID, rec.File, rec.State, rec.Result = p.ID, a.plansPath, flightplan.StateRejected, "rejected"
	if err := a.store.Save(rec); err != nil {
		run.Err = err
		return run
	}
	a.log.Info("Flight Plan rejected", "plan", p.ID)
	a.appendJournal(ctx, journal.Entry{Kind: journal.KindRejection, PlanID: p.ID, Tool: p.Tool, ActionHash: p.ActionHash,
		Status: string(flightplan.StateRejected), Title: p.Title})
	return run
}

// runPlan carries out an approved plan (the plans lock held): the action
// in its block, if it is still the one filed, gated again, claimed once,
// run, and its result written below it.
func (a *Agent) runPlan(ctx context.Context, p *flightplan.Plan, how string) PlanRun {
	run := PlanRun{ID: p.ID, Title: p.Title, Tool: p.Tool, State: p.State}
	claimed, err := a.store.Claimed(p.ID)
	if err != nil {
		run.Err = err
		return run
	}
	if claimed {
		return a.repair(ctx, p, run)
	}
	a.appendJournal(ctx, journal.Entry{Kind: journal.KindApproval, PlanID: p.ID, Tool: p.Tool, ActionHash: p.ActionHash,
		Status: string(flightplan.StateApproved), Title: p.Title + " (approved " + how + ")"})
	env, err := a.env(ctx, a.memex.Snapshot())
	if err != nil {
		run.Err = err
		return run
	}
	defer env.Close()
	switch {
	case p.ActionErr != nil:
		v := a.stack.Malformed(p.ActionErr)
		return a.finish(ctx, p, run, flightplan.StateFailed, &v, "not run: the plan's action block holds no valid action ("+p.ActionErr.Error()+")", "")
	case p.Edited():
		return a.regate(ctx, p, run, env)
	}
	action := *p.Action
	v := a.stack.Recheck(ctx, action, env)
	run.Verdict = &v
	if !v.Allowed() {
		return a.finish(ctx, p, run, flightplan.StateFailed, &v, fmt.Sprintf("not run: gated again at approval, %s denies it: %s", v.Gate, v.Reason), "")
	}
	if v.Action != nil && v.Action.Hash() != action.Hash() {
		return a.finish(ctx, p, run, flightplan.StateFailed, &v, "not run: the gates changed the action at approval, and the changed action is not the one approved", "")
	}
	now := a.now()
	if err := a.store.Claim(p.ID, action.Hash(), now); err != nil {
		if errors.Is(err, flightplan.ErrAlreadyRan) {
			return a.repair(ctx, p, run)
		}
		run.Err = err
		return run
	}
	rec, _, _ := a.store.Load(p.ID)
	rec.ID, rec.File, rec.ActionHash, rec.Started = p.ID, a.plansPath, action.Hash(), now
	if err := a.store.Save(rec); err != nil {
		a.log.Error("the plan's record could not be saved", "plan", p.ID, "err", err)
	}
	a.log.Info("running an approved Flight Plan", "plan", p.ID, "tool", action.Tool)

	a.actMu.Lock()
	snap := a.memex.Snapshot()
	res, err := func() (res actuate.Result, err error) {
		defer a.actMu.Unlock()
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("the run panicked: %v", r)
			}
			if err != nil {
				a.rollbackLocked(ctx, snap)
			}
		}()
		return a.acts.Run(ctx, actuate.Request{Action: action, Approval: &actuate.Approval{PlanID: p.ID, ActionHash: action.Hash()}})
	}()
	a.stack.Record(action.Tool, a.now())
	run.Ran = true
	state := flightplan.StateDone
	if err != nil || !res.OK {
		state = flightplan.StateFailed
	}
	a.journalResult(ctx, Signal{Source: SourceFlightPlan}, action, p.ID, res, err)
	output := outputText(res)
	if res.Output == "" && res.Shown != "" {
		// An approved message: the plan is where the human reads it.
		output += res.Shown
	}
	return a.finish(ctx, p, run, state, &v, fmt.Sprintf("%s: %s", state, summaryOf(res, err)), output)
}

// finish records a plan's final state and result, and writes them into
// the file.
func (a *Agent) finish(ctx context.Context, p *flightplan.Plan, run PlanRun, state flightplan.State, v *gates.Verdict, summary, output string) PlanRun {
	run.State, run.Summary, run.Output = state, summary, output
	if v != nil {
		run.Verdict = v
	}
	rec, _, _ := a.store.Load(p.ID)
	rec.ID, rec.File, rec.State, rec.Finished, rec.Result, rec.Output = p.ID, a.plansPath, state, a.now(), summary, clip(output, flightplan.MaxOutput)
	if err := a.store.Save(rec); err != nil {
		a.log.Error("the plan's record could not be saved", "plan", p.ID, "err", err)
	}
	if !run.Ran {
		a.appendJournal(ctx, journal.Entry{Kind: journal.KindResult, PlanID: p.ID, Tool: p.Tool, ActionHash: p.ActionHash,
			Status: string(state), Verdict: v, Title: p.Title + ": " + summary})
	}
	if err := a.setState(ctx, p.ID, state, summary, output); err != nil {
		run.Err = fmt.Errorf("plan %s is %s, but writing that into %s failed (it will be written at the next pickup): %w", p.ID, state, flightplan.FileName, err)
	}
	a.log.Info("Flight Plan finished", "plan", p.ID, "state", state)
	return run
}

// repair handles a plan whose run was claimed before (by this process or
// another): it never runs again; the file is made to say how it ended.
func (a *Agent) repair(ctx context.Context, p *flightplan.Plan, run PlanRun) PlanRun {
	rec, _, err := a.store.Load(p.ID)
	if err != nil {
		run.Err = err
		return run
	}
	run.Summary = "already ran"
	if !rec.State.Final() {
		// Claimed, never finished: whoever ran it holds the plans lock
		// while it runs, so it is not running now — its process ended.
		// It is not run again.
		return a.finish(ctx, p, run, flightplan.StateFailed, nil,
			"FAILED: its run began but never finished (the process running it ended); it is not run twice", "")
	}
	if p.State == rec.State {
		run.State = rec.State
		return run
	}
	run.State = rec.State
	if err := a.setState(ctx, p.ID, rec.State, rec.Result+" (from the run record)", rec.Output); err != nil {
		run.Err = err
	}
	return run
}

// regate handles a plan whose action was edited after filing: gated again;
// denied, it fails; otherwise it goes back to PLAN with the new hash and a
// note, and needs a fresh approval.
func (a *Agent) regate(ctx context.Context, p *flightplan.Plan, run PlanRun, env *gates.Env) PlanRun {
	action := *p.Action
	v := a.stack.Check(ctx, action, env)
	run.Verdict = &v
	if v.Verdict == gates.VerdictDeny {
		return a.finish(ctx, p, run, flightplan.StateFailed, &v,
			fmt.Sprintf("not run: the action was edited after filing, and %s denies the edited action: %s", v.Gate, v.Reason), "")
	}
	note := fmt.Sprintf("edited after filing (it was %s): gated again, %s by %s: %s. Back to PLAN: approve again to run the edited action.", p.ActionHash, v.Verdict, v.Gate, v.Reason)
	err := a.editPlan(ctx, p.ID, func(q *flightplan.Plan, src []byte) []workspace.Change {
		return []workspace.Change{
			q.SetState(flightplan.StatePlan),
			q.SetProperty(src, "ACTION_HASH", action.Hash()),
			q.SetProperty(src, "TOOL", string(action.Tool)),
			q.SetProperty(src, "GATE", v.Gate),
			q.Note(src, a.now(), note, ""),
		}
	})
	if err != nil {
		run.Err = err
		return run
	}
	rec, _, _ := a.store.Load(p.ID)
	rec.ID, rec.File, rec.ActionHash, rec.Verdict = p.ID, a.plansPath, action.Hash(), &v
	a.store.Save(rec)
	a.appendJournal(ctx, journal.Entry{Kind: journal.KindEdit, PlanID: p.ID, Tool: string(action.Tool), ActionHash: action.Hash(),
		Status: string(flightplan.StatePlan), Verdict: &v, Title: p.Title + ": edited, gated again", Action: a.journalAction(action, v)})
	run.State, run.Summary = flightplan.StatePlan, note
	return run
}

// setState writes a plan's new state and a note below it.
func (a *Agent) setState(ctx context.Context, id string, s flightplan.State, note, output string) error {
	return a.editPlan(ctx, id, func(p *flightplan.Plan, src []byte) []workspace.Change {
		return []workspace.Change{p.SetState(s), p.Note(src, a.now(), note, output)}
	})
}

// editPlan changes the plan with id in flightplans.org, re-reading the file
// (the editor's buffer when open) and trying again when it changed in
// between.
func (a *Agent) editPlan(ctx context.Context, id string, changes func(*flightplan.Plan, []byte) []workspace.Change) error {
	a.actMu.Lock()
	defer a.actMu.Unlock()
	var err error
	for range 3 {
		var cur workspace.Current
		if cur, err = a.files.Read(a.plansPath); err != nil {
			return err
		}
		var p *flightplan.Plan
		if p, err = flightplan.Find(flightplan.Parse(cur.Text), id); err != nil {
			return err
		}
		_, err = a.files.Write(context.WithoutCancel(ctx), cur, changes(p, cur.Text), workspace.Meta{Label: "Passepartout: Flight Plan " + id})
		if err == nil {
			if !cur.Open {
				a.memex.ReloadFiles(context.WithoutCancel(ctx), a.plansPath)
			}
			return nil
		}
		if !errors.Is(err, workspace.ErrChangedMeanwhile) {
			return err
		}
	}
	return err
}
