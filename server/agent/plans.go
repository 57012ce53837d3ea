package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"path/filepath"

	"github.com/google/uuid"

	"pp-lsp/gates"
	"pp-lsp/orgast"
	"pp-lsp/server/actuate"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
	"pp-lsp/server/protect"
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
	// Hash is the hash of the action its block holds now
	// (gates.Action.Hash: the filing record's and :ACTION_HASH: unless it
	// was edited; "" when the block holds no action): the revision a
	// client shows, and sends back with an approval (ApproveSeen).
	Hash string `json:"hash,omitempty"`
	// Revision is the plan's :REVISION: as the text holds it, beside the
	// diff it shows (flightplan.Store.Revision: a file_write or
	// memory_edit's filing, including the text its diff was made from;
	// "" for other plans): a client sends it back with Hash, and the
	// approval runs only while the plan is still that filing.
	Revision string `json:"revision,omitempty"`
	// Problem says why the plan cannot run as it is, if it cannot.
	Problem string `json:"problem,omitempty"`
	// Private reports a plan a private conversation filed
	// (flightplan.Record.Private), or one whose record cannot be read:
	// its title may quote the conversation.
	Private bool `json:"private,omitempty"`
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
	// Rule is the permission rule added when the plan was approved with
	// similar actions allowed from then on (ApproveAlways).
	Rule string
	// Private: a private conversation's plan (its record says so), of
	// which nothing is logged into later prompts' LOGS.
	Private bool
}

// privatePlan reports whether the plan id was filed by a private
// conversation (flightplan.Record.Private), or may have been: a record
// that cannot be read (damaged, or an ID no record can have) is taken
// for a private one's. A plan with no record is not.
func (a *Agent) privatePlan(id string) bool {
	rec, ok, err := a.store.Load(id)
	return err != nil || ok && rec.Private
}

// Plans lists the Flight Plans in flightplans.org (the editor's buffer
// when it is open and modified; the disk's text when the buffer is
// unmodified or not yet reloaded after the server wrote the file).
func (a *Agent) Plans(_ context.Context) ([]PlanInfo, error) {
	if err := protect.OwnFile(a.plansPath); err != nil {
		return nil, err
	}
	cur, err := a.readPlans()
	if err != nil {
		return nil, err
	}
	var out []PlanInfo
	plans := flightplan.Parse(cur.Text)
	for i := range plans {
		p := &plans[i]
		info := PlanInfo{ID: p.ID, State: string(p.State), Tool: p.Tool, Created: p.Created, Title: p.Title, Gate: p.Gate, Line: p.Line + 1}
		if p.Action != nil {
			info.Hash = p.Action.Hash()
		}
		info.Revision = p.Revision
		st := a.store.Standing(p)
		info.Private = a.privatePlan(p.ID)
		switch {
		case p.ID == "":
			info.Problem = "no :ID:"
		case st.Foreign != "" && !p.State.Final():
			info.Problem = "not filed by pp-lsp (" + st.Foreign + "): it never runs"
		case p.ActionErr != nil:
			info.Problem = p.ActionErr.Error()
			info.Edited = true
		case st.Edited && !p.State.Final():
			info.Edited = true
		}
		out = append(out, info)
	}
	return out, nil
}

// PlanDiagnostics are the diagnostics the language server shows on a
// Flight Plans buffer (see flightplan.Diagnostics), and, on its first
// line, why the server refuses flightplans.org or journal.org if it does.
func (a *Agent) PlanDiagnostics(text []byte) []flightplan.Diagnostic {
	var out []flightplan.Diagnostic
	if err := a.ownFiles(); err != nil {
		end := bytes.IndexByte(text, '\n')
		if end < 0 {
			end = len(text)
		}
		out = append(out, flightplan.Diagnostic{Range: orgast.Range{End: end}, Severity: flightplan.SeverityError,
			Message: err.Error() + ": no plan is filed or run until it is fixed"})
	}
	disk, _, _ := protect.ReadOwnFile(a.plansPath)
	return append(out, flightplan.Diagnostics(text, disk, a.store)...)
}

// ownFiles checks that flightplans.org and journal.org are the server's own
// files (protect.OwnFile): a symlink or a second hard link is refused.
func (a *Agent) ownFiles() error {
	return errors.Join(protect.OwnFile(a.plansPath), protect.OwnFile(a.journal.Path()))
}

// IsPlansFile reports whether path is this agent's flightplans.org.
func (a *Agent) IsPlansFile(path string) bool {
	return filepath.Clean(path) == a.plansPath
}

// NotifyPlansChanged tells the heartbeat that flightplans.org changed on
// disk (the language server calls it on didSave and when a watcher sees the
// file change; never on didChange: an unsaved APPROVED runs nothing), so
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
func (a *Agent) file(ctx context.Context, sig Signal, action gates.Action, v gates.Verdict, nw filedNarrowing) (string, error) {
	v = needsHuman(action, v)
	id := uuid.NewString()
	pv := a.preview(ctx, action)
	lk, err := a.store.Lock(ctx, a.plansPath)
	if err != nil {
		return "", fmt.Errorf("filing a Flight Plan: %w", err)
	}
	defer lk.Release()
	err = func() error {
		if err := a.ownFiles(); err != nil {
			return err
		}
		// Filing waits for no action (an action may wait for the editor's
		// user): only for another writer of the plans.
		defer a.locks.lock(a.plansPath)()
		cur, err := a.readPlans()
		if err != nil {
			return err
		}
		// The records first: a plan in the file always has its filing
		// record (one without a plan is harmless).
		now := a.now()
		filing := flightplan.FilingRecord{ID: id, ActionHash: action.Hash(), Gate: v.Gate, Filed: now, Before: pv.before}
		if err := a.store.SaveFiling(filing); err != nil {
			return err
		}
		if err := a.store.Save(flightplan.Record{ID: id, File: a.plansPath, ActionHash: action.Hash(), Verdict: &v, Filed: now, Private: sig.LocalOnly,
			Narrowed: true, Skills: nw.skills, Narrowing: nw.rules}); err != nil {
			return err
		}
		plan := flightplan.Render(flightplan.Filing{ID: id, Created: now, Action: action, Gate: v.Gate, Diff: pv.diff, Writes: pv.writes,
			Revision: a.store.Revision(filing)})
		return a.writePlans(ctx, cur, flightplan.AppendTo(cur.Text, plan), "Passepartout: a Flight Plan to approve",
			"a new Flight Plan, "+flightplan.TitleFor(action))
	}()
	if err != nil {
		return "", fmt.Errorf("filing a Flight Plan: %w", err)
	}
	a.log.InfoContext(ctx, "Flight Plan filed", "plan", id, "tool", action.Tool, "gate", v.Gate, "session", sig.Session)
	a.appendJournal(ctx, journal.Entry{Kind: journal.KindPlan, Source: string(sig.Source), Session: sig.Session, RequestID: sig.RequestID,
		Tool: string(action.Tool), ActionHash: action.Hash(), PlanID: id, Status: string(flightplan.StatePlan), Verdict: &v,
		Title: flightplan.TitleFor(action), Action: a.journalAction(action, v), Private: sig.LocalOnly})
	return id, nil
}

// needsHuman is the verdict a plan is filed with: the gates' "ask", or, for
// an action the gates allow but whose tool runs only from an approved plan
// (http, send, eval), an "ask" by the agent that says so in its trace.
func needsHuman(action gates.Action, v gates.Verdict) gates.Verdict {
	if v.Verdict == gates.VerdictAsk {
		return v
	}
	return gates.Verdict{Verdict: gates.VerdictAsk, Gate: "agent",
		Reason: fmt.Sprintf("the gates allow it (%s), but %s always needs a human's approval", v.Reason, action.Tool),
		Trace:  append(append([]gates.TraceEntry(nil), v.Trace...), gates.TraceEntry{Gate: "agent", Priority: 0, Result: gates.TraceApproval})}
}

// Approve approves the plan with the given ID on a human's command (the
// passepartout.approve command, a code action, the bridge's :APPROVE)
// and runs it, exactly as an APPROVED keyword saved in the file would. It
// checks no revision: the front ends call ApproveAsSeen with the hash of
// the action their user saw and, for a plan with a diff, its revision.
func (a *Agent) Approve(ctx context.Context, id string) (PlanRun, error) {
	return a.ApproveSeen(ctx, id, "")
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
	if err := a.ownFiles(); err != nil {
		return PlanRun{ID: id}, err
	}
	cur, err := a.readPlans()
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

// Pickup handles what humans did in flightplans.org as saved on disk —
// never an editor's unsaved buffer: every APPROVED plan runs (if it is the
// server's, unchanged since filing, and its approval is not a stale one),
// every REJECTED one is journalled once, a plan whose run is recorded but
// whose state was not written gets it, and a foreign plan is journalled and
// never runs. The heartbeat calls it (at its ticks, and at once when the
// file is saved or changes on disk); so does `pp-lsp plans --run-approved`.
func (a *Agent) Pickup(ctx context.Context) ([]PlanRun, error) {
	lk, err := a.store.Lock(ctx, a.plansPath)
	if err != nil {
		return nil, err
	}
	defer lk.Release()
	if err := a.ownFiles(); err != nil {
		return nil, err
	}
	disk, exists, err := protect.ReadOwnFile(a.plansPath)
	if err != nil || !exists {
		return nil, err
	}
	plans := flightplan.Parse(disk)
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
		if p.State.Final() {
			if p.State == flightplan.StateRejected && a.store.Standing(p).Foreign == "" {
				if rec, ok, _ := a.store.Load(p.ID); !ok || rec.State != flightplan.StateRejected {
					runs = append(runs, a.rejectPlan(ctx, p, false))
				}
			}
			continue
		}
		st := a.store.Standing(p)
		if st.Foreign != "" {
			a.noteForeign(ctx, p, disk, st.Foreign)
			continue
		}
		if p.State == flightplan.StateApproved && a.approvedNow(p, st, disk) {
			runs = append(runs, a.runPlan(ctx, p, disk, approvedInFile))
		}
		if ctx.Err() != nil {
			return runs, ctx.Err()
		}
	}
	return runs, nil
}

// approvedNow reports whether p's APPROVED on disk is an approval to act
// on: not the one an edited plan was saved with before it was filed afresh
// (the record's StaleApproval), and not taken back in the editor's buffer,
// whose text the user sees (there it must still read APPROVED; a plan
// that ran and whose buffer reads DONE is done).
func (a *Agent) approvedNow(p *flightplan.Plan, st flightplan.Standing, disk []byte) bool {
	if st.Record.StaleApproval != "" && st.Record.StaleApproval == journal.HashOf(p.Text(disk)) {
		return false
	}
	if a.files.Workspace == nil {
		return true
	}
	d, open := a.files.Workspace.OpenDocument(a.plansPath)
	if !open {
		return true
	}
	q, err := flightplan.Find(flightplan.Parse(d.Text), p.ID)
	return err == nil && q.State == flightplan.StateApproved
}

// approvedInFile is how a plan approved by saving flightplans.org is
// approved (runPlan's how).
const approvedInFile = "in flightplans.org"

// stillApproved checks, actMu held, that flightplans.org on disk still
// holds p exactly as it was read from src, APPROVED: an approval that was
// there only while an action ran (and was undone after it) is none.
func (a *Agent) stillApproved(p *flightplan.Plan, src []byte) error {
	disk, _, err := protect.ReadOwnFile(a.plansPath)
	if err != nil {
		return err
	}
	q, err := flightplan.Find(flightplan.Parse(disk), p.ID)
	if err != nil || q.State != flightplan.StateApproved || !bytes.Equal(q.Text(disk), p.Text(src)) {
		return fmt.Errorf("plan %s was not run: its approval is no longer in %s as it was read (it changed while an action ran)", p.ID, flightplan.FileName)
	}
	return nil
}

// noteForeign journals a plan the server never filed, once per process
// for the same text, and logs it; it never runs.
func (a *Agent) noteForeign(ctx context.Context, p *flightplan.Plan, src []byte, why string) {
	key := p.ID + " " + journal.HashOf(p.Text(src))
	a.foreignMu.Lock()
	seen := a.foreign[key]
	a.foreign[key] = true
	a.foreignMu.Unlock()
	if seen {
		return
	}
	a.log.WarnContext(ctx, "a Flight Plan not filed by pp-lsp is in flightplans.org: it never runs", "plan", p.ID, "state", p.State, "why", why)
	e := journal.Entry{Kind: journal.KindForeign, PlanID: p.ID, Tool: p.Tool, Status: string(p.State),
		Title: fmt.Sprintf("%s: not filed by pp-lsp (%s); it never runs", p.Title, why)}
	if p.Action != nil {
		e.ActionHash = p.Action.Hash()
	}
	if a.appendJournal(ctx, e) != nil {
		a.foreignMu.Lock()
		delete(a.foreign, key)
		a.foreignMu.Unlock()
	}
}

// rejectPlan records a rejection (and writes REJECTED when write is set).
func (a *Agent) rejectPlan(ctx context.Context, p *flightplan.Plan, write bool) PlanRun {
	run := PlanRun{ID: p.ID, Title: p.Title, Tool: p.Tool, State: flightplan.StateRejected, Summary: "rejected"}
	if a.privatePlan(p.ID) {
		run.Private = true // a record that cannot be read may be a private one's
		ctx = keepOutOfPrompt(ctx)
	}
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
	a.log.InfoContext(ctx, "Flight Plan rejected", "plan", p.ID)
	a.appendJournal(ctx, journal.Entry{Kind: journal.KindRejection, PlanID: p.ID, Tool: p.Tool, ActionHash: p.ActionHash,
		Status: string(flightplan.StateRejected), Title: p.Title})
	return run
}

// runPlan carries out an approved plan (the plans lock held; p read from
// src): only when its filing record is valid and its block is the action
// filed — a foreign plan never runs, an edited one is filed afresh — then
// with its approval journalled first, gated again, claimed once, run, and
// its result written below it.
func (a *Agent) runPlan(ctx context.Context, p *flightplan.Plan, src []byte, how string) PlanRun {
	run := PlanRun{ID: p.ID, Title: p.Title, Tool: p.Tool, State: p.State}
	// Read once for its privacy and, when gated again, its narrowing.
	filed, known, err := a.store.Load(p.ID)
	known = known && err == nil
	if known && filed.Private {
		// A plan a private conversation filed logs nothing into the
		// LOGS of later prompts.
		ctx = keepOutOfPrompt(ctx)
		run.Private = true
	}
	st := a.store.Standing(p)
	if st.Foreign != "" {
		a.noteForeign(ctx, p, src, st.Foreign)
		run.Err = fmt.Errorf("plan %s was not filed by pp-lsp (%s): it never runs", p.ID, st.Foreign)
		return run
	}
	claimed, err := a.store.Claimed(p.ID)
	if err != nil {
		run.Err = err
		return run
	}
	if claimed {
		return a.repair(ctx, p, run)
	}
	if p.ActionErr != nil || st.Edited {
		return a.refile(ctx, p, run, false)
	}
	if err := a.appendJournal(ctx, journal.Entry{Kind: journal.KindApproval, PlanID: p.ID, Tool: p.Tool, ActionHash: st.Record.ActionHash,
		Status: string(flightplan.StateApproved), Title: p.Title + " (approved " + how + ")"}); err != nil {
		run.Err = fmt.Errorf("plan %s was not run: %w", p.ID, err)
		return run
	}
	gated := a.memex.Snapshot()
	env, err := a.env(ctx, gated, a.recordNarrowing(gated, filed, known)...)
	if err != nil {
		run.Err = err
		return run
	}
	defer env.Close()
	action := *p.Action
	v := a.gates().Recheck(ctx, action, env)
	run.Verdict = &v
	if !v.Allowed() {
		return a.finish(ctx, p, run, flightplan.StateFailed, &v, fmt.Sprintf("not run: gated again at approval, %s denies it: %s", v.Gate, v.Reason), "")
	}
	if v.Action != nil && v.Action.Hash() != action.Hash() {
		return a.finish(ctx, p, run, flightplan.StateFailed, &v, "not run: the gates changed the action at approval, and the changed action is not the one approved", "")
	}
	now := a.now()
	// Under actMu no action of this agent runs: an APPROVED that one wrote
	// into flightplans.org while it ran has been undone by now, and none
	// can be written until this run ends. A disk approval is read again
	// here, and the run is claimed and started without letting go.
	a.actMu.Lock()
	a.actMark = a.own.Mark()
	if how == approvedInFile {
		if err := a.stillApproved(p, src); err != nil {
			a.actMu.Unlock()
			run.Err = err
			return run
		}
	}
	if a.targetChanged(action, st.Record) {
		a.actMu.Unlock()
		return a.refile(ctx, p, run, true)
	}
	if err := a.store.Claim(p.ID, action.Hash(), now); err != nil {
		a.actMu.Unlock()
		if errors.Is(err, flightplan.ErrAlreadyRan) {
			return a.repair(ctx, p, run)
		}
		run.Err = err
		return run
	}
	rec, _, _ := a.store.Load(p.ID)
	rec.ID, rec.File, rec.ActionHash, rec.Started = p.ID, a.plansPath, action.Hash(), now
	if err := a.store.Save(rec); err != nil {
		a.log.ErrorContext(ctx, "the plan's record could not be saved", "plan", p.ID, "err", err)
	}
	a.log.InfoContext(ctx, "running an approved Flight Plan", "plan", p.ID, "tool", action.Tool)

	a.refreshFirst(ctx, action)
	snap := a.memex.Snapshot()
	res, err := func() (res actuate.Result, err error) {
		defer a.actMu.Unlock()
		defer a.locks.lock(a.acts.Targets(action)...)()
		defer func() {
			if r := recover(); r != nil {
				err = fmt.Errorf("the run panicked: %v", r)
			}
			if err != nil {
				a.rollbackLocked(ctx, snap)
			}
		}()
		pre := a.capture(ctx, action)
		res, err = a.acts.Run(ctx, actuate.Request{Action: action, Approval: &actuate.Approval{PlanID: p.ID, ActionHash: action.Hash(), Before: st.Record.Before}})
		if err == nil {
			a.recordChange(ctx, action, p.ID, rec.Private, res, pre, a.orgChanges(ctx, action, snap))
		}
		return res, err
	}()
	a.gates().Record(action.Tool, a.now())
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
		a.log.ErrorContext(ctx, "the plan's record could not be saved", "plan", p.ID, "err", err)
	}
	if !run.Ran {
		a.appendJournal(ctx, journal.Entry{Kind: journal.KindResult, PlanID: p.ID, Tool: p.Tool, ActionHash: p.ActionHash,
			Status: string(state), Verdict: v, Title: p.Title + ": " + summary})
	}
	if err := a.setState(ctx, p.ID, state, summary, output); err != nil {
		run.Err = fmt.Errorf("plan %s is %s, but writing that into %s failed (it will be written at the next pickup): %w", p.ID, state, flightplan.FileName, err)
	}
	a.log.InfoContext(ctx, "Flight Plan finished", "plan", p.ID, "state", state)
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

// refile handles a plan whose block is not the action filed (the plans
// lock held): the edited action is gated again; denied (or not an action
// at all), the plan is REJECTED with the reason; otherwise it is filed
// afresh — a new filing record, the headline, :ACTION_HASH:, :TOOL: and
// :GATE: rewritten to the new action, back to PLAN — and needs a fresh
// approval. The approval it came with never counts: when flightplans.org on
// disk still holds it (the rewrite went to an editor's buffer), the new
// record names that text as a stale approval.
//
// With fileChanged, the block is the action filed but the file its diff
// was made from changed since (a file_write or memory_edit): the approval
// was of another change, so the same steps make the plan show what it
// would change now.
func (a *Agent) refile(ctx context.Context, p *flightplan.Plan, run PlanRun, fileChanged bool) PlanRun {
	what := "the action was edited after filing"
	if fileChanged {
		what = "the file changed since the plan was filed"
	}
	var v gates.Verdict
	if p.ActionErr != nil {
		v = a.gates().Malformed(p.ActionErr)
	} else {
		snap := a.memex.Snapshot()
		env, err := a.env(ctx, snap, a.planNarrowing(snap, p.ID)...)
		if err != nil {
			run.Err = err
			return run
		}
		v = a.gates().Check(ctx, *p.Action, env)
		env.Close()
	}
	run.Verdict = &v
	switch {
	case p.ActionErr != nil:
		return a.finish(ctx, p, run, flightplan.StateRejected, &v,
			fmt.Sprintf("REJECTED: the action block was edited after filing and holds no valid action (%s)", p.ActionErr), "")
	case v.Verdict == gates.VerdictDeny:
		return a.finish(ctx, p, run, flightplan.StateRejected, &v,
			fmt.Sprintf("REJECTED: %s, and gated again %s denies the action: %s", what, v.Gate, v.Reason), "")
	}
	action := *p.Action
	v = needsHuman(action, v)
	run.Verdict = &v
	pv := a.preview(ctx, action)
	rec := flightplan.FilingRecord{ID: p.ID, ActionHash: action.Hash(), Gate: v.Gate, Filed: a.now(), Before: pv.before, StaleApproval: a.staleApproval(p.ID)}
	if err := a.store.SaveFiling(rec); err != nil {
		run.Err = err
		return run
	}
	note := fmt.Sprintf("edited after filing: gated again, %s by %s: %s. Filed afresh as the action above: approve it again to run it.", v.Verdict, v.Gate, v.Reason)
	journalled := flightplan.TitleFor(action) + ": edited, gated again, filed afresh"
	if fileChanged {
		note = fmt.Sprintf("not run: the file changed since the plan was filed. Gated again, %s by %s: %s. The diff above is what it would change now: approve again to run it.", v.Verdict, v.Gate, v.Reason)
		journalled = p.Title + ": the file changed since filing, gated again, diff made afresh"
	}
	err := a.editPlan(ctx, p.ID, func(q *flightplan.Plan, src []byte) []workspace.Change {
		cs := []workspace.Change{
			q.SetState(flightplan.StatePlan),
			q.SetTitle(src, flightplan.TitleFor(action)),
			q.SetProperty(src, "ACTION_HASH", action.Hash()),
			q.SetProperty(src, "TOOL", string(action.Tool)),
			q.SetProperty(src, "GATE", v.Gate),
		}
		// The revision goes with the diff, in the same edit: the text
		// never shows one filing's diff with another's revision.
		if rev := a.store.Revision(rec); rev != "" || q.Revision != "" {
			cs = append(cs, q.SetProperty(src, "REVISION", rev))
		}
		if len(pv.writes) > 0 || len(q.Writes) > 0 {
			cs = append(cs, q.SetProperty(src, "WRITES", flightplan.JoinWrites(pv.writes)))
		}
		return append(cs, q.SetDiff(pv.diff), q.Note(src, a.now(), note, ""))
	})
	if err != nil {
		run.Err = fmt.Errorf("plan %s was filed afresh, but writing that into %s failed: %w", p.ID, flightplan.FileName, err)
		return run
	}
	r, _, _ := a.store.Load(p.ID)
	r.ID, r.File, r.ActionHash, r.Verdict, r.Filed = p.ID, a.plansPath, action.Hash(), &v, rec.Filed
	if err := a.store.Save(r); err != nil {
		a.log.ErrorContext(ctx, "the plan's record could not be saved", "plan", p.ID, "err", err)
	}
	a.appendJournal(ctx, journal.Entry{Kind: journal.KindEdit, PlanID: p.ID, Tool: string(action.Tool), ActionHash: action.Hash(),
		Status: string(flightplan.StatePlan), Verdict: &v, Title: journalled, Action: a.journalAction(action, v)})
	run.State, run.Title, run.Tool, run.Summary = flightplan.StatePlan, flightplan.TitleFor(action), string(action.Tool), note
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
	defer a.locks.lock(a.plansPath)()
	var err error
	for range 3 {
		var cur plansFile
		if cur, err = a.readPlans(); err != nil {
			return err
		}
		var p *flightplan.Plan
		if p, err = flightplan.Find(flightplan.Parse(cur.Text), id); err != nil {
			return err
		}
		err = a.writePlans(context.WithoutCancel(ctx), cur, changes(p, cur.Text), "Passepartout: Flight Plan "+id,
			"the Flight Plan "+p.Title)
		if err == nil {
			return nil
		}
		if !errors.Is(err, workspace.ErrChangedMeanwhile) {
			return err
		}
	}
	return err
}
