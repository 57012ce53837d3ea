package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf16"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory/memexgen"
)

// The client-side figures of issue 22, measured as an editor sees them:
// the server in a child process (lspChild), spoken to over its pipes.

// BenchmarkClientRSS100k is the resident set of the server holding a
// generated memex of 100,000 headlines in 2,000 files, once it has
// embedded every node and a moment has passed (goal: ≤ 200 MB).
func BenchmarkClientRSS100k(b *testing.B) {
	root := b.TempDir()
	opts := memexgen.Defaults()
	opts.Files, opts.Headlines, opts.Dirs, opts.Seed = 2000, 100_000, 20, 42
	m, err := memexgen.Generate(memexgen.BuiltinSource(), opts)
	require.NoError(b, err)
	require.NoError(b, m.WriteDir(root))
	var rss float64
	var r burstReport
	for b.Loop() {
		c := startChild(b, root, filepath.Join(root, "none.org"))
		c.waitEmbedded(5 * time.Minute)
		time.Sleep(3 * time.Second) // settled: the scavenger has returned what it will
		rss = c.rssMB()
		r = c.finish()
	}
	b.ReportMetric(rss, "settled-RSS-MB")
	b.ReportMetric(r.PeakRSSMB, "peak-RSS-MB")
	b.ReportMetric(r.HeapMB, "heap-MB")
	b.ReportMetric(float64(m.Bytes())/(1<<20), "MB-memex")
}

// BenchmarkClientCorpusDocOrg opens the largest file of the shared corpus
// (worg's doc.org, 1.2 MB) in a server on the corpus, makes 20
// one-character edits at its end, each waited for until its diagnostics
// arrive, then asks for its outline 20 times. It reports the p50 of
// didChange → publishDiagnostics (goal ≤ 5 ms), of documentSymbol (goal
// ≤ 5 ms), and the resident set after the edits (goal ≤ 70 MB).
func BenchmarkClientCorpusDocOrg(b *testing.B) {
	root := filepath.Join(testenv.SharedDir(b), "corpus", "org")
	path := filepath.Join(root, "worg", "doc.org")
	text, err := os.ReadFile(path)
	require.NoError(b, err)
	var edit, symbols []time.Duration
	var ready, after float64
	for b.Loop() {
		c := startChild(b, root, path)
		c.waitEmbedded(5 * time.Minute)
		ready = c.rssMB()
		u := uri.File(path)
		c.notify(protocol.MethodTextDocumentDidOpen, map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "org", "version": 1, "text": string(text)}})
		c.bc.waitVersion(b, 1, time.Minute)
		// The end of the file, as the client counts it (ASCII at the end
		// of worg's doc.org is not assumed: UTF-16 units of the last line).
		s := string(text)
		line := strings.Count(s, "\n")
		last := s[strings.LastIndex(s, "\n")+1:]
		col := len(utf16.Encode([]rune(last)))
		edit = edit[:0]
		for i := range 20 {
			pos := map[string]int{"line": line, "character": col + i}
			start := time.Now()
			c.notify(protocol.MethodTextDocumentDidChange, map[string]any{
				"textDocument":   map[string]any{"uri": u, "version": 2 + i},
				"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": "x"}},
			})
			c.bc.waitVersion(b, int32(2+i), time.Minute)
			edit = append(edit, time.Since(start))
		}
		after = c.rssMB()
		symbols = symbols[:0]
		params := map[string]any{"textDocument": map[string]any{"uri": u}}
		for range 20 {
			start := time.Now()
			c.call(protocol.MethodTextDocumentDocumentSymbol, params, nil)
			symbols = append(symbols, time.Since(start))
		}
		c.finish()
	}
	b.ReportMetric(ready, "ready-RSS-MB")
	b.ReportMetric(after, "edited-RSS-MB")
	reportPercentilesAs(b, edit, "didChange-diags")
	reportPercentilesAs(b, symbols, "documentSymbol")
}

// BenchmarkDocOrgParts splits BenchmarkClientCorpusDocOrg's edit into its
// parts, in-process, with their allocations: the memex's EditBuffer of
// one character at the end of doc.org, the file's diagnostics, and its
// outline as JSON.
func BenchmarkDocOrgParts(b *testing.B) {
	root := filepath.Join(testenv.SharedDir(b), "corpus", "org")
	path := filepath.Join(root, "worg", "doc.org")
	c := benchClient(b, root)
	c.open(path)
	mx := c.srv.memex()
	n, ok := mx.Snapshot().File(path)
	require.True(b, ok)
	off := len(n.Org().Src)
	version := int32(1000)
	b.Run("EditBuffer", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			version++
			if _, err := mx.EditBuffer(c.ctx, path, version, memoryEdit(off)); err != nil {
				b.Fatal(err)
			}
			off++
		}
	})
	b.Run("diagnostics", func(b *testing.B) {
		b.ReportAllocs()
		v := c.srv.view()
		for b.Loop() {
			v.diagnostics(path)
		}
	})
	b.Run("outline-json", func(b *testing.B) {
		b.ReportAllocs()
		f, _ := c.srv.view().snap.File(path)
		for b.Loop() {
			appendOutline(nil, f.Org())
		}
	})
}
