//go:build unix

package gates

import (
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestEndlessStreamsBySpelling: the endless-stream checks matched
// /dev/zero by its spelling. Another spelling of it (/dev//zero, a glob,
// /proc/self/root/dev/zero, a symlink in the roots), a descriptor the
// statement opened on it (cat /dev/fd/3 3</dev/zero), a compound command
// redirected as a whole ({ cat /dev/zero; } > f), a read-write
// redirection of the output (1<>f), and a program the grammars know that
// holds what it reads (sort /dev/zero: 1.2 GB in 3 s) were allowed or
// asked. A FIFO in the roots was allowed as a file. Twins stay allowed.
func TestEndlessStreamsBySpelling(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "public.txt"), []byte("needle\n"), 0o644))
	require.NoError(t, os.Symlink("/dev/zero", filepath.Join(root, "z")))
	require.NoError(t, os.Symlink("/dev/urandom", filepath.Join(root, "u")))
	require.NoError(t, syscall.Mkfifo(filepath.Join(root, "fifo"), 0o644))
	stack, err := New(DefaultConfig())
	require.NoError(t, err)
	env, err := stack.NewEnv(t.Context(), World{Roots: []string{root}, Home: t.TempDir()})
	require.NoError(t, err)
	defer env.Close()
	for _, tc := range []struct {
		cmd, verdict, reason string
	}{
		// Other spellings of the device.
		{"cat /dev/../dev/zero > f", VerdictDeny, "by another name"},
		{"cat /dev//zero > f", VerdictDeny, "by another name"},
		{"cat < /dev/./zero > f", VerdictDeny, "by another name"},
		{"cat /dev/zer? > f", VerdictDeny, "by another name"},
		{"cat /proc/self/root/dev/zero > f", VerdictDeny, "by another name"},
		{"cat z > f", VerdictDeny, "by another name"},
		{"head -c 100 u", VerdictDeny, "by another name"},
		// Descriptors, compound commands, 1<>.
		{"cat /dev/fd/3 3</dev/zero > f", VerdictDeny, "fills the disk"},
		{"cat 3</dev/zero /proc/self/fd/3 > f", VerdictDeny, "fills the disk"},
		{"cat 3</dev/zero <&3 > f", VerdictDeny, "fills the disk"},
		{"cat /dev/zero 1<>f", VerdictDeny, "fills the disk"},
		{"cat /dev/zero 3>f >&3", VerdictDeny, "fills the disk"},
		{"cat /dev/zero | { cat > f; }", VerdictDeny, "fills the disk"},
		{"cat /dev/zero | (cat) > f", VerdictDeny, "fills the disk"},
		{"yes | { sort; }", VerdictDeny, "which it holds in memory"},
		{"f(){ cat /dev/zero; }; f > f", VerdictDeny, "fills the disk"},
		{"f(){ cat; }; cat /dev/zero | f > f", VerdictDeny, "fills the disk"},
		{"f(){ cat public.txt; }; f > f", VerdictAsk, ""},
		{`echo "rm -rf ~" | { sh; }`, VerdictDeny, "deletes everything"},
		{"cat /dev/zero 2>f >&2", VerdictDeny, "fills the disk"},
		{"cat /dev/zero 3>out 1>&3-", VerdictDeny, "fills the disk"},
		{"{ cat /dev/zero; } > f", VerdictDeny, "fills the disk"},
		{"( cat /dev/zero ) > f", VerdictDeny, "fills the disk"},
		{"for i in 1; do cat /dev/zero; done > f", VerdictDeny, "fills the disk"},
		// Programs that hold what they read.
		{"sort /dev/zero", VerdictDeny, "which it holds in memory"},
		{"cat /dev/zero | sort", VerdictDeny, "which it holds in memory"},
		{"sort < /dev/zero", VerdictDeny, "which it holds in memory"},
		{"tail /dev/zero", VerdictDeny, "which it holds in memory"},
		{"uniq /dev/zero", VerdictDeny, "which it holds in memory"},
		{"nl /dev/zero", VerdictDeny, "which it holds in memory"},
		{"seq inf | sort", VerdictDeny, "which it holds in memory"},
		{"timeout 5 tail -c 5 /dev/urandom", VerdictDeny, "which it holds in memory"},
		// Command substitutions and builtins that read into a variable.
		{"x=$(cat /dev/urandom)", VerdictDeny, "captures an endless stream"},
		{"x=$(yes)", VerdictDeny, "captures an endless stream"},
		{"x=\"$(</dev/zero)\"", VerdictDeny, "captures an endless stream"},
		{"x=$(cat /dev/zero | head -c 5)", VerdictAllow, ""},
		{"x=`cat /dev/zero`", VerdictDeny, "captures an endless stream"},
		{"echo \"$(cat public.txt; cat /dev/zero | cat)\"", VerdictDeny, "captures an endless stream"},
		{"f(){ yes; }; x=$(f)", VerdictDeny, "captures an endless stream"},
		{"x=$(true && cat < /dev/urandom)", VerdictDeny, "captures an endless stream"},
		// An endless device named by a substitution of literal text.
		{"x=$(cat $(echo /dev/zero))", VerdictDeny, "captures an endless stream (cat of /dev/zero"},
		{"x=$(cat \"$(printf /dev/zero)\")", VerdictDeny, "captures an endless stream (cat of /dev/zero"},
		{"cat $(echo /dev/zero) > f", VerdictDeny, "writes an endless stream (cat of /dev/zero"},
		// Output redirected back onto the capture.
		{"x=$(cat /dev/zero >/dev/stdout)", VerdictDeny, "captures an endless stream"},
		{"x=$(cat /dev/zero 1>&1)", VerdictDeny, "captures an endless stream"},
		{"x=$(cat /dev/zero 3>&1 >&3)", VerdictDeny, "captures an endless stream"},
		{"x=$(cat /dev/zero >/dev/fd/1)", VerdictDeny, "captures an endless stream"},
		{"x=$(cat /dev/zero >/dev/null)", VerdictAllow, ""},
		{"x=$(cat public.txt >/dev/stdout)", VerdictAllow, ""},
		{"read -d '' x < /dev/urandom", VerdictDeny, "into a variable"},
		{"read -r x < /dev/zero", VerdictDeny, "into a variable"},
		{"mapfile a < /dev/zero", VerdictDeny, "into a variable"},
		{"yes | readarray a", VerdictDeny, "into a variable"},
		// A function's endless output through a pipeline.
		{"f(){ cat /dev/zero; }; f | cat > f", VerdictDeny, "fills the disk"},
		{"f(){ yes; }; f | sort", VerdictDeny, "which it holds in memory"},
		// A FIFO.
		{"cat fifo > f", VerdictAsk, "no regular file"},
		// Twins.
		{"x=$(head -c 16 /dev/urandom | base64)", VerdictAsk, "no permission rule"},
		{"x=$(cat public.txt)", VerdictAllow, ""},
		{"read -r x < public.txt", VerdictAsk, "no permission rule"},
		{"read -r -n 8 x < /dev/urandom", VerdictAsk, "no permission rule"},
		{"mapfile a < public.txt", VerdictAsk, "no permission rule"},
		{"f(){ cat public.txt; }; f | cat > f", VerdictAsk, "no permission rule"},
		{"f(){ cat public.txt; }; x=$(f)", VerdictAsk, "no permission rule"},
		// A function whose endless stream it bounds itself (head).
		{"f(){ cat /dev/zero | head -c 5; }; x=$(f)", VerdictAsk, "no permission rule"},
		{"f(){ cat /dev/zero > /dev/null; }; x=$(f)", VerdictAsk, "no permission rule"},
		// A name printed, not opened.
		{"echo /dev/zero", VerdictAllow, ""},
		{"x=$(echo /dev/zero)", VerdictAllow, ""},
		{"x=$(cat $(echo public.txt))", VerdictAllow, ""},
		{"tr -dc a-z < /dev/urandom | head -c 10", VerdictAllow, ""},
		{"head -c 16 /dev/urandom | sha256sum", VerdictAllow, ""},
		{"cat /dev/fd/3 3<public.txt > f", VerdictAllow, ""},
		{"{ echo a; cat public.txt; } > f", VerdictAllow, ""},
		{"seq inf | head -5", VerdictAllow, ""},
		{"sort public.txt | uniq -c", VerdictAllow, ""},
		{"cat public.txt 1<>f", VerdictAllow, ""},
		{"cat public.txt 3>f >&3", VerdictAllow, ""},
		{"cat public.txt | { cat > f; }", VerdictAllow, ""},
		{"cat /dev/zero | { head -c 10 > f; }", VerdictAllow, ""},
		{"cat /dev/zero >&2 2>f", VerdictAllow, ""}, // its output goes where stderr went before
		// Process substitutions and /dev/fd/N as a redirection's target
		// (TestEndlessRoutesForReal shows where bash sends the stream).
		{"cat <(cat /dev/zero) > f", VerdictDeny, "fills the disk"},
		{"cat public.txt <(yes) > f", VerdictDeny, "fills the disk"},
		{"cat /dev/zero > >(cat > f)", VerdictDeny, "fills the disk"},
		{"cat /dev/zero 3>f >/dev/fd/3", VerdictDeny, "fills the disk"},
		{"cat <(cat public.txt) > f", VerdictAllow, ""},
		{"cat public.txt > >(cat > f)", VerdictAllow, ""},
		{"cat public.txt 3>f >/dev/fd/3", VerdictAllow, ""},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			v := stack.Check(t.Context(), sh(tc.cmd), env)
			assert.Equal(t, tc.verdict, v.Verdict, "%s: %s", v.Gate, v.Reason)
			assert.Contains(t, v.Reason, tc.reason)
			if strings.Contains(tc.cmd, "1>&3-") {
				// The file is named, not the descriptor moved.
				assert.Contains(t, v.Reason, "to out:")
				assert.NotContains(t, v.Reason, "3-")
			}
		})
	}
}

// TestEndlessRoutesForReal: bash sends a command's input from a process
// substitution <(…), its output into one >(…), and its output to a file
// through > /dev/fd/N after N>FILE — the routes TestEndlessStreamsBySpelling
// refuses for an endless stream, run here with a bounded one (4096 bytes
// of /dev/zero), which lands whole in the file.
func TestEndlessRoutesForReal(t *testing.T) {
	testenv.NeedCommand(t, "bash")
	for _, cmd := range []string{
		"cat <(head -c 4096 /dev/zero) > f",
		"head -c 4096 /dev/zero > >(cat > f); wait $!",
		"head -c 4096 /dev/zero 3>f >/dev/fd/3",
	} {
		t.Run(cmd, func(t *testing.T) {
			dir := t.TempDir()
			runBash(t, dir, cmd)
			st, err := os.Stat(filepath.Join(dir, "f"))
			require.NoError(t, err)
			assert.Equal(t, int64(4096), st.Size())
		})
	}
}
