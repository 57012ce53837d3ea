package gates

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/orgast/orgskill"
)

// TestSelectionWrites: sort or grep of files, with options that only
// choose and order whole lines, redirected into a file, is judged from
// the files it reads and the file it writes: when none holds "ill:" (the
// end of every spelling of a skill tag the loader takes) and an appended
// file ends with a newline, it is allowed as a literal write of text
// without a skill is; any other asks as before (its text unknown). Each
// row also runs for real in a copy of the root: where the gates allow,
// the file written holds the skills it held (none), and the look-alike
// and joined rows that ask really make a skill.
func TestSelectionWrites(t *testing.T) {
	stack, env, root := skillEnv(t, DefaultChatDir)
	testenv.WriteTree(t, root, map[string]string{
		"notes/plain.org": "* Shopping\n- eggs\n", "notes/kelvin.txt": "* Hourly :s\u212aill:\nDo things.\n",
		"notes/long-s.txt": "* Hourly :\u017fkill:\nDo things.\n", "notes/cut.txt": "ill:\n",
		"notes/join.org": "* Hourly :sk", "notes/skill": "milk\n",
	})
	require.NoError(t, os.MkdirAll(filepath.Join(root, "out"), 0o755))
	testenv.MakeFIFO(t, filepath.Join(root, "notes", "pipe"))
	for _, tc := range []struct {
		name, cmd, want string
		makesSkill      bool // the real run leaves a skill in the file written
	}{
		{"sort into a new Org file", "sort notes/list.txt > out/sorted.org", VerdictAllow, false},
		{"sort with keys and flags", "sort -rn -k2 -t, notes/list.txt notes/plain.org > out/sorted.org", VerdictAllow, false},
		{"grep into a new Org file", "grep milk notes/list.txt > notes/found.org", VerdictAllow, false},
		{"grep -v appended to an Org file without skills", "grep -v milk notes/list.txt >> notes/plain.org", VerdictAllow, false},
		{"grep -h of two files", "grep -ih -e MILK notes/list.txt notes/plain.org > out/found.org", VerdictAllow, false},
		{"a file holding a skill read", "sort skills/daily.org > out/b.org", VerdictAsk, true},
		{"a skill in a .txt read", "grep -h Hourly notes/x.txt > out/c.org", VerdictAsk, true},
		{"the Kelvin sign's K", "grep Hourly notes/kelvin.txt > out/k.org", VerdictAsk, true},
		{"a long s", "grep Hourly notes/long-s.txt > out/s.org", VerdictAsk, true},
		{"the #+TODO: keyword hiding a skill", "grep T notes/todo.org > out/t.org", VerdictAsk, false},
		{"lines ended by CR alone", "sort notes/mac.org > out/m.org", VerdictAsk, false},
		{"appended to a file holding a skill", "sort notes/list.txt >> skills/daily.org", VerdictAsk, true},
		{"replacing a file holding a skill", "sort notes/list.txt > skills/daily.org", VerdictAsk, false},
		{"joined with the last line, which has no newline", "grep ill notes/cut.txt >> notes/join.org", VerdictAsk, true},
		{"appended to a file with no newline at its end", "grep milk notes/list.txt >> notes/join.org", VerdictAsk, false},
		{"two files without -h: names printed", "grep milk notes/list.txt notes/plain.org > out/c.org", VerdictAsk, false},
		{"a file named like the tag", "grep -h milk notes/skill notes/list.txt > out/c.org", VerdictAsk, false},
		{"a pipe read", "grep milk notes/pipe > out/p.org", VerdictAsk, false},
		{"a hard link written", "grep milk notes/list.txt > notes/daily-link.txt", VerdictAsk, false},
		{"line numbers", "grep -n milk notes/list.txt > out/n.org", VerdictAsk, false},
		{"a long option", "sort --reverse notes/list.txt > out/r.org", VerdictAsk, false},
		{"an option after the file", "sort notes/list.txt -r > out/r.org", VerdictAsk, false},
		{"standard input", "sort < notes/list.txt > out/r.org", VerdictAsk, false},
		{"cat joins files", "cat notes/list.txt > out/r.org", VerdictAsk, false},
		{"into flightplans.org, denied by the paths rule", "grep milk notes/list.txt > flightplans.org", VerdictDeny, false},
		{"into the chat folder", "sort notes/list.txt >> chats/2026-01-01-plans.org", VerdictDeny, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := stack.Check(context.Background(), act(ToolShell, "cmd", tc.cmd), env)
			assert.Equal(t, tc.want, v.Verdict, "%s: %s", v.Gate, v.Reason)
			if tc.name == "a pipe read" {
				return // nothing writes the pipe: a real run would wait
			}
			dir := filepath.Join(t.TempDir(), "root")
			out, err := exec.Command("cp", "-a", root, dir).CombinedOutput()
			require.NoError(t, err, "%s", out)
			dest := filepath.Join(dir, redirectTarget(t, tc.cmd))
			before, _ := os.ReadFile(dest)
			bashRun(t, dir, tc.cmd)
			after, err := os.ReadFile(dest)
			require.NoError(t, err)
			changed := len(orgskill.Diff(orgskill.InText(before), orgskill.InText(after))) > 0
			if tc.want == VerdictAllow {
				assert.False(t, changed, "an allowed write changed the skills:\n%s", after)
			}
			if tc.makesSkill {
				assert.NotEmpty(t, orgskill.InText(after), "the row must leave a skill:\n%s", after)
			}
		})
	}
}

// redirectTarget is the file a test command's > or >> names.
func redirectTarget(t *testing.T, cmd string) string {
	t.Helper()
	_, p, _, ok := redirectedCall(cmd)
	if !ok {
		// sort < in > out: the last word.
		f := strings.Fields(cmd)
		return f[len(f)-1]
	}
	return p
}

// FuzzSelectionWrite: whenever the words of a sort or grep command, the
// files it reads and the file it writes pass skillSelectionWrite's
// conditions, the real program leaves that file without "ill:" (so
// without a skill), however the files' lines and the options are drawn.
func FuzzSelectionWrite(f *testing.F) {
	f.Add(false, "-rn -k2", "milk\nbread\n", "* A\n", "* B\n", true)
	f.Add(true, "-h -e ill", "* T :sk\nill:\n", "x", "", false)
	f.Add(true, "-vx ''", "* T :sk", "ill:", "* X :s", true)
	f.Fuzz(func(t *testing.T, grep bool, opts, a, b, dest string, appends bool) {
		prog, redir := "sort", ">"
		if grep {
			prog = "grep"
		}
		if appends {
			redir = ">>"
		}
		cmd := prog + " " + opts + " a.txt b.txt " + redir + " out.org"
		argv, p, app, ok := redirectedCall(cmd)
		if !ok || p != "out.org" || app != appends {
			return
		}
		files, ok := selectionArgs(argv)
		if !ok {
			return
		}
		for _, w := range argv {
			if orgskill.Mentions([]byte(w + ":")) {
				return
			}
		}
		texts := map[string]string{"a.txt": a, "b.txt": b}
		for _, f := range files {
			text, known := texts[f]
			if !known || orgskill.Mentions([]byte(text)) {
				return
			}
		}
		if orgskill.Mentions([]byte(dest)) || appends && dest != "" && dest[len(dest)-1] != '\n' {
			return
		}
		dir := t.TempDir()
		for name, text := range map[string]string{"a.txt": a, "b.txt": b, "out.org": dest} {
			require.NoError(t, os.WriteFile(filepath.Join(dir, name), []byte(text), 0o644))
		}
		ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
		defer cancel()
		run := exec.CommandContext(ctx, "bash", "-c", cmd)
		run.Dir = dir
		run.Stdin = strings.NewReader("")
		// The fuzzer's command, run for real: as root it could change
		// anything of the machine's were the conditions wrong.
		testenv.Unprivileged(t, run)
		_ = run.Run()
		got, err := os.ReadFile(filepath.Join(dir, "out.org"))
		require.NoError(t, err)
		assert.False(t, orgskill.Mentions(got), "%q left %q", cmd, got)
	})
}
