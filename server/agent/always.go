package agent

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
	"pp-lsp/server/workspace"
)

// "Approve and allow similar" (DESIGN §8 rev. 2): a plan is approved, and
// the narrowest permission rule that would have allowed its action goes
// into the user's configuration file — and into the gates at once. It is
// offered only where one rule is the whole difference: the permissions
// gate asked because no rule allowed the action, and every other gate
// passed it. Never for eval, http or send (they always need a human),
// never for an action the dispatcher (or the vault, or the policy)
// flagged: those ask for a reason a rule does not answer.

// neverAllowSimilar are the tools that always need a human's approval.
var neverAllowSimilar = map[gates.Tool]bool{gates.ToolEval: true, gates.ToolHTTP: true, gates.ToolSend: true}

// plainWord is a shell word a rule can name exactly: no quoting, no glob,
// nothing the shell or the rule syntax reads specially.
var plainWord = regexp.MustCompile(`^[A-Za-z0-9_./=+,@%-]+$`)

// plainPath is a path a rule can name exactly (no glob or rule syntax).
var plainPath = regexp.MustCompile(`^[^*?\[\]\\(){}\x00-\x1f]+$`)

// SimilarRule is the permission rule "approve and allow similar" would add
// for the plan with id, or why it is not offered.
func (a *Agent) SimilarRule(ctx context.Context, id string) (string, error) {
	if !flightplan.ValidID(id) {
		return "", fmt.Errorf("%q is not a Flight Plan ID (a UUID)", id)
	}
	cur, err := a.files.Read(a.plansPath)
	if err != nil {
		return "", err
	}
	p, err := flightplan.Find(flightplan.Parse(cur.Text), id)
	if err != nil {
		return "", err
	}
	rule, _, err := a.similarRule(ctx, p)
	return rule, err
}

// similarRule is the rule for p and the gate stack with it added, after
// checking that the rule would have allowed p's action.
func (a *Agent) similarRule(ctx context.Context, p *flightplan.Plan) (string, *gates.Stack, error) {
	no := func(format string, args ...any) (string, *gates.Stack, error) {
		return "", nil, fmt.Errorf("plan %s: no rule is offered: "+format, append([]any{p.ID}, args...)...)
	}
	if a.cfgPath == "" {
		return no("there is no configuration file to add it to")
	}
	if p.State.Final() {
		return no("it is already %s", p.State)
	}
	st := a.store.Standing(p)
	switch {
	case st.Foreign != "":
		return no("it was not filed by pp-lsp (%s)", st.Foreign)
	case p.Action == nil || st.Edited:
		return no("its action is not the one filed")
	}
	action := *p.Action
	if neverAllowSimilar[action.Tool] || a.tools.NeedsApproval(action.Tool) {
		return no("%s always needs a human's approval", action.Tool)
	}
	rec, ok, err := a.store.Load(p.ID)
	if err != nil || !ok || rec.Verdict == nil {
		return no("the verdict it was filed with is not recorded")
	}
	asked := false
	for _, e := range rec.Verdict.Trace {
		switch {
		case e.Gate == "permissions" && e.Result == gates.TraceApproval:
			asked = true
		case e.Result != gates.TracePassed:
			return no("the %s gate flagged it, for a reason a permission rule does not answer: approve it once", e.Gate)
		}
	}
	if !asked {
		return no("no permission rule was missing")
	}
	var rule string
	switch args := action.Typed().(type) {
	case gates.ShellArgs:
		words := strings.Fields(args.Cmd)
		for _, w := range words {
			if !plainWord.MatchString(w) {
				return no("the command %q is not plain words a rule can name exactly", args.Cmd)
			}
		}
		if len(words) == 0 {
			return no("the command is empty")
		}
		rule = "shell(" + strings.Join(words, " ") + ")"
	case gates.FileWriteArgs:
		if !plainPath.MatchString(args.Path) {
			return no("the path %q holds characters a rule reads as a pattern", args.Path)
		}
		rule = "file_write(" + filepath.ToSlash(filepath.Clean(args.Path)) + ")"
	case gates.FileReadArgs:
		if !plainPath.MatchString(args.Path) {
			return no("the path %q holds characters a rule reads as a pattern", args.Path)
		}
		rule = "file_read(" + filepath.ToSlash(filepath.Clean(args.Path)) + ")"
	case gates.MemoryEditArgs:
		if !plainPath.MatchString(args.ID) {
			return no("the node ID %q holds characters a rule reads as a pattern", args.ID)
		}
		rule = "memory_edit(" + args.ID + ")"
	default:
		return no("%s actions take no such rule", action.Tool)
	}
	stack, err := a.gates().WithAllow(rule)
	if err != nil {
		return no("%v", err)
	}
	env, err := a.env(ctx, a.memex.Snapshot())
	if err != nil {
		return "", nil, err
	}
	defer env.Close()
	if v := stack.Check(ctx, action, env); v.Verdict != gates.VerdictAllow {
		return no("the rule %s would not allow it (%s by %s: %s)", rule, v.Verdict, v.Gate, v.Reason)
	}
	return rule, stack, nil
}

// ApproveAlways approves the plan with id on a human's command (the code
// action, passepartout.approveAlways, the bridge's :APPROVE with :ALWAYS
// t) and adds the narrowest rule that would have allowed its action to
// the configuration file and to the gates, journalled, before the plan
// runs. PlanRun.Rule names the rule.
func (a *Agent) ApproveAlways(ctx context.Context, id string) (PlanRun, error) {
	return a.ApproveAlwaysSeen(ctx, id, "")
}

// ApproveAlwaysSeen is ApproveAlways only when seen ("" for none) is the
// hash of the action the plan holds now (see ApproveSeen): checked before
// the rule is made from that action, under the same lock as its run, so
// the rule added is the rule for the action the human saw.
func (a *Agent) ApproveAlwaysSeen(ctx context.Context, id, seen string) (PlanRun, error) {
	return a.ApproveAlwaysAsSeen(ctx, id, Seen{Hash: seen})
}

// ApproveAlwaysAsSeen is ApproveAlways only when the plan is still what
// seen says the human saw (see ApproveAsSeen).
func (a *Agent) ApproveAlwaysAsSeen(ctx context.Context, id string, seen Seen) (PlanRun, error) {
	if err := CheckSeen(seen); err != nil {
		return PlanRun{ID: id}, err
	}
	return a.onPlan(ctx, id, func(p *flightplan.Plan, text []byte) PlanRun {
		run := PlanRun{ID: id, Title: p.Title, Tool: p.Tool, State: p.State}
		if err := a.sawIt(ctx, p, seen); err != nil {
			run.Err = err
			return run
		}
		rule, stack, err := a.similarRule(ctx, p)
		if err != nil {
			run.Err = err
			return run
		}
		if err := a.addRule(ctx, p, rule); err != nil {
			run.Err = fmt.Errorf("plan %s was not approved: %w", id, err)
			return run
		}
		a.stack.Store(stack)
		run = a.runPlan(ctx, p, text, "by command, with similar actions allowed from now on by "+rule)
		run.Rule = rule
		return run
	})
}

// addRule writes rule into the configuration file (atomically, every
// other byte kept, under a lock shared by every process of this data dir)
// and journals it; a rule that cannot be journalled is taken out again.
func (a *Agent) addRule(ctx context.Context, p *flightplan.Plan, rule string) error {
	if a.privatePlan(p.ID) {
		// The rule names the action of a plan a private conversation
		// filed: as the plan's run, it logs nothing into later LOGS.
		ctx = keepOutOfPrompt(ctx)
	}
	lk, err := a.store.Lock(ctx, a.cfgPath)
	if err != nil {
		return err
	}
	defer lk.Release()
	// As the gates' configuration is read: a FIFO at its place is refused
	// at once, never waited on with the lock held.
	old, err := readUsersOwn(a.cfgPath)
	existed := err == nil
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return fmt.Errorf("reading the configuration file %s: %w", a.cfgPath, err)
	}
	text, err := withAllowRule(old, rule)
	if err != nil {
		return fmt.Errorf("the configuration file %s: %w", a.cfgPath, err)
	}
	// What the gates will read from it, read back: the rule must be in
	// the table they build, and nothing else changed.
	if err := checkAdded(text, old, rule); err != nil {
		return fmt.Errorf("the configuration file %s: %w", a.cfgPath, err)
	}
	if err := os.MkdirAll(filepath.Dir(a.cfgPath), 0o700); err != nil {
		return fmt.Errorf("making the folder of %s: %w", a.cfgPath, err)
	}
	if err := workspace.WriteFile(a.cfgPath, text, 0o600); err != nil {
		return err
	}
	err = a.appendJournal(ctx, journal.Entry{Kind: journal.KindRule, PlanID: p.ID, Tool: p.Tool, ActionHash: p.ActionHash,
		// The file is named in the text, not the title: a title is cut at
		// 160 characters, and a long path would cut the plan's name off.
		Title: fmt.Sprintf("%s added to the allow list (approving %s)", rule, p.Title),
		Text:  "Written to " + a.cfgPath + "."})
	if err != nil {
		if existed {
			workspace.WriteFile(a.cfgPath, old, 0o600)
		} else {
			os.Remove(a.cfgPath)
		}
		return err
	}
	a.log.InfoContext(ctx, "permission rule added", "rule", rule, "config", a.cfgPath, "plan", p.ID)
	return nil
}

// checkAdded reads the new configuration text as the agent reads its
// file, and checks that its gates section is the old one's with rule at
// the end of the allow list.
func checkAdded(text, old []byte, rule string) error {
	read := func(b []byte) (gates.Config, error) {
		if len(b) == 0 {
			return gates.DefaultConfig(), nil
		}
		s, err := configSections(b)
		if err != nil || len(s.Gates) == 0 {
			return gates.DefaultConfig(), err
		}
		return gates.ParseConfig(s.Gates)
	}
	before, err := read(old)
	if err != nil {
		return err
	}
	after, err := read(text)
	if err != nil {
		return err
	}
	want := append(append([]string(nil), before.Permissions.Allow...), rule)
	if fmt.Sprint(after.Permissions.Allow) != fmt.Sprint(want) {
		return errors.New("adding the rule would not leave the allow list as it was plus the rule (is a key named twice?)")
	}
	return nil
}
