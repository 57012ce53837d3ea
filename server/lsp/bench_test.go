package lsp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/memory"
	"pp-lsp/memory/memexgen"
)

// memoryEdit inserts one character at off.
func memoryEdit(off int) memory.TextEdit { return memory.TextEdit{Start: off, End: off, Text: "x"} }

// The benchmarks drive the server through the whole protocol stack, as
// the scenario tests do: a jsonrpc2 client on pipes, LSP framing, the
// server's dispatch, its answer encoded and read back (raw).

// bigFile writes one generated Org file of about size bytes under dir and
// returns its path.
func bigFile(tb testing.TB, dir string, size int) string {
	tb.Helper()
	opts := memexgen.Defaults()
	opts.Files, opts.Dirs = 1, 1
	// About 100 bytes a headline with the default bodies: find the count
	// that gives the size, then generate it.
	probe := opts
	probe.Headlines = 2000
	m, err := memexgen.Generate(memexgen.BuiltinSource(), probe)
	require.NoError(tb, err)
	opts.Headlines = max(1, size*probe.Headlines/m.Bytes())
	m, err = memexgen.Generate(memexgen.BuiltinSource(), opts)
	require.NoError(tb, err)
	require.NoError(tb, m.WriteDir(dir))
	require.Len(tb, m.Files, 1)
	return filepath.Join(dir, filepath.FromSlash(m.Files[0].Path))
}

// benchClient starts a server on root for a benchmark.
func benchClient(b *testing.B, root string) *testClient {
	b.Helper()
	dir := b.TempDir()
	env := map[string]string{"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "PASSEPARTOUT_DATA_DIR": filepath.Join(dir, "data"), "HEARTBEAT_INTERVAL": "3600"}
	c := newTestClient(b, Options{Getenv: func(k string) string { return env[k] }, WorkDir: root})
	c.initialize(root, clientEglot, json.RawMessage(`{}`))
	// The memex embeds every node in the background after indexing: let
	// it finish, so that the figures are the server's, not the embedder's.
	require.NoError(b, c.srv.memex().WaitEmbedded(c.ctx))
	return c
}

// BenchmarkDocumentSymbol5MB is the outline of a 5 MB Org file, requested
// and received over the protocol (goal: ≤ 30 ms).
func BenchmarkDocumentSymbol5MB(b *testing.B) {
	root := b.TempDir()
	path := bigFile(b, root, 5<<20)
	c := benchClient(b, root)
	c.open(path)
	require.NoError(b, c.srv.memex().WaitEmbedded(c.ctx))
	params := map[string]any{"textDocument": map[string]any{"uri": uri.File(path)}}
	var raw jsonrpc2.RawMessage
	require.NoError(b, c.callRaw(protocol.MethodTextDocumentDocumentSymbol, params, &raw))
	b.ResetTimer()
	for b.Loop() {
		if err := c.callRaw(protocol.MethodTextDocumentDocumentSymbol, params, &raw); err != nil {
			b.Fatal(err)
		}
	}
	b.StopTimer()
	b.ReportMetric(float64(len(raw))/(1<<20), "MB-answer")
	fi, _ := os.Stat(path)
	b.ReportMetric(float64(fi.Size())/(1<<20), "MB-file")
	if n, ok := c.srv.memex().Snapshot().File(path); ok {
		b.ReportMetric(float64(len(n.Org().Headlines)), "headlines")
	}
}

// BenchmarkDidChangeToDiagnostics5MB is the time from a one-character
// didChange on a 5 MB buffer to the publishDiagnostics of that version
// (goal: ≤ 20 ms), with its p50 and p99 over the run.
func BenchmarkDidChangeToDiagnostics5MB(b *testing.B) {
	root := b.TempDir()
	path := bigFile(b, root, 5<<20)
	c := benchClient(b, root)
	c.open(path)
	require.NoError(b, c.srv.memex().WaitEmbedded(c.ctx))
	text, _ := c.text(path)
	// Type into the body of a headline in the middle of the file.
	mid := strings.Index(text[len(text)/2:], "\n* ")
	require.GreaterOrEqual(b, mid, 0)
	off := len(text)/2 + mid
	waitVersion := func(v int32) {
		c.waitFor("diagnostics of the new version", 10*time.Second, func() bool {
			p, ok := c.diagnosticsOf(path)
			return ok && p.Version != nil && *p.Version == v
		})
	}
	waitVersion(c.docVersion(path))
	var lat []time.Duration
	b.ResetTimer()
	for i := 0; b.Loop(); i++ {
		ch := "x"
		start := time.Now()
		c.edit(path, off, off, ch)
		off++
		waitVersion(c.docVersion(path))
		lat = append(lat, time.Since(start))
	}
	b.StopTimer()
	reportPercentiles(b, lat)
}

// reportPercentiles adds p50 and p99 (in ms) to a benchmark's figures.
func reportPercentiles(b *testing.B, lat []time.Duration) { reportPercentilesAs(b, lat, "") }

// reportPercentilesAs is reportPercentiles with the figures named
// NAME-p50-ms and NAME-p99-ms.
func reportPercentilesAs(b *testing.B, lat []time.Duration, name string) {
	if len(lat) == 0 {
		return
	}
	if name != "" {
		name += "-"
	}
	slices.Sort(lat)
	pct := func(p float64) float64 {
		return float64(lat[min(len(lat)-1, int(p*float64(len(lat))))].Microseconds()) / 1000
	}
	b.ReportMetric(pct(0.50), name+"p50-ms")
	b.ReportMetric(pct(0.99), name+"p99-ms")
}

// timeCalls times one request, called again and again, with its p50 and
// p99; it returns the last answer.
func timeCalls(b *testing.B, c *testClient, method string, params any) jsonrpc2.RawMessage {
	var raw jsonrpc2.RawMessage
	require.NoError(b, c.callRaw(method, params, &raw))
	var lat []time.Duration
	for b.Loop() {
		start := time.Now()
		if err := c.callRaw(method, params, &raw); err != nil {
			b.Fatal(err)
		}
		lat = append(lat, time.Since(start))
	}
	reportPercentiles(b, lat)
	return raw
}

// memex100k writes a generated memex of 1,000 files and 100,000
// headlines and returns its folder.
func memex100k(b *testing.B) string {
	root := b.TempDir()
	opts := memexgen.Defaults()
	opts.Files, opts.Headlines, opts.BodySentences = 1000, 100_000, 1
	m, err := memexgen.Generate(memexgen.BuiltinSource(), opts)
	require.NoError(b, err)
	require.NoError(b, m.WriteDir(root))
	return root
}

// BenchmarkWorkspaceSymbol100k is a fuzzy workspace/symbol query over a
// memex of 100,000 headlines.
func BenchmarkWorkspaceSymbol100k(b *testing.B) {
	root := memex100k(b)
	c := benchClient(b, root)
	for _, q := range []string{"garden", "vec db", "a"} {
		b.Run(fmt.Sprintf("query=%q", q), func(b *testing.B) {
			timeCalls(b, c, protocol.MethodWorkspaceSymbol, map[string]any{"query": q})
		})
	}
}

// BenchmarkDidChangeParts5MB splits the didChange → diagnostics path of
// BenchmarkDidChangeToDiagnostics5MB into its parts, in-process and
// without the protocol: the memex's EditBuffer (memory's share), the
// file's diagnostics (memory's findings and the server's conversion), and
// the outline written as JSON (documentSymbol's share of the server).
func BenchmarkDidChangeParts5MB(b *testing.B) {
	root := b.TempDir()
	path := bigFile(b, root, 5<<20)
	c := benchClient(b, root)
	c.open(path)
	// didOpen is a notification: the diagnostics of the buffer's version
	// say it is open.
	c.waitFor("diagnostics of the opened buffer", 10*time.Second, func() bool {
		p, ok := c.diagnosticsOf(path)
		return ok && p.Version != nil && *p.Version == c.docVersion(path)
	})
	mx := c.srv.memex()
	require.NoError(b, mx.WaitEmbedded(c.ctx))
	n, ok := mx.Snapshot().File(path)
	require.True(b, ok)
	off := len(n.Org().Src) / 2
	version := int32(1000)
	b.Run("EditBuffer", func(b *testing.B) {
		for b.Loop() {
			version++
			if _, err := mx.EditBuffer(c.ctx, path, version, memoryEdit(off)); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("diagnostics", func(b *testing.B) {
		v := c.srv.view()
		for b.Loop() {
			v.diagnostics(path)
		}
	})
	b.Run("outline-json", func(b *testing.B) {
		org := c.srv.view().snap
		f, _ := org.File(path)
		for b.Loop() {
			appendOutline(nil, f.Org())
		}
	})
}

// BenchmarkFeatures100k times, over the protocol, the requests the Org
// features answer on a memex of 100,000 headlines: references of the node
// with the most backlinks, hover on an id link to it and on a headline,
// definition of that link, and completion of "[[id:" by title.
func BenchmarkFeatures100k(b *testing.B) {
	root := memex100k(b)
	// The node the most links land on, found with a memex of its own.
	mx, err := memory.Open(b.Context(), memory.Options{Roots: []string{root}})
	require.NoError(b, err)
	var target memory.Node
	best := -1
	for n := range mx.Snapshot().Nodes() {
		if n.ID() == "" {
			continue
		}
		if k := len(mx.Snapshot().IDLinks(n.ID())); k > best {
			target, best = n, k
		}
	}
	require.NoError(b, mx.Close(b.Context()))
	require.True(b, target.Valid())
	bench := filepath.Join(root, "bench.org")
	text := "* Bench links to [[id:" + target.ID() + "][the target]]\nA body line.\n* Completing\n[[id:vec"
	require.NoError(b, os.WriteFile(bench, []byte(text), 0o644))
	c := benchClient(b, root)
	c.open(bench)
	at := func(off int) map[string]any {
		return map[string]any{"textDocument": map[string]any{"uri": uri.File(bench)}, "position": map[string]any{"line": strings.Count(text[:off], "\n"), "character": off - strings.LastIndex(text[:off], "\n") - 1}}
	}
	link := strings.Index(text, "[[id:") + 3
	refs := at(link)
	refs["context"] = map[string]any{"includeDeclaration": true}
	cases := []struct {
		name, method string
		params       map[string]any
	}{
		{"references", protocol.MethodTextDocumentReferences, refs},
		{"hover=link", protocol.MethodTextDocumentHover, at(link)},
		{"hover=headline", protocol.MethodTextDocumentHover, at(2)},
		{"definition", protocol.MethodTextDocumentDefinition, at(link)},
		{"completion=id", protocol.MethodTextDocumentCompletion, at(len(text))},
	}
	for _, tc := range cases {
		b.Run(tc.name, func(b *testing.B) {
			raw := timeCalls(b, c, tc.method, tc.params)
			require.NotEqual(b, "null", string(raw), "%s answers something", tc.name)
			b.ReportMetric(float64(len(raw)), "B-answer")
		})
	}
}

// BenchmarkNotes100k times, over the protocol, the notes features on the
// memex of 100,000 headlines with three files added: codeLens for a file
// of 5,000 headlines each with an :ID:, unlinked references of a node
// of two words and of one titled by a common word (the word index made
// once, before timing; goal p99 ≤ 20 ms), and
// willRenameFiles for a file 1,000 file links point to.
func BenchmarkNotes100k(b *testing.B) {
	root := memex100k(b)
	opts := memexgen.Defaults()
	opts.Seed, opts.Files, opts.Dirs, opts.Headlines, opts.IDShare = 7, 1, 1, 5000, 1
	big, err := memexgen.Generate(memexgen.BuiltinSource(), opts)
	require.NoError(b, err)
	require.NoError(b, os.MkdirAll(filepath.Join(root, "big"), 0o755))
	bigPath := filepath.Join(root, "big", "five-thousand.org")
	require.NoError(b, os.WriteFile(bigPath, big.Files[0].Data, 0o644))
	hub := filepath.Join(root, "hub", "hub.org")
	require.NoError(b, os.MkdirAll(filepath.Dir(hub), 0o755))
	require.NoError(b, os.WriteFile(hub, []byte("#+title: Hub\n* Hub headline\n* Buffer\n:PROPERTIES:\n:ID: buffer-node\n:END:\n"), 0o644))
	require.NoError(b, os.MkdirAll(filepath.Join(root, "linkers"), 0o755))
	for f := range 100 {
		var text strings.Builder
		fmt.Fprintf(&text, "#+title: Linker %d\n* Links\n", f)
		for k := range 10 {
			fmt.Fprintf(&text, "Link %d: [[file:../hub/hub.org::*Hub headline][the hub]].\n", k)
		}
		require.NoError(b, os.WriteFile(filepath.Join(root, "linkers", fmt.Sprintf("l%03d.org", f)), []byte(text.String()), 0o644))
	}
	c := benchClient(b, root)
	snap := c.srv.memex().Snapshot()
	hubNode, ok := snap.File(hub)
	require.True(b, ok)
	start := time.Now()
	c.srv.noteIndex.Unlinked(snap, hubNode) // the word index, made once
	b.Logf("the word index of the prose of %d files: %v", snap.FileCount(), time.Since(start))
	// The nodes the unlinked references are asked of: one titled by a
	// word of every other line (the cap, MaxUnlinked, is reached), and the
	// first of two words that some prose mentions.
	common, ok := snap.NodeByID("buffer-node")
	require.True(b, ok)
	var twoWords memory.Node
	for n := range snap.Nodes() {
		if n.Headline() >= 0 && len(strings.Fields(n.Title())) == 2 && len(c.srv.noteIndex.Unlinked(snap, n)) >= 5 {
			twoWords = n
			break
		}
	}
	require.True(b, twoWords.Valid())
	place := func(n memory.Node) map[string]any {
		return map[string]any{"uri": uri.File(n.Path()), "position": map[string]any{"line": n.Line(), "character": 2}}
	}
	b.Run("codeLens=5000-headlines", func(b *testing.B) {
		raw := timeCalls(b, c, protocol.MethodTextDocumentCodeLens, map[string]any{"textDocument": map[string]any{"uri": uri.File(bigPath)}})
		var lenses []codeLens
		require.NoError(b, json.Unmarshal(raw, &lenses))
		require.Greater(b, len(lenses), 4000)
		b.ReportMetric(float64(len(lenses)), "lenses")
	})
	for _, tc := range []struct {
		name string
		node memory.Node
	}{{"unlinked=two-words", twoWords}, {"unlinked=common-word", common}} {
		b.Run(tc.name, func(b *testing.B) {
			raw := timeCalls(b, c, protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandUnlinked, "arguments": []any{place(tc.node)}})
			var items []json.RawMessage
			require.NoError(b, json.Unmarshal(raw, &items))
			b.ReportMetric(float64(len(items)), "mentions")
		})
	}
	b.Run("willRenameFiles=1000-links", func(b *testing.B) {
		params := map[string]any{"files": []any{map[string]any{"oldUri": uri.File(hub), "newUri": uri.File(filepath.Join(root, "elsewhere", "hub.org"))}}}
		raw := timeCalls(b, c, "workspace/willRenameFiles", params)
		var we wireEdit
		require.NoError(b, json.Unmarshal(raw, &we))
		edits := 0
		for _, dc := range we.DocumentChanges {
			edits += len(dc.Edits)
		}
		for _, es := range we.Changes {
			edits += len(es)
		}
		require.Equal(b, 1000, edits)
		b.ReportMetric(float64(edits), "edits")
	})
}
