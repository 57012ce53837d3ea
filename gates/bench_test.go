package gates

import (
	"context"
	"crypto/sha256"
	"encoding/json"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// BenchmarkStack runs the whole stack over the public gate corpus (every
// record under 64 KiB: the realistic mix of what a model proposes) and
// reports the per-action latency percentiles p50 and p99.
func BenchmarkStack(b *testing.B) {
	shared := testenv.SharedDir(b)
	corpus := readCorpus(b, filepath.Join(shared, "corpus", "gates"))
	stack, env := newCorpusEnv(b, shared)
	var actions []Action
	for _, recs := range corpus {
		for _, r := range recs {
			if len(r.Action) > 64<<10 {
				continue
			}
			if a, err := DecodeJSON(r.Action); err == nil {
				actions = append(actions, a)
			}
		}
	}
	sort.Slice(actions, func(i, j int) bool { return string(actions[i].CanonicalJSON()) < string(actions[j].CanonicalJSON()) })
	benchActions(b, stack, env, actions)
}

// mixRecords are the records of BenchmarkStack's mix: every record of the
// shared gate corpus under 64 KiB, in the corpus's order.
func mixRecords(t testing.TB, shared string) []corpusRecord {
	var out []corpusRecord
	for _, recs := range readCorpus(t, filepath.Join(shared, "corpus", "gates")) {
		for _, r := range recs {
			if len(r.Action) <= 64<<10 {
				out = append(out, r)
			}
		}
	}
	return out
}

// BenchmarkStackHot separates what the stack costs from what the machine
// adds: each action of BenchmarkStack's mix is checked fifteen times in a
// row, and its cost is the median of those (caches warm, interruptions
// left out). It reports the percentiles of those costs over the mix
// (hot-p50-µs, hot-p99-µs, CPU time of the calling thread) and logs the
// slowest actions. BenchmarkStack's p99 is this one's plus what a cold
// cache, the garbage collector and the other processes on the machine add
// (BenchmarkThreadCPUNoise).
func BenchmarkStackHot(b *testing.B) {
	shared := testenv.SharedDir(b)
	stack, env := newCorpusEnv(b, shared)
	type cost struct {
		cpu  time.Duration
		line []byte
	}
	var lines [][]byte
	for _, r := range mixRecords(b, shared) {
		lines = append(lines, r.Action)
	}
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx := context.Background()
	var costs []cost
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		costs = costs[:0]
		for _, l := range lines {
			a, err := DecodeJSON(l)
			if err != nil {
				continue
			}
			costs = append(costs, cost{medianCPU(ctx, stack, a, env, 15), l})
		}
	}
	b.StopTimer()
	sort.Slice(costs, func(i, j int) bool { return costs[i].cpu < costs[j].cpu })
	pct := func(p float64) float64 { return float64(costs[int(p*float64(len(costs)-1))].cpu.Nanoseconds()) / 1e3 }
	b.ReportMetric(pct(0.50), "hot-p50-µs")
	b.ReportMetric(pct(0.99), "hot-p99-µs")
	b.ReportMetric(float64(len(costs)), "actions")
	for _, c := range costs[max(0, len(costs)-10):] {
		b.Logf("%6.1f µs  %.120s", float64(c.cpu.Nanoseconds())/1e3, c.line)
	}
}

// BenchmarkThreadCPUNoise measures the machine rather than the code: a
// fixed piece of work (a SHA-256 of 24 KiB, about 17 µs) timed as
// benchLoop times a check. Its p99 over its p50 is what interruptions and
// other processes add to any p99 measured at the same time.
func BenchmarkThreadCPUNoise(b *testing.B) {
	data := make([]byte, 24<<10)
	benchLoop(b, 1, func(int) { sha256.Sum256(data) })
}

// BenchmarkStackLines is BenchmarkStack as `pp-lsp gate` does it per
// line: the raw JSON line decoded (CheckJSON), checked, and the verdict
// encoded. BenchmarkStack times the check alone.
func BenchmarkStackLines(b *testing.B) {
	shared := testenv.SharedDir(b)
	corpus := readCorpus(b, filepath.Join(shared, "corpus", "gates"))
	stack, env := newCorpusEnv(b, shared)
	var lines [][]byte
	for _, recs := range corpus {
		for _, r := range recs {
			if len(r.Action) <= 64<<10 {
				lines = append(lines, r.Action)
			}
		}
	}
	sort.Slice(lines, func(i, j int) bool { return string(lines[i]) < string(lines[j]) })
	ctx := context.Background()
	benchLoop(b, len(lines), func(i int) {
		if _, err := json.Marshal(stack.CheckJSON(ctx, lines[i], env)); err != nil {
			b.Fatal(err)
		}
	})
}

// BenchmarkStackTypical is the same over a handful of everyday actions, so
// that `make bench` has a figure without the shared corpus.
func BenchmarkStackTypical(b *testing.B) {
	stack, env, _ := testEnv(b, DefaultConfig())
	lines := []string{
		`{"tool":"file_read","args":{"path":"notes/todo.org"},"explanation":"x"}`,
		`{"tool":"shell","args":{"cmd":"git log --oneline -n 10","cwd":"."},"explanation":"x"}`,
		`{"tool":"shell","args":{"cmd":"cat notes/todo.org | grep TODO | wc -l","cwd":"."},"explanation":"x"}`,
		`{"tool":"message","args":{"text":"You have 3 open TODOs in notes/todo.org."},"explanation":"x"}`,
		`{"tool":"file_write","args":{"path":"notes/new.org","content":"* TODO write the report\nDEADLINE: <2026-11-30>\n"},"explanation":"x"}`,
		`{"tool":"send","args":{"channel":"email","to":"bob@example.com","text":"Lunch on Friday?"},"explanation":"x"}`,
		`{"tool":"http","args":{"method":"GET","url":"https://api.github.com/repos/x/y"},"explanation":"x"}`,
		`{"tool":"shell","args":{"cmd":"rm -rf ~/.ssh","cwd":"."},"explanation":"x"}`,
	}
	var actions []Action
	for _, l := range lines {
		a, err := DecodeJSON([]byte(l))
		if err != nil {
			b.Fatal(err)
		}
		actions = append(actions, a)
	}
	benchActions(b, stack, env, actions)
}

func benchActions(b *testing.B, stack *Stack, env *Env, actions []Action) {
	ctx := context.Background()
	benchLoop(b, len(actions), func(i int) { stack.Check(ctx, actions[i], env) })
}

// benchLoop runs one of n items per iteration, in turn, and reports the
// latency percentiles of the calls: wall clock (p50-µs, p99-µs), which
// moves with whatever else the machine runs, and the CPU time of the
// calling thread (cpu-p50-µs, cpu-p99-µs), which much less.
func benchLoop(b *testing.B, n int, call func(i int)) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	durations := make([]time.Duration, 0, b.N)
	cpu := make([]time.Duration, 0, b.N)
	b.ReportAllocs()
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		start, startCPU := time.Now(), threadCPU()
		call(i % n)
		cpu = append(cpu, threadCPU()-startCPU)
		durations = append(durations, time.Since(start))
	}
	b.StopTimer()
	pct := func(d []time.Duration, p float64) float64 {
		return float64(d[int(p*float64(len(d)-1))].Nanoseconds()) / 1e3
	}
	slices.Sort(durations)
	slices.Sort(cpu)
	b.ReportMetric(pct(durations, 0.50), "p50-µs")
	b.ReportMetric(pct(durations, 0.99), "p99-µs")
	b.ReportMetric(pct(cpu, 0.50), "cpu-p50-µs")
	b.ReportMetric(pct(cpu, 0.99), "cpu-p99-µs")
	b.ReportMetric(float64(n), "actions")
}

// medianCPU checks a n times in a row and returns the median of the
// calling thread's CPU time per check.
func medianCPU(ctx context.Context, stack *Stack, a Action, env *Env, n int) time.Duration {
	runs := make([]time.Duration, n)
	for k := range runs {
		start := threadCPU()
		stack.Check(ctx, a, env)
		runs[k] = threadCPU() - start
	}
	slices.Sort(runs)
	return runs[n/2]
}

// BenchmarkStackTail is BenchmarkStack over its slowest 2 %: the actions
// whose median cost (as BenchmarkStackHot measures it) is in the top
// fiftieth of the mix. Profile it (-cpuprofile) to see where the p99 goes.
func BenchmarkStackTail(b *testing.B) {
	shared := testenv.SharedDir(b)
	stack, env := newCorpusEnv(b, shared)
	ctx := context.Background()
	type cost struct {
		cpu time.Duration
		a   Action
	}
	var costs []cost
	runtime.LockOSThread()
	for _, r := range mixRecords(b, shared) {
		a, err := DecodeJSON(r.Action)
		if err != nil {
			continue
		}
		costs = append(costs, cost{medianCPU(ctx, stack, a, env, 7), a})
	}
	runtime.UnlockOSThread()
	sort.Slice(costs, func(i, j int) bool { return costs[i].cpu > costs[j].cpu })
	var actions []Action
	for _, c := range costs[:len(costs)/50] {
		actions = append(actions, c.a)
	}
	sort.Slice(actions, func(i, j int) bool { return string(actions[i].CanonicalJSON()) < string(actions[j].CanonicalJSON()) })
	benchActions(b, stack, env, actions)
}

// TestStackMixForCallgrind checks every action of BenchmarkStack's mix
// (ordered by record ID) three times in a row, the third inside
// mixMeasured, with mixMark before it: run under callgrind as
// gates/README.md's Speed section shows, each dump holds the instructions
// of one warm check, which repeat from run to run where times do not. The
// IDs, in order, are written to the file GATES_MIX_IDS names; without it
// the test is skipped.
func TestStackMixForCallgrind(t *testing.T) {
	out := os.Getenv("GATES_MIX_IDS")
	if out == "" {
		t.Skip("GATES_MIX_IDS is not set: this test only serves callgrind")
	}
	shared := testenv.SharedDir(t)
	stack, env := newCorpusEnv(t, shared)
	recs := mixRecords(t, shared)
	sort.Slice(recs, func(i, j int) bool { return recs[i].ID < recs[j].ID })
	var ids []string
	var actions []Action
	for _, r := range recs {
		if a, err := DecodeJSON(r.Action); err == nil {
			ids = append(ids, r.ID)
			actions = append(actions, a)
		}
	}
	require.NoError(t, os.WriteFile(out, []byte(strings.Join(ids, "\n")+"\n"), 0o644))
	// Locked to its thread: callgrind toggles collection per thread, and
	// a goroutine resumed on another thread after a system call would
	// have the rest of its check left uncounted.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	ctx := context.Background()
	n := 0
	for _, a := range actions {
		stack.Check(ctx, a, env)
		stack.Check(ctx, a, env)
		n = mixMark(n)
		mixMeasured(ctx, stack, a, env)
	}
	mixMark(n)
}

// mixMark is where callgrind dumps its counts (--dump-before).
//
//go:noinline
func mixMark(n int) int { return n + 1 }

// mixMeasured is the check callgrind counts (--toggle-collect).
//
//go:noinline
func mixMeasured(ctx context.Context, stack *Stack, a Action, env *Env) Verdict {
	return stack.Check(ctx, a, env)
}
