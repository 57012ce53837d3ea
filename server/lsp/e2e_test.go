package lsp

import (
	"context"
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// The end-to-end tests drive the real editors — Emacs 28 with eglot 1.9,
// Neovim 0.7 — against the binary built from this repository, on a copy
// of examples/memex: open a file, the outline, an id link's target, the
// backlinks, an ID completed, the context command's answer, a question
// answered by the replay model, a Flight Plan approved and run, a clean
// exit; then what each editor's users expect of it (nvimWant, emacsWant).
// Each prints one line per check; the test reads them.

// e2eEnv builds the binary and a memex for an editor to drive.
type e2eEnv struct {
	bin, memex, module string
	env                []string
}

func newE2E(t *testing.T) e2eEnv {
	t.Helper()
	module := testenv.ModuleRoot(t)
	dir := t.TempDir()
	bin := buildBinary(t)

	memex := filepath.Join(dir, "memex")
	src := filepath.Join(module, "examples", "memex")
	require.NoError(t, filepath.WalkDir(src, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		rel, _ := filepath.Rel(src, p)
		dst := filepath.Join(memex, rel)
		if d.IsDir() {
			return os.MkdirAll(dst, 0o755)
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		return os.WriteFile(dst, data, 0o644)
	}))
	home := filepath.Join(dir, "home")
	require.NoError(t, os.MkdirAll(home, 0o755))
	env := []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "TERM=dumb", "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"PASSEPARTOUT_DATA_DIR=" + filepath.Join(dir, "data"),
		"PASSEPARTOUT_PROVIDERS=replay:" + filepath.Join(module, "examples", "demo-replay.jsonl"),
		"HEARTBEAT_INTERVAL=3600",
		"PP_LSP_PROGRAM=" + bin, "PP_LSP_MEMEX=" + memex,
		"PP_LSP_EL=" + filepath.Join(module, "editors", "emacs", "pp-lsp.el"),
		"PP_LSP_NVIM=" + filepath.Join(module, "editors", "nvim"),
	}
	return e2eEnv{bin: bin, memex: memex, module: module, env: env}
}

// runEditor runs an editor's script and returns its lines; on failure the
// whole output (the editor's log with it) is in the test's log.
func runEditor(t *testing.T, e e2eEnv, name string, args ...string) []string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 90*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = e.env
	cmd.Dir = e.memex
	out, err := cmd.CombinedOutput()
	if err != nil || !strings.Contains(string(out), "E2E OK") {
		t.Fatalf("%s failed (%v):\n%s", name, err, out)
	}
	return strings.Split(string(out), "\n")
}

// has asserts that some line of out is want.
func has(t *testing.T, out []string, want string) {
	t.Helper()
	for _, l := range out {
		if strings.TrimSpace(l) == want {
			return
		}
	}
	assert.Failf(t, "a line is missing", "want %q in:\n%s", want, strings.Join(out, "\n"))
}

// e2eWant are the lines both editors' scripts must print.
func e2eWant() []string {
	return []string{
		"SERVER pp-lsp",
		"OUTLINE Ship the outline parser",
		"OUTLINE Headline scanner",
		"DEFINITION notes/embedding-search.org:1 :PROPERTIES:",
		"REFERENCE projects/pp-lsp.org:9",
		"REFERENCE projects/thesis.org:30",
		"LENS 3 backlinks",
		"BACKLINKS 3",
		"VIEW Embedding search",
		"VIEW shows pp-lsp.org: true",
		"VIEW side window: true",
		"FOLLOWED Cosine similarity",
		"VISITED projects/pp-lsp.org:9",
		"DAILY daily/2026-11-21.org 2026-11-21",
		"RENAMED index.org links areas/wellbeing.org: true old file gone: true",
		"COMPLETED See [[id:07b04378-ab0a-41fc-96d6-28f4c1e6cd47][Headline scanner]]",
		"CONTEXT foveal=Gate every proposal tokens<=budget=true",
		"CONTEXT buffer shows the node: true",
		"ASK answered",
		"STREAMED true",
		"PLANNED filed true",
		"APPROVED DONE",
		"RAN true",
		"PLANS FILE says DONE: true",
		"JOURNAL written: true offered: 0",
		"SKILLS Cite the notes, Gardener, Scribe, Weekly review",
		"RAN SKILL filed",
		"EXIT 0",
	}
}

// needEglot skips the test (fails it under CI=true) when Emacs or its
// eglot is missing.
func needEglot(t *testing.T) {
	t.Helper()
	emacs := testenv.NeedCommand(t, "emacs")
	// Emacs 28 has no eglot of its own: Debian's elpa-eglot provides it.
	probe := exec.Command(emacs, "--batch", "-Q", "--eval", `(progn (when (file-directory-p "/usr/share/emacs/site-lisp/elpa") (dolist (d (directory-files "/usr/share/emacs/site-lisp/elpa" t "^[a-z]")) (when (file-directory-p d) (add-to-list 'load-path d)))) (require 'eglot))`)
	if out, err := probe.CombinedOutput(); err != nil {
		why := "eglot is not installed for Emacs (Debian's elpa-eglot; make test installs it with apt-get where it can): " + strings.TrimSpace(string(out))
		if testenv.InCI() {
			t.Fatal("CI=true: " + why)
		}
		t.Skip(why)
	}
}

func TestEmacsEglot(t *testing.T) {
	needEglot(t)
	e := newE2E(t)
	out := runEditor(t, e, "emacs", "--batch", "-Q", "-l", filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "eglot-e2e.el"))
	t.Logf("emacs:\n%s", strings.Join(out, "\n"))
	for _, want := range append(e2eWant(), emacsWant()...) {
		has(t, out, want)
	}
}

// emacsWant are the lines of what Emacs's users expect of pp-lsp.el
// (issue 17): Org's own imenu, the context at the foveal node, an
// Org-derived answer buffer with its keys and its outcome in words, a
// filed plan one RET away, a cancel that leaves eglot without an error.
func emacsWant() []string {
	return []string{
		"IMENU equals Org's own: true",
		"IMENU eglot stays out: true",
		"CONTEXT point on the node: true",
		"ANSWER mode pp-lsp-answer-mode org-derived: true",
		"ANSWER keys quit-window pp-lsp-cancel pp-lsp-follow-up",
		"ANSWER says answered by the model: true",
		"ANSWER window at its end: true",
		"ANSWER eglot manages it: false",
		"SERVERS 1",
		"FOLLOW-UP answered",
		"CANCEL mark true",
		"CANCEL eglot error: nil",
		"ANSWER says Plan filed — RET to open it",
		"PLAN OPENED flightplans.org on its plan: true",
		"PLAN OPENED at the window top: true",
	}
}

func TestNeovim(t *testing.T) {
	testenv.NeedCommand(t, "nvim")
	e := newE2E(t)
	out := runEditor(t, e, "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-c",
		"luafile "+filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "nvim-e2e.lua"))
	t.Logf("nvim:\n%s", strings.Join(out, "\n"))
	for _, want := range append(e2eWant(), nvimWant()...) {
		has(t, out, want)
	}
}

// nvimWant are the lines of what Neovim's users expect of the plugin
// (issue 17): completion and keys on attach, one client whatever views
// are open, the plugin's buffers no files, errors as one message, the
// answer followed and its cancel marked, help, health and an
// nvim-lspconfig table, a quiet stderr.
func nvimWant() []string {
	return []string{
		"OMNIFUNC v:lua.require'passepartout'.omnifunc",
		"KEYMAPS gd=true K=true gr=true <leader>rn=true <leader>ca=true <leader>pc=true <leader>pa=true",
		"PROGRESS Indexing the memex",
		"OMNI chose Headline scanner",
		"OMNI COMPLETED Also [[id:07b04378-ab0a-41fc-96d6-28f4c1e6cd47][Headline scanner]]",
		"PREVIEW windows 0",
		"CONTEXT cursor on the node: true",
		"CONTEXT buftype nofile",
		`FROM VIEW error notified: true pp-lsp: approve of no-such-plan: "no-such-plan" is not a Flight Plan ID (a UUID)`,
		"ANSWER window at its end: true",
		"ANSWER buftype nofile",
		"ANSWER says answered by the model: true",
		"ANSWER ends Plan filed — <CR> to open it (replay)",
		"PLAN OPENED flightplans.org on its plan: true",
		"PLAN OPENED at the window top: true",
		"CLIENTS after the views 1",
		"CANCEL mark [cancelled]",
		"HELP passepartout.txt help",
		"HEALTH pp-lsp found: true",
		"HEALTH doctor ran: true",
		"HEALTH no module error: true",
		"HEALTH no PATH warning with a path set up: true",
		"LSPCONFIG org pp-lsp root=memex:true",
		"LSPCONFIG client pp_lsp omnifunc v:lua.require'passepartout'.omnifunc context from it: true",
		"STDERR lines other than warnings and errors 0",
	}
}
