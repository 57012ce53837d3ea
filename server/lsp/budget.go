package lsp

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"

	"go.lsp.dev/protocol"

	"pp-lsp/memory"
)

// The memory budget (issues 22 and 23). Once the memex is indexed and
// embedded, a process that manages its memory (Options.ManageMemory: the
// binary) gives back what indexing left as garbage, then sets Go's soft
// memory limit after every collection from the heap it found live
// (budgetFor), unless GOMEMLIMIT is set: a small heap (the public corpus,
// 30 MB live) gets smallHeadroom above it, so that typing's garbage does
// not double the process (16 MiB was too tight: the collector ran at
// every keystroke and the p50 of an edit's diagnostics went from 4 ms to
// 30–60 ms); a large one four times itself, at least
// minBudget — a guard against growth without end, not a squeeze: a burst
// of edits to a 12 MB buffer needs about three times the idle heap live
// (the text before the burst, the current one, the one being made), and a
// limit below that makes the collector run without pause and the server
// fall seconds behind the typing (measured: 4 s instead of 1 s with 3 ×).
// A heap that grows past its limit raises it at the next collection.
// An open buffer larger than bufferWarnBytes is indexed as any other,
// with one warning saying what it costs.
const (
	minBudget     = 384 << 20
	smallHeap     = 64 << 20
	smallHeadroom = 24 << 20
	// bufferWarnBytes is the size from which a buffer gets a warning: its
	// index takes about indexPerByte times its text.
	bufferWarnBytes = 8 << 20
	indexPerByte    = 25
)

// budgetFor is the soft memory limit for a live heap of live bytes.
func budgetFor(live int64) int64 {
	if live < smallHeap {
		return live + smallHeadroom
	}
	return max(int64(minBudget), 4*live)
}

// setMemoryBudget gives back the memory indexing left, once the memex has
// embedded what it had queued, and keeps the soft limit at budgetFor of
// the live heap from then on, until ctx ends.
func (s *Server) setMemoryBudget(ctx context.Context, mx *memory.Memex) {
	if !s.opts.ManageMemory {
		return
	}
	if err := mx.WaitEmbedded(ctx); err != nil {
		return
	}
	// Indexing and embedding are done: what they left as garbage goes
	// back to the system now, not whenever the scavenger gets to it.
	debug.FreeOSMemory()
	if s.getenv("GOMEMLIMIT") != "" {
		return
	}
	apply := func() {
		live := liveHeap()
		debug.SetMemoryLimit(budgetFor(live))
	}
	apply()
	s.log.Info("memory budget set", "live_heap_mb", liveHeap()>>20, "soft_limit_mb", debug.SetMemoryLimit(-1)>>20)
	afterEachGC(ctx, apply)
	<-ctx.Done()
	debug.SetMemoryLimit(math.MaxInt64)
}

// afterEachGC calls f after every garbage collection until ctx ends: a
// sentinel object's finalizer runs once the collection that found it
// unreachable is done, and arms the next one.
func afterEachGC(ctx context.Context, f func()) {
	type sentinel struct {
		p   *int
		pad [2]int // never a tiny allocation, whose finalizer may not run
	}
	var arm func()
	arm = func() {
		runtime.SetFinalizer(&sentinel{}, func(*sentinel) {
			if ctx.Err() != nil {
				return
			}
			f()
			arm()
		})
	}
	arm()
}

// liveHeap is the heap the last collection found live, in bytes.
func liveHeap() int64 {
	sample := []metrics.Sample{{Name: "/gc/heap/live:bytes"}}
	metrics.Read(sample)
	if sample[0].Value.Kind() != metrics.KindUint64 {
		return 0
	}
	return int64(sample[0].Value.Uint64())
}

// warnLargeBuffer says, once per opening, that a buffer is large enough
// to take a large share of the memory budget.
func (s *Server) warnLargeBuffer(path string, size int) {
	if size < bufferWarnBytes {
		return
	}
	s.showMessage(protocol.MessageTypeWarning, fmt.Sprintf("pp-lsp: %s is %d MB; indexed it takes about %d MB of memory, so features on it may be slower and the server larger than usual",
		filepath.Base(path), size>>20, size*indexPerByte>>20))
}
