package actuate

import (
	"context"
	"path/filepath"
	"slices"
	"testing"
	"time"

	"pp-lsp/gates"
	"pp-lsp/server/actuate/sandbox"
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
