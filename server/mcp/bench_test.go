package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/require"

	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/memory/memexgen"
	"pp-lsp/server/agent"
)

// open100k opens the agent as `pp-lsp mcp` does over memory's benchmark
// memex (100,000 headlines in 1,000 files, 20 folders, the generator's
// private nodes among them), every node embedded, and connects a client.
func open100k(b *testing.B) (*fixture, *memory.Memex) {
	b.Helper()
	g := generate100k(b)
	op := openAgentOn(b, func(root string) { require.NoError(b, g.WriteDir(root)) })
	f := start(b, op.agent, nil)
	f.root = op.root
	// What generating, indexing and embedding left is collected before
	// anything is timed (the server gives it back once embedded, too:
	// server/lsp's budget.go), so the figures are a settled server's.
	runtime.GC()
	return f, op.memex
}

// generate100k is memory's benchmark memex, made (not yet written).
func generate100k(b *testing.B) *memexgen.Memex {
	b.Helper()
	src := memexgen.BuiltinSource()
	if dir := filepath.Join("..", "..", "..", "shared", "corpus", "org"); dirExists(dir) {
		s, err := memexgen.LoadSource(dir)
		require.NoError(b, err)
		src = s
	}
	o := memexgen.Defaults()
	o.Files, o.Headlines, o.Dirs, o.Seed = 1000, 100_000, 20, 42
	g, err := memexgen.Generate(src, o)
	require.NoError(b, err)
	return g
}

// place is where a memex_context call asks from: a file and a 1-based line.
type place struct {
	file string
	line int
}

// placesIn draws n places from the files of snap, the same ones each time.
func placesIn(snap *memory.Snapshot, n int) []place {
	var files []memory.Node
	for fl := range snap.Files() {
		files = append(files, fl)
	}
	rng := rand.New(rand.NewPCG(3, 5))
	places := make([]place, n)
	for i := range places {
		fl := files[rng.IntN(len(files))]
		places[i] = place{fl.Path(), 1 + rng.IntN(fl.Org().Lines.LineCount())}
	}
	return places
}

func dirExists(dir string) bool {
	fi, err := os.Stat(dir)
	return err == nil && fi.IsDir()
}

// queries draws n search queries from the memex: half a public node's
// title (what an agent that saw a link asks for), half three words of a
// public node's body (what it asks about).
func queries(snap *memory.Snapshot, n int) []string {
	var nodes []memory.Node
	for nd := range snap.Nodes() {
		if !nd.Private() && !nd.IsFile() {
			nodes = append(nodes, nd)
		}
	}
	rng := rand.New(rand.NewPCG(7, 11))
	out := make([]string, 0, n)
	for len(out) < n {
		nd := nodes[rng.IntN(len(nodes))]
		if len(out)%2 == 0 {
			out = append(out, nd.Title())
			continue
		}
		words := strings.Fields(nd.Body())
		if len(words) < 3 {
			continue
		}
		i := rng.IntN(len(words) - 2)
		out = append(out, strings.Join(words[i:i+3], " "))
	}
	return out
}

// measure runs op with 0, 1, 2… for b's loop and reports the median and
// 99th percentile of its times: wall-clock (p50-ms, p99-ms) and the CPU
// time the whole process spent meanwhile (cpu-p50-ms, cpu-p99-ms: every
// goroutine's, the client's, the server's and the collector's), which
// other programs' load on the machine moves much less.
func measure(b *testing.B, op func(i int) error) { measureCPU(b, processCPU, op) }

// measureCPU is measure with the CPU time counted by cpuNow (the server's
// process's, when it is another).
func measureCPU(b *testing.B, cpuNow func() time.Duration, op func(i int) error) {
	var lat, cpu []time.Duration
	for i := 0; b.Loop(); i++ {
		c0 := cpuNow()
		t0 := time.Now()
		err := op(i)
		lat = append(lat, time.Since(t0))
		cpu = append(cpu, cpuNow()-c0)
		if err != nil {
			b.Fatal(err)
		}
	}
	reportLatency(b, lat)
	slices.Sort(cpu)
	b.ReportMetric(float64(cpu[len(cpu)/2].Microseconds())/1000, "cpu-p50-ms")
	b.ReportMetric(float64(cpu[len(cpu)*99/100].Microseconds())/1000, "cpu-p99-ms")
}

// callErr is a call's failure: its protocol error, or its tool error.
func callErr(res *sdk.CallToolResult, err error) error {
	if err == nil && res.IsError {
		return errors.New(text(res))
	}
	return err
}

// reportLatency reports the median and 99th percentile of lat.
func reportLatency(b *testing.B, lat []time.Duration) {
	slices.Sort(lat)
	b.ReportMetric(float64(lat[len(lat)/2].Microseconds())/1000, "p50-ms")
	b.ReportMetric(float64(lat[len(lat)*99/100].Microseconds())/1000, "p99-ms")
}

// BenchmarkSearch100k: memex_search on the 100k-headline memex — "call"
// is the whole tools/call round trip over in-memory transports (the
// client, the SDK, the guard, the agent's search, the journal entry);
// "agent" is Agent.Search alone.
func BenchmarkSearch100k(b *testing.B) {
	f, mx := open100k(b)
	qs := queries(mx.Snapshot(), 512)
	ctx := context.Background()
	b.Run("call", func(b *testing.B) {
		measure(b, func(i int) error {
			return callErr(f.client.CallTool(ctx, &sdk.CallToolParams{Name: "memex_search", Arguments: map[string]any{"query": qs[i%len(qs)]}}))
		})
	})
	b.Run("agent", func(b *testing.B) {
		measure(b, func(i int) error {
			_, err := f.agent.Search(ctx, agent.SearchRequest{Query: qs[i%len(qs)]})
			return err
		})
	})
	// "journal": the call's journal entry alone (Agent.Record), what the
	// round trip adds to the search before the answer leaves.
	b.Run("journal", func(b *testing.B) {
		measure(b, func(i int) error {
			return f.agent.Record(ctx, agent.Call{Source: agent.SourceMCP, Session: "bench", Name: "memex_search",
				Args: fmt.Sprintf(`{"query":%q}`, qs[i%len(qs)]), Outcome: "10 hits"})
		})
	})
	// "after-an-edit": each search follows an edit of one note (a new
	// snapshot, as every rescan that finds the journal grown makes), so it
	// pays for the title table of the new snapshot; the edit is not timed.
	b.Run("after-an-edit", func(b *testing.B) {
		note := filepath.Join(f.root, "scratch.org")
		var lat []time.Duration
		for i := 0; b.Loop(); i++ {
			if _, err := mx.SetBuffer(ctx, note, int32(i+1), fmt.Appendf(nil, "* Scratch %d\n", i)); err != nil {
				b.Fatal(err)
			}
			t0 := time.Now()
			if _, err := f.agent.Search(ctx, agent.SearchRequest{Query: qs[i%len(qs)]}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		reportLatency(b, lat)
	})
}

// BenchmarkContext100k: memex_context from random places of the 100k
// memex at the default budget, as a tools/call round trip ("call") and as
// Agent.View alone ("agent").
func BenchmarkContext100k(b *testing.B) {
	f, mx := open100k(b)
	places := placesIn(mx.Snapshot(), 512)
	ctx := context.Background()
	b.Run("call", func(b *testing.B) {
		measure(b, func(i int) error {
			p := places[i%len(places)]
			return callErr(f.client.CallTool(ctx, &sdk.CallToolParams{Name: "memex_context", Arguments: map[string]any{"file": p.file, "line": p.line}}))
		})
	})
	b.Run("agent", func(b *testing.B) {
		measure(b, func(i int) error {
			p := places[i%len(places)]
			_, err := f.agent.View(ctx, agent.ContextRequest{File: p.file, Line: p.line - 1})
			return err
		})
	})
	// "after-an-edit": each view follows an edit of one note (a new
	// snapshot, as a rescan that finds the journal grown makes), so it
	// pays for the renderer's per-snapshot figures; the edit is not timed.
	b.Run("after-an-edit", func(b *testing.B) {
		note := filepath.Join(f.root, "scratch.org")
		var lat []time.Duration
		for i := 0; b.Loop(); i++ {
			if _, err := mx.SetBuffer(ctx, note, int32(i+1), fmt.Appendf(nil, "* Scratch %d\n", i)); err != nil {
				b.Fatal(err)
			}
			p := places[i%len(places)]
			t0 := time.Now()
			if _, err := f.agent.View(ctx, agent.ContextRequest{File: p.file, Line: p.line - 1}); err != nil {
				b.Fatal(err)
			}
			lat = append(lat, time.Since(t0))
		}
		reportLatency(b, lat)
	})
	// "json": the view's JSON alone, as the SDK encodes a result (once as
	// structuredContent, once as its text).
	views := make([]*foveal.View, 64)
	for i := range views {
		p := places[i]
		v, err := f.agent.View(ctx, agent.ContextRequest{File: p.file, Line: p.line - 1})
		require.NoError(b, err)
		views[i] = v
	}
	b.Run("json", func(b *testing.B) {
		measure(b, func(i int) error {
			_, err := json.Marshal(views[i%len(views)])
			return err
		})
	})
	// "redact": what the guard adds to each call, its pass of the
	// result (structured and text, as addRead makes them) through the
	// agent's redactor (Server.redacted) — the view's secrets are marks
	// already, so this is the cost of finding nothing more.
	srv := New(Options{Host: f.host})
	results := make([][]byte, len(views))
	for i, v := range views {
		js, err := json.Marshal(v)
		require.NoError(b, err)
		results[i] = js
	}
	b.Run("redact", func(b *testing.B) {
		measure(b, func(i int) error {
			js := results[i%len(results)]
			srv.redacted(&sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(js)}}, StructuredContent: json.RawMessage(js)})
			return nil
		})
	})
}

// BenchmarkToolsList: the tools/list round trip (the client's first
// question) over in-memory transports.
func BenchmarkToolsList(b *testing.B) {
	a, _, _ := openAgent(b, memexFiles)
	f := start(b, a, nil)
	ctx := context.Background()
	measure(b, func(int) error {
		res, err := f.client.ListTools(ctx, nil)
		if err == nil && len(res.Tools) != 6 {
			err = fmt.Errorf("%d tools listed", len(res.Tools))
		}
		return err
	})
}
