package lsp

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime"
	"runtime/debug"
	"runtime/metrics"
	"time"

	"go.lsp.dev/protocol"

	"pp-lsp/memory"
)

// The memory budget (issues 22 and 23). Once the memex is indexed, a
// process that manages its memory (Options.ManageMemory: the binary) sets
// Go's soft memory limit after every collection (budgetFor), unless
// GOMEMLIMIT is set, and once it has embedded what it had queued gives
// back what indexing left as garbage. A small heap (the public corpus,
// 30 MB live) gets smallHeadroom above the live heap, so that typing's
// garbage does not double the process (16 MiB was too tight: the
// collector ran at every keystroke and the p50 of an edit's diagnostics
// went from 4 ms to 30–60 ms). A large one gets budgetFactor times its
// settled heap — the least live heap the collections of the last
// settleWindow found — and at least minBudget: a burst of edits to a
// large buffer holds two versions of it live for a second or two (the
// one the memex holds and the one being made), and a limit that followed
// the live heap up would let the garbage of making each version double
// the process (a 12 MB buffer's burst: 600–780 MB instead of < 400 MB).
// The limit never falls below the live heap plus smallHeadroom, so the
// collector never runs without pause. A heap that grows and stays raises
// the limit once the window has passed.
// An open buffer larger than bufferWarnBytes is indexed as any other,
// with one warning saying what it costs.
const (
	minBudget     = 256 << 20
	budgetFactor  = 3
	smallHeap     = 64 << 20
	smallHeadroom = 24 << 20
	settleWindow  = 30 * time.Second
	// bufferWarnBytes is the size from which a buffer gets a warning: its
	// index takes about indexPerByte times its text.
	bufferWarnBytes = 8 << 20
	indexPerByte    = 25
)

// budgetFor is the soft memory limit for a heap of live bytes at the
// last collection and of settled bytes (see settledHeap).
func budgetFor(live, settled int64) int64 {
	if live < smallHeap {
		return live + smallHeadroom
	}
	return max(int64(minBudget), budgetFactor*settled, live+smallHeadroom)
}

// settledHeap is the least live heap the collections of the last
// settleWindow found. One goroutine at a time calls add.
type settledHeap struct {
	samples []heapSample
}

type heapSample struct {
	at   time.Time
	live int64
}

// add records a collection's live heap and returns the settled heap.
func (h *settledHeap) add(at time.Time, live int64) int64 {
	keep := h.samples[:0]
	for _, s := range h.samples {
		if at.Sub(s.at) < settleWindow {
			keep = append(keep, s)
		}
	}
	h.samples = append(keep, heapSample{at, live})
	least := live
	for _, s := range h.samples {
		least = min(least, s.live)
	}
	return least
}

// setMemoryBudget keeps the soft limit at budgetFor of the live heap
// from now on, until ctx ends, and gives back the memory indexing left
// once the memex has embedded what it had queued.
func (s *Server) setMemoryBudget(ctx context.Context, mx *memory.Memex) {
	if !s.opts.ManageMemory {
		return
	}
	if s.getenv("GOMEMLIMIT") == "" {
		var h settledHeap
		apply := func() {
			live := liveHeap()
			debug.SetMemoryLimit(budgetFor(live, h.add(time.Now(), live)))
		}
		apply()
		afterEachGC(ctx, apply)
		defer debug.SetMemoryLimit(math.MaxInt64)
	}
	if mx.WaitEmbedded(ctx) == nil {
		// Indexing and embedding are done: what they left as garbage
		// goes back to the system now, not whenever the scavenger gets
		// to it.
		debug.FreeOSMemory()
		s.log.Info("memory budget set", "live_heap_mb", liveHeap()>>20, "soft_limit_mb", debug.SetMemoryLimit(-1)>>20)
	}
	<-ctx.Done()
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
