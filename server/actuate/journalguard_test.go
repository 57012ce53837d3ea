package actuate

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"runtime"
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
		{"the agent appends while a command runs", "until [ -e out/go ]; do sleep 0.01; done", false},
		{"the command appends after the agent", "until [ -e out/go ]; do sleep 0.01; done; echo '* forged' >> journal.org", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var jr *journal.Journal
			own := &OwnWrites{}
			fx := newFixture(t, map[string]string{"out/.keep": ""}, func(c *Config) {
				c.Sandbox.Mode = sandbox.Off
				jr = journal.Open(filepath.Join(c.Roots[0], journal.FileName), "", nil)
				c.Journal = jr
				c.Own = own
			})
			_, err := jr.Append(context.Background(), journal.Entry{Kind: journal.KindCall, Title: "before"})
			require.NoError(t, err)
			appended := make(chan error, 1)
			go func() {
				// Once the command runs (its guard watches), the agent
				// appends; then the command goes on.
				for !own.watching() {
					time.Sleep(5 * time.Millisecond)
				}
				_, err := jr.Append(context.Background(), journal.Entry{Kind: journal.KindCall, Title: "memex_search: 1 hit"})
				appended <- errors.Join(err, os.WriteFile(filepath.Join(fx.root, "out/go"), nil, 0o644))
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
// before both. So when there was no flightplans.org before: the agent's
// first plan makes it (it used to be removed again as the command's).
func TestTheGuardKnowsTheServersOwnPlanWrites(t *testing.T) {
	const before, filed = "* PLAN one\n", "* PLAN one\n* PLAN two\n"
	for _, tc := range []struct {
		name, cmd string
		reported  bool
	}{
		{"the agent files a plan while a command runs", "until [ -e out/go ]; do sleep 0.01; done", false},
		{"the command approves one after the agent filed", "until [ -e out/go ]; do sleep 0.01; done; sed -i 's/PLAN two/APPROVED two/' flightplans.org", true},
	} {
		for _, none := range []bool{false, true} {
			name := tc.name
			files := map[string]string{"out/.keep": "", "flightplans.org": before}
			var base []byte
			if none {
				name += ", no flightplans.org before"
				delete(files, "flightplans.org")
			} else {
				base = []byte(before)
			}
			t.Run(name, func(t *testing.T) {
				ownPlanWriteBesideACommand(t, files, base, filed, tc.cmd, tc.reported)
			})
		}
	}
}

// ownPlanWriteBesideACommand runs cmd while the agent writes filed into
// flightplans.org (base: its text before, nil when there was none), and
// checks that the agent's text is what the file holds after, and whether
// the command's own change was reported.
func ownPlanWriteBesideACommand(t *testing.T, files map[string]string, base []byte, filed, cmd string, reported bool) {
	own := &OwnWrites{}
	fx := newFixture(t, files, func(c *Config) {
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
		_, err := own.Write(plans, base, true, func() ([]byte, error) {
			return []byte(filed), os.WriteFile(plans, []byte(filed), 0o644)
		})
		wrote <- errors.Join(err, os.WriteFile(filepath.Join(fx.root, "out/go"), nil, 0o644))
	}()
	res, err := run(t, fx, gates.Build(gates.ShellArgs{Cmd: cmd}, "t"), nil)
	require.NoError(t, err)
	require.NoError(t, <-wrote)
	got, err := os.ReadFile(plans)
	require.NoError(t, err)
	assert.Equal(t, filed, string(got), "the agent's plan is there, the command's change is not")
	if reported {
		assert.False(t, res.OK)
		require.Len(t, res.Warnings, 1)
		assert.Contains(t, res.Warnings[0], "touched "+plans+"; it was put back")
	} else {
		assert.True(t, res.OK, "%s: %v", res.Summary, res.Warnings)
		assert.Empty(t, res.Warnings)
	}
}

// TestTheGuardSeesEveryChangeOfALargeJournal: the guard looks at the
// journal by its identity and reads it only when that does not prove it
// unchanged. A command that changes one byte in place — its size kept,
// its modification time even put back — is still reported, whether the
// journal's last change was long enough ago for its identity to speak
// ("settled") or not; the agent's own appends meanwhile are still
// accepted, and a command that does nothing is not reported.
func TestTheGuardSeesEveryChangeOfALargeJournal(t *testing.T) {
	const wait = "until [ -e out/go ]; do sleep 0.01; done"
	const poke = "printf X | dd of=journal.org bs=1 seek=1000 conv=notrunc 2>/dev/null"
	const keepTime = "touch out/ref && touch -r journal.org out/ref && " + poke + " && touch -r out/ref journal.org"
	for _, tc := range []struct {
		name, cmd string
		appends   bool
		reported  bool
	}{
		{"a command that does nothing", "true", false, false},
		{"a byte changed in place", poke, false, true},
		{"a byte changed in place, the modification time put back", keepTime, false, true},
		{"the agent appends while a command runs", wait, true, false},
		{"the agent appends and the command changes a byte", wait + "; " + poke, true, true},
		{"the agent appends and the command a byte, the time put back", wait + "; " + keepTime, true, true},
	} {
		for _, settled := range []bool{false, true} {
			t.Run(fmt.Sprintf("%s/settled=%v", tc.name, settled), func(t *testing.T) {
				var jr *journal.Journal
				own := &OwnWrites{}
				fx := newFixture(t, map[string]string{"out/.keep": ""}, func(c *Config) {
					c.Sandbox.Mode = sandbox.Off
					c.Own = own
					jp := filepath.Join(c.Roots[0], journal.FileName)
					require.NoError(t, os.WriteFile(jp, bytes.Repeat([]byte("* an old entry\n"), (4<<20)/15), 0o644))
					jr = journal.Open(jp, "", nil)
					c.Journal = jr
				})
				if settled {
					// Every change time is taken as long past: the
					// identity alone decides, unless it changed.
					fx.act.looks.grain = time.Nanosecond
				}
				jp := filepath.Join(fx.root, journal.FileName)
				_, err := jr.Append(context.Background(), journal.Entry{Kind: journal.KindCall, Title: "before"})
				require.NoError(t, err)
				// A first command: the guard has seen the journal before.
				res, err := run(t, fx, gates.Build(gates.ShellArgs{Cmd: "true"}, "t"), nil)
				require.NoError(t, err)
				require.True(t, res.OK, "%v", res.Warnings)
				appended := make(chan error, 1)
				go func() {
					if !tc.appends {
						appended <- nil
						return
					}
					for !own.watching() {
						time.Sleep(5 * time.Millisecond)
					}
					_, err := jr.Append(context.Background(), journal.Entry{Kind: journal.KindCall, Title: "memex_search: 1 hit"})
					appended <- errors.Join(err, os.WriteFile(filepath.Join(fx.root, "out/go"), nil, 0o644))
				}()
				before, err := os.Stat(jp)
				require.NoError(t, err)
				res, err = run(t, fx, gates.Build(gates.ShellArgs{Cmd: tc.cmd}, "t"), nil)
				require.NoError(t, err)
				require.NoError(t, <-appended)
				now, err := os.Stat(jp)
				require.NoError(t, err)
				if !tc.appends {
					assert.Equal(t, before.Size(), now.Size(), "the size is kept")
				}
				if tc.reported {
					assert.False(t, res.OK)
					require.Len(t, res.Warnings, 1)
					assert.Contains(t, res.Warnings[0], "touched "+jp)
				} else {
					assert.True(t, res.OK, "%s: %v", res.Summary, res.Warnings)
					assert.Empty(t, res.Warnings)
				}
			})
		}
	}
}

// TestTheGuardLooksInBoundedMemory: however large the journal grows, the
// guard around a command allocates a bounded amount (it used to read the
// journal whole twice a command: 64 MiB for a 32 MiB journal), whether its
// identity speaks or its bytes must be read.
func TestTheGuardLooksInBoundedMemory(t *testing.T) {
	root := t.TempDir()
	jp := filepath.Join(root, journal.FileName)
	entry := []byte("* 2026-01-01 call memex_search\n:PROPERTIES:\n:KIND: call\n:END:\n")
	require.NoError(t, os.WriteFile(jp, bytes.Repeat(entry, (32<<20)/len(entry)), 0o644))
	acts, err := New(Config{Roots: []string{root}, Home: t.TempDir(), Sandbox: sandbox.Config{Mode: sandbox.Off}})
	require.NoError(t, err)
	nop := ActuatorFunc(func(context.Context, Request) (Result, error) { return Result{OK: true}, nil })
	req := Request{Action: gates.Build(gates.ShellArgs{Cmd: "true"}, "t")}
	for _, step := range []string{"first look", "again", "after an append"} {
		if step == "after an append" {
			f, err := os.OpenFile(jp, os.O_WRONLY|os.O_APPEND, 0)
			require.NoError(t, err)
			_, err = f.Write(entry)
			require.NoError(t, err)
			require.NoError(t, f.Close())
		}
		var m0, m1 runtime.MemStats
		runtime.ReadMemStats(&m0)
		res, err := acts.guarded(context.Background(), req, nop)
		runtime.ReadMemStats(&m1)
		require.NoError(t, err)
		require.True(t, res.OK, "%v", res.Warnings)
		assert.Less(t, m1.TotalAlloc-m0.TotalAlloc, uint64(2<<20), "%s: bytes allocated by the guard", step)
	}
}
