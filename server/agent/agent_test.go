package agent

import (
	"context"
	"errors"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/providers/providertest"
	"pp-lsp/server/actuate"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
)

const notesOrg = "#+TITLE: Notes\n* Project\n:PROPERTIES:\n:ID: proj\n:END:\nWhat is in the notes folder?\n"

func TestDeniedNeverRunsAndTheModelGetsTheTrace(t *testing.T) {
	deny := providertest.Answer{Calls: []providertest.Call{{ID: "c1", Name: "file_write", Pieces: 3,
		Args: `{"path":"../escape.txt","content":"out","explanation":"save it next to the notes"}`}}}
	words := providertest.Answer{Text: []string{"I can only ", "write inside your notes."}}
	provider, srv := openAI(t, deny, words)
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, provider)

	out, streamed, err := fx.ask(t, "notes.org", 2, "save a copy outside")
	require.NoError(t, err)
	require.Len(t, out.Passes, 1)
	p := out.Passes[0]
	assert.Equal(t, StatusAnswered, p.Status)
	require.Len(t, p.Tries, 2)
	assert.Equal(t, gates.VerdictDeny, p.Tries[0].Verdict.Verdict)
	assert.Equal(t, "dispatcher", p.Tries[0].Verdict.Gate)
	assert.Equal(t, "I can only write inside your notes.", streamed)
	assert.NoFileExists(t, fx.root+"/../escape.txt", "a denied action never runs")

	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	firstPrompt, secondPrompt := systemOf(t, reqs[0]), systemOf(t, reqs[1])
	assert.NotContains(t, firstPrompt, "PREVIOUS PROPOSAL REJECTED")
	assert.Contains(t, secondPrompt, "PREVIOUS PROPOSAL REJECTED (try 1 of 3)")
	assert.Contains(t, secondPrompt, `"path":"../escape.txt"`)
	assert.Contains(t, secondPrompt, "denied by dispatcher: paths: writes ../escape.txt, outside the roots")
	assert.Contains(t, secondPrompt, "trace: permissions(600) ")
	assert.Contains(t, secondPrompt, "dispatcher(150) blocked")
	assert.Contains(t, secondPrompt, "LOGS:\n", "recent logs come before the mandates")
	assert.Contains(t, secondPrompt, "INFO proposal gated try=1 tool=file_write verdict=deny gate=dispatcher")
	body := reqs[1].JSON()
	assert.Len(t, body["tools"], 8, "every tool of DESIGN §6 is offered as a tool definition")
	assert.Equal(t, []string{"proposal", "proposal", "result"}, fx.verifyJournal(t))
}

// systemOf is the system prompt of an OpenAI chat request.
func systemOf(t *testing.T, r providertest.Recorded) string {
	t.Helper()
	msgs, _ := r.JSON()["messages"].([]any)
	require.NotEmpty(t, msgs)
	m, _ := msgs[0].(map[string]any)
	require.Equal(t, "system", m["role"])
	s, _ := m["content"].(string)
	return s
}

const makefile = "count:\n\techo ran >> out/count.txt\n"

func fileAPlan(t *testing.T, fx *fixture) string {
	t.Helper()
	out, _, err := fx.ask(t, "notes.org", 1, "count it")
	require.NoError(t, err)
	require.Equal(t, StatusFiled, out.Status, "%+v", out)
	require.True(t, flightplan.ValidID(out.PlanID))
	return out.PlanID
}

const countTranscript = `{"match":{"last_contains":"count"},"repeat":true,"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"make count","explanation":"count once"}}]}}`

func TestEditedPlanIsGatedAgain(t *testing.T) {
	for _, tc := range []struct {
		name, replace, with string
		state               flightplan.State
		note                string
		runs                bool
	}{
		{"to another command that needs approval", `"make count"`, `"touch out/edited"`, flightplan.StatePlan, "edited after filing", false},
		{"to a command the gates deny", `"make count"`, `"rm -rf ~"`, flightplan.StateRejected, "the action was edited after filing, and gated again dispatcher denies the action", false},
		{"to something that is not an action", `"tool": "shell"`, `"tool": "launch"`, flightplan.StateRejected, "holds no valid action", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript))
			ctx := context.Background()
			id := fileAPlan(t, fx)
			orig := flightplan.Parse([]byte(fx.read(t, flightplan.FileName)))[0].ActionHash
			text := strings.Replace(fx.read(t, flightplan.FileName), tc.replace, tc.with, 1)
			fx.write(t, flightplan.FileName, strings.Replace(text, "* PLAN ", "* APPROVED ", 1))

			runs, err := fx.agent.Pickup(ctx)
			require.NoError(t, err)
			require.Len(t, runs, 1)
			assert.False(t, runs[0].Ran)
			assert.Equal(t, tc.state, runs[0].State)
			after := fx.read(t, flightplan.FileName)
			assert.Contains(t, after, tc.note)
			p := flightplan.Parse([]byte(after))[0]
			assert.Equal(t, tc.state, p.State)
			assert.NoFileExists(t, fx.path("out/edited"))
			assert.NoFileExists(t, fx.path("out/count.txt"))
			if tc.state != flightplan.StatePlan {
				return
			}
			// Back to PLAN with the edited action's hash, filed afresh under its
			// headline: a fresh approval runs the edited action.
			assert.NotEqual(t, orig, p.ActionHash)
			assert.False(t, p.Edited())
			assert.Equal(t, "Run `touch out/edited` in .", p.Title)
			st := fx.agent.store.Standing(&p)
			assert.Empty(t, st.Foreign)
			assert.False(t, st.Edited, "a new filing record for the edited action")
			assert.Equal(t, p.Action.Hash(), st.Record.ActionHash)
			runs, err = fx.agent.Pickup(ctx)
			require.NoError(t, err)
			assert.Empty(t, runs, "the approval the edit came with does not count")
			assert.NoFileExists(t, fx.path("edited"))
			run, err := fx.agent.Approve(ctx, id)
			require.NoError(t, err)
			assert.True(t, run.Ran)
			assert.FileExists(t, fx.path("out/edited"))
			assert.Contains(t, fx.verifyJournal(t), "edit")
		})
	}
}

// TestTheActuatorsRefuseFlightPlans: defence in depth behind the gates
// (testdata/no-self-approval.txtar) — were a gate to let a write of
// flightplans.org through, the actuators would refuse it.
func TestTheActuatorsRefuseFlightPlans(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript))
	fileAPlan(t, fx)
	_, err := fx.agent.acts.Run(context.Background(), actuate.Request{Action: gates.Build(gates.FileWriteArgs{Path: "flightplans.org", Content: "x"}, "t")})
	assert.ErrorContains(t, err, "only a human changes")
}

func TestAPanicRollsBackAndTheAgentKeepsServing(t *testing.T) {
	const original = "* Note\n:PROPERTIES:\n:ID: n1\n:END:\noriginal body\n"
	var real *actuate.Actuators
	var fx *fixture
	panicky := actuate.ActuatorFunc(func(ctx context.Context, req actuate.Request) (actuate.Result, error) {
		if _, err := real.Run(ctx, req); err != nil {
			return actuate.Result{}, err
		}
		// A file watcher reads the journal's new entry into the memex after
		// the pass's snapshot: the rollback must not take it back.
		if _, err := fx.mx.ReloadFiles(ctx, fx.path(journal.FileName)); err != nil {
			return actuate.Result{}, err
		}
		panic("the actuator blew up after writing")
	})
	fx = newFixture(t, map[string]string{"notes.org": original}, replay(t,
		`{"match":{"last_contains":"rewrite"},"reply":{"tool_calls":[{"name":"memory_edit","arguments":{"id":"n1","content":"clobbered\n","explanation":"rewrite the note"}}]}}`,
		`{"match":{"last_contains":"hello"},"reply":{"text":"Hello again."}}`,
	), func(o *Options) { o.Actuators = map[gates.Tool]actuate.Actuator{gates.ToolMemoryEdit: panicky} })
	var err error
	real, err = actuate.New(actuate.Config{Roots: []string{fx.root}, Memex: fx.mx})
	require.NoError(t, err)

	out, _, err := fx.ask(t, "notes.org", 5, "rewrite the note")
	require.NoError(t, err)
	p := lastPass(out)
	assert.Equal(t, StatusFailed, p.Status)
	assert.ErrorContains(t, p.Err, "panicked")
	require.NotNil(t, p.RolledBack)
	assert.Equal(t, []string{fx.path("notes.org")}, p.RolledBack.Restored)
	assert.Equal(t, original, fx.read(t, "notes.org"), "the file is back")
	n, ok := fx.mx.Snapshot().NodeByID("n1")
	require.True(t, ok)
	assert.Equal(t, "original body\n", n.Body(), "and so is the memex")

	out, streamed, err := fx.ask(t, "notes.org", 1, "hello")
	require.NoError(t, err)
	assert.Equal(t, StatusAnswered, lastPass(out).Status)
	assert.Equal(t, "Hello again.", streamed)
	kinds := fx.verifyJournal(t)
	assert.Equal(t, []string{"proposal", "result", "proposal", "result"}, kinds)
}

// panickingContext renders nothing: it panics, as a bug in a renderer would.
type panickingContext struct{}

func (panickingContext) Render(context.Context, *memory.Snapshot, string, int, int) (string, error) {
	panic("renderer bug")
}

func TestAPanicBeforeActingFailsThePassOnly(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, replay(t, `{"match":{},"repeat":true,"reply":{"text":"fine"}}`),
		func(o *Options) { o.Context = panickingContext{} })
	out, _, err := fx.ask(t, "notes.org", 1, "anything")
	require.NoError(t, err)
	assert.Equal(t, StatusFailed, lastPass(out).Status)
	assert.ErrorContains(t, lastPass(out).Err, "renderer bug")
	r, err := foveal.NewRenderer(foveal.Options{})
	require.NoError(t, err)
	fx.agent.ctxsrc = r
	out, _, err = fx.ask(t, "notes.org", 1, "anything")
	require.NoError(t, err)
	assert.Equal(t, StatusAnswered, lastPass(out).Status)
}

func TestCancellationStopsAStreamingAnswer(t *testing.T) {
	frames := providertest.OpenAIFrames(providertest.Answer{Text: []string{"one ", "two ", "three ", "four "}})
	srv := providertest.NewServer(t, providertest.Reply{Frames: frames[:3], Hang: true})
	provider, err := providersFor(srv.URL)
	require.NoError(t, err)
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, provider)
	ctx, cancel := context.WithCancel(context.Background())
	var got strings.Builder
	start := time.Now()
	out, err := fx.agent.Ask(ctx, AskRequest{File: fx.path("notes.org"), Text: "talk"}, func(s string) error {
		got.WriteString(s)
		cancel()
		return nil
	})
	assert.ErrorIs(t, err, context.Canceled)
	assert.Equal(t, StatusCancelled, lastPass(out).Status)
	assert.True(t, strings.HasPrefix(got.String(), "one "), got.String())
	assert.NotContains(t, got.String(), "three")
	assert.Less(t, time.Since(start), 5*time.Second)
	select {
	case <-srv.ClientGone():
	case <-time.After(5 * time.Second):
		t.Fatal("the model's connection was not closed")
	}
	assert.NoFileExists(t, fx.path(journal.FileName), "a cancelled answer proposes nothing")
}

func TestNoProvider(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, nil)
	_, _, err := fx.ask(t, "notes.org", 1, "hi")
	assert.True(t, errors.Is(err, ErrNoProvider))
	assert.ErrorContains(t, err, "PASSEPARTOUT_PROVIDERS")
}

func TestTheHeartbeatSignalPicksUpApprovedPlansWithoutAModel(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript))
	fileAPlan(t, fx)
	fx.write(t, flightplan.FileName, strings.Replace(fx.read(t, flightplan.FileName), "* PLAN ", "* APPROVED ", 1))
	fx.agent.provider = nil
	passes, err := fx.agent.handle(context.Background(), Heartbeat(), nil)
	require.NoError(t, err)
	assert.Empty(t, passes)
	assert.Equal(t, "ran\n", fx.read(t, "out/count.txt"))
}

func TestAnInterruptedRunIsNeverRunAgain(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript))
	id := fileAPlan(t, fx)
	// A process claimed the run and died before it finished.
	require.NoError(t, fx.agent.store.Claim(id, "sha256:x", time.Now()))
	fx.write(t, flightplan.FileName, strings.Replace(fx.read(t, flightplan.FileName), "* PLAN ", "* APPROVED ", 1))
	runs, err := fx.agent.Pickup(context.Background())
	require.NoError(t, err)
	require.Len(t, runs, 1)
	assert.False(t, runs[0].Ran)
	assert.Equal(t, flightplan.StateFailed, runs[0].State)
	assert.Contains(t, fx.read(t, flightplan.FileName), "never finished")
	assert.NoFileExists(t, fx.path("out/count.txt"))
}

// TestARefusedRetryIsNotShownAgain: a model that answers every try with
// the same words and an action the gates refuse (a replay entry with
// repeat) shows its words once, not once a try; the tries are still made
// and journalled.
func TestARefusedRetryIsNotShownAgain(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, replay(t,
		`{"match":{},"repeat":true,"reply":{"text":"Adding it.","tool_calls":[{"name":"file_write","arguments":{"path":"../inbox.org","content":"* TODO Buy milk\n"}}]}}`))
	out, streamed, err := fx.ask(t, "notes.org", 1, "add milk")
	require.NoError(t, err)
	p := lastPass(out)
	assert.Equal(t, StatusDenied, p.Status)
	assert.Len(t, p.Tries, MaxTries)
	assert.Equal(t, "Adding it.", streamed)
}
