package gates

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestConfigFilesPlantedAsFIFOsDoNotHang: a project folder whose
// repository configuration, or whose jq program file, is a FIFO: the check
// reads neither as a file a writer may never open, and asks at once.
func TestConfigFilesPlantedAsFIFOsDoNotHang(t *testing.T) {
	tests := []struct {
		name, fifo, cmd, reason string
	}{
		{"the repository's config", ".git/config", "git status", "cannot be read"},
		{"the .git file of a work tree", ".git", "git status", "cannot be told"},
		{"jq's program file", "prog.jq", "jq -n -f prog.jq", "cannot be read"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			require.NoError(t, os.MkdirAll(filepath.Dir(filepath.Join(dir, tc.fifo)), 0o755))
			p := filepath.Join(dir, tc.fifo)
			testenv.MakeFIFO(t, p)
			stack, env := defaultEnv(t, dir)
			done := make(chan Verdict, 1)
			go func() { done <- stack.Check(context.Background(), sh(tc.cmd), env) }()
			select {
			case v := <-done:
				assert.Equal(t, VerdictAsk, v.Verdict, "%s: %s", v.Gate, v.Reason)
				assert.Contains(t, v.Reason, tc.reason)
			case <-time.After(10 * time.Second):
				// Open a writer, so that the read ends and the test with it.
				if f, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
					f.Close()
				}
				t.Fatalf("checking %q with %s a FIFO hung", tc.cmd, tc.fifo)
			}
		})
	}
}

// TestSubmoduleWorktreeIsResolved: a submodule's core.worktree is let
// through only when it names a folder inside the superproject as git
// would reach it — through a symlink that leads out of it, git status and
// git diff read the files outside.
func TestSubmoduleWorktreeIsResolved(t *testing.T) {
	testenv.NeedCommand(t, "git")
	outside := t.TempDir()
	tests := []struct {
		name    string
		link    bool
		verdict string
	}{
		{"a folder inside", false, VerdictAllow},
		{"a symlink to a folder outside", true, VerdictAsk},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			dir := realRunDir(t, true)
			sub := filepath.Join(dir, "sub")
			if tc.link {
				require.NoError(t, os.Symlink(outside, sub))
			} else {
				require.NoError(t, os.Mkdir(sub, 0o755))
			}
			mod := filepath.Join(dir, ".git", "modules", "sub")
			require.NoError(t, os.MkdirAll(mod, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(mod, "config"), []byte("[core]\n\trepositoryformatversion = 0\n\tworktree = ../../../sub\n"), 0o644))
			stack, env := defaultEnv(t, dir)
			v := stack.Check(context.Background(), sh("git status"), env)
			assert.Equal(t, tc.verdict, v.Verdict, "%s: %s", v.Gate, v.Reason)
			if tc.verdict == VerdictAsk {
				assert.Contains(t, v.Reason, "core.worktree")
			}
		})
	}
}

// TestBareRepositoryConfigIsTheRepositorys: in a folder below a bare
// repository, git reads the configuration of the repository it finds
// (HEAD, objects/ and refs/, git's is_git_directory), not of the first
// folder up that merely holds a file named HEAD.
func TestBareRepositoryConfigIsTheRepositorys(t *testing.T) {
	testenv.NeedCommand(t, "git")
	root := t.TempDir()
	bare := filepath.Join(root, "b.git")
	cmd := exec.Command("git", "init", "-q", "--bare", bare)
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + root}
	require.NoError(t, cmd.Run())
	f, err := os.OpenFile(filepath.Join(bare, "config"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString("[diff \"x\"]\n\ttextconv = ./payload\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	sub := filepath.Join(bare, "x")
	require.NoError(t, os.Mkdir(sub, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(sub, "HEAD"), []byte("ref: refs/heads/main\n"), 0o644))
	stack, env := defaultEnv(t, root)
	for _, c := range []string{"cd b.git && git log", "cd b.git/x && git log"} {
		v := stack.Check(context.Background(), sh(c), env)
		assert.Equal(t, VerdictAsk, v.Verdict, "%s: %s: %s", c, v.Gate, v.Reason)
		assert.Contains(t, v.Reason, "diff.*.textconv", c)
	}
}
