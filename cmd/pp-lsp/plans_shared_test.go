//go:build unix

package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestOnlyTheUserApprovesOnDisk: a plan approved by saving flightplans.org
// runs only if no one but the user could have saved it. Where another
// local user may write the file (a memex in a shared folder, a loose
// umask), their "APPROVED" would run the user's plan: such a file is
// refused, whoever approved in it, until it is the user's alone. The twin:
// the user's own file, approved by the user, runs.
func TestOnlyTheUserApprovesOnDisk(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a second local user needs root")
	}
	const nobody = 65534
	for _, tc := range []struct {
		name string
		mode os.FileMode
		// byOther: another user approves, else the user.
		byOther bool
		runs    bool
	}{
		{"the user approves in their own file", 0o644, false, true},
		{"another user approves in a file everyone may write", 0o666, true, false},
		{"the user approves in a file everyone may write", 0o666, false, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMemexEnv(t, map[string]string{"notes.org": "* n\n", "Makefile": countMakefile, "out/.keep": ""})
			filePlan(t, m)
			plans := m.path("flightplans.org")
			// The memex can be reached by others, as a home folder can.
			testenv.OpenToOthers(t, m.root)
			require.NoError(t, os.Chmod(plans, tc.mode))

			// An editor saving the file in place: PLAN becomes APPROVED.
			approve := exec.Command("sh", "-c", `text=$(sed 's/^\* PLAN /* APPROVED /' "$1") && printf '%s\n' "$text" > "$1"`, "sh", plans)
			if tc.byOther {
				approve.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
			}
			out, err := approve.CombinedOutput()
			require.NoError(t, err, "approving: %s", out)
			b, err := os.ReadFile(plans)
			require.NoError(t, err)
			require.Contains(t, string(b), "* APPROVED ", "the approval is on disk")

			code, _, stderr := m.run(t, "plans", "--root", m.root, "--run-approved")
			if tc.runs {
				assert.Equal(t, 0, code, stderr)
				assert.FileExists(t, m.path("out/count.txt"))
				return
			}
			assert.NoFileExists(t, m.path("out/count.txt"), "the plan ran")
			assert.Equal(t, 1, code, stderr)
			assert.Contains(t, stderr, "can be written by other users")
		})
	}
}

// TestOnlyTheUserWritesTheConfiguration: the configuration file holds the
// permission rules. One another local user may write (a loose mode, a
// shared folder) could allow every command: it is refused, and nothing
// runs. The twin: the user's own file, with the same rule, is obeyed.
func TestOnlyTheUserWritesTheConfiguration(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a second local user needs root")
	}
	const nobody = 65534
	for _, tc := range []struct {
		name string
		mode os.FileMode
		// byOther: another user writes the allow rule in, else the user.
		byOther bool
		runs    bool
	}{
		{"the user allows the command in their own file", 0o644, false, true},
		{"another user allows it in a file everyone may write", 0o666, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			m := newMemexEnv(t, map[string]string{"notes.org": "* n\n", "out/.keep": ""})
			cfg := filepath.Join(m.env["XDG_CONFIG_HOME"], "passepartout", "config.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
			require.NoError(t, os.WriteFile(cfg, []byte(`{"gates": {"default": "ask"}}`), 0o644))
			require.NoError(t, os.Chmod(cfg, tc.mode))
			testenv.OpenToOthers(t, filepath.Dir(cfg))
			write := exec.Command("sh", "-c", `printf '%s\n' '{"gates": {"permissions": {"allow": ["shell(*)"]}}}' > "$1"`, "sh", cfg)
			if tc.byOther {
				write.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
			}
			out, err := write.CombinedOutput()
			require.NoError(t, err, "writing the rule: %s", out)

			transcript := filepath.Join(t.TempDir(), "replay.jsonl")
			require.NoError(t, os.WriteFile(transcript, []byte(
				`{"match":{"task":"propose"},"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"touch out/ran.txt","explanation":"mark it"}}]}}`+"\n"+
					`{"match":{},"repeat":true,"reply":{"text":"Done."}}`+"\n"), 0o644))
			m.env["PASSEPARTOUT_PROVIDERS"] = "replay:" + transcript
			code, _, stderr := m.run(t, "ask", "--root", m.root, "--no-chat", m.path("notes.org")+":1", "mark it")
			if tc.runs {
				assert.Equal(t, 0, code, stderr)
				assert.FileExists(t, m.path("out/ran.txt"))
				return
			}
			assert.NoFileExists(t, m.path("out/ran.txt"), "the command ran")
			assert.NotEqual(t, 0, code, stderr)
			assert.Contains(t, stderr, "can be written by other users")
		})
	}
}
