package gates

import (
	"context"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGitRevisionSpellings: a revision may be spelt as a ref
// (refs/heads/main, heads/main, tags/v1, origin/main), from another
// (main~2, main^, HEAD@{1}), with a path (main:path), or be a word that
// also names a folder, read as a revision before "--". Each row is run
// with the real git over gitHistoryRepo (with a remote-tracking branch, a
// tag of a commit, a branch and a tag named like folders, a branch that
// is a symbolic ref to a tag of a blob, and a note private now): every
// spelling that prints a private word of the history is never allowed,
// every one that prints the note private now is denied, and the plain
// forms stay allowed.
func TestGitRevisionSpellings(t *testing.T) {
	stack, env, dir := gitHistoryRepo(t)
	git := func(args ...string) {
		out, err := gitRun(dir, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	}
	git("update-ref", "refs/remotes/origin/main", "HEAD~1")
	git("tag", "v1", "HEAD~3")
	git("branch", "notes", "HEAD~3")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "notes"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "notes", "a.org"), []byte("* A\n"), 0o644))
	git("tag", "old", "HEAD~2:diary.org")
	require.NoError(t, os.MkdirAll(filepath.Join(dir, "old"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "old", "b.org"), []byte("* B\n"), 0o644))
	git("symbolic-ref", "refs/heads/evil", "refs/tags/blobtag")
	// Branches whose files, written by hand (a repository unpacked from
	// an archive), name a blob or a tag of one: update-ref refuses them.
	for name, rev := range map[string]string{"handblob": "HEAD~2:diary.org", "handtag": "blobtag"} {
		id, err := gitRun(dir, "rev-parse", rev)
		require.NoError(t, err, id)
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "refs", "heads", name), []byte(strings.TrimSpace(id)+"\n"), 0o644))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "current.org"), []byte("* Now :private:\nA current secret.\n"), 0o644))
	git("add", "current.org")
	git("commit", "-qm", "current")

	hostile := []string{
		"git show heads/side", "git show refs/heads/side", "git log -p heads/side", "git log -p refs/heads/side",
		"git show heads/main~3", "git show refs/heads/main~3", "git show main~3", "git show main^^^", "git show 'main@{1}~2'",
		"git show tags/blobtag", "git show refs/tags/blobtag", "git show --stat tags/blobtag", "git show --stat refs/tags/blobtag",
		"git show -s tags/both", "git show --stat refs/tags/both",
		"git show v1", "git show tags/v1", "git diff v1", "git diff tags/v1", "git diff refs/tags/v1 HEAD",
		"git show origin/main~1", "git show remotes/origin/main~1", "git log -p origin/main", "git log -p refs/remotes/origin/main",
		"git show heads/main~3:diary.org", "git show refs/heads/main~3:diary.org", "git show tags/v1:diary.org",
		"git show 'main@{1}~2:diary.org'", "git show side:side.org", "git show heads/side:side.org",
		"git diff heads/main~3", "git diff refs/heads/side -- side.org", "git grep whisper heads/side", "git grep thoughts tags/v1",
		"git blame heads/main~4 -- pub.org",
		// A word that names a folder and a revision is the revision
		// before "--".
		"git diff notes --", "git diff notes -- pub.org", "git grep treasure notes --", "git show --stat old --",
		"git show -s old --", "git log -p notes --",
		// A branch that is a symbolic ref to a tag of a blob.
		"git show --stat evil", "git show -s evil", "git show -s heads/evil",
		// A branch whose file names a blob, or a tag of one.
		"git show --stat handblob", "git show -s refs/heads/handblob", "git show --stat handtag", "git show -s heads/handtag",
	}
	// Each row runs for real (prints must hold of what git prints), then
	// is checked.
	rows := func(lines []string, prints func(string) bool, what string, verdict func(string) bool) {
		for _, line := range lines {
			t.Run(line, func(t *testing.T) {
				out := bashRun(t, dir, line)
				require.True(t, prints(out), "the row must print %s:\n%s", what, out)
				v := stack.Check(context.Background(), act(ToolShell, "cmd", line, "cwd", "hist"), env)
				assert.True(t, verdict(v.Verdict), "%s %s: %s", v.Verdict, v.Gate, v.Reason)
			})
		}
	}
	is := func(want ...string) func(string) bool {
		return func(v string) bool { return slices.Contains(want, v) }
	}
	rows(hostile, holdsHistoryWord, "a private word of the history", is(VerdictAsk, VerdictDeny))
	current := []string{
		"git show HEAD:current.org", "git show heads/main:current.org", "git show refs/heads/main:current.org",
		"git show main~0:current.org", "git show 'HEAD@{0}:current.org'", "git show 'main@{0}:current.org'",
		"git show main^0:current.org", "git show HEAD:./current.org", "git show --stat heads/main:current.org",
		"git log -p heads/main -- current.org", "git log -p refs/heads/main current.org", "git diff tags/v1 -- current.org",
		"git diff refs/tags/v1 heads/main -- current.org", "git blame heads/main -- current.org",
		"git grep secret heads/main -- current.org",
		// A pathspec's magic names files its word does not spell.
		"git grep secret -- ':(icase)CURRENT.ORG'", "git grep secret -- ':(glob)**/current.org'",
		"git grep secret -- ':!notes'", "git grep secret -- ':/^old'", "git grep secret -- pub.org ':(icase)Current.org'",
		"git log -p -- ':(icase)CURRENT.ORG'", "git diff HEAD~1 -- ':(top,icase)CURRENT.ORG'",
		// git grep --not prints the lines that do not match.
		"git grep --not -e zzz", "git grep -e zzz --or --not -e yyy", "git grep -h --not -e zzz -- .",
		// git log -L prints a file's lines as each commit changed them.
		"git log -L 1,2:current.org", "git log --oneline -L1,+2:current.org", "git log -L '/secret/,+1:current.org'",
		// A pathspec is a glob too, beside a folder.
		"git grep secret -- pub.org 'curr*'", "git grep secret -- pub.org 'c?rrent.org'", "git log -p -- notes 'cur*'",
	}
	rows(current, func(out string) bool { return strings.Contains(out, "current secret") }, "the note private now", is(VerdictDeny))
	benign := []string{
		"git log --oneline", "git status", "git show --stat HEAD", "git show --stat main", "git log --oneline heads/side",
		"git log --oneline origin/main", "git log --stat refs/heads/side", "git diff --stat v1", "git diff pub.org",
		"git diff -- notes", "git log --oneline -- notes",
		// A branch however spelt: git holds only commits in one.
		"git show --stat heads/main", "git show --stat refs/heads/side", "git show -s heads/both", "git show --name-only refs/heads/main",
	}
	rows(benign, func(out string) bool { return !holdsHistoryWord(out) }, "no private word", is(VerdictAllow))
}

// TestGitShowOfAHandWrittenHead: HEAD's file or a reflog written by hand
// (a repository unpacked from an archive) may name a blob, which git show
// prints with no revision, with HEAD or REF@{N}, whatever its options;
// run for real, never allowed then. With HEAD on a branch they stay
// allowed.
func TestGitShowOfAHandWrittenHead(t *testing.T) {
	stack, env, dir := gitHistoryRepo(t)
	lines := []string{"git show --stat", "git show -s", "git show --stat HEAD", "git show --name-only @"}
	for _, line := range lines {
		v := stack.Check(context.Background(), act(ToolShell, "cmd", line, "cwd", "hist"), env)
		assert.Equal(t, VerdictAllow, v.Verdict, "HEAD on a branch: %s: %s", line, v.Reason)
	}
	id, err := gitRun(dir, "rev-parse", "HEAD~2:diary.org")
	require.NoError(t, err, id)
	// A reflog entry written by hand names the blob too.
	entry := strings.Repeat("0", 40) + " " + strings.TrimSpace(id) + " t <t@example.com> 1700000000 +0000\thand\n"
	for _, log := range []string{"HEAD", "refs/heads/main"} {
		f, err := os.OpenFile(filepath.Join(dir, ".git", "logs", filepath.FromSlash(log)), os.O_APPEND|os.O_WRONLY, 0)
		require.NoError(t, err)
		_, err = f.WriteString(entry)
		require.NoError(t, err)
		require.NoError(t, f.Close())
	}
	for _, line := range []string{"git show --stat 'HEAD@{0}'", "git show -s 'main@{0}'", "git show --stat '@{0}'"} {
		t.Run(line, func(t *testing.T) {
			out := bashRun(t, dir, line)
			require.True(t, holdsHistoryWord(out), "the row must print a private word of the history:\n%s", out)
			v := stack.Check(context.Background(), act(ToolShell, "cmd", line, "cwd", "hist"), env)
			assert.NotEqual(t, VerdictAllow, v.Verdict, v.Reason)
		})
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "HEAD"), []byte(strings.TrimSpace(id)+"\n"), 0o644))
	for _, line := range lines {
		t.Run(line, func(t *testing.T) {
			out := bashRun(t, dir, line)
			require.True(t, holdsHistoryWord(out), "the row must print a private word of the history:\n%s", out)
			v := stack.Check(context.Background(), act(ToolShell, "cmd", line, "cwd", "hist"), env)
			assert.NotEqual(t, VerdictAllow, v.Verdict, v.Reason)
		})
	}
}
