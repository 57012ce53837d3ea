package actuate

import (
	"context"
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
