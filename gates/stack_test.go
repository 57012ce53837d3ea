package gates

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// defaultEnv is the default stack and an environment over the roots, with
// a home of its own; the environment closes when the test ends.
func defaultEnv(t testing.TB, roots ...string) (*Stack, *Env) {
	t.Helper()
	stack, err := New(DefaultConfig())
	require.NoError(t, err)
	home := t.TempDir()
	w := DefaultWorld(func(k string) string { return map[string]string{"HOME": home}[k] }, roots)
	env, err := stack.NewEnv(context.Background(), w)
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	return stack, env
}

// testWorld builds a root with notes, a private note, Flight Plans, and a
// symlink that leads out of the root.
func testEnv(t testing.TB, cfg Config, opts ...Option) (*Stack, *Env, string) {
	t.Helper()
	root := t.TempDir()
	home := t.TempDir()
	write := func(rel, text string) {
		p := filepath.Join(root, rel)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write("inbox.org", "* TODO call Anna\n")
	write("notes/todo.org", "* TODO buy milk\n")
	write("private.org", "#+filetags: :private:\n* Diary\n** Monday\nI told nobody that the biopsy results come on Friday morning.\n")
	write("journal/personal.org", "* Health :@personal:\n:PROPERTIES:\n:ID: health-1\n:END:\nStarted sertraline 50 mg on 2024-05-02; side effects: nausea, insomnia.\n** Follow-up\nThe second appointment with Dr Weiss moved to the ninth of July.\n")
	write("flightplans.org", "#+TITLE: Flight Plans\n* PLAN Deploy\n:PROPERTIES:\n:ID: plan-1\n:END:\n")
	write("work/roadmap.org", "* Roadmap\n:PROPERTIES:\n:ID: road-1\n:END:\nShip it.\n")
	require.NoError(t, os.MkdirAll(filepath.Join(home, ".ssh"), 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(home, ".ssh", "id_rsa"), []byte("key"), 0o600))
	require.NoError(t, os.Symlink(filepath.Join(home, ".ssh", "id_rsa"), filepath.Join(root, "notes", "key.txt")))
	require.NoError(t, os.Symlink("/etc", filepath.Join(root, "etc-link")))
	stack, err := New(cfg, opts...)
	require.NoError(t, err)
	memex := openMemex(t, []string{root})
	w := DefaultWorld(func(k string) string { return map[string]string{"HOME": home, "XDG_RUNTIME_DIR": "/run/user/1000"}[k] }, []string{root})
	w.Memex = memex
	env, err := stack.NewEnv(context.Background(), w)
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	return stack, env, root
}

func act(tool Tool, args ...string) Action {
	m := map[string]string{}
	for i := 0; i+1 < len(args); i += 2 {
		m[args[i]] = args[i+1]
	}
	return NewAction(tool, "The user asked for it.", m)
}

// fakeGate answers what it is told, or panics.
type fakeGate struct {
	name  string
	prio  int
	res   Result
	panic bool
	seen  *[]string
}

func (g fakeGate) Name() string  { return g.name }
func (g fakeGate) Priority() int { return g.prio }
func (g fakeGate) Check(_ context.Context, a Action, _ *Env) Result {
	if g.seen != nil {
		*g.seen = append(*g.seen, g.name+":"+a.Arg("text"))
	}
	if g.panic {
		panic("boom")
	}
	return g.res
}

func TestStackOrderTraceAndPrecedence(t *testing.T) {
	var seen []string
	changed := MessageAction("changed", "x")
	cases := []struct {
		name        string
		gates       []Gate
		verdict     string
		gate        string
		trace       []string
		seenByLower string
	}{
		{"all pass", []Gate{fakeGate{name: "a", prio: 10, res: Passed("")}, fakeGate{name: "b", prio: 20, res: Passed("ok by b")}}, VerdictAllow, "b", []string{"b:passed", "a:passed"}, ""},
		{"deny beats an earlier ask", []Gate{fakeGate{name: "asker", prio: 50, res: Asked("why")}, fakeGate{name: "denier", prio: 10, res: Denied("no")}}, VerdictDeny, "denier", []string{"asker:approval", "denier:blocked"}, ""},
		{"deny stops the run", []Gate{fakeGate{name: "denier", prio: 50, res: Denied("no")}, fakeGate{name: "later", prio: 10, res: Asked("x")}}, VerdictDeny, "denier", []string{"denier:blocked"}, ""},
		{"first asker decides", []Gate{fakeGate{name: "low", prio: 10, res: Asked("l")}, fakeGate{name: "high", prio: 50, res: Asked("h")}}, VerdictAsk, "high", []string{"high:approval", "low:approval"}, ""},
		{"panic fails closed", []Gate{fakeGate{name: "boom", prio: 50, panic: true}}, VerdictDeny, "boom", []string{"boom:blocked"}, ""},
		{"equal priorities keep their order", []Gate{fakeGate{name: "first", prio: 600, res: Passed("")}, fakeGate{name: "second", prio: 600, res: Passed("")}}, VerdictAllow, "first", []string{"first:passed", "second:passed"}, ""},
		{"modify is seen below", []Gate{fakeGate{name: "mod", prio: 50, res: Modified(changed, "rewrote")}, fakeGate{name: "low", prio: 10, res: Passed(""), seen: &seen}}, VerdictAllow, "mod", []string{"mod:passed", "low:passed"}, "low:changed"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			seen = nil
			stack, err := New(DefaultConfig(), WithGates(tc.gates...))
			require.NoError(t, err)
			v := stack.Check(context.Background(), MessageAction("hi", "x"), nil)
			assert.Equal(t, tc.verdict, v.Verdict, v.Reason)
			assert.Equal(t, tc.gate, v.Gate)
			var got []string
			for _, e := range v.Trace {
				got = append(got, e.Gate+":"+e.Result)
			}
			assert.Equal(t, tc.trace, got)
			if tc.seenByLower != "" {
				assert.Equal(t, []string{tc.seenByLower}, seen)
				assert.Equal(t, "changed", v.Action.Arg("text"))
			}
		})
	}
}

func TestStackDefaultOrderAndMalformed(t *testing.T) {
	stack, env, _ := testEnv(t, DefaultConfig())
	var names []string
	for _, g := range stack.Gates() {
		names = append(names, g.Name())
	}
	assert.Equal(t, []string{"permissions", "vault", "policy", "dispatcher", "validator"}, names)

	v := stack.Check(context.Background(), Action{Tool: "browser", Args: Args{"url": "x"}, Explanation: "x"}, env)
	assert.Equal(t, VerdictDeny, v.Verdict)
	assert.Equal(t, "validator", v.Gate)
	assert.Equal(t, []TraceEntry{{Gate: "validator", Priority: 95, Result: "blocked"}}, v.Trace, "a malformed action is stopped before the others look at it")

	v = stack.CheckValue(context.Background(), []any{"TOOL", "FILE-READ", "ARGS", []any{"PATH", "inbox.org"}, "EXPLANATION", "Reading."}, env)
	assert.Equal(t, VerdictAllow, v.Verdict, v.Reason)
}

func TestStackCancelledContextDenies(t *testing.T) {
	stack, env, _ := testEnv(t, DefaultConfig())
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	v := stack.Check(ctx, act(ToolFileRead, "path", "inbox.org"), env)
	assert.Equal(t, VerdictDeny, v.Verdict)
	assert.Equal(t, "permissions", v.Gate)
}

func TestRecheckAfterApproval(t *testing.T) {
	stack, env, _ := testEnv(t, DefaultConfig())
	ctx := context.Background()
	ask := act(ToolShell, "cmd", "make test", "cwd", ".")
	assert.Equal(t, VerdictAsk, stack.Check(ctx, ask, env).Verdict)
	v := stack.Recheck(ctx, ask, env)
	assert.Equal(t, VerdictAllow, v.Verdict, "an approved ask runs")
	assert.Contains(t, v.Reason, "approved by the user")
	assert.Equal(t, TraceApproval, v.Trace[0].Result, "the trace still shows who asked")
	deny := act(ToolShell, "cmd", "rm -rf ~", "cwd", ".")
	assert.Equal(t, VerdictDeny, stack.Recheck(ctx, deny, env).Verdict, "approval never turns a deny into an allow")
}

func TestRateLimitsCountExecutions(t *testing.T) {
	cfg := DefaultConfig()
	cfg.Limits.ToolPerMinute = map[string]int{"message": 2}
	stack, env, _ := testEnv(t, cfg)
	ctx := context.Background()
	msg := act(ToolMessage, "text", "hello")
	for i := 0; i < 5; i++ {
		assert.Equal(t, VerdictAllow, stack.Check(ctx, msg, env).Verdict, "checking alone never uses the budget")
	}
	now := time.Now()
	stack.Record(ToolMessage, now)
	stack.Record(ToolMessage, now)
	v := stack.Check(ctx, msg, env)
	assert.Equal(t, VerdictDeny, v.Verdict)
	assert.Contains(t, v.Reason, "rate limit")
}

// TestConcurrentChecks shares one Env between goroutines, as the server
// does; run it with -race.
func TestConcurrentChecks(t *testing.T) {
	stack, env, _ := testEnv(t, DefaultConfig())
	actions := []Action{
		sh("ls notes && cat notes/todo.org"), sh("rm -rf ~"), act(ToolFileRead, "path", "notes/key.txt"),
		act(ToolMessage, "text", "Started sertraline 50 mg on 2024-05-02"), act(ToolMemoryEdit, "id", "plan-1", "content", "x"),
	}
	want := make([]string, len(actions))
	for i, a := range actions {
		want[i] = stack.Check(context.Background(), a, env).Verdict
	}
	done := make(chan struct{})
	for g := 0; g < 4; g++ {
		go func() {
			defer func() { done <- struct{}{} }()
			for i := 0; i < 50; i++ {
				k := (i + g) % len(actions)
				if got := stack.Check(context.Background(), actions[k], env).Verdict; got != want[k] {
					t.Errorf("action %d: %s, want %s", k, got, want[k])
				}
			}
		}()
	}
	for g := 0; g < 4; g++ {
		<-done
	}
}
