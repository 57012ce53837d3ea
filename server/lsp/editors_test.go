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

// The editors' sources checked as their own tools check them: every Lua
// file of the Neovim plugin loads in Neovim (a luacheck-equivalent syntax
// check), the help's tags file is what :helptags makes of the help, and
// every elisp file byte-compiles without a warning and passes checkdoc.

func TestNeovimLuaLoads(t *testing.T) {
	nvim := testenv.NeedCommand(t, "nvim")
	plugin := filepath.Join(testenv.ModuleRoot(t), "editors", "nvim")
	var files []string
	require.NoError(t, filepath.WalkDir(plugin, func(p string, d fs.DirEntry, err error) error {
		if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lua") {
			files = append(files, p)
		}
		return err
	}))
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(filepath.Base(filepath.Dir(f))+"/"+filepath.Base(f), func(t *testing.T) {
			// luafile runs the file; an error in it (syntax or at load)
			// makes Neovim exit 1 with the message.
			script := `lua local ok, err = pcall(vim.cmd, 'luafile ' .. vim.fn.fnameescape(os.getenv('LUA_FILE'))) ` +
				`if not ok then io.stderr:write(err .. '\n') vim.cmd('cquit 1') end`
			out, err := editorCmd(t, nil, nvim, "--headless", "-u", "NONE", "-i", "NONE",
				"--cmd", "set rtp+="+plugin, "-c", script, "-c", "qall!").withEnv("LUA_FILE=" + f).run()
			assert.NoError(t, err, "%s: %s", f, out)
			assert.NotContains(t, out, "Error", f)
		})
	}
}

// TestNeovimKeymapsSetting: what setup's keymaps says is what a buffer
// pp-lsp attaches to gets — the defaults, one changed and one off, or
// none at all.
func TestNeovimKeymapsSetting(t *testing.T) {
	nvim := testenv.NeedCommand(t, "nvim")
	plugin := filepath.Join(testenv.ModuleRoot(t), "editors", "nvim")
	for _, tc := range []struct{ name, opts, want string }{
		{"defaults", `{}`, "gd=definition K=hover gr=references <leader>pa=ask <leader>pc=context"},
		{"one changed, one off", `{ keymaps = { context = '<leader>x', ask = false } }`, "gd=definition K=hover gr=references <leader>pa= <leader>pc= <leader>x=context"},
		{"off", `{ keymaps = false }`, "gd= K= gr= <leader>pa= <leader>pc="},
	} {
		t.Run(tc.name, func(t *testing.T) {
			script := `lua local pp = require('passepartout')
pp.setup(vim.tbl_extend('force', ` + tc.opts + `, { codelens = false }))
local buf = vim.api.nvim_get_current_buf()
pp.on_attach({ id = 0, name = 'pp-lsp' }, buf)
local out = {}
for _, lhs in ipairs({ 'gd', 'K', 'gr', '<leader>pa', '<leader>pc', '<leader>x' }) do
  local m = vim.fn.maparg(lhs, 'n', false, true)
  local what = (m.buffer == 1 and m.desc) and (m.desc:match('^pp%-lsp (%S+):') or '?') or ''
  if lhs ~= '<leader>x' or what ~= '' then table.insert(out, lhs .. '=' .. what) end
end
io.stdout:write(table.concat(out, ' ') .. '\n')`
			out, err := editorCmd(t, nil, nvim, "--headless", "-u", "NONE", "-i", "NONE",
				"--cmd", "set rtp+="+plugin, "-c", strings.ReplaceAll(script, "\n", " "), "-c", "qall!").run()
			require.NoError(t, err, out)
			assert.Equal(t, tc.want, strings.TrimSpace(out))
		})
	}
}

func TestNeovimHelpTagsCurrent(t *testing.T) {
	nvim := testenv.NeedCommand(t, "nvim")
	doc := filepath.Join(testenv.ModuleRoot(t), "editors", "nvim", "doc")
	dir := t.TempDir()
	src, err := os.ReadFile(filepath.Join(doc, "passepartout.txt"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "passepartout.txt"), src, 0o644))
	out, err := editorCmd(t, nil, nvim, "--headless", "-u", "NONE", "-i", "NONE", "-c", "helptags "+dir, "-c", "qall!").run()
	require.NoError(t, err, out)
	want, err := os.ReadFile(filepath.Join(dir, "tags"))
	require.NoError(t, err)
	got, err := os.ReadFile(filepath.Join(doc, "tags"))
	require.NoError(t, err)
	assert.Equal(t, string(want), string(got), "editors/nvim/doc/tags is stale: run nvim --headless -c 'helptags editors/nvim/doc' -c q")
	assert.Contains(t, string(got), "passepartout\tpassepartout.txt", "the :help passepartout tag")
}

// TestElispCompilesClean: every elisp file of editors/emacs byte-compiles
// with no warning (eglot 1.9 from Debian's elpa-eglot on the load path)
// and checkdoc has nothing to say.
func TestElispCompilesClean(t *testing.T) {
	emacs := testenv.NeedCommand(t, "emacs")
	src := filepath.Join(testenv.ModuleRoot(t), "editors", "emacs")
	entries, err := os.ReadDir(src)
	require.NoError(t, err)
	dir := t.TempDir()
	var files []string
	for _, e := range entries {
		if strings.HasSuffix(e.Name(), ".el") {
			data, err := os.ReadFile(filepath.Join(src, e.Name()))
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(filepath.Join(dir, e.Name()), data, 0o644))
			files = append(files, e.Name())
		}
	}
	require.NotEmpty(t, files)
	const elpa = `(when (file-directory-p "/usr/share/emacs/site-lisp/elpa") (dolist (d (directory-files "/usr/share/emacs/site-lisp/elpa" t "^[a-z]")) (when (file-directory-p d) (add-to-list 'load-path d))))`
	for _, f := range files {
		t.Run(f, func(t *testing.T) {
			el := filepath.Join(dir, f)
			out, err := editorCmd(t, nil, emacs, "--batch", "-Q", "-L", dir, "--eval", elpa,
				"--eval", "(setq byte-compile-error-on-warn t)", "-f", "batch-byte-compile", el).run()
			if err != nil && strings.Contains(out, "Cannot open load file") && strings.Contains(out, "eglot") && !testenv.InCI() {
				t.Skip("eglot is not installed for Emacs (Debian's elpa-eglot)")
			}
			require.NoError(t, err, "byte-compiling %s: %s", f, out)
			assert.NotContains(t, out, "Warning", f)
			_, err = os.Stat(el + "c")
			assert.NoError(t, err)

			out, err = editorCmd(t, nil, emacs, "--batch", "-Q", "-L", dir, "--eval", elpa, "--eval",
				`(progn (require 'checkdoc) (checkdoc-file "`+el+`"))`).run()
			require.NoError(t, err, "checkdoc: %s", out)
			assert.NotContains(t, out, "Warning", "checkdoc %s: %s", f, out)
		})
	}
}

// editorRun is an editor's command line, run with a deadline.
type editorRun struct {
	t    *testing.T
	cmd  *exec.Cmd
	stop context.CancelFunc
}

func editorCmd(t *testing.T, env []string, name string, args ...string) *editorRun {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
	cmd := exec.CommandContext(ctx, name, args...)
	cmd.Env = append(os.Environ(), env...)
	return &editorRun{t: t, cmd: cmd, stop: cancel}
}

func (r *editorRun) withEnv(kv ...string) *editorRun {
	r.cmd.Env = append(r.cmd.Env, kv...)
	return r
}

func (r *editorRun) run() (string, error) {
	defer r.stop()
	out, err := r.cmd.CombinedOutput()
	return string(out), err
}
