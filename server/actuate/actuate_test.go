package actuate

import (
	"context"
	"encoding/json"
	"fmt"
	"io"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/workspace"
	"pp-lsp/server/workspace/workspacetest"
)

type fixture struct {
	root string
	home string
	mx   *memory.Memex
	ed   *workspacetest.Editor
	act  *Actuators
	env  map[string]string
}

func newFixture(t *testing.T, files map[string]string, mutate func(*Config)) *fixture {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	for name, text := range files {
		p := filepath.Join(root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	ctx := context.Background()
	mx, err := memory.Open(ctx, memory.Options{Roots: []string{root}})
	require.NoError(t, err)
	t.Cleanup(func() { mx.Close(ctx) })
	fx := &fixture{root: root, home: t.TempDir(), mx: mx, ed: workspacetest.New(),
		env: map[string]string{"PATH": os.Getenv("PATH"), "HOME": "/home/test", "OPENAI_API_KEY": "sk-secret-should-not-leak", "LANG": "C.UTF-8"}}
	cfg := Config{
		Roots: []string{root}, Home: fx.home, Files: workspace.Files{Workspace: fx.ed}, Memex: mx,
		Getenv: func(k string) string { return fx.env[k] },
		Shell:  Limits{Timeout: 5 * time.Second, OutputCap: 4096},
	}
	if mutate != nil {
		mutate(&cfg)
	}
	fx.act, err = New(cfg)
	require.NoError(t, err)
	return fx
}

func run(t *testing.T, fx *fixture, a gates.Action, approval *Approval) (Result, error) {
	t.Helper()
	return fx.act.Run(context.Background(), Request{Action: a, Approval: approval})
}

func approve(a gates.Action) *Approval { return &Approval{PlanID: "p", ActionHash: a.Hash()} }

func TestShell(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes/a.org": "* a\n"}, nil)
	for _, tc := range []struct {
		name, cmd, cwd string
		ok             bool
		errText        string
		contains       []string
		absent         []string
	}{
		{name: "runs in the root", cmd: "ls notes; pwd", ok: true, contains: []string{"a.org", fx.root}},
		{name: "in a sub-folder", cmd: "ls", cwd: "notes", ok: true, contains: []string{"a.org"}},
		{name: "clean environment", cmd: "env; test \"$HOME\" = \"$TMPDIR\" && touch \"$HOME/x\" && echo private-home", ok: true,
			contains: []string{"TERM=dumb", "LANG=C.UTF-8", "private-home"}, absent: []string{"sk-secret", "OPENAI_API_KEY", "HOME=/home/test"}},
		{name: "non-zero exit is a result", cmd: "echo oops >&2; exit 3", contains: []string{"oops"}},
		{name: "cwd outside the roots", cmd: "ls", cwd: "/", errText: "outside the memex roots"},
		{name: "cwd missing", cmd: "ls", cwd: "nope", errText: "does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			res, err := run(t, fx, gates.Build(gates.ShellArgs{Cmd: tc.cmd, Cwd: tc.cwd}, "test"), nil)
			if tc.errText != "" {
				assert.ErrorContains(t, err, tc.errText)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.ok, res.OK, res.Summary)
			assert.True(t, res.Feedback)
			for _, s := range tc.contains {
				assert.Contains(t, res.Output, s)
			}
			for _, s := range tc.absent {
				assert.NotContains(t, res.Output, s)
			}
		})
	}
}

func TestShellTimeoutKillsTheGroupAndCapsOutput(t *testing.T) {
	fx := newFixture(t, map[string]string{"out/.keep": ""}, func(c *Config) { c.Shell = Limits{Timeout: 300 * time.Millisecond, OutputCap: 1000} })
	marker := filepath.Join(fx.root, "out", "child-survived")
	start := time.Now()
	res, err := run(t, fx, gates.Build(gates.ShellArgs{Cmd: "(sleep 1; touch " + marker + ") & setsid sh -c 'sleep 1; touch " + marker + "2' & sleep 5"}, "t"), nil)
	assert.ErrorIs(t, err, ErrTimeout)
	assert.Less(t, time.Since(start), 3*time.Second)
	assert.Contains(t, res.Summary, "timeout")
	time.Sleep(1200 * time.Millisecond)
	assert.NoFileExists(t, marker, "the background child died with the command")
	assert.NoFileExists(t, marker+"2", "so did the one that left the process group")

	fx = newFixture(t, nil, func(c *Config) { c.Shell = Limits{Timeout: 10 * time.Second, OutputCap: 1000} })
	res, err = run(t, fx, gates.Build(gates.ShellArgs{Cmd: "seq 1 100000"}, "t"), nil)
	require.NoError(t, err)
	assert.Less(t, len(res.Output), 1200)
	assert.True(t, strings.HasPrefix(res.Output, "1\n2\n"))
	assert.True(t, strings.HasSuffix(res.Output, "99999\n100000\n"), "the tail is kept too")
	assert.Contains(t, res.Output, "bytes cut")
}

func TestShellCannotTouchFlightPlans(t *testing.T) {
	const plans = "#+TODO: PLAN APPROVED | DONE\n* PLAN x\n"
	fx := newFixture(t, map[string]string{"flightplans.org": plans}, nil)
	a := gates.Build(gates.ShellArgs{Cmd: "sed -i s/PLAN\\ x/APPROVED\\ x/ flightplans.org"}, "self-approval")
	res, err := run(t, fx, a, approve(a))
	require.NoError(t, err)
	assert.False(t, res.OK, "the kernel refused: even an approved command cannot write it")
	assert.Contains(t, res.Output, "Permission denied")
	assert.Empty(t, res.Warnings, "nothing to put back")
	got, _ := os.ReadFile(filepath.Join(fx.root, "flightplans.org"))
	assert.Equal(t, plans, string(got))
}

// With the sandbox off, the guard around commands still puts the plans
// back.
func TestShellTouchingFlightPlansIsUndone(t *testing.T) {
	const plans = "#+TODO: PLAN APPROVED | DONE\n* PLAN x\n"
	fx := newFixture(t, map[string]string{"flightplans.org": plans}, func(c *Config) { c.Sandbox.Mode = sandbox.Off })
	a := gates.Build(gates.ShellArgs{Cmd: "sed -i s/PLAN\\ x/APPROVED\\ x/ flightplans.org"}, "self-approval")
	res, err := run(t, fx, a, nil)
	require.NoError(t, err)
	assert.False(t, res.OK)
	require.Len(t, res.Warnings, 1)
	assert.Contains(t, res.Warnings[0], "put back")
	got, _ := os.ReadFile(filepath.Join(fx.root, "flightplans.org"))
	assert.Equal(t, plans, string(got))

	// A human approved this very command: it stands, and is reported.
	res, err = run(t, fx, a, approve(a))
	require.NoError(t, err)
	require.Len(t, res.Warnings, 1)
	got, _ = os.ReadFile(filepath.Join(fx.root, "flightplans.org"))
	assert.Contains(t, string(got), "APPROVED x")
}

// With the sandbox off, a command that leaves a FIFO or a symlink where
// flightplans.org was does not hold the guard (a plain open of a FIFO
// waits for a writer): the change is reported. What is there now is not
// replaced (an atomic write refuses anything but a regular file).
func TestShellSwappingFlightPlansIsReported(t *testing.T) {
	const plans = "#+TODO: PLAN APPROVED | DONE\n* PLAN x\n"
	for _, tc := range []struct{ name, cmd string }{
		{"fifo", "rm flightplans.org && mkfifo flightplans.org"},
		{"symlink", "cp flightplans.org out/copy.org && rm flightplans.org && ln -s out/copy.org flightplans.org"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, map[string]string{"flightplans.org": plans, "out/.keep": ""}, func(c *Config) { c.Sandbox.Mode = sandbox.Off })
			res, err := run(t, fx, gates.Build(gates.ShellArgs{Cmd: tc.cmd}, "swap"), nil)
			require.NoError(t, err)
			assert.False(t, res.OK)
			require.Len(t, res.Warnings, 1)
			assert.Contains(t, res.Warnings[0], "touched "+filepath.Join(fx.root, "flightplans.org"))
			assert.Contains(t, res.Warnings[0], "that failed")
		})
	}
}

func TestApprovalOnlyTools(t *testing.T) {
	var hits int
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		hits++
		if r.URL.Path == "/redirect" {
			http.Redirect(w, r, "http://169.254.169.254/", http.StatusFound)
			return
		}
		body, _ := io.ReadAll(r.Body)
		fmt.Fprintf(w, "%s %s %s", r.Method, r.URL.Path, body)
	}))
	t.Cleanup(srv.Close)
	fx := newFixture(t, nil, nil)
	get := gates.Build(gates.HTTPArgs{Method: "POST", URL: srv.URL + "/x", Body: `{"a":1}`}, "t")

	for _, a := range []gates.Action{get, gates.Build(gates.SendArgs{Channel: "mail", To: "a@b", Text: "hi"}, "t"), gates.Build(gates.EvalArgs{Lang: "sh", Code: "echo hi"}, "t")} {
		_, err := run(t, fx, a, nil)
		assert.ErrorIs(t, err, ErrNeedsApproval, a.Tool)
		_, err = run(t, fx, a, &Approval{PlanID: "p", ActionHash: "sha256:other"})
		assert.ErrorContains(t, err, "for another action", a.Tool)
	}
	assert.Zero(t, hits, "nothing reached the server without approval")

	res, err := run(t, fx, get, approve(get))
	require.NoError(t, err)
	assert.True(t, res.OK)
	assert.Contains(t, res.Output, `POST /x {"a":1}`)

	redir := gates.Build(gates.HTTPArgs{Method: "GET", URL: srv.URL + "/redirect"}, "t")
	res, err = run(t, fx, redir, approve(redir))
	require.NoError(t, err)
	assert.Contains(t, res.Summary, "not followed")
}

func TestSend(t *testing.T) {
	var got map[string]string
	srv := httptest.NewServer(http.HandlerFunc(func(w http.ResponseWriter, r *http.Request) {
		json.NewDecoder(r.Body).Decode(&got)
	}))
	t.Cleanup(srv.Close)
	fx := newFixture(t, nil, func(c *Config) {
		c.Channels = map[string]Channel{
			"file": {Command: []string{"sh", "-c", `cat > sent-to-"$0".txt`, "{to}"}},
			"hook": {Webhook: srv.URL},
		}
	})
	for _, tc := range []struct{ channel, errText string }{
		{"file", ""}, {"hook", ""}, {"telegram", `no channel "telegram" is configured`},
	} {
		t.Run(tc.channel, func(t *testing.T) {
			a := gates.Build(gates.SendArgs{Channel: tc.channel, To: "bob", Text: "hello bob"}, "t")
			res, err := run(t, fx, a, approve(a))
			if tc.errText != "" {
				assert.ErrorContains(t, err, tc.errText)
				return
			}
			require.NoError(t, err)
			assert.True(t, res.OK, res.Summary)
		})
	}
	b, err := os.ReadFile(filepath.Join(fx.root, "sent-to-bob.txt"))
	require.NoError(t, err)
	assert.Equal(t, "hello bob", string(b))
	assert.Equal(t, map[string]string{"channel": "hook", "to": "bob", "text": "hello bob"}, got)
}

func TestEval(t *testing.T) {
	fx := newFixture(t, nil, nil)
	a := gates.Build(gates.EvalArgs{Lang: "sh", Code: "echo $((6*7))"}, "t")
	res, err := run(t, fx, a, approve(a))
	require.NoError(t, err)
	assert.Equal(t, "42\n", res.Output)

	a = gates.Build(gates.EvalArgs{Lang: "cobol", Code: "x"}, "t")
	_, err = run(t, fx, a, approve(a))
	assert.ErrorContains(t, err, `no interpreter is known for the language "cobol"`)

	testenv.NeedCommand(t, "python3")
	a = gates.Build(gates.EvalArgs{Lang: "Python", Code: "import os\nprint(sum(range(10)), 'OPENAI_API_KEY' in os.environ)"}, "t")
	res, err = run(t, fx, a, approve(a))
	require.NoError(t, err)
	assert.Equal(t, "45 False\n", res.Output)
}

// A confined command cannot read a file holding a private note (the memex
// names them to the sandbox), and what it prints of private text copied
// elsewhere comes back as [private].
func TestShellNeverShowsPrivateText(t *testing.T) {
	if !sandbox.Probe().Available() && !testenv.InCI() {
		t.Skip(sandbox.Probe().String())
	}
	fx := newFixture(t, map[string]string{
		"notes/p.org":    "* Public\nopen words\n* Bank :private:\nThe vault combination is left right left twice.\n",
		"notes/copy.txt": "note: The vault combination is left right left twice.\n",
	}, nil)
	res, err := run(t, fx, gates.Build(gates.ShellArgs{Cmd: "cat notes/p.org; cat notes/copy.txt; grep -rh combination . ; true"}, "t"), nil)
	require.NoError(t, err)
	assert.Contains(t, res.Output, "notes/p.org: Permission denied")
	assert.Contains(t, res.Output, "note: [private].")
	assert.NotContains(t, res.Output, "combination")
}

// TestToolsOfTheRegistry: the actuators run the registry's tools: one
// without an actuator is refused when they are built, one given its
// actuator runs, and whether it needs a Flight Plan is the registry's
// word.
func TestToolsOfTheRegistry(t *testing.T) {
	beep := gates.ToolSpec{Name: "beep", Description: "Beep.", NeedsApproval: true,
		Args: []gates.ArgSpec{{Name: "text", Role: gates.RoleAnswer, Required: true}}}
	tools, err := gates.BuiltinTools().With(beep)
	require.NoError(t, err)
	root := t.TempDir()
	_, err = New(Config{Roots: []string{root}, Tools: tools})
	assert.ErrorContains(t, err, "the tool beep has no actuator")

	var beeped []string
	fx := newFixture(t, nil, func(c *Config) {
		c.Tools = tools
		c.Override = map[gates.Tool]Actuator{"beep": ActuatorFunc(func(_ context.Context, req Request) (Result, error) {
			beeped = append(beeped, req.Action.Arg("text"))
			return Result{OK: true, Summary: "beeped"}, nil
		})}
	})
	a := tools.NewAction("beep", "t", map[string]string{"text": "hi"})
	_, err = run(t, fx, a, nil)
	assert.ErrorIs(t, err, ErrNeedsApproval, "the registry says beep needs a human")
	res, err := run(t, fx, a, approve(a))
	require.NoError(t, err)
	assert.Equal(t, "beeped", res.Summary)
	assert.Equal(t, []string{"hi"}, beeped)

	builtin := newFixture(t, nil, nil)
	_, err = run(t, builtin, a, approve(a))
	assert.ErrorContains(t, err, `no actuator for the tool "beep"`, "actuators of the builtin tools know no beep")
}

// TestOutputFilteredByTheMemexCheckedAgainstTheDisk: a note made private
// on disk, behind the memex's back (no editor told it), is private to the
// filter of an action's output: whether the caller's rechecked snapshot
// came with the request, or none did and Run rechecked the memex itself.
func TestOutputFilteredByTheMemexCheckedAgainstTheDisk(t *testing.T) {
	const secret = "The vault combination is left right left twice."
	for _, tc := range []struct {
		name    string
		recheck bool // the caller rechecks and passes the snapshot
	}{
		{"the caller's rechecked snapshot", true},
		{"no snapshot: Run rechecks", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, map[string]string{
				"notes/p.org":    "* Bank\n" + secret + "\n",
				"notes/copy.txt": "note: " + secret + "\n",
			}, nil)
			require.NoError(t, os.WriteFile(filepath.Join(fx.root, "notes/p.org"), []byte("* Bank :private:\n"+secret+"\n"), 0o644))
			req := Request{Action: gates.Build(gates.FileReadArgs{Path: "notes/copy.txt"}, "t")}
			if tc.recheck {
				snap, err := fx.mx.Recheck(t.Context())
				require.NoError(t, err)
				req.Snapshot = snap
			}
			res, err := fx.act.Run(t.Context(), req)
			require.NoError(t, err)
			assert.Equal(t, "note: [private].\n", res.Output)
		})
	}
}

// TestShellCannotReadANoteMadePrivateOnDisk: a note made private on disk
// just before a command runs (no editor told the memex) is unreadable to
// the confined command, whether the caller's rechecked snapshot came with
// the request or Run rechecked the memex itself: the sandbox's list of
// private files comes from the snapshot the run's output filter reads.
func TestShellCannotReadANoteMadePrivateOnDisk(t *testing.T) {
	if !sandbox.Probe().Available() && !testenv.InCI() {
		t.Skip(sandbox.Probe().String())
	}
	const secret = "The vault combination is left right left twice."
	for _, tc := range []struct {
		name    string
		recheck bool // the caller rechecks and passes the snapshot
	}{
		{"the caller's rechecked snapshot", true},
		{"no snapshot: Run rechecks", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, map[string]string{"notes/p.org": "* Bank\n" + secret + "\n"}, nil)
			require.NoError(t, os.WriteFile(filepath.Join(fx.root, "notes/p.org"), []byte("* Bank :private:\n"+secret+"\n"), 0o644))
			a := gates.Build(gates.ShellArgs{Cmd: "cat notes/p.org; true"}, "t")
			req := Request{Action: a, Approval: approve(a)}
			if tc.recheck {
				snap, err := fx.mx.Recheck(t.Context())
				require.NoError(t, err)
				req.Snapshot = snap
			}
			res, err := fx.act.Run(t.Context(), req)
			require.NoError(t, err)
			assert.Contains(t, res.Output, "notes/p.org: Permission denied")
			assert.NotContains(t, res.Output, "combination")
			assert.NotContains(t, res.Output, "[private]", "the command read nothing of the note")
		})
	}
}

// TestAFileIsPrivateByEitherOfItsCopies: a note open in an editor is
// private if either its unsaved buffer or the disk's copy holds a private
// node. Whichever copy carries the tag, a confined command cannot read
// the file, a copy of its text elsewhere comes back as [private], and
// file_read shows nothing of the note (of whichever copy it reads).
func TestAFileIsPrivateByEitherOfItsCopies(t *testing.T) {
	if !sandbox.Probe().Available() && !testenv.InCI() {
		t.Skip(sandbox.Probe().String())
	}
	const secret = "The vault combination is left right left twice."
	const public = "* Errands\nBuy bread.\n* Bank\n" + secret + "\n"
	const tagged = "* Errands\nBuy bread.\n* Bank :private:\n" + secret + "\n"
	for _, tc := range []struct {
		name, disk, buffer string
		editor             bool // the editor answers file_read with its buffer
	}{
		{"the tag removed in the buffer", tagged, public, true},
		{"the tag removed in the buffer, file_read of the disk", tagged, public, false},
		{"the tag added in the buffer", public, tagged, true},
		{"the tag added in the buffer, file_read of the disk", public, tagged, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			fx := newFixture(t, map[string]string{"notes/p.org": tc.disk, "notes/copy.txt": "note: " + secret + "\n"}, nil)
			p := filepath.Join(fx.root, "notes/p.org")
			if tc.editor {
				fx.ed.Open(p, tc.buffer)
			}
			_, err := fx.mx.SetBuffer(t.Context(), p, 1, []byte(tc.buffer))
			require.NoError(t, err)

			a := gates.Build(gates.ShellArgs{Cmd: "cat notes/p.org; cat notes/copy.txt; true"}, "t")
			res, err := fx.act.Run(t.Context(), Request{Action: a, Approval: approve(a)})
			require.NoError(t, err)
			assert.Regexp(t, `cat: notes/(p\.org|\[private\]): Permission denied`, res.Output)
			assert.Contains(t, res.Output, "note: [private].")
			assert.NotContains(t, res.Output, "combination")

			res, err = fx.act.Run(t.Context(), Request{Action: gates.Build(gates.FileReadArgs{Path: "notes/p.org"}, "t")})
			if err != nil {
				assert.ErrorContains(t, err, "file_read notes/p.org: ")
				return
			}
			assert.NotContains(t, res.Output, "combination")
			assert.Contains(t, res.Output, "Buy bread")
		})
	}
}

// TestANoteMadePrivateWhileACommandRunsIsFiltered: a note given a
// privacy tag on the disk (by another process) after a confined command
// started — after the sandbox's list of private files was made — and
// then read by it comes back as [private]: the memex is checked against
// the disk again once the command ended, before its output is filtered.
func TestANoteMadePrivateWhileACommandRunsIsFiltered(t *testing.T) {
	if !sandbox.Probe().Available() && !testenv.InCI() {
		t.Skip(sandbox.Probe().String())
	}
	const secret = "The vault combination is left right left twice."
	fx := newFixture(t, map[string]string{"notes/p.org": "* Bank\n" + secret + "\n"}, nil)
	started, goOn := filepath.Join(fx.root, "notes/started"), filepath.Join(fx.root, "notes/go")
	done := make(chan struct{})
	go func() {
		defer close(done)
		for range 500 {
			if _, err := os.Stat(started); err == nil {
				break
			}
			time.Sleep(10 * time.Millisecond)
		}
		assert.NoError(t, os.WriteFile(filepath.Join(fx.root, "notes/p.org"), []byte("* Bank :private:\n"+secret+"\n"), 0o644))
		assert.NoError(t, os.WriteFile(goOn, nil, 0o644))
	}()
	a := gates.Build(gates.ShellArgs{Cmd: "touch notes/started; i=0; while [ ! -e notes/go ] && [ $i -lt 200 ]; do sleep 0.02; i=$((i+1)); done; cat notes/p.org"}, "t")
	res, err := fx.act.Run(t.Context(), Request{Action: a, Approval: approve(a)})
	<-done
	require.NoError(t, err)
	assert.NotContains(t, res.Output, "combination")
	assert.Contains(t, res.Output, "[private]", "the command read the note, and the filter hid it")
}

// TestAFileReadAfterTheDiskCopyWasMadePrivate: the question's snapshot was
// checked against the disk, then another process gave the disk's copy of
// a note open in the editor a privacy tag; file_read returns the editor's
// buffer, which holds the same words untagged — and they come back as
// [private]: the memex is checked against the disk again before the
// output is filtered, and a file is private if either copy is.
func TestAFileReadAfterTheDiskCopyWasMadePrivate(t *testing.T) {
	const secret = "The vault combination is left right left twice."
	const public = "* Errands\nBuy bread.\n* Bank\n" + secret + "\n"
	fx := newFixture(t, map[string]string{"notes/p.org": public}, nil)
	p := filepath.Join(fx.root, "notes/p.org")
	fx.ed.Open(p, public)
	_, err := fx.mx.SetBuffer(t.Context(), p, 1, []byte(public))
	require.NoError(t, err)
	snap, err := fx.mx.Recheck(t.Context())
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(p, []byte("* Errands\nBuy bread.\n* Bank :private:\n"+secret+"\n"), 0o644))

	res, err := fx.act.Run(t.Context(), Request{Action: gates.Build(gates.FileReadArgs{Path: "notes/p.org"}, "t"), Snapshot: snap})
	require.NoError(t, err)
	assert.NotContains(t, res.Output, "combination")
	assert.Contains(t, res.Output, "[private]")
}
