package agent

import (
	"context"
	"encoding/json"
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

func TestSafeActionRunsAndItsOutputGoesBackToTheModel(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes/index.org": notesOrg, "notes/ideas.org": "* Ideas\n"}, replay(t,
		`{"match":{"last_role":"user"},"reply":{"text":"Let me look.","tool_calls":[{"id":"c1","name":"shell","arguments":{"cmd":"ls notes","explanation":"see what the folder holds"}}]}}`,
		`{"match":{"last_role":"tool","last_contains":"ideas.org"},"reply":{"text":"The folder holds ideas.org and index.org."}}`,
	))
	out, streamed, err := fx.ask(t, "notes/index.org", 6, "what is in my notes folder?")
	require.NoError(t, err)
	require.Len(t, out.Passes, 2)
	first, second := out.Passes[0], out.Passes[1]
	assert.Equal(t, StatusRan, first.Status)
	assert.Equal(t, gates.VerdictAllow, first.Verdict.Verdict)
	require.NotNil(t, first.Result)
	assert.True(t, first.Result.OK)
	assert.Contains(t, first.Result.Output, "ideas.org")
	assert.Equal(t, StatusAnswered, second.Status)
	assert.Equal(t, 1, second.Depth)
	assert.Equal(t, "Let me look.The folder holds ideas.org and index.org.", streamed)
	assert.Equal(t, []string{"proposal", "result", "proposal", "result"}, fx.verifyJournal(t))
}

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

func TestDeniedThreeTimesStops(t *testing.T) {
	bad := `{"match":{},"repeat":true,"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"rm -rf ~","explanation":"clean up"}}]}}`
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, replay(t, bad))
	out, _, err := fx.ask(t, "notes.org", 1, "clean up my home")
	require.NoError(t, err)
	p := lastPass(out)
	assert.Equal(t, StatusDenied, p.Status)
	require.Len(t, p.Tries, MaxTries)
	for _, tr := range p.Tries {
		assert.Equal(t, gates.VerdictDeny, tr.Verdict.Verdict)
	}
	assert.DirExists(t, fx.home)
	assert.Equal(t, []string{"proposal", "proposal", "proposal"}, fx.verifyJournal(t))
	j := fx.read(t, journal.FileName)
	assert.NotContains(t, j, "rm -rf", "a denied action's arguments stay out of the journal")
}

const makefile = "count:\n\techo ran >> out/count.txt\n"

func fileAPlan(t *testing.T, fx *fixture) string {
	t.Helper()
	out, _, err := fx.ask(t, "notes.org", 1, "count it")
	require.NoError(t, err)
	p := lastPass(out)
	require.Equal(t, StatusFiled, p.Status, "%+v", p)
	require.True(t, flightplan.ValidID(p.PlanID))
	return p.PlanID
}

const countTranscript = `{"match":{"last_contains":"count"},"repeat":true,"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"make count","explanation":"count once"}}]}}`

func TestAskWaitsAsAFlightPlanAndRunsOnceAfterApproval(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript))
	ctx := context.Background()
	id := fileAPlan(t, fx)
	assert.NoFileExists(t, fx.path("out/count.txt"), "nothing runs before approval")

	plans := flightplan.Parse([]byte(fx.read(t, flightplan.FileName)))
	require.Len(t, plans, 1)
	p := plans[0]
	assert.Equal(t, flightplan.StatePlan, p.State)
	assert.Equal(t, "shell", p.Tool)
	assert.Equal(t, "permissions", p.Gate)
	require.NotNil(t, p.Action)
	assert.Equal(t, p.Action.Hash(), p.ActionHash)
	assert.Equal(t, "make count", p.Action.Arg("cmd"))
	assert.True(t, strings.HasPrefix(fx.read(t, flightplan.FileName), flightplan.Header))

	runs, err := fx.agent.Pickup(ctx)
	require.NoError(t, err)
	assert.Empty(t, runs, "a plan in state PLAN waits")
	assert.NoFileExists(t, fx.path("out/count.txt"))

	// The human approves in the file.
	fx.write(t, flightplan.FileName, strings.Replace(fx.read(t, flightplan.FileName), "* PLAN ", "* APPROVED ", 1))
	runs, err = fx.agent.Pickup(ctx)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	assert.True(t, runs[0].Ran)
	assert.Equal(t, flightplan.StateDone, runs[0].State)
	assert.Equal(t, "ran\n", fx.read(t, "out/count.txt"))

	text := fx.read(t, flightplan.FileName)
	done := flightplan.Parse([]byte(text))[0]
	assert.Equal(t, flightplan.StateDone, done.State)
	assert.Contains(t, text, "DONE: exit status 0")
	assert.Contains(t, text, "#+begin_example\necho ran >> out/count.txt\n#+end_example\n")

	// Picking up again, approving again, or approving it by command: it never runs twice.
	runs, err = fx.agent.Pickup(ctx)
	require.NoError(t, err)
	assert.Empty(t, runs)
	fx.write(t, flightplan.FileName, strings.Replace(text, "* DONE ", "* APPROVED ", 1))
	runs, err = fx.agent.Pickup(ctx)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	assert.False(t, runs[0].Ran)
	assert.Equal(t, flightplan.StateDone, runs[0].State, "the file is told how it ended")
	_, err = fx.agent.Approve(ctx, id)
	assert.ErrorContains(t, err, "already DONE")
	assert.Equal(t, "ran\n", fx.read(t, "out/count.txt"))
	assert.Equal(t, flightplan.StateDone, flightplan.Parse([]byte(fx.read(t, flightplan.FileName)))[0].State)

	kinds := fx.verifyJournal(t)
	assert.Equal(t, []string{"proposal", "plan", "approval", "result"}, kinds)
}

func TestApproveAndRejectByCommand(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript))
	ctx := context.Background()
	a, b := fileAPlan(t, fx), fileAPlan(t, fx)

	run, err := fx.agent.Reject(ctx, b)
	require.NoError(t, err)
	assert.Equal(t, flightplan.StateRejected, run.State)
	run, err = fx.agent.Approve(ctx, a)
	require.NoError(t, err)
	assert.True(t, run.Ran)
	assert.Equal(t, flightplan.StateDone, run.State)
	_, err = fx.agent.Approve(ctx, b)
	assert.ErrorContains(t, err, "already REJECTED")
	_, err = fx.agent.Approve(ctx, "not-a-uuid")
	assert.ErrorContains(t, err, "not a Flight Plan ID")
	assert.Equal(t, "ran\n", fx.read(t, "out/count.txt"))

	infos, err := fx.agent.Plans(ctx)
	require.NoError(t, err)
	require.Len(t, infos, 2)
	assert.Equal(t, "DONE", infos[0].State)
	assert.Equal(t, "REJECTED", infos[1].State)
	assert.Equal(t, []string{"proposal", "plan", "proposal", "plan", "rejection", "approval", "result"}, fx.verifyJournal(t))
}

func TestEditedPlanIsGatedAgain(t *testing.T) {
	for _, tc := range []struct {
		name, replace, with string
		state               flightplan.State
		note                string
		runs                bool
	}{
		{"to another command that needs approval", `"make count"`, `"touch out/edited"`, flightplan.StatePlan, "edited after filing", false},
		{"to a command the gates deny", `"make count"`, `"rm -rf ~"`, flightplan.StateRejected, "denies the edited action", false},
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

func TestTheAgentCannotApproveItsOwnPlan(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript))
	ctx := context.Background()
	id := fileAPlan(t, fx)
	plans := fx.read(t, flightplan.FileName)
	approved, _ := json.Marshal(strings.Replace(plans, "* PLAN ", "* APPROVED ", 1))
	attempts := []string{
		`{"match":{"last_contains":"approve"},"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"flightplans.org","content":` + string(approved) + `,"explanation":"approve the plan"}}]}}`,
		`{"match":{"last_contains":"approve"},"reply":{"tool_calls":[{"name":"memory_edit","arguments":{"id":"` + id + `","content":"approved","explanation":"approve the plan"}}]}}`,
		`{"match":{"last_contains":"approve"},"reply":{"text":"(:TOOL :SHELL :ARGS (:CMD \"sed -i s/PLAN/APPROVED/ flightplans.org\") :EXPLANATION \"approve the plan\")"}}`,
	}
	fx.agent.provider = replay(t, attempts...)
	out, _, err := fx.ask(t, "notes.org", 1, "approve your plan yourself")
	require.NoError(t, err)
	p := lastPass(out)
	assert.Equal(t, StatusDenied, p.Status)
	require.Len(t, p.Tries, 3)
	for i, tr := range p.Tries {
		assert.Equal(t, gates.VerdictDeny, tr.Verdict.Verdict, "attempt %d: %s", i+1, tr.Verdict.Reason)
		assert.Contains(t, tr.Verdict.Reason, "flightplans.org", "attempt %d", i+1)
	}
	assert.Equal(t, plans, fx.read(t, flightplan.FileName))
	runs, err := fx.agent.Pickup(ctx)
	require.NoError(t, err)
	assert.Empty(t, runs)
	assert.NoFileExists(t, fx.path("out/count.txt"))

	// Defence in depth: the actuators refuse it even if a gate let it through.
	_, err = fx.agent.acts.Run(ctx, actuate.Request{Action: gates.Build(gates.FileWriteArgs{Path: "flightplans.org", Content: "x"}, "t")})
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

func TestDepthLimit(t *testing.T) {
	// A model that always wants to look again: the depth limit breaks the loop.
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, replay(t,
		`{"match":{},"repeat":true,"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"ls","explanation":"look again"}}]}}`))
	out, _, err := fx.ask(t, "notes.org", 1, "look")
	require.NoError(t, err)
	require.Len(t, out.Passes, MaxDepth+2)
	for i, p := range out.Passes[:MaxDepth+1] {
		assert.Equal(t, StatusRan, p.Status, "pass %d", i)
		assert.Equal(t, i, p.Depth)
	}
	last := lastPass(out)
	assert.Equal(t, StatusDropped, last.Status)
	assert.Equal(t, MaxDepth+1, last.Depth)
	assert.Equal(t, "dropped", fx.verifyJournal(t)[2*(MaxDepth+1)])

	// A signal that arrives too deep is dropped before any model is asked.
	fx = newFixture(t, map[string]string{"notes.org": notesOrg}, replay(t, `{"match":{"last_contains":"never asked"},"reply":{"text":"x"}}`))
	out, err = fx.agent.Ask(context.Background(), AskRequest{File: fx.path("notes.org"), Text: "hi", Depth: MaxDepth + 1}, nil)
	require.NoError(t, err)
	assert.Equal(t, StatusDropped, lastPass(out).Status)
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

func TestAllowedHTTPStillWaitsForApproval(t *testing.T) {
	cfg := gates.DefaultConfig()
	cfg.Network.Allow = []string{"example.org"}
	cfg.Permissions.Allow = []string{"http(GET https://example.org/*)"}
	stack, err := gates.New(cfg)
	require.NoError(t, err)
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, replay(t,
		`{"match":{},"reply":{"tool_calls":[{"name":"http","arguments":{"method":"GET","url":"https://example.org/x","explanation":"fetch it"}}]}}`),
		func(o *Options) { o.Stack = stack })
	out, _, err := fx.ask(t, "notes.org", 1, "fetch")
	require.NoError(t, err)
	p := lastPass(out)
	assert.Equal(t, gates.VerdictAllow, p.Verdict.Verdict, "the gates allow it")
	assert.Equal(t, StatusFiled, p.Status, "but http runs only from an approved plan")
	plan := flightplan.Parse([]byte(fx.read(t, flightplan.FileName)))[0]
	assert.Equal(t, "agent", plan.Gate)
	hover, ok := fx.agent.PlanHover([]byte(fx.read(t, flightplan.FileName)), plan.Line)
	require.True(t, ok)
	assert.Contains(t, hover, "| agent | 0 | approval |")
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
