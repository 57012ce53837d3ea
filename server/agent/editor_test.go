package agent

import (
	"context"
	"os"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/workspace/workspacetest"
)

func TestTheAnswerStaysInTheAnswerView(t *testing.T) {
	ed := workspacetest.New()
	fx := newFixture(t, map[string]string{"notes.org": notesOrg + "** Child\n"}, replay(t,
		`{"match":{"last_contains":"what"},"reply":{"text":"Two files: index.org and ideas.org."}}`),
		func(o *Options) { o.Workspace = ed })
	p := fx.path("notes.org")
	ed.Open(p, notesOrg+"** Child\n")
	var streamed strings.Builder
	out, err := fx.agent.Ask(context.Background(), AskRequest{Source: SourceLSP, File: p, Line: 5, Character: 3, Text: "what is in there?", RequestID: "req-1"}, func(s string) error {
		streamed.WriteString(s)
		return nil
	})
	require.NoError(t, err)
	assert.Equal(t, StatusAnswered, lastPass(out).Status)
	assert.Equal(t, "Two files: index.org and ideas.org.", streamed.String())
	assert.Equal(t, "Two files: index.org and ideas.org.", out.Text)
	assert.Empty(t, ed.Edits(), "no edit of the note after an answer")
	d, _ := ed.OpenDocument(p)
	assert.Equal(t, notesOrg+"** Child\n", string(d.Text))
	assert.Equal(t, notesOrg+"** Child\n", fx.read(t, "notes.org"))
}

func TestFlightPlansThroughTheEditorAndTheHeartbeat(t *testing.T) {
	ed := workspacetest.New()
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript),
		func(o *Options) { o.Workspace = ed; o.Config.HeartbeatSeconds = 3600 })
	plans := fx.path(flightplan.FileName)
	ed.Open(plans, "")
	id := fileAPlan(t, fx)
	assert.NoFileExists(t, plans, "filed into the buffer, not behind it")
	d, _ := ed.OpenDocument(plans)
	require.Contains(t, string(d.Text), "* PLAN Run `make count`")

	ctx, cancel := context.WithCancel(context.Background())
	done := make(chan error)
	go func() { done <- fx.agent.Heartbeat(ctx) }()
	defer func() { cancel(); <-done }()

	// The user switches PLAN to APPROVED in the buffer, unsaved: nothing
	// runs, however often the plans are picked up; the diagnostic says to save.
	approved := strings.Replace(string(d.Text), "* PLAN ", "* APPROVED ", 1)
	ed.Open(plans, approved)
	fx.agent.NotifyPlansChanged()
	runs, err := fx.agent.Pickup(ctx)
	require.NoError(t, err)
	assert.Empty(t, runs)
	assert.NoFileExists(t, fx.path("out/count.txt"), "an unsaved APPROVED never runs")
	diags := fx.agent.PlanDiagnostics([]byte(approved))
	require.Len(t, diags, 1)
	assert.Contains(t, diags[0].Message, "approved in this buffer only: save the file to run it")

	// Saved: it runs, once.
	require.NoError(t, os.WriteFile(plans, []byte(approved), 0o644))
	fx.agent.NotifyPlansChanged()
	require.Eventually(t, func() bool {
		d, _ := ed.OpenDocument(plans)
		return strings.Contains(string(d.Text), "* DONE ")
	}, 10*time.Second, 20*time.Millisecond)
	assert.Equal(t, "ran\n", fx.read(t, "out/count.txt"))
	d, _ = ed.OpenDocument(plans)
	assert.Equal(t, string(d.Text), fx.read(t, flightplan.FileName),
		"the buffer was unmodified: DONE went to disk, and the editor reloaded it")
	assert.Equal(t, []string{plans + ": a new Flight Plan, Run `make count` in ."}, ed.SaveRequests(),
		"only the plan filed into the buffer that was not on disk asked for a save")
	diags = fx.agent.PlanDiagnostics(d.Text)
	assert.Empty(t, diags, "a finished plan has nothing to say")
	// It never runs twice.
	runs, err = fx.agent.Pickup(ctx)
	require.NoError(t, err)
	assert.Empty(t, runs)
	assert.Equal(t, "ran\n", fx.read(t, "out/count.txt"))
	_, err = os.Stat(fx.data + "/flightplans/records/" + id + ".run")
	assert.NoError(t, err, "the run is recorded in the data directory")
}

// TestJournallingAReadNeverWaitsForAnAction: an action that writes a file
// open in the editor waits while the editor asks its user (up to a
// timeout). Journalling a read meanwhile — an MCP call, which DESIGN §16
// journals — must not wait for it: it used to take the action's lock.
func TestJournallingAReadNeverWaitsForAnAction(t *testing.T) {
	ed := workspacetest.New()
	write := providertest.Answer{Calls: []providertest.Call{{ID: "c1", Name: "file_write",
		Args: `{"path":"notes.org","content":"#+TITLE: Notes\n* Project\nTidied.\n","explanation":"tidy the note"}`}}}
	provider, _ := openAI(t, write, providertest.Answer{Text: []string{"Tidied."}})
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, provider, func(o *Options) { o.Workspace = ed })
	p := fx.path("notes.org")
	ed.Open(p, notesOrg)
	waiting, release := ed.Hold()
	defer release()

	asked := make(chan error, 1)
	go func() {
		_, err := fx.agent.Ask(context.Background(), AskRequest{Source: SourceLSP, File: p, Line: 2, Text: "tidy the note", RequestID: "req-1"}, nil)
		asked <- err
	}()
	select {
	case <-waiting:
	case <-time.After(30 * time.Second):
		t.Fatal("the action never reached the editor")
	}
	recorded := make(chan error, 1)
	go func() {
		recorded <- fx.agent.Record(context.Background(), Call{Source: SourceMCP, Name: "memex_search", Args: `"project"`, Outcome: "1 hit"})
	}()
	select {
	case err := <-recorded:
		require.NoError(t, err)
	case <-time.After(10 * time.Second):
		t.Fatal("journalling an MCP call waited for an action held up by the editor")
	}
	release()
	require.NoError(t, <-asked)
	assert.Equal(t, "#+TITLE: Notes\n* Project\nTidied.\n", ed.Text(p), "the edit went through the editor once released")
	journal := fx.read(t, "journal.org")
	assert.Contains(t, journal, `memex_search "project": 1 hit`)
	assert.Less(t, strings.Index(journal, "memex_search"), strings.LastIndex(journal, "file_write"), "the call is journalled before the action's result")
}
