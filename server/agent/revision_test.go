package agent

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/actuate"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
)

// writeTranscript has the model propose replacing list.conf.
const writeTranscript = `{"match":{"last_contains":"rewrite"},"repeat":true,"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"list.conf","content":"model's list\n","explanation":"tidy the list"}}]}}`

// fileAWritePlan files the model's file_write of list.conf and returns its
// ID and the plan as the plans list gives it.
func fileAWritePlan(t *testing.T, fx *fixture) (string, PlanInfo) {
	t.Helper()
	out, _, err := fx.ask(t, "notes.org", 1, "rewrite the list")
	require.NoError(t, err)
	require.Equal(t, StatusFiled, out.Status, "%+v", out)
	plans, err := fx.agent.Plans(context.Background())
	require.NoError(t, err)
	require.Len(t, plans, 1)
	require.Equal(t, out.PlanID, plans[0].ID)
	return out.PlanID, plans[0]
}

// TestAnApprovalOfADiffTheUserNoLongerSeesWritesNothing: a file_write plan
// is shown with its diff; the target is edited on disk after the user saw
// it, and the plan is filed afresh with the same action and a new diff
// (DESIGN §8). An approval with what the user saw (the action's hash and
// the revision beside the diff) writes nothing — the file keeps the user's
// edit byte for byte — and the refusal is journalled; after a fresh look
// (the plans list again) the approval runs.
func TestAnApprovalOfADiffTheUserNoLongerSeesWritesNothing(t *testing.T) {
	for _, always := range []bool{false, true} {
		t.Run(map[bool]string{false: "approve", true: "approve and allow similar"}[always], func(t *testing.T) {
			fx := newFixture(t, map[string]string{"notes.org": notesOrg, "list.conf": "milk\n"}, replay(t, writeTranscript),
				func(o *Options) { o.ConfigFile = filepath.Join(filepath.Dir(o.DataDir), "config.json") })
			ctx := context.Background()
			approve := fx.agent.ApproveAsSeen
			if always {
				approve = fx.agent.ApproveAlwaysAsSeen
			}
			id, info := fileAWritePlan(t, fx)
			shown := planNow(t, fx)
			require.Contains(t, shown.Diff, "-milk")
			require.NotEmpty(t, info.Revision, "a plan with a diff lists its revision")
			assert.Equal(t, shown.Revision, info.Revision, "the one written beside the diff")
			assert.NotContains(t, fx.read(t, flightplan.FileName), strings.TrimPrefix(actuate.HashOf(true, []byte("milk\n")), "sha256:"),
				"keyed: flightplans.org does not give the hash of the file's text")
			seen := Seen{Hash: info.Hash, Revision: info.Revision}

			// The user edits the file after seeing the diff; an approval
			// (another client's, or theirs) finds it changed, and the plan
			// is filed afresh: same action, new diff.
			edited := "milk\neggs: the user's own line\n"
			require.NoError(t, os.WriteFile(fx.path("list.conf"), []byte(edited), 0o644))
			run, err := fx.agent.ApproveAsSeen(ctx, id, seen)
			require.NoError(t, err)
			require.False(t, run.Ran)
			now := planNow(t, fx)
			require.Equal(t, flightplan.StatePlan, now.State)
			require.Equal(t, info.Hash, now.Action.Hash(), "filed afresh with the same action")
			require.Contains(t, now.Diff, "-eggs: the user's own line")
			require.NotEqual(t, info.Revision, now.Revision, "but a new revision")

			// The approval of the diff the user saw, sent again: nothing is
			// written over their edit, and the journal says it was refused.
			kinds := fx.journalKinds(t)
			plansText := fx.read(t, flightplan.FileName)
			run, err = approve(ctx, id, seen)
			require.ErrorIs(t, err, ErrChangedSinceSeen)
			assert.False(t, run.Ran)
			assert.Empty(t, run.Rule)
			b, err := os.ReadFile(fx.path("list.conf"))
			require.NoError(t, err)
			assert.Equal(t, edited, string(b), "the file is byte-identical")
			assert.Equal(t, append(kinds, string(journal.KindRefused)), fx.journalKinds(t))
			assert.Contains(t, fx.read(t, journal.FileName), "an approval was refused, nothing ran: it was filed afresh since")
			assert.Equal(t, plansText, fx.read(t, flightplan.FileName), "the plan is as it was")
			claimed, err := fx.agent.store.Claimed(id)
			require.NoError(t, err)
			assert.False(t, claimed)
			fx.verifyJournal(t)

			// A fresh look: the list gives the revision now shown; approved
			// with it, the plan runs.
			plans, err := fx.agent.Plans(ctx)
			require.NoError(t, err)
			require.Len(t, plans, 1)
			require.Equal(t, now.Revision, plans[0].Revision)
			run, err = approve(ctx, id, Seen{Hash: plans[0].Hash, Revision: plans[0].Revision})
			require.NoError(t, err)
			assert.True(t, run.Ran)
			b, err = os.ReadFile(fx.path("list.conf"))
			require.NoError(t, err)
			assert.Equal(t, "model's list\n", string(b))
		})
	}
}

// TestARevisionThatIsNotOneIsRefused: a revision not written as one is the
// caller's mistake, and nothing runs; one :REVISION: in the file was made
// to say (anyone who can write the file can) counts for nothing.
func TestARevisionThatIsNotOneIsRefused(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "list.conf": "milk\n"}, replay(t, writeTranscript))
	ctx := context.Background()
	id, info := fileAWritePlan(t, fx)
	good := info.Revision
	for _, bad := range []string{
		strings.TrimPrefix(good, "hmac-"),
		"hmac-sha256:" + strings.ToUpper(good[12:]),
		good[:len(good)-1],
		good + "\n",
		info.Hash,
	} {
		run, err := fx.agent.ApproveAsSeen(ctx, id, Seen{Hash: info.Hash, Revision: bad})
		require.ErrorIs(t, err, ErrUsage, "%q", bad)
		assert.Contains(t, err.Error(), "is not a plan's revision")
		assert.False(t, run.Ran)
	}
	// Well written, but not this filing's.
	other := "hmac-sha256:" + strings.Repeat("0", 64)
	run, err := fx.agent.ApproveAsSeen(ctx, id, Seen{Hash: info.Hash, Revision: other})
	require.ErrorIs(t, err, ErrChangedSinceSeen)
	assert.False(t, run.Ran)
	b, err := os.ReadFile(fx.path("list.conf"))
	require.NoError(t, err)
	assert.Equal(t, "milk\n", string(b))
}
