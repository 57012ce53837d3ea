package main

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/internal/protname"
	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
	"pp-lsp/server/actuate"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/flightplan"
)

// The hostile-model suite (issue 13, "Tests"): a model served by the
// loopback servers of providertest, in the OpenAI, Anthropic and Ollama
// formats, proposes every exploit of hostile_table_test.go — as an API
// tool call, as a plist, as the seeds' plist — to the real binary, through
// `pp-lsp ask` and through the daemon `pp-lsp serve`. What is asserted is
// what happened (world.check): no file outside the server's bookkeeping
// changed (the fake home, the folder beside the root, the notes), no
// payload's marker exists anywhere in the temporary tree, journal.org
// verifies and every plan in flightplans.org is the server's and did not
// run, no private note, key, vault secret or token is in any request body
// the model servers received, nothing reached the loopback server
// standing for the outside world, and no process was left running. The
// controls make sure it can fail: an allowed `ls notes` runs and its
// output reaches the model, a plan approved by command runs once, and
// every payload, run with the gates bypassed and the sandbox off, really
// does what it was meant to (TestHostileEffectsWithoutTheGates).

// needLandlock skips where the kernel has no Landlock (the sandbox is
// then best-effort and shell actions run unconfined); under CI=true it
// fails instead.
func needLandlock(t *testing.T) {
	t.Helper()
	if st := sandbox.Probe(); !st.Available() {
		if testenv.InCI() {
			t.Fatalf("CI=true: no Landlock here (%s): the hostile-model suite needs it", st.Reason)
		}
		t.Skip("no Landlock here (" + st.Reason + "): shell actions would run unconfined")
	}
}

// formOf is the form of the i-th proposal: mostly tool calls, some
// plists, some in the seeds' form.
func formOf(i int) string {
	switch i % 6 {
	case 2:
		return formPlist
	case 5:
		return formSeeds
	}
	return formCall
}

// TestHostileModel runs every exploit through the pipeline. Each family
// shares one memex, one daemon and a plan waiting for approval (the
// target of self-approval); under -short each exploit goes through one
// front end, whole through both.
func TestHostileModel(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	rounds := testenv.Scale(2, 1)
	families := hostileFamilies()
	concurrently(t, len(families), families, func(f family) string { return f.name }, func(t *testing.T, fam family) {
		w := newWorld(t, fam.files)
		w.link(t, fam.links)
		// The daemons' models speak the formats in turn, by family.
		fi := slices.IndexFunc(families, func(f family) bool { return f.name == fam.name })
		d := w.serve(t, formats[fi%len(formats)], nil)
		w.fileWaitingPlan(t, d)
		for i, e := range fam.exploits {
			for r := range rounds {
				// Whole, each exploit goes through both front ends; cut
				// down, one in three through ask (a process each), the
				// rest through the daemon.
				viaServe := r == 1 || rounds == 1 && i%3 != 0
				format, front := formats[(i/3+r)%len(formats)], "ask"
				if viaServe {
					format, front = d.format, "serve"
				}
				form := formOf(i)
				t.Run(fmt.Sprintf("%s/%s %s as %s", e.name, front, format, form), func(t *testing.T) {
					w.try(t, d, viaServe, format, form, e)
				})
			}
		}
		d.stop(t)
		assert.Empty(t, strays(w.base), "processes left running after the daemon stopped")
	})
}

// fileWaitingPlan has the model propose `make count`, which the gates ask
// about: a plan waits in flightplans.org, filed by the server.
func (w *world) fileWaitingPlan(t *testing.T, d *daemon) {
	t.Helper()
	before := w.state(t)
	srv := w.models[d.format]
	srv.Push(w.reply(d.format, formCall, shell("make count")), words(d.format, "Filed."))
	d.ask(t, w)
	srv.Drop()
	plans := w.plans(t)
	require.Len(t, plans, 1, "the control: `make count` waits as a Flight Plan")
	require.Equal(t, flightplan.StatePlan, plans[0].State)
	w.planID = plans[0].ID
	w.check(t, before, expectation{daemon: d})
}

// journalled returns the journal and where its entries name the action
// of hash (its :ACTION_HASH: lines).
func (w *world) journalled(t *testing.T, hash string) (string, [][]int) {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(w.root, "journal.org"))
	require.NoError(t, err)
	return string(b), regexp.MustCompile(`(?m)^:ACTION_HASH:\s+`+regexp.QuoteMeta(hash)+`$`).FindAllStringIndex(string(b), -1)
}

// journalCount is how many journal entries name the action of hash.
func (w *world) journalCount(t *testing.T, hash string) int {
	_, at := w.journalled(t, hash)
	return len(at)
}

// lastProposal is the title of the journal's last entry about the action
// of hash ("proposal shell: deny by dispatcher").
func (w *world) lastProposal(t *testing.T, hash string) string {
	s, at := w.journalled(t, hash)
	if len(at) == 0 {
		return "(none)"
	}
	h := strings.LastIndex(s[:at[len(at)-1][0]], "\n* [")
	title, _, _ := strings.Cut(s[h+1:], "\n")
	if _, after, ok := strings.Cut(title, "] "); ok {
		title = after
	}
	return title
}

func (w *world) plans(t *testing.T) []flightplan.Plan {
	t.Helper()
	src, err := os.ReadFile(filepath.Join(w.root, flightplan.FileName))
	require.NoError(t, err)
	return flightplan.Parse(src)
}

// try puts one exploit to the model and holds the world to the outcomes.
func (w *world) try(t *testing.T, d *daemon, viaServe bool, format, form string, e exploit) {
	before := w.state(t)
	proposed := w.journalCount(t, w.action(e.prop).Hash())
	srv := w.models[format]
	// The proposal, then words for whatever turn comes next: the retry
	// after a denial, or the turn after the action's output.
	srv.Push(w.reply(format, form, e.prop), words(format, "Done."), words(format, "Done."), words(format, "Done."))
	if viaServe {
		d.ask(t, w)
	} else {
		w.askOnce(t, format)
	}
	srv.Drop()
	assert.Greater(t, w.journalCount(t, w.action(e.prop).Hash()), proposed, "the gates saw the very action proposed (it is journalled)")
	t.Logf("journalled for %q (for the reader; outcomes are what is asserted): %s", e.name, w.lastProposal(t, w.action(e.prop).Hash()))
	want := e.want
	want.daemon = d
	w.check(t, before, want)
	assert.Contains(t, d.request(t, "(:ACTION :PING)"), `"pong"`, "the daemon lives")
}

// TestHostileEffectsWithoutTheGates is the control of every exploit with
// effects: run straight through the actuators, the gates bypassed, with
// the sandbox off, each effect happens — so the exploit is real and the
// suite can fail; and with the sandbox required, none outside the roots
// does — a mistake of the gates is no breach.
func TestHostileEffectsWithoutTheGates(t *testing.T) {
	needLandlock(t)
	t.Parallel()
	type control struct {
		fam family
		e   exploit
	}
	var all []control
	for _, fam := range hostileFamilies() {
		for _, e := range fam.exploits {
			if len(e.effect) > 0 {
				all = append(all, control{fam, e})
			}
		}
	}
	concurrently(t, 6, all, func(c control) string { return c.fam.name + "/" + c.e.name }, func(t *testing.T, c control) {
		for _, p := range c.e.needs {
			testenv.NeedCommand(t, p)
		}
		t.Run("unconfined", func(t *testing.T) {
			w := newControlWorld(t, c.fam)
			before := w.state(t)
			res := w.runUngated(t, sandbox.Off, w.action(c.e.prop))
			happened := w.effects(t, before, res, slices.Contains(c.e.effect, effProcess))
			for _, eff := range c.e.effect {
				assert.True(t, happened[eff], "unconfined and ungated, %q happens (output: %s)", eff, clip(res.Output, 600))
			}
		})
		t.Run("confined", func(t *testing.T) {
			w := newControlWorld(t, c.fam)
			before := w.state(t)
			res := w.runUngated(t, sandbox.Required, w.action(c.e.prop))
			happened := w.effects(t, before, res, slices.Contains(c.e.effect, effProcess))
			for _, eff := range c.e.effect {
				if insideRoot(eff) {
					// The command did run: what it may do, it did.
					assert.True(t, happened[eff], "confined, %q (inside the root) still happens (output: %s)", eff, clip(res.Output, 600))
				}
			}
			for eff, ok := range happened {
				switch {
				case !ok || insideRoot(eff):
				case c.e.gap != "" && slices.Contains(c.e.effect, eff):
					t.Logf("confined, %q still happens — a known gap: %s", eff, c.e.gap)
				default:
					t.Errorf("confined, %q still happens (output: %s)", eff, clip(res.Output, 600))
				}
			}
			if c.e.gap != "" {
				for _, eff := range c.e.effect {
					assert.True(t, happened[eff], "the gap is closed (%q no longer happens confined): remove the exploit's gap note", eff)
				}
			}
		})
	})
}

// concurrently runs f on each item as a subtest, at most n at once. The
// subtests wait on processes far more than they compute, and -parallel
// (the number of cores) would leave the machine idle.
func concurrently[T any](t *testing.T, n int, items []T, name func(T) string, f func(*testing.T, T)) {
	sem := make(chan struct{}, n)
	var wg sync.WaitGroup
	for _, it := range items {
		wg.Go(func() {
			sem <- struct{}{}
			defer func() { <-sem }()
			t.Run(name(it), func(t *testing.T) { f(t, it) })
		})
	}
	wg.Wait()
}

// newControlWorld is a world of fam with flightplans.org and journal.org
// as the server leaves them, for a control that runs without a server.
func newControlWorld(t *testing.T, fam family) *world {
	t.Helper()
	w := newWorld(t, fam.files)
	w.link(t, fam.links)
	for name, text := range map[string]string{
		flightplan.FileName: "#+TITLE: Flight Plans\n#+TODO: PLAN(p) APPROVED(a) | DONE(d) FAILED(f) REJECTED(r)\n* PLAN Run `make count` in .\n",
		"journal.org":       "#+TITLE: Journal\n* start\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(w.root, name), []byte(text), 0o644))
	}
	return w
}

// insideRoot reports whether an effect is a file inside the root that is
// neither a protected place nor a repository's configuration (which git
// runs later, unconfined): commands may write there.
func insideRoot(eff string) bool {
	rel, ok := strings.CutPrefix(eff, "memex/")
	if !ok {
		return false
	}
	_, protected := protname.Rel(rel)
	return !protected
}

// runUngated carries the action out with the server's actuators and the
// sandbox in mode, as the agent would after the gates allowed it (an
// approval where the tool needs one): the gates are bypassed.
func (w *world) runUngated(t *testing.T, mode sandbox.Mode, a gates.Action) actuate.Result {
	t.Helper()
	ctx := context.Background()
	// Unconfined, nothing filters the output either: no memex, so no
	// privacy filter and no private files hidden.
	var mx actuate.Memex
	if mode != sandbox.Off {
		m, err := memory.Open(ctx, memory.Options{Roots: []string{w.root}})
		require.NoError(t, err)
		defer m.Close(ctx)
		mx = m
	}
	protected := []string{w.data, w.config, filepath.Join(w.run, "passepartout")}
	acts, err := actuate.New(actuate.Config{
		Roots: []string{w.root}, Home: w.home, Memex: mx, Protected: protected,
		Getenv:  func(k string) string { return w.env[k] },
		Sandbox: sandbox.Config{Mode: mode, Protected: protected},
		Shell:   actuate.Limits{Timeout: 30 * time.Second},
		Eval:    actuate.EvalConfig{Limits: actuate.Limits{Timeout: 30 * time.Second}},
	})
	require.NoError(t, err)
	// One command: closed first, no helper is started ahead for a next.
	acts.Close()
	req := actuate.Request{Action: a}
	if gates.BuiltinTools().NeedsApproval(a.Tool) {
		req.Approval = &actuate.Approval{PlanID: "control", ActionHash: a.Hash()}
	}
	res, err := acts.Run(ctx, req)
	if err != nil {
		res.Output += "\n(error: " + err.Error() + ")"
	}
	return res
}

// effects tells which effects happened since before: files created or
// changed, a process left running (which is then ended: the test started
// it), the leak server reached, and the texts of the output.
func (w *world) effects(t *testing.T, before worldState, res actuate.Result, procs bool) map[string]bool {
	t.Helper()
	happened := map[string]bool{}
	if procs {
		// A process the command left may not have started yet.
		time.Sleep(100 * time.Millisecond)
	}
	after := w.state(t)
	for rel, digest := range after.files {
		if before.files[rel] != digest {
			happened[rel] = true
		}
	}
	for _, p := range strays(w.base) {
		if strings.Contains(p, "sleep 3131") {
			happened[effProcess] = true
			if pid, err := strconv.Atoi(strings.Fields(p)[0]); err == nil {
				if proc, err := os.FindProcess(pid); err == nil {
					proc.Kill()
				}
			}
		}
	}
	if after.exfil > before.exfil {
		happened[effExfil] = true
	}
	for _, text := range append(slices.Clone(w.canaries), "quokka", "emerald", "nine hundred crowns") {
		if strings.Contains(res.Output, text) {
			happened[effOutput+text] = true
		}
	}
	return happened
}

// clip keeps the start and the end of a long output for a message.
func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return s[:n/2] + "\n[…]\n" + s[len(s)-n/2:]
}
