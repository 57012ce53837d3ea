package agent

import (
	"context"
	"errors"
	"fmt"

	"pp-lsp/server/flightplan"
)

// An approval by command may carry the revision of the plan the human saw:
// the hash of its action (gates.Action.Hash, "sha256:<64 hex digits>", the
// same as :ACTION_HASH: and the filing record of a plan that was not
// edited). A plan filed afresh after an edit keeps its ID (DESIGN §8), so
// an approval by ID alone would run whatever the plan holds now; with the
// hash, the server runs it only when the action it would run is the one the
// human saw. The check is made under the plans lock, on the text the run
// takes its action from, in the same critical section that runs it: no
// filing afresh can come in between.
//
// An approval without a hash is still accepted, for the clients written
// against DESIGN §8 before the hash was added (a script's bridge message,
// an older editor glue). The clients shipped here send one with every
// approval of a plan they showed (the code actions, the plans lists and
// views); an approval at point sends the place, and the language server
// takes the hash from the editor's buffer there; only an approval by a
// typed ID (M-x pp-lsp-approve's ID argument, :PassepartoutApprove ID, an
// ID passepartout-approve was not listed) goes without.

// ErrChangedSinceSeen is why an approval carrying the hash of an action the
// plan no longer holds is refused: nothing ran.
var ErrChangedSinceSeen = errors.New("the plan changed since you saw it: look again")

// CheckActionHash checks that seen is written as a plan's action hash is:
// "sha256:" and 64 lowercase hex digits ("" is none: no check).
func CheckActionHash(seen string) error {
	if seen == "" {
		return nil
	}
	const prefix = "sha256:"
	ok := len(seen) == len(prefix)+64 && seen[:len(prefix)] == prefix
	for i := len(prefix); ok && i < len(seen); i++ {
		c := seen[i]
		ok = '0' <= c && c <= '9' || 'a' <= c && c <= 'f'
	}
	if !ok {
		return usageError{fmt.Errorf("%q is not a plan's action hash (sha256: and 64 lowercase hex digits, as :ACTION_HASH: and the plans list show it)", clip(seen, 80))}
	}
	return nil
}

// sawIt checks (the plans lock held, p read under it) that seen names the
// action p holds now — the one a run would carry, and which runs only when
// it is also the one filed (runPlan files an edited block afresh instead).
// A block that holds no action matches no hash; neither does :ACTION_HASH:
// count, which anyone who can write the file can set.
func (a *Agent) sawIt(ctx context.Context, p *flightplan.Plan, seen string) error {
	if seen == "" || p.Action != nil && p.Action.Hash() == seen {
		return nil
	}
	a.log.WarnContext(ctx, "an approval of a plan that changed since its human saw it was refused", "plan", p.ID, "seen", seen)
	return fmt.Errorf("plan %s was not approved: %w", p.ID, ErrChangedSinceSeen)
}

// ApproveSeen approves the plan with id as Approve does, but only when
// seen ("" for none) is the hash of the action it holds now; otherwise it
// refuses with ErrChangedSinceSeen and nothing runs.
func (a *Agent) ApproveSeen(ctx context.Context, id, seen string) (PlanRun, error) {
	if err := CheckActionHash(seen); err != nil {
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
