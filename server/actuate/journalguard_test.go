package actuate

import (
	"context"
	"errors"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/journal"
)

// TestTheGuardKnowsTheJournalsOwnAppends: the agent journals reads (an
// MCP call) while a command runs, so journal.org may grow during any
// command. The guard around commands takes those appends for the agent's,
// not the command's; an append of the command's own is still reported,
// also when the agent appended meanwhile. The sandbox is off: with it on,
// the kernel refuses the command's write before the guard sees it.
func TestTheGuardKnowsTheJournalsOwnAppends(t *testing.T) {
	for _, tc := range []struct {
		name, cmd string
		reported  bool
	}{
		{"the agent appends while a command runs", "sleep 0.4", false},
		{"the command appends after the agent", "sleep 0.4; echo '* forged' >> journal.org", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var jr *journal.Journal
			fx := newFixture(t, map[string]string{"out/.keep": ""}, func(c *Config) {
				c.Sandbox.Mode = sandbox.Off
				jr = journal.Open(filepath.Join(c.Roots[0], journal.FileName), "", nil)
				c.Journal = jr
			})
			_, err := jr.Append(context.Background(), journal.Entry{Kind: journal.KindCall, Title: "before"})
			require.NoError(t, err)
			appended := make(chan error, 1)
			go func() {
				time.Sleep(100 * time.Millisecond) // the command is running
				_, err := jr.Append(context.Background(), journal.Entry{Kind: journal.KindCall, Title: "memex_search: 1 hit"})
				appended <- err
			}()
			res, err := run(t, fx, gates.Build(gates.ShellArgs{Cmd: tc.cmd}, "t"), nil)
			require.NoError(t, err)
			require.NoError(t, <-appended)
			got, err := os.ReadFile(filepath.Join(fx.root, journal.FileName))
			require.NoError(t, err)
			assert.Contains(t, string(got), "memex_search: 1 hit", "the agent's append is there")
			if tc.reported {
				assert.False(t, res.OK)
				require.Len(t, res.Warnings, 1)
				assert.Contains(t, res.Warnings[0], "touched "+filepath.Join(fx.root, journal.FileName))
			} else {
				assert.True(t, res.OK, "%s: %v", res.Summary, res.Warnings)
				assert.Empty(t, res.Warnings)
			}
		})
	}
}

// TestTheGuardKnowsTheServersOwnPlanWrites: the agent files a plan (or
// writes one's state) while a command runs — it no longer waits for the
// command. The guard takes that change of flightplans.org for the
// agent's: it stays. A change the command makes besides is still
// reported and undone, back to the agent's text, not to the text from
// before both.
func TestTheGuardKnowsTheServersOwnPlanWrites(t *testing.T) {
	const before, filed = "* PLAN one\n", "* PLAN one\n* PLAN two\n"
	for _, tc := range []struct {
		name, cmd string
		reported  bool
	}{
		{"the agent files a plan while a command runs", "until [ -e out/go ]; do sleep 0.01; done", false},
		{"the command approves one after the agent filed", "until [ -e out/go ]; do sleep 0.01; done; sed -i 's/PLAN two/APPROVED two/' flightplans.org", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			own := &OwnWrites{}
			fx := newFixture(t, map[string]string{"out/.keep": "", "flightplans.org": before}, func(c *Config) {
				c.Sandbox.Mode = sandbox.Off
				c.Own = own
			})
			plans := filepath.Join(fx.root, "flightplans.org")
			wrote := make(chan error, 1)
			go func() {
				// Once the command runs (its guard watches), the agent files.
				for !own.watching() {
					time.Sleep(5 * time.Millisecond)
				}
				_, err := own.Write(plans, []byte(before), true, func() ([]byte, error) {
					return []byte(filed), os.WriteFile(plans, []byte(filed), 0o644)
				})
				wrote <- errors.Join(err, os.WriteFile(filepath.Join(fx.root, "out/go"), nil, 0o644))
			}()
			res, err := run(t, fx, gates.Build(gates.ShellArgs{Cmd: tc.cmd}, "t"), nil)
			require.NoError(t, err)
			require.NoError(t, <-wrote)
			got, err := os.ReadFile(plans)
			require.NoError(t, err)
			assert.Equal(t, filed, string(got), "the agent's plan is there, the command's change is not")
			if tc.reported {
				assert.False(t, res.OK)
				require.Len(t, res.Warnings, 1)
				assert.Contains(t, res.Warnings[0], "touched "+plans+"; it was put back")
			} else {
				assert.True(t, res.OK, "%s: %v", res.Summary, res.Warnings)
				assert.Empty(t, res.Warnings)
			}
		})
	}
}
