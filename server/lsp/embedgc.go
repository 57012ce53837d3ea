package lsp

import (
	"context"
	"runtime/debug"
	"sync"

	"pp-lsp/memory"
)

// loadGCPercent is the collector's pace (GOGC) while the memex is indexed
// and then embedded in the background. Both allocate what the memex keeps
// (outlines, indexes, vectors) among as much garbage (parse tables, text
// buffers, segments replaced at every batch): collected at the usual pace
// (100), the garbage leaves holes in the spans what is kept lives in,
// which the settled process keeps (measured at 100k headlines: 18 MiB of
// in-span free memory). At 50 the settled resident set went from 197 to
// 193 MB and the peak while loading from 385 to 300 MB, and the cold
// index of 100k headlines took as long (1.64 s, 1.67 s); typing is not
// affected: the usual pace is back once embedding is done. (At 50 from
// ready on only, the settled set was 195.6 MB: indexing's garbage counts
// too.)
const loadGCPercent = 50

// paceLoad sets the collector's pace to loadGCPercent, in a process that
// manages its memory and unless GOGC is set, and returns what puts the
// pace back (safe to call more than once; only the first call counts).
func (s *Server) paceLoad() (restore func()) {
	if !s.opts.ManageMemory || s.getenv("GOGC") != "" {
		return func() {}
	}
	old := debug.SetGCPercent(loadGCPercent)
	var once sync.Once
	return func() { once.Do(func() { debug.SetGCPercent(old) }) }
}

// restoreAfterEmbedding calls restore once mx has embedded what it had
// queued, or ctx ends.
func restoreAfterEmbedding(ctx context.Context, mx *memory.Memex, restore func()) {
	defer restore()
	_ = mx.WaitEmbedded(ctx) // an error is ctx's end: the pace goes back all the same
}
