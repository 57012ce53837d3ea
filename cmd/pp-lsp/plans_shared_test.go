package main

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
			for _, d := range []string{m.root, filepath.Dir(m.root), filepath.Dir(filepath.Dir(m.root))} {
				require.NoError(t, os.Chmod(d, 0o755))
			}
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
