package gates

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// notAllowed stands in a row's verdict for ask or deny, either.
const notAllowed = "ask or deny"

// historyWords are words of the private notes gitHistoryRepo's history
// holds and its working tree does not.
var historyWords = []string{"thoughts", "treasure", "whisper", "confession"}

// gitHistoryRepo makes, as the folder hist below a root of testEnv, a
// repository whose working tree holds no private note while its history
// holds four: diary.org, private as a whole, committed then deleted;
// pub.org, public, whose first version held a private subtree since cut;
// side.org, private, added on a branch merged in and deleted since; and a
// stash of pub.org with a private subtree added. blobtag is a tag
// pointing at diary.org's old blob, and both a branch and a tag of that
// blob at once; hist.git beside it is a bare clone,
// and .git/old-index an index of the first commit.
func gitHistoryRepo(t *testing.T) (*Stack, *Env, string) {
	t.Helper()
	stack, env, dir, write, git := gitTestRepo(t, "hist")
	git("init", "-q", "-b", "main", ".")
	write("diary.org", "* Diary :private:\nSecret thoughts about the move.\n")
	write("pub.org", "* Pub\nHello world.\n* Hidden :private:\nBuried treasure map.  \n")
	git("add", ".")
	git("commit", "-qm", "one")
	git("checkout", "-qb", "side")
	write("side.org", "* Side :private:\nA quiet whisper here.\n")
	git("add", "side.org")
	git("commit", "-qm", "side")
	git("checkout", "-q", "main")
	write("pub.org", "* Pub\nHello world.\n")
	git("commit", "-qam", "cut the hidden part")
	git("merge", "-q", "--no-ff", "-m", "merge side", "side")
	git("tag", "blobtag", "HEAD~1:diary.org")
	git("branch", "both")
	git("tag", "both", "HEAD~1:diary.org") // git takes the tag first
	git("rm", "-q", "diary.org", "side.org")
	git("commit", "-qm", "remove the private notes")
	write("pub.org", "* Pub\nHello world.\n* Stashed :private:\nA stashed confession.\n")
	git("stash", "-q")
	git("clone", "-q", "--bare", ".", "../hist.git")
	cmd := exec.Command("git", "read-tree", "HEAD~3")
	cmd.Dir = dir
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "GIT_INDEX_FILE=.git/old-index"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	return stack, env, dir
}

// gitTestRepo makes the folder name below a root of testEnv, and
// returns with it a writer of its files and a runner of git there (as a
// user named t).
func gitTestRepo(t *testing.T, name string) (*Stack, *Env, string, func(name, text string), func(args ...string)) {
	t.Helper()
	testenvNeedGit(t)
	stack, env, root := testEnv(t, DefaultConfig())
	dir := filepath.Join(root, name)
	require.NoError(t, os.Mkdir(dir, 0o755))
	write := func(name, text string) {
		require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
	}
	git := func(args ...string) {
		out, err := gitRun(dir, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	}
	return stack, env, dir, write, git
}

// gitRun runs git in dir with no configuration of the machine's or the
// user's, and returns what it printed.
func gitRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin", "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat", "PAGER=cat"}
	out, err := cmd.CombinedOutput()
	return string(out), err
}

// bashRun runs a command line in dir as bash would, with gitRun's
// environment: the rows below are what the model proposes.
func bashRun(t *testing.T, dir, line string) string {
	t.Helper()
	cmd := exec.Command("bash", "-c", line)
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin", "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat", "PAGER=cat"}
	cmd.Stdin = strings.NewReader("")
	out, _ := cmd.CombinedOutput()
	return string(out)
}

func holdsHistoryWord(out string) bool {
	for _, w := range historyWords {
		if strings.Contains(out, w) {
			return true
		}
	}
	return false
}

// TestGitHistoryOfPrivateNotes: every git command that prints a file as
// the history holds it — a commit, a tree, a blob, a stash, the reflog,
// another branch — really prints the private words of gitHistoryRepo
// (the row is run), and is never allowed: the privacy rule checks only
// the files as they are now. The benign twins print none and stay
// allowed.
func TestGitHistoryOfPrivateNotes(t *testing.T) {
	stack, env, dir := gitHistoryRepo(t)
	blob, err := gitRun(dir, "rev-parse", "blobtag")
	require.NoError(t, err, blob)
	blob = strings.TrimSpace(blob)
	hostile := []string{
		"git log -p", "git log --patch --all", "git log -u", "git log -U1", "git log -p --word-diff",
		"git log -p --color-words", "git log --patch-with-stat", "git log --patch-with-raw", "git log --binary",
		"git log -c", "git log --cc", "git log -m -p", "git log --remerge-diff", "git log --all -p -- pub.org",
		"git log -p --full-diff -- pub.org", "git log -g -p", "git log -p side",
		"git log --stat -p", "git whatchanged -p", "git reflog -p",
		"git show", "git show HEAD~2", "git show HEAD~1:diary.org", "git show main~1:side.org", "git show --stat HEAD~1:diary.org",
		"git show -s " + blob, "git show --name-only blobtag", "git show -s both", "git show stash@{0}", "git show --stat --patch",
		"git show side", "git show --first-parent -m HEAD~1",
		"git diff HEAD~3", "git diff HEAD~3..HEAD", "git diff HEAD~3 HEAD", "git diff main~2 side -- side.org",
		"git diff HEAD~1:diary.org pub.org", "git diff --cached HEAD~3", "git diff 'HEAD@{2}'",
		"git diff stash@{0}^ stash@{0}", "git diff-tree -p HEAD", "git diff-index -p HEAD~3",
		"git grep treasure HEAD~3", "git grep -e thoughts HEAD~1 -- diary.org", "git grep whisper side",
		"git blame HEAD~3 -- pub.org", "git annotate pub.org HEAD~3", "git blame --reverse HEAD~3..HEAD -- pub.org",
		"git archive HEAD~1", "git cat-file -p HEAD~1:diary.org", "git format-patch --stdout -4",
		"git stash show -p", "git -C . log -p", "cd . && git show HEAD~2", "cd \"$(echo .)\" && git log -p",
		"git --no-pager log -p", "git -P show HEAD~1:diary.org",
		"cd ../hist.git && git log -p", "cd ../hist.git/refs && git show main~2", "git diff --submodule=diff HEAD~3",
		"GIT_INDEX_FILE=.git/old-index git diff", "export GIT_INDEX_FILE=.git/old-index; git diff --stat -p",
		"GIT_OBJECT_DIRECTORY=.git/objects git show HEAD~2", "GIT_ALTERNATE_OBJECT_DIRECTORIES=.git/objects git log -p",
	}
	for _, line := range hostile {
		t.Run(line, func(t *testing.T) {
			out := bashRun(t, dir, line)
			require.True(t, holdsHistoryWord(out), "the row must print a private word of the history:\n%s", out)
			v := stack.Check(context.Background(), act(ToolShell, "cmd", line, "cwd", "hist"), env)
			assert.NotEqual(t, VerdictAllow, v.Verdict, "%s: %s", v.Gate, v.Reason)
			if v.Verdict == VerdictAsk {
				assert.Contains(t, v.Reason, "as they were in the history (a commit, the index, a stash), which may hold private notes the files no longer hold")
			}
		})
	}
	// Searches over the history print no private word, but which
	// commits or files match tells of it: the output differs from that
	// of a search for a word nowhere.
	oracles := []string{
		"git log -S%s --oneline", "git log -G%s --format=%%h", "git log --all -S%s --name-only",
		"git grep -l %s HEAD~3", "git grep -c %s side", "git grep -q %s HEAD~3 && echo yes",
		"git log --pickaxe-regex -S%s --stat",
	}
	for _, pattern := range oracles {
		t.Run(pattern, func(t *testing.T) {
			none := strings.ReplaceAll(pattern, "%s", "zzzqqq")
			none = strings.ReplaceAll(none, "%%", "%")
			found := ""
			for _, w := range historyWords {
				line := strings.ReplaceAll(pattern, "%s", w)
				line = strings.ReplaceAll(line, "%%", "%")
				if bashRun(t, dir, line) != bashRun(t, dir, none) {
					found = line
					break
				}
			}
			require.NotEmpty(t, found, "the search must tell a private word of the history from a word nowhere")
			v := stack.Check(context.Background(), act(ToolShell, "cmd", found, "cwd", "hist"), env)
			assert.NotEqual(t, VerdictAllow, v.Verdict, "%s: %s", v.Gate, v.Reason)
		})
	}
	benign := []string{
		"git log --oneline", "git log --stat", "git log --name-only --all", "git log --name-status",
		"git log --format='%h %an %s'",
		// Every placeholder of git-log(1)'s PRETTY FORMATS that prints
		// something of a commit: none prints a file.
		"git log --all --source --format='%H %h %T %t %P %p %an %aN %ae %aE %al %ad %aD %ai %cn %ce %cd %s %f %b %B %N %d %D %S %e %GG %G? %GS %GK %(trailers) %(describe:tags)'",
		"git log -g --format='%H %gD %gd %gn %ge %gs %s'", "git log --graph --decorate --oneline --all", "git log --raw",
		"git status", "git status -s", "git status --short --branch --show-stash", "git diff",
		"git diff --stat HEAD~3", "git diff --name-only HEAD~3 HEAD", "git diff --cached --stat",
		"git show --stat HEAD", "git show --name-only HEAD~2", "git show -s HEAD~1", "git show --oneline --no-patch",
		"git show --stat stash@{0}", "git show --summary HEAD~3..HEAD", "git show --stat side", "git show -s --format=%s main",
		"git blame pub.org", "git grep Hello", "git grep -n Hello -- pub.org", "git shortlog -sn",
		"git ls-files -s", "git rev-parse HEAD~1:diary.org", "git describe --always",
		"git diff --no-index pub.org pub.org",
	}
	for _, line := range benign {
		t.Run(line, func(t *testing.T) {
			out := bashRun(t, dir, line)
			require.False(t, holdsHistoryWord(out), "the row must print no private word:\n%s", out)
			v := stack.Check(context.Background(), act(ToolShell, "cmd", line, "cwd", "hist"), env)
			assert.Equal(t, VerdictAllow, v.Verdict, "%s: %s", v.Gate, v.Reason)
		})
	}
}

// TestGitHistoryOptionsSweep: every option of git log's, show's and
// shortlog's tables that the table reads as known safe is run for real
// over gitHistoryRepo; where the output holds a private word of the
// history, the command must not be allowed. Options that write, run or
// ask are never allowed anyway, and are not run.
func TestGitHistoryOptionsSweep(t *testing.T) {
	stack, env, dir := gitHistoryRepo(t)
	printing := 0
	for _, sub := range []string{"log", "show", "shortlog"} {
		g := grammarOf(t, "git "+sub)
		for _, o := range g.opts {
			if o.eff&(effWrite|effRun|effShell|effAsk|effDeny|effReadNames|effRead) != 0 {
				continue
			}
			name := o.names[0]
			if name == "--stdin" {
				continue // reads revisions from standard input, empty here
			}
			words := spell("git "+sub, g, o, name)
			args := append([]string{sub}, words...)
			if sub == "shortlog" {
				args = append(args, "HEAD") // else it reads a log from standard input
			}
			out, _ := gitRun(dir, args...)
			if !holdsHistoryWord(out) {
				continue
			}
			printing++
			line := "git " + strings.Join(args, " ")
			v := stack.Check(context.Background(), act(ToolShell, "cmd", line, "cwd", "hist"), env)
			assert.NotEqual(t, VerdictAllow, v.Verdict, "%s prints a private word of the history; %s: %s", line, v.Gate, v.Reason)
		}
	}
	t.Logf("%d options printed a private word of the history", printing)
	assert.Positive(t, printing, "the sweep must meet options that print the history")
}

// TestGitDiffShowsTheIndex: git diff with no revision prints the staged
// version of every file the working tree has changed: a private part cut
// from a note, or a private note deleted, without staging it, is printed
// whole. It is denied where the index's own object says it is private,
// asked where that object cannot be read (packed), and allowed where
// every staged version it prints is public or the paths given leave the
// rest out.
func TestGitDiffShowsTheIndex(t *testing.T) {
	stack, env, dir, write, git := gitTestRepo(t, "staged")
	git("init", "-q", ".")
	write("pub.org", "* Pub\nHello world.\n* Hidden :private:\nBuried treasure map.\n")
	write("diary.org", "* Diary :private:\nSecret thoughts about the move.\n")
	write("plain.org", "* Plain\nNothing much.\n")
	git("add", ".")
	git("commit", "-qm", "one")
	write("plain.org", "* Plain\nNothing much, and more.\n")
	check := func(t *testing.T, line string, verdict, reason string, private bool) {
		t.Helper()
		out := bashRun(t, dir, line)
		require.Equal(t, private, holdsHistoryWord(out), "what the row prints:\n%s", out)
		v := stack.Check(context.Background(), act(ToolShell, "cmd", line, "cwd", "staged"), env)
		assert.Equal(t, verdict, v.Verdict, "%s: %s", v.Gate, v.Reason)
		assert.Contains(t, v.Reason, reason)
	}
	t.Run("a public note changed", func(t *testing.T) {
		check(t, "git diff -- plain.org", VerdictAllow, "", false)
		check(t, "git diff", VerdictDeny, "private notes among them", false) // as before: every current file is judged
	})
	// The user cuts the private part and deletes the diary, staging
	// neither: the files hold no private note, the index does.
	write("pub.org", "* Pub\nHello world.\n")
	require.NoError(t, os.Remove(filepath.Join(dir, "diary.org")))
	for _, tc := range []struct {
		line, verdict, reason string
		private               bool
	}{
		{"git diff", VerdictDeny, "pub.org as the index holds it, a private note", true},
		{"git diff -- diary.org", notAllowed, "", true},
		{"git diff -U0 pub.org", VerdictDeny, "private note", true},
		{"git diff --word-diff", VerdictDeny, "private note", true},
		{"git diff -- plain.org", VerdictAllow, "", false},
		{"git diff --stat", VerdictAllow, "", false},
		{"git diff --name-only", VerdictAllow, "", false},
		{"git status -v", notAllowed, "", false},
	} {
		t.Run(tc.line, func(t *testing.T) {
			if tc.verdict == notAllowed {
				out := bashRun(t, dir, tc.line)
				require.Equal(t, tc.private, holdsHistoryWord(out), "what the row prints:\n%s", out)
				v := stack.Check(context.Background(), act(ToolShell, "cmd", tc.line, "cwd", "staged"), env)
				assert.NotEqual(t, VerdictAllow, v.Verdict, "%s: %s", v.Gate, v.Reason)
				return
			}
			check(t, tc.line, tc.verdict, tc.reason, tc.private)
		})
	}
	// Every option of git diff's and git status's tables that the table
	// reads as known safe, run for real: where the output holds a
	// private word of the index, the command is not allowed.
	t.Run("every option", func(t *testing.T) {
		printing := 0
		for _, sub := range []string{"diff", "status"} {
			g := grammarOf(t, "git "+sub)
			for _, o := range g.opts {
				if o.eff&(effWrite|effRun|effShell|effAsk|effDeny|effReadNames|effRead) != 0 {
					continue
				}
				args := append([]string{sub}, spell("git "+sub, g, o, o.names[0])...)
				if out, _ := gitRun(dir, args...); !holdsHistoryWord(out) {
					continue
				}
				printing++
				line := "git " + strings.Join(args, " ")
				v := stack.Check(context.Background(), act(ToolShell, "cmd", line, "cwd", "staged"), env)
				assert.NotEqual(t, VerdictAllow, v.Verdict, "%s prints a private word of the index; %s: %s", line, v.Gate, v.Reason)
			}
		}
		t.Logf("%d options printed a private word of the index", printing)
		assert.Positive(t, printing, "the sweep must meet options that print the index")
	})
	// Packed, the staged versions are read from the pack.
	git("gc", "-q")
	loose, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "??", "*"))
	require.NoError(t, err)
	require.Empty(t, loose, "gc packs every object")
	t.Run("packed", func(t *testing.T) {
		check(t, "git diff", VerdictDeny, "pub.org as the index holds it, a private note", true)
		check(t, "git diff -- plain.org", VerdictAllow, "", false)
	})
	// A split index is not read: the diff asks.
	git("update-index", "--split-index")
	t.Run("split index", func(t *testing.T) {
		check(t, "git diff", VerdictAsk, "which pp-lsp cannot read here", true)
	})
}
