package lsp

import (
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// The approval end-to-end tests (issue 16): the real editors drive the
// built binary with a model that proposes `make count` — each run adds a
// line to out/count.txt — and answers "what is left". They check that an
// APPROVED left unsaved runs nothing for 3 s and runs once when saved,
// with DONE on disk and the buffer reloaded; that filing a plan into an
// unmodified flightplans.org asks nothing; that a quit at eglot's prompt
// leaves the next ask working; that the plans list approves; and that an
// answer goes into a note only when asked.

// approvalReplay is the model of the approval tests.
const approvalReplay = `{"match":{"last_contains":"count"},"repeat":true,"reply":{"text":"Counting.","tool_calls":[{"name":"shell","arguments":{"cmd":"make count","explanation":"count once \u202eecno\u202c; vim: set ft=sh :"}}]}}
{"match":{"last_contains":"rewrite"},"repeat":true,"reply":{"text":"Rewriting.","tool_calls":[{"name":"file_write","arguments":{"path":"list.conf","content":"model's list\n","explanation":"tidy the list"}}]}}
{"match":{"last_contains":"what is left"},"repeat":true,"reply":{"text":"Two things: the report and the slides."}}
{"match":{"last_contains":"link please"},"repeat":true,"reply":{"text":"See [[https://example.invalid/?q=leaked][the docs]]."}}
`

// newApprovalE2E is newE2E with the approval model and a Makefile.
func newApprovalE2E(t *testing.T) e2eEnv {
	t.Helper()
	e := newE2E(t)
	replay := filepath.Join(t.TempDir(), "approval-replay.jsonl")
	require.NoError(t, os.WriteFile(replay, []byte(approvalReplay), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(e.memex, "Makefile"), []byte("count:\n\techo ran >> out/count.txt\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(e.memex, "out"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(e.memex, "list.conf"), []byte("milk\n"), 0o644))
	e.env = append(e.env, "PASSEPARTOUT_PROVIDERS=replay:"+replay)
	return e
}

func TestEmacsApprovals(t *testing.T) {
	emacs := testenv.NeedCommand(t, "emacs")
	probe := exec.Command(emacs, "--batch", "-Q", "--eval", `(progn (when (file-directory-p "/usr/share/emacs/site-lisp/elpa") (dolist (d (directory-files "/usr/share/emacs/site-lisp/elpa" t "^[a-z]")) (when (file-directory-p d) (add-to-list 'load-path d)))) (require 'eglot))`)
	if out, err := probe.CombinedOutput(); err != nil {
		why := "eglot is not installed for Emacs (Debian's elpa-eglot): " + strings.TrimSpace(string(out))
		if testenv.InCI() {
			t.Fatal("CI=true: " + why)
		}
		t.Skip(why)
	}
	e := newApprovalE2E(t)
	out := runEditor(t, e, "emacs", "--batch", "-Q", "-l", filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "eglot-approve-e2e.el"))
	t.Logf("emacs:\n%s", strings.Join(out, "\n"))
	for _, want := range []string{
		"FILED filed",
		"UNMODIFIED filed without a prompt: true, reloaded: true",
		"QUIT at the prompt",
		"AFTER QUIT failed",
		"NEXT ASK filed",
		"BUFFER has the plan: true",
		"UNSAVED ran: false",
		"SAVED ran ran",
		"DONE on disk: true, buffer unmodified: true",
		"VIEW APPROVED DONE",
		"LIST shows DONE: true",
		"DIFF shows the trace and the action: true",
		// The explanation's right-to-left override is shown, not obeyed.
		"DIFF shows the bidi control: true",
		// Its "vim:", broken by a zero-width space, is seen to be broken:
		// in the plan shown and in flightplans.org.
		"DIFF shows the zero-width space: true",
		"PLANS FILE shows the zero-width space: true",
		"UNDO answered: true",
		"RAN twice in all: true",
		"ANSWER left the note alone: true",
		"INSERTED at line 7: true",
		"EXIT 0",
	} {
		has(t, out, want)
	}
}

func TestNeovimApprovals(t *testing.T) {
	testenv.NeedCommand(t, "nvim")
	e := newApprovalE2E(t)
	out := runEditor(t, e, "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-c",
		"luafile "+filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "nvim-approve-e2e.lua"))
	t.Logf("nvim:\n%s", strings.Join(out, "\n"))
	for _, want := range []string{
		"FILED filed",
		"UNMODIFIED filed, reloaded: true",
		"UNSAVED ran: false",
		"SAVED ran ran",
		"DONE on disk: true, buffer unmodified: true",
		// The model's "vim: set ft=sh :" sets nothing in the Neovim that
		// opens flightplans.org with 'modeline' on (a non-root user's default).
		"MODELINE obeyed: false",
		"LIST APPROVED DONE",
		"LIST shows DONE: true",
		"DIFF shows the trace and the action: true",
		// Neovim shows a zero-width space as <200b> by itself.
		"DIFF shows the zero-width space: true",
		// The JSON's vim\u003a reads vim: on the screen, written unchanged.
		"ESCAPE written: true",
		"ESCAPE shown as the colon: true",
		"UNDO answered: true",
		"RAN twice in all: true",
		"ANSWER left the note alone: true",
		"INSERTED at line 7: true",
		"EXIT 0",
	} {
		has(t, out, want)
	}
}

// TestNeovimStalePlanView: a plan view shows the plan as it was; the
// plan's command changes in flightplans.org elsewhere; a in the view,
// before anything refreshed it, approves nothing and shows the plan again,
// changed, saying why; approving again approves what it shows (edited,
// the server files it afresh), and the next a runs it.
func TestNeovimStalePlanView(t *testing.T) {
	testenv.NeedCommand(t, "nvim")
	e := newApprovalE2E(t)
	out := runEditor(t, e, "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-c",
		"luafile "+filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "nvim-stale-plan.lua"))
	t.Logf("nvim:\n%s", strings.Join(out, "\n"))
	for _, want := range stalePlanWant() {
		has(t, out, want)
	}
}

// stalePlanWant are the lines both stale plan scripts print.
func stalePlanWant() []string {
	return []string{
		"FILED filed",
		"VIEW shows make count: true",
		"STALE approved: false",
		"STALE said: true",
		"STALE shown again with the change: true",
		"STALE ran: false",
		"APPROVED as shown: PLAN",
		"APPROVED again: DONE",
		"RAN what was shown: true",
		"VIEW follows: true",
		// Filed afresh by another process after the client's check: the
		// approval carries the hash shown, and the server refuses it.
		"RACED filed filed",
		"RACED sent its hash: true",
		"RACED filed afresh elsewhere: true",
		"RACED refused by the server: true",
		"RACED ran: false",
		// A file plan whose file is edited, and which is filed afresh with
		// the same action and a new diff, by another process after the
		// client's check: the approval carries the revision shown, and the
		// server writes nothing over the edit.
		"DIFF filed filed",
		"DIFF sent its revision: true",
		"DIFF filed afresh elsewhere: true",
		"DIFF refused by the server: true",
		"DIFF the file kept the edit: true",
		"EXIT 0",
	}
}

// TestEmacsStalePlanView: TestNeovimStalePlanView in Emacs.
func TestEmacsStalePlanView(t *testing.T) {
	needEglot(t)
	e := newApprovalE2E(t)
	out := runEditor(t, e, "emacs", "--batch", "-Q", "-l", filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "eglot-stale-plan.el"))
	t.Logf("emacs:\n%s", strings.Join(out, "\n"))
	for _, want := range stalePlanWant() {
		has(t, out, want)
	}
	has(t, out, "SERVER sees the edit: true")
}

// slowReplay is a model that proposes `make slow`, which runs 12 s.
const slowReplay = `{"match":{"last_contains":"slow"},"repeat":true,"reply":{"text":"Slowly.","tool_calls":[{"name":"shell","arguments":{"cmd":"make slow","explanation":"take a while"}}]}}
`

// newSlowE2E is newE2E with a model that proposes `make slow` and its Makefile.
func newSlowE2E(t *testing.T) e2eEnv {
	t.Helper()
	e := newE2E(t)
	replay := filepath.Join(t.TempDir(), "slow-replay.jsonl")
	require.NoError(t, os.WriteFile(replay, []byte(slowReplay), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(e.memex, "Makefile"), []byte("slow:\n\tsleep 12\n\techo ran >> out/slow.txt\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(e.memex, "out"), 0o755))
	e.env = append(e.env, "PASSEPARTOUT_PROVIDERS=replay:"+replay)
	return e
}

// longPlanWant are the lines both long plan scripts print.
func longPlanWant() []string {
	return []string{
		"FILED filed",
		"KEY returned at once: true",
		"KEY says it runs: true",
		"AGAIN says still running: true",
		"TOOK longer than 10 s: true",
		"TICKED while it ran: true",
		"ANSWER DONE",
		"SAID DONE: true",
		"SAID Timed out: false",
		"SENT once: true",
		"LIST shows DONE: true",
		"LIST kept: true",
		"RAN once: true",
		"EXIT 0",
	}
}

// TestEmacsLongPlan: a plan whose command runs longer than jsonrpc's
// 10 s, approved with a in the plans list: the key returns at once and
// Emacs stays free (a timer ticks, a second a says it still runs and
// sends nothing); the answer, DONE, is said and shown; nothing says
// "Timed out" and the plan ran once.  Then another, approved at point
// in flightplans.org with M-x pp-lsp-approve: the same (before, Emacs
// froze 10 s and said "Timed out" while the plan ran on).
func TestEmacsLongPlan(t *testing.T) {
	needEglot(t)
	e := newSlowE2E(t)
	out := runEditor(t, e, "emacs", "--batch", "-Q", "-l", filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "eglot-long-plan.el"))
	t.Logf("emacs:\n%s", strings.Join(out, "\n"))
	for _, want := range append(longPlanWant(), longPlanAtPointWant()...) {
		has(t, out, want)
	}
}

// longPlanAtPointWant are the lines both long plan scripts print of a
// second long plan approved at point in flightplans.org.
func longPlanAtPointWant() []string {
	return []string{
		"POINT filed true",
		"POINT returned at once: true",
		"POINT says it runs: true",
		"POINT again says still running: true",
		"POINT took longer than 10 s: true",
		"POINT ticked while it ran: true",
		"POINT answer DONE",
		"POINT said DONE: true",
		"POINT said Timed out: false",
		"POINT sent once: true",
		"POINT ran once more: true",
	}
}

// TestNeovimLongPlan: TestEmacsLongPlan in Neovim (whose key, and
// :PassepartoutApprove at the cursor, waited up to 120 s for the plan's
// end).
func TestNeovimLongPlan(t *testing.T) {
	testenv.NeedCommand(t, "nvim")
	e := newSlowE2E(t)
	out := runEditor(t, e, "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-c",
		"luafile "+filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "nvim-long-plan.lua"))
	t.Logf("nvim:\n%s", strings.Join(out, "\n"))
	for _, want := range append(longPlanWant(), longPlanAtPointWant()...) {
		has(t, out, want)
	}
}
