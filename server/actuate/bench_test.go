package actuate

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"pp-lsp/gates"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/journal"
)

// BenchmarkShellTrue is the sandbox's added latency per shell action: the
// action `true` through the actuators, confined (sandbox required) and
// not (off), reported as p50 and p99. Actions are spaced as a model's
// round trips space them, so the helper started ahead is ready, as it is
// in use; the pause is not timed.
func BenchmarkShellTrue(b *testing.B) {
	for _, mode := range []sandbox.Mode{sandbox.Off, sandbox.Required} {
		b.Run(string(mode), func(b *testing.B) {
			if mode == sandbox.Required && !sandbox.Probe().Available() {
				b.Skip(sandbox.Probe().String())
			}
			root := b.TempDir()
			acts, err := New(Config{
				Roots: []string{root}, Home: b.TempDir(), Getenv: func(k string) string { return map[string]string{"PATH": "/usr/bin:/bin"}[k] },
				Shell: Limits{Timeout: 30 * time.Second}, Sandbox: sandbox.Config{Mode: mode, Protected: []string{filepath.Join(b.TempDir(), "data")}},
			})
			if err != nil {
				b.Fatal(err)
			}
			a := gates.Build(gates.ShellArgs{Cmd: "true"}, "bench")
			var took []time.Duration
			for b.Loop() {
				start := time.Now()
				res, err := acts.Run(context.Background(), Request{Action: a})
				took = append(took, time.Since(start))
				if err != nil || !res.OK {
					b.Fatalf("%v %+v", err, res)
				}
				b.StopTimer()
				time.Sleep(100 * time.Millisecond)
				b.StartTimer()
			}
			slices.Sort(took)
			ms := func(q float64) float64 {
				return float64(took[min(len(took)-1, int(q*float64(len(took))))].Microseconds()) / 1000
			}
			b.ReportMetric(ms(0.50), "p50-ms")
			b.ReportMetric(ms(0.99), "p99-ms")
		})
	}
}

// BenchmarkGuardLargeJournal is what the guard around a command costs
// with a journal of months (32 MiB): the command itself does nothing
// (an actuator that returns at once), so the figure is the guard's looks
// at the protected files before and after it. "settled": the journal last
// changed longer ago than the timestamp grain, as between a model's round
// trips (its identity speaks); "appended": an entry was journalled
// between commands, as an action's result is; "fresh": the journal
// changed just before the command (its bytes must be read).
func BenchmarkGuardLargeJournal(b *testing.B) {
	for _, tc := range []struct {
		name              string
		settled, appended bool
	}{
		{"settled", true, false},
		{"settled-appended", true, true},
		{"fresh", false, false},
		{"fresh-appended", false, true},
	} {
		b.Run(tc.name, func(b *testing.B) {
			root := b.TempDir()
			jp := filepath.Join(root, journal.FileName)
			entry := []byte("* 2026-01-01 call memex_search\n:PROPERTIES:\n:KIND: call\n:END:\n")
			big := bytes.Repeat(entry, (32<<20)/len(entry))
			if err := os.WriteFile(jp, big, 0o644); err != nil {
				b.Fatal(err)
			}
			if err := os.WriteFile(filepath.Join(root, "flightplans.org"), []byte("* PLAN one\n"), 0o644); err != nil {
				b.Fatal(err)
			}
			acts, err := New(Config{Roots: []string{root}, Home: b.TempDir(), Sandbox: sandbox.Config{Mode: sandbox.Off}})
			if err != nil {
				b.Fatal(err)
			}
			if tc.settled {
				// Every change time counts as long past.
				acts.looks.grain = time.Nanosecond
			}
			nop := ActuatorFunc(func(context.Context, Request) (Result, error) { return Result{OK: true}, nil })
			req := Request{Action: gates.Build(gates.ShellArgs{Cmd: "true"}, "bench")}
			b.ReportAllocs()
			for b.Loop() {
				if tc.appended {
					b.StopTimer()
					f, err := os.OpenFile(jp, os.O_WRONLY|os.O_APPEND, 0)
					if err != nil {
						b.Fatal(err)
					}
					f.Write(entry)
					f.Close()
					b.StartTimer()
				}
				res, err := acts.guarded(context.Background(), req, nop)
				if err != nil || !res.OK {
					b.Fatalf("%v %+v", err, res)
				}
			}
		})
	}
}
