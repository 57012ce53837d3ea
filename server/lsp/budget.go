package lsp

import (
	"context"
	"fmt"
	"math"
	"path/filepath"
	"runtime/debug"
	"runtime/metrics"

	"go.lsp.dev/protocol"

	"pp-lsp/memory"
)

// The memory budget (issue 23). Once the memex is indexed and embedded,
// a process that manages its memory (Options.ManageMemory: the binary)
// sets Go's soft memory limit to max(minBudget, 4 × the live heap then),
// unless GOMEMLIMIT set one: the collector then works harder as the heap
// nears it instead of letting garbage double the heap again and again. A
// burst of edits to the largest buffer needs about three times the idle
// heap live (the text before the burst, the current one, the one being
// made): a tighter limit makes the collector run without pause and the
// server fall seconds behind the typing (measured: 4 s instead of 1 s
// with 3 ×), so the limit is a guard against growth without end, not a
// squeeze. An open
// buffer larger than bufferWarnBytes is indexed as any other, with one
// warning saying what it costs.
const (
	minBudget = 384 << 20
	// bufferWarnBytes is the size from which a buffer gets a warning: its
	// index takes about indexPerByte times its text.
	bufferWarnBytes = 8 << 20
	indexPerByte    = 25
)

// setMemoryBudget sets the soft memory limit from the live heap, once
// the memex has embedded what it had queued.
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
	live := liveHeap()
	if s.getenv("GOMEMLIMIT") != "" {
		return
	}
	limit := max(int64(minBudget), 4*live)
	if cur := debug.SetMemoryLimit(-1); cur != math.MaxInt64 && cur < limit {
		return // a limit set by someone else, lower: theirs
	}
	debug.SetMemoryLimit(limit)
	s.log.Info("memory budget set", "live_heap_mb", live>>20, "soft_limit_mb", limit>>20)
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
