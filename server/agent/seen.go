package agent

import (
	"context"
	"errors"
	"fmt"

	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
)

// An approval by command may carry the revision of the plan the human saw:
// the hash of its action (gates.Action.Hash, "sha256:<64 hex digits>", the
// same as :ACTION_HASH: and the filing record of a plan that was not
// edited). A plan filed afresh after an edit keeps its ID (DESIGN §8), so
// an approval by ID alone would run whatever the plan holds now; with the
// hash, the server runs it only when the action it would run is the one the
// human saw. For a plan with a diff the hash is not enough (see Seen): the
// approval carries the plan's revision too. The check is made under the
// plans lock, on the text the run takes its action from and the sealed
// filing record, in the same critical section that runs it: no filing
// afresh can come in between.
//
// An approval without a hash is still accepted, for the clients written
// against DESIGN §8 before the hash was added (a script's bridge message,
// an older editor glue). The clients shipped here send one with every
// approval of a plan they showed (the code actions, the plans lists and
// views); an approval at point sends the place, and the language server
// takes the hash from the editor's buffer there; only an approval by a
// typed ID (M-x pp-lsp-approve's ID argument, :PassepartoutApprove ID, an
// ID passepartout-approve was not listed) goes without.

// Seen is what an approval says the human saw of a plan: the hash of its
// action (PlanInfo.Hash) and, for a file_write or memory_edit, its
// revision (PlanInfo.Revision: the filing its diff was made for, which
// names the text the file held). "" in either is no check of it.
//
// The hash alone does not name what a file plan would overwrite: a plan
// whose target file changed on disk is filed afresh with the same action
// and a new diff (DESIGN §8), and an approval of the old diff carrying the
// unchanged hash would then write over text the human never saw in one.
// The revision changes with every filing: such an approval is refused.
type Seen struct {
	Hash     string
	Revision string
}

// ErrChangedSinceSeen is why an approval carrying the hash of an action the
// plan no longer holds (or the revision of a filing it no longer is) is
// refused: nothing ran.
var ErrChangedSinceSeen = errors.New("the plan changed since you saw it: look again")

// CheckActionHash checks that seen is written as a plan's action hash is:
// "sha256:" and 64 lowercase hex digits ("" is none: no check).
func CheckActionHash(seen string) error {
	if !hexAfter(seen, "sha256:") {
		return usageError{fmt.Errorf("%q is not a plan's action hash (sha256: and 64 lowercase hex digits, as :ACTION_HASH: and the plans list show it)", clip(seen, 80))}
	}
	return nil
}

// CheckSeen checks that both parts of s are written as they are listed
// ("" is none): the hash as CheckActionHash, the revision as
// "hmac-sha256:" and 64 lowercase hex digits.
func CheckSeen(s Seen) error {
	if err := CheckActionHash(s.Hash); err != nil {
		return err
	}
	if !hexAfter(s.Revision, "hmac-sha256:") {
		return usageError{fmt.Errorf("%q is not a plan's revision (hmac-sha256: and 64 lowercase hex digits, as :REVISION: and the plans list show it)", clip(s.Revision, 80))}
	}
	return nil
}

// hexAfter reports whether s is "" or prefix and 64 lowercase hex digits.
func hexAfter(s, prefix string) bool {
	if s == "" {
		return true
	}
	ok := len(s) == len(prefix)+64 && s[:len(prefix)] == prefix
	for i := len(prefix); ok && i < len(s); i++ {
		c := s[i]
		ok = '0' <= c && c <= '9' || 'a' <= c && c <= 'f'
	}
	return ok
}

// sawIt checks (the plans lock held, p read under it) that seen names the
// action p holds now — the one a run would carry, and which runs only when
// it is also the one filed (runPlan files an edited block afresh instead)
// — and, with a revision, that the sealed filing record is still the one
// it names. A block that holds no action matches no hash; neither does
// :ACTION_HASH: count, nor :REVISION:, which anyone who can write the file
// can set. A refusal is journalled: the human's approval was not carried
// out, and the audit says so and why.
func (a *Agent) sawIt(ctx context.Context, p *flightplan.Plan, seen Seen) error {
	why := ""
	switch {
	case seen.Hash != "" && (p.Action == nil || p.Action.Hash() != seen.Hash):
		why = "its action is not the one shown"
	case seen.Revision != "":
		rec, err := a.store.Filing(p.ID)
		if err != nil || a.store.Revision(rec) != seen.Revision {
			why = "it was filed afresh since (the file it changes holds other text), and its diff is not the one shown"
		}
	}
	if why == "" {
		return nil
	}
	a.log.WarnContext(ctx, "an approval of a plan that changed since its human saw it was refused", "plan", p.ID, "seen", seen.Hash, "revision", seen.Revision, "why", why)
	e := journal.Entry{Kind: journal.KindRefused, PlanID: p.ID, Tool: p.Tool, ActionHash: seen.Hash, Status: string(p.State),
		Title: p.Title + ": an approval was refused, nothing ran: " + why}
	if a.privatePlan(p.ID) {
		e.Private = true
		ctx = keepOutOfPrompt(ctx)
	}
	a.appendJournal(ctx, e)
	return fmt.Errorf("plan %s was not approved: %w", p.ID, ErrChangedSinceSeen)
}

// ApproveSeen approves the plan with id as Approve does, but only when
// seen ("" for none) is the hash of the action it holds now; otherwise it
// refuses with ErrChangedSinceSeen and nothing runs.
func (a *Agent) ApproveSeen(ctx context.Context, id, seen string) (PlanRun, error) {
	return a.ApproveAsSeen(ctx, id, Seen{Hash: seen})
}

// ApproveAsSeen approves the plan with id as Approve does, but only when
// it is still what seen says the human saw (sawIt); otherwise it refuses
// with ErrChangedSinceSeen, journals the refusal, and nothing runs.
func (a *Agent) ApproveAsSeen(ctx context.Context, id string, seen Seen) (PlanRun, error) {
	if err := CheckSeen(seen); err != nil {
		return PlanRun{ID: id}, err
	}
	return a.onPlan(ctx, id, func(p *flightplan.Plan, text []byte) PlanRun {
		if p.State.Final() {
			return PlanRun{ID: id, Title: p.Title, State: p.State, Err: fmt.Errorf("plan %s is already %s", id, p.State)}
		}
		if err := a.sawIt(ctx, p, seen); err != nil {
			return PlanRun{ID: id, Title: p.Title, Tool: p.Tool, State: p.State, Err: err}
		}
		return a.runPlan(ctx, p, text, "by command")
	})
}
