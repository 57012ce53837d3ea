package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
)

// editPlan rewrites the plan's command in flightplans.org on disk, as a
// user's editor, a sync client or another process would.
func editPlan(t *testing.T, fx *fixture, from, to string) {
	t.Helper()
	text := fx.read(t, flightplan.FileName)
	require.Contains(t, text, from)
	fx.write(t, flightplan.FileName, strings.Replace(text, from, to, 1))
}

// planNow is the plan as flightplans.org holds it on disk.
func planNow(t *testing.T, fx *fixture) flightplan.Plan {
	t.Helper()
	plans := flightplan.Parse([]byte(fx.read(t, flightplan.FileName)))
	require.Len(t, plans, 1)
	return plans[0]
}

// TestAnApprovalOfWhatTheUserNoLongerSeesRunsNothing: a plan shown to the
// user with the hash of its action is edited on disk and filed afresh
// under the same ID (DESIGN §8); an approval carrying the hash the user
// saw runs nothing — whichever way the plan changed — and one carrying
// the hash of the plan as it is now runs it.
func TestAnApprovalOfWhatTheUserNoLongerSeesRunsNothing(t *testing.T) {
	for _, tc := range []struct {
		name string
		// change changes the plan after the user saw it.
		change func(t *testing.T, fx *fixture)
		// refiled: the edit was picked up and filed afresh before the
		// approval came.
		refiled bool
	}{
		{"edited on disk and filed afresh", func(t *testing.T, fx *fixture) {
			// Edited and approved in the file, as DESIGN §8's example: the
			// pickup files it afresh, back to PLAN.
			editPlan(t, fx, `"make count"`, `"touch out/edited"`)
			editPlan(t, fx, "* PLAN ", "* APPROVED ")
			_, err := fx.agent.Pickup(context.Background())
			require.NoError(t, err)
		}, true},
		{"edited on disk, :ACTION_HASH: still what the user saw", func(t *testing.T, fx *fixture) {
			// The file says the hash the user saw; only the block's own
			// hash counts.
			editPlan(t, fx, `"make count"`, `"touch out/edited"`)
		}, false},
		{"edited on disk, :ACTION_HASH: made to agree", func(t *testing.T, fx *fixture) {
			editPlan(t, fx, `"make count"`, `"touch out/edited"`)
			p := planNow(t, fx)
			editPlan(t, fx, p.ActionHash, p.Action.Hash())
			q := planNow(t, fx)
			require.False(t, q.Edited(), "the file agrees with itself")
		}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript))
			ctx := context.Background()
			id := fileAPlan(t, fx)
			plans, err := fx.agent.Plans(ctx)
			require.NoError(t, err)
			require.Len(t, plans, 1)
			seen := plans[0].Hash
			require.Equal(t, planNow(t, fx).ActionHash, seen, "the plans list gives the hash of the action shown")

			tc.change(t, fx)
			now := planNow(t, fx)
			require.NotEqual(t, seen, now.Action.Hash())
			if tc.refiled {
				require.Equal(t, flightplan.StatePlan, now.State)
				rec, err := fx.agent.store.Filing(id)
				require.NoError(t, err)
				require.Equal(t, now.Action.Hash(), rec.ActionHash, "filed afresh under the same ID")
			}
			before := fx.journalKinds(t)
			fileBefore := fx.read(t, flightplan.FileName)

			for _, always := range []bool{false, true} {
				approve := fx.agent.ApproveSeen
				if always {
					approve = fx.agent.ApproveAlwaysSeen
				}
				run, err := approve(ctx, id, seen)
				require.ErrorIs(t, err, ErrChangedSinceSeen)
				assert.Contains(t, err.Error(), "the plan changed since you saw it: look again")
				assert.False(t, run.Ran)
				assert.NoFileExists(t, fx.path("out/edited"), "the action the user never saw did not run")
				assert.NoFileExists(t, fx.path("out/count.txt"), "nor the one they saw")
				before = append(before, string(journal.KindRefused))
				assert.Equal(t, before, fx.journalKinds(t), "no approval, no result journalled: the refusal is")
				assert.Equal(t, fileBefore, fx.read(t, flightplan.FileName), "the plan is as it was")
				claimed, err := fx.agent.store.Claimed(id)
				require.NoError(t, err)
				assert.False(t, claimed)
			}

			// Approved with the hash of what it holds now: it runs (filed
			// afresh first when it was not yet).
			run, err := fx.agent.ApproveSeen(ctx, id, now.Action.Hash())
			require.NoError(t, err)
			if !tc.refiled {
				assert.False(t, run.Ran, "an edited block is filed afresh, never run")
				assert.Equal(t, flightplan.StatePlan, run.State)
				run, err = fx.agent.ApproveSeen(ctx, id, planNow(t, fx).Action.Hash())
				require.NoError(t, err)
			}
			assert.True(t, run.Ran)
			assert.FileExists(t, fx.path("out/edited"))
			assert.NoFileExists(t, fx.path("out/count.txt"))
		})
	}
}

// TestApprovingAndAllowingSimilarAddsTheRuleOfWhatTheUserSaw: "approve and
// allow similar" with the hash of an action the plan no longer holds adds
// no rule; with the hash of the one it holds, the rule for that one.
func TestApprovingAndAllowingSimilarAddsTheRuleOfWhatTheUserSaw(t *testing.T) {
	var cfg string
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript),
		func(o *Options) { cfg = filepath.Join(filepath.Dir(o.DataDir), "config.json"); o.ConfigFile = cfg })
	ctx := context.Background()
	id := fileAPlan(t, fx)
	seen := planNow(t, fx).Action.Hash()
	rule, err := fx.agent.SimilarRule(ctx, id)
	require.NoError(t, err)
	require.Equal(t, "shell(make count)", rule)

	editPlan(t, fx, `"make count"`, `"touch out/edited"`)
	editPlan(t, fx, "* PLAN ", "* APPROVED ")
	_, err = fx.agent.Pickup(ctx)
	require.NoError(t, err)
	run, err := fx.agent.ApproveAlwaysSeen(ctx, id, seen)
	require.ErrorIs(t, err, ErrChangedSinceSeen)
	assert.Empty(t, run.Rule)
	assert.NoFileExists(t, cfg, "no rule was added")
	assert.NoFileExists(t, fx.path("out/edited"))

	run, err = fx.agent.ApproveAlwaysSeen(ctx, id, planNow(t, fx).Action.Hash())
	require.NoError(t, err)
	assert.True(t, run.Ran)
	assert.Equal(t, "shell(touch out/edited)", run.Rule)
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	assert.Contains(t, string(b), `"shell(touch out/edited)"`)
	assert.NotContains(t, string(b), "make count")
}

// TestAHashThatIsNotOneIsRefused: a hash not written as a plan's action
// hash is the caller's mistake, said so, and nothing runs; a foreign plan
// never runs, whatever hash comes with it.
func TestAHashThatIsNotOneIsRefused(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript))
	ctx := context.Background()
	id := fileAPlan(t, fx)
	good := planNow(t, fx).Action.Hash()
	for _, bad := range []string{
		"sha256:" + strings.ToUpper(good[7:]),
		strings.TrimPrefix(good, "sha256:"),
		"md5:" + good[7:],
		good[:len(good)-1],
		good + "0",
		good + "\n",
		" " + good,
		"sha256:" + strings.Repeat("g", 64),
		strings.Repeat("sha256:", 10000),
	} {
		for _, approve := range []func(context.Context, string, string) (PlanRun, error){fx.agent.ApproveSeen, fx.agent.ApproveAlwaysSeen} {
			run, err := approve(ctx, id, bad)
			require.ErrorIs(t, err, ErrUsage, "%q", bad)
			assert.Contains(t, err.Error(), "is not a plan's action hash")
			assert.Less(t, len(err.Error()), 300, "the error quotes a bounded part of it")
			assert.False(t, run.Ran)
		}
	}
	assert.NoFileExists(t, fx.path("out/count.txt"))

	// A foreign copy: its block hashes to the hash the user saw, but the
	// server never filed it.
	text := fx.read(t, flightplan.FileName)
	foreign := "c0ffee00-0000-4000-8000-000000000001"
	fx.write(t, flightplan.FileName, text+strings.ReplaceAll(text[strings.Index(text, "* PLAN"):], id, foreign))
	run, err := fx.agent.ApproveSeen(ctx, foreign, good)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "not filed by pp-lsp")
	assert.False(t, run.Ran)
	assert.NoFileExists(t, fx.path("out/count.txt"))
}

// TestFilingAfreshWhileAnApprovalWaits: an approval with the hash the user
// saw waits for the plans lock while the plan is filed afresh (under the
// lock, as a pickup does); it is checked against the plan as it is once it
// has the lock — the check and the run are one critical section — and
// the action the user never saw does not run.
func TestFilingAfreshWhileAnApprovalWaits(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript))
	ctx := context.Background()
	id := fileAPlan(t, fx)
	seen := planNow(t, fx).Action.Hash()

	lk, err := fx.agent.store.Lock(ctx, fx.agent.plansPath)
	require.NoError(t, err)
	type result struct {
		run PlanRun
		err error
	}
	done := make(chan result, 1)
	go func() {
		run, err := fx.agent.ApproveSeen(ctx, id, seen)
		done <- result{run, err}
	}()
	time.Sleep(100 * time.Millisecond) // the approval is waiting for the lock
	select {
	case r := <-done:
		t.Fatalf("the approval did not wait for the plans lock: %+v", r)
	default:
	}
	// Filed afresh, as refile does under the lock: a new sealed record and
	// the block and :ACTION_HASH: of the new action.
	editPlan(t, fx, `"make count"`, `"touch out/edited"`)
	p := planNow(t, fx)
	editPlan(t, fx, p.ActionHash, p.Action.Hash())
	require.NoError(t, fx.agent.store.SaveFiling(flightplan.FilingRecord{ID: id, ActionHash: p.Action.Hash(), Gate: "permissions", Filed: time.Now()}))
	require.Empty(t, fx.agent.store.Standing(&p).Foreign)
	lk.Release()

	r := <-done
	require.ErrorIs(t, r.err, ErrChangedSinceSeen)
	assert.False(t, r.run.Ran)
	assert.NoFileExists(t, fx.path("out/edited"), "the action filed afresh was never seen, so never run")
	assert.NoFileExists(t, fx.path("out/count.txt"))
}
