package gates

import (
	"context"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestEndlessStreamsThroughTheShellsDescriptors: an endless device opened
// on the shell's own descriptors by exec (exec 3</dev/zero; cat <&3 > f),
// on a compound command's ({ cat <&3; } 3</dev/zero > f), copied by cp, or
// a terminal read into a file was allowed or asked; each writes without
// end. Run for real (bash, 4 MiB of file size allowed), each hostile
// command fills its file to the limit, and the gates deny it; each twin
// writes a few bytes and keeps its verdict.
func TestEndlessStreamsThroughTheShellsDescriptors(t *testing.T) {
	bash, err := exec.LookPath("bash")
	require.NoError(t, err)
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "list.txt"), []byte("milk\n"), 0o644))
	stack, err := New(DefaultConfig())
	require.NoError(t, err)
	env, err := stack.NewEnv(t.Context(), World{Roots: []string{root}, Home: t.TempDir()})
	require.NoError(t, err)
	defer env.Close()
	for _, tc := range []struct {
		cmd, verdict, reason string
		endless              bool // run for real, it fills f to the limit
	}{
		{"exec 3</dev/zero; cat <&3 > f", VerdictDeny, "writes an endless stream (its input /dev/zero", true},
		{"exec 3</dev/zero; cat /dev/fd/3 > f", VerdictDeny, "read as /dev/fd/3", true},
		{"exec 4</dev/urandom; exec 3<&4; cat <&3 > f", VerdictDeny, "/dev/urandom", true},
		{"exec </dev/zero; cat > f", VerdictDeny, "its input /dev/zero", true},
		{"exec 3</dev/zero && cat <&3 > f", VerdictDeny, "its input /dev/zero", true},
		{"exec 3</dev/zero; echo | cat <&3 > f", VerdictDeny, "its input /dev/zero", true},
		{"exec 3</dev/zero; cat <&3 | base64 > f", VerdictDeny, "fills the disk", true},
		{"false || exec 3</dev/zero; false || cat /dev/fd/3 > f", VerdictDeny, "read as /dev/fd/3", true},
		{"{ cat <&3; } 3</dev/zero > f", VerdictDeny, "its input /dev/zero", true},
		{"( cat /dev/fd/3 ) 3</dev/zero > f", VerdictDeny, "fills the disk", true},
		{"cp /dev/zero f", VerdictDeny, "cp copies /dev/zero", true},
		{"cp /dev//zero f", VerdictDeny, "/dev/zero", true},
		{"cat /dev/tty > f", VerdictDeny, "/dev/tty, which never ends", false},
		// Twins.
		{"exec 3<list.txt; cat <&3 > f", VerdictAsk, "", false},
		{"echo hi | cat > f", VerdictAllow, "", false},
		{"{ cat <&3; } 3<list.txt > f", VerdictAllow, "", false},
		{"head -c 100 /dev/zero > f", VerdictAllow, "", false},
		{"cat /dev/null > f", VerdictAllow, "", false},
		{"cp list.txt f", VerdictAsk, "cp changes files", false},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			v := stack.Check(context.Background(), act(ToolShell, "cmd", tc.cmd), env)
			assert.Equal(t, tc.verdict, v.Verdict, v.Reason)
			assert.Contains(t, v.Reason, tc.reason)
			if tc.cmd == "cat /dev/tty > f" {
				return // no terminal here to read
			}
			dir := t.TempDir()
			require.NoError(t, os.WriteFile(filepath.Join(dir, "list.txt"), []byte("milk\n"), 0o644))
			ctx, cancel := context.WithTimeout(t.Context(), 20*time.Second)
			defer cancel()
			cmd := exec.CommandContext(ctx, bash, "-c", "ulimit -f 4096; "+tc.cmd)
			cmd.Dir = dir
			cmd.Run()
			fi, err := os.Stat(filepath.Join(dir, "f"))
			require.NoError(t, err)
			if tc.endless {
				assert.Equal(t, int64(4<<20), fi.Size(), "it writes until the file size limit stops it")
			} else {
				assert.Less(t, fi.Size(), int64(4096))
			}
		})
	}
}
