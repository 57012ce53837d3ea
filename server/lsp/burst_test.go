package lsp

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"runtime/pprof"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
)

// The edit-burst harness (issue 23): the server runs in a child process
// (this test binary again, as the binary runs it: stdin and stdout, the
// memory budget on), and a client on its pipes opens one large generated
// buffer and sends N one-character edits back to back, then one request.
// The child reports, after the session, the buffer's text as the memex
// held it last (its SHA-256), the heap in use after a GC, and its peak
// RSS (VmHWM).

// burstShape is one kind of large Org file.
type burstShape struct {
	name string
	// gen writes about size bytes of Org text.
	gen func(size int) []byte
}

var burstShapes = []burstShape{
	{"plain-headlines", func(size int) []byte {
		var b bytes.Buffer
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "* Headline number %d about gardens\n", i)
			for k := range 12 {
				fmt.Fprintf(&b, "Body line %d of %d: plain prose about soil, water and the light of the morning.\n", k, i)
			}
		}
		return b.Bytes()
	}},
	{"body-links", func(size int) []byte {
		var b bytes.Buffer
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "* Topic %d\n:PROPERTIES:\n:ID: topic-%d\n:END:\n", i, i)
			for k := range 8 {
				switch k % 4 {
				case 0:
					fmt.Fprintf(&b, "See [[id:topic-%d][topic %d]] too.\n", i/2, i/2)
				case 1:
					fmt.Fprintf(&b, "Also [[*Topic %d]] here.\n", i/3)
				case 2:
					fmt.Fprintf(&b, "Web [[https://example.org/p/%d][page]].\n", i*8+k)
				default:
					fmt.Fprintf(&b, "File [[file:other-%d.org][other]].\n", i%50)
				}
			}
		}
		return b.Bytes()
	}},
	{"broken-ids", func(size int) []byte {
		var b bytes.Buffer
		for i := 0; b.Len() < size; i++ {
			fmt.Fprintf(&b, "* Note %d\nA line about the garden and its paths; see [[id:missing-%d]].\n", i, i)
		}
		return b.Bytes()
	}},
}

// burstReport is what the child says after the session.
type burstReport struct {
	SHA       string
	HeapMB    float64
	PeakRSSMB float64
}

// burstChild serves LSP on stdin/stdout in root (args[0]) and, once the
// session ends, prints the report: the SHA-256 of the buffer the memex
// held last (args[1] is its path), the heap in use after a GC, VmHWM.
func burstChild(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "want ROOT PATH")
		return 2
	}
	// PP_BURST_CPUPROFILE names a file for a CPU profile of the session
	// (go tool pprof), to find where a burst's time goes.
	if f := os.Getenv("PP_BURST_CPUPROFILE"); f != "" {
		out, err := os.Create(f)
		if err == nil && pprof.StartCPUProfile(out) == nil {
			defer pprof.StopCPUProfile()
		}
	}
	// PP_BURST_PEAKPROFILE names a file for a heap profile taken when the
	// heap in use is at its highest (sampled every 20 ms): what a burst's
	// peak is made of.
	if f := os.Getenv("PP_BURST_PEAKPROFILE"); f != "" {
		go peakProfile(f)
	}
	srv := New(Options{WorkDir: args[0], ManageMemory: true})
	got := make(chan *burstHold, 1)
	go func() {
		<-srv.ready
		mx := srv.memex()
		got <- &burstHold{mx: mx}
		if mx != nil && mx.WaitEmbedded(context.Background()) == nil {
			fmt.Fprintln(os.Stderr, "\nburst-embedded") // the client's cue: settled
		}
	}()
	err := srv.Serve(context.Background(), pipeConn{Reader: os.Stdin, Writer: os.Stdout, closers: []io.Closer{os.Stdin, os.Stdout}})
	if err != nil {
		fmt.Fprintln(os.Stderr, "serve:", err)
	}
	h := <-got
	sum := "none"
	if h.mx != nil {
		if n, ok := h.mx.Snapshot().File(args[1]); ok {
			s := sha256.Sum256(n.Org().Src)
			sum = hex.EncodeToString(s[:])
		}
	}
	srv = nil
	runtime.GC()
	runtime.GC()
	var ms runtime.MemStats
	runtime.ReadMemStats(&ms)
	// PP_BURST_HEAPPROFILE names a file for a heap profile of what the
	// session left (the memex's last snapshot).
	if f := os.Getenv("PP_BURST_HEAPPROFILE"); f != "" {
		if out, err := os.Create(f); err == nil {
			pprof.WriteHeapProfile(out)
			out.Close()
		}
	}
	runtime.KeepAlive(h)
	fmt.Fprintf(os.Stderr, "\nburst-report sha=%s heap=%d hwm_kb=%d\n", sum, ms.HeapInuse, procStatusKB("VmHWM"))
	return 0
}

// peakProfile writes a heap profile to path whenever the heap in use
// passes its highest so far by 8 MB, so that the file holds the peak's.
func peakProfile(path string) {
	var top uint64
	var ms runtime.MemStats
	for range time.Tick(20 * time.Millisecond) {
		runtime.ReadMemStats(&ms)
		if ms.HeapInuse < top+8<<20 {
			continue
		}
		top = ms.HeapInuse
		if out, err := os.Create(path); err == nil {
			pprof.Lookup("heap").WriteTo(out, 0)
			out.Close()
		}
		fmt.Fprintf(os.Stderr, "burst-peak heap=%d MB\n", top>>20)
	}
}

// burstHold keeps the memex (and so its last snapshot) past the session.
type burstHold struct{ mx *memory.Memex }

// procStatusKB reads a "kB" field of /proc/self/status (-1 without /proc).
func procStatusKB(field string) int {
	data, err := os.ReadFile("/proc/self/status")
	if err != nil {
		return -1
	}
	for line := range strings.SplitSeq(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == field {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return n
		}
	}
	return -1
}

// burstResult is what one run measured.
type burstResult struct {
	report burstReport
	want   string        // the SHA-256 of the client's text
	burst  time.Duration // sending the edits
	// catchUp is from the last edit sent to both the answer of a request
	// sent after it and the diagnostics of the last version.
	catchUp   time.Duration
	request   time.Duration // from the last edit sent to the request's answer
	diagCount int           // diagnostics in the last publication
	diagLast  string        // the last diagnostic's message
}

// lspChild is a server in a child process and a client on its pipes.
type lspChild struct {
	t      testing.TB
	ctx    context.Context
	cmd    *exec.Cmd
	conn   jsonrpc2.Conn
	stderr *testenv.SyncBuffer
	done   chan error
	bc     *burstClient
}

// startChild starts the server on root (path: the file whose final text
// the child reports) and initializes it; it returns once the memex is up.
func startChild(t testing.TB, root, path string) *lspChild {
	t.Helper()
	dir := t.TempDir()
	env := append(os.Environ(), "HOME="+dir, "XDG_CONFIG_HOME="+filepath.Join(dir, "config"), "PASSEPARTOUT_DATA_DIR="+filepath.Join(dir, "data"), "HEARTBEAT_INTERVAL=3600")
	cmd := testenv.ChildCommand(t, "burst", env, root, path)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	c := &lspChild{t: t, cmd: cmd, stderr: &testenv.SyncBuffer{}, done: make(chan error, 1), bc: &burstClient{uri: uri.File(path), diags: make(chan publishParams, 1)}}
	cmd.Stderr = c.stderr
	require.NoError(t, cmd.Start())
	go func() { c.done <- cmd.Wait() }()
	ctx, cancel := context.WithCancel(context.Background())
	c.ctx = ctx
	c.conn = jsonrpc2.NewConn(jsonrpc2.NewStream(pipeConn{Reader: stdout, Writer: stdin, closers: []io.Closer{stdout, stdin}}), jsonrpc2.WithCodec(codec{}))
	c.conn.Go(ctx, c.bc.handle)
	t.Cleanup(func() {
		c.conn.Close()
		cancel()
		select {
		case <-c.done:
		case <-time.After(30 * time.Second):
			cmd.Process.Kill()
			<-c.done
		}
	})
	c.call(protocol.MethodInitialize, map[string]any{
		"processId": os.Getpid(), "rootUri": string(uri.File(root)),
		"capabilities": capabilities(clientEglot),
	}, nil)
	c.notify(protocol.MethodInitialized, map[string]any{})
	c.call(protocol.MethodWorkspaceSymbol, map[string]any{"query": "zzz"}, nil) // waits for the memex
	return c
}

// call makes a request and fails the test on an error.
func (c *lspChild) call(method string, params any, result any) {
	c.t.Helper()
	var raw json.RawMessage
	_, err := c.conn.Call(c.ctx, method, params, &raw)
	require.NoError(c.t, err, "%s; the server's log: %s", method, c.stderr.String())
	if result != nil {
		require.NoError(c.t, json.Unmarshal(raw, result))
	}
}

func (c *lspChild) notify(method string, params any) {
	c.t.Helper()
	require.NoError(c.t, c.conn.Notify(c.ctx, method, params))
}

// waitEmbedded waits until the memex has embedded every node.
func (c *lspChild) waitEmbedded(within time.Duration) {
	c.t.Helper()
	deadline := time.Now().Add(within)
	for !strings.Contains(c.stderr.String(), "burst-embedded") {
		if time.Now().After(deadline) {
			c.t.Fatalf("the memex did not finish embedding within %v", within)
		}
		time.Sleep(50 * time.Millisecond)
	}
}

// rssMB is the child's resident set now (VmRSS), in MB.
func (c *lspChild) rssMB() float64 {
	data, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", c.cmd.Process.Pid))
	require.NoError(c.t, err)
	for line := range strings.SplitSeq(string(data), "\n") {
		if k, v, ok := strings.Cut(line, ":"); ok && k == "VmRSS" {
			n, _ := strconv.Atoi(strings.TrimSuffix(strings.TrimSpace(v), " kB"))
			return float64(n) / 1024
		}
	}
	c.t.Fatal("no VmRSS")
	return 0
}

// finish ends the session and returns the child's report.
func (c *lspChild) finish() burstReport {
	c.t.Helper()
	c.call(protocol.MethodShutdown, nil, nil)
	c.notify(protocol.MethodExit, nil)
	select {
	case err := <-c.done:
		c.done <- err
	case <-time.After(60 * time.Second):
		c.t.Fatalf("the server did not exit; its log: %s", c.stderr.String())
	}
	out := c.stderr.String()
	i := strings.LastIndex(out, "burst-report ")
	require.GreaterOrEqual(c.t, i, 0, "the child's report; its log: %s", out)
	var r burstReport
	var heap, hwm int
	_, err := fmt.Sscanf(strings.TrimSpace(out[i:]), "burst-report sha=%s heap=%d hwm_kb=%d", &r.SHA, &heap, &hwm)
	require.NoError(c.t, err, out[i:])
	r.HeapMB, r.PeakRSSMB = float64(heap)/(1<<20), float64(hwm)/1024
	return r
}

// runBurst runs one shape at size bytes with edits one-character edits.
func runBurst(t testing.TB, shape burstShape, size, edits int) burstResult {
	t.Helper()
	root := t.TempDir()
	text := shape.gen(size)
	path := filepath.Join(root, "big.org")
	require.NoError(t, os.WriteFile(path, text, 0o644))
	c := startChild(t, root, path)
	u := uri.File(path)
	c.notify(protocol.MethodTextDocumentDidOpen, map[string]any{"textDocument": map[string]any{"uri": u, "languageId": "org", "version": 1, "text": string(text)}})
	c.bc.waitVersion(t, 1, 60*time.Second)

	// The edits: one character at the end of the title of headlines
	// spread over the file (each on its own line, in file order, so the
	// client's positions need no shifting).
	var heads []int // offsets of headline line ends
	for off := 0; off < len(text); {
		nl := bytes.IndexByte(text[off:], '\n')
		if nl < 0 {
			break
		}
		if text[off] == '*' {
			heads = append(heads, off+nl)
		}
		off += nl + 1
	}
	require.GreaterOrEqual(t, len(heads), edits)
	final := make([]byte, 0, len(text)+edits)
	prev := 0
	start := time.Now()
	for i := range edits {
		end := heads[i*len(heads)/edits]
		line := bytes.Count(text[:end], []byte{'\n'})
		col := end - (bytes.LastIndexByte(text[:end], '\n') + 1)
		pos := map[string]int{"line": line, "character": col}
		c.notify(protocol.MethodTextDocumentDidChange, map[string]any{
			"textDocument":   map[string]any{"uri": u, "version": 2 + i},
			"contentChanges": []any{map[string]any{"range": map[string]any{"start": pos, "end": pos}, "text": "x"}},
		})
		final = append(append(final, text[prev:end]...), 'x')
		prev = end
	}
	final = append(final, text[prev:]...)
	sent := time.Now()
	var res burstResult
	res.burst = sent.Sub(start)
	c.call(protocol.MethodTextDocumentHover, map[string]any{"textDocument": map[string]any{"uri": u}, "position": map[string]int{"line": 0, "character": 2}}, nil)
	res.request = time.Since(sent)
	last := c.bc.waitVersion(t, int32(1+edits), 120*time.Second)
	res.catchUp = time.Since(sent)
	res.diagCount = len(last.Diagnostics)
	if n := len(last.Diagnostics); n > 0 {
		res.diagLast = last.Diagnostics[n-1].Message
	}
	sum := sha256.Sum256(final)
	res.want = hex.EncodeToString(sum[:])
	res.report = c.finish()
	return res
}

// burstClient answers the server's requests and keeps the latest
// diagnostics (one document).
type burstClient struct {
	uri   uri.URI            // the document whose diagnostics are kept
	diags chan publishParams // the latest, replacing an unread one
}

func (c *burstClient) handle(_ context.Context, req *jsonrpc2.Request) (any, error) {
	switch req.Method() {
	case protocol.MethodTextDocumentPublishDiagnostics:
		var p publishParams
		if err := json.Unmarshal(req.Params(), &p); err == nil && p.URI == c.uri {
			for {
				select {
				case c.diags <- p:
					return nil, nil
				default:
				}
				select {
				case <-c.diags:
				default:
				}
			}
		}
	case protocol.MethodWorkspaceConfiguration:
		return []json.RawMessage{json.RawMessage("null")}, nil
	}
	return nil, nil
}

// waitVersion waits for the diagnostics of version v.
func (c *burstClient) waitVersion(t testing.TB, v int32, within time.Duration) publishParams {
	t.Helper()
	deadline := time.After(within)
	for {
		select {
		case p := <-c.diags:
			if p.Version != nil && *p.Version == v {
				return p
			}
		case <-deadline:
			t.Fatalf("no diagnostics of version %d within %v", v, within)
		}
	}
}

// TestEditBurst sends a burst of one-character edits to a large buffer of
// each shape and checks the outcome: every edit applied (the memex's text
// is the client's), a request after the burst answered, the diagnostics
// of the last version published and bounded, and the heap after a GC
// bounded. The full size is BenchmarkEditBurst12MB's.
func TestEditBurst(t *testing.T) {
	size, edits := testenv.Scale(3<<20, 2<<20), 200
	for _, shape := range burstShapes {
		t.Run(shape.name, func(t *testing.T) {
			res := runBurst(t, shape, size, edits)
			assert.Equal(t, res.want, res.report.SHA, "the memex holds the client's text")
			assert.LessOrEqual(t, res.diagCount, maxDiagnostics+1)
			if shape.name != "plain-headlines" {
				assert.Equal(t, maxDiagnostics+1, res.diagCount, "a thousand, and the summary")
				assert.Regexp(t, `^… and [0-9,]+ more broken links in this file \(only the first 1,000 are listed\)$`, res.diagLast)
			}
			assert.Less(t, res.report.HeapMB, 150.0, "heap in use after GC, MB")
			t.Logf("%s: peak RSS %.0f MB, heap after GC %.0f MB, burst sent in %v, request answered %v and caught up %v after it, %d diagnostics",
				shape.name, res.report.PeakRSSMB, res.report.HeapMB, res.burst, res.request, res.catchUp, res.diagCount)
		})
	}
}

// BenchmarkEditBurst12MB is issue 23's scenario at full size: a 12 MB
// buffer of each shape, 400 one-character edits back to back, then a
// request; it reports the server's peak RSS and the time from the last
// edit sent until the request was answered and the last version's
// diagnostics arrived (goal: ≤ 400 MB, ≤ 2 s).
func BenchmarkEditBurst12MB(b *testing.B) {
	for _, shape := range burstShapes {
		b.Run(shape.name, func(b *testing.B) {
			var res burstResult
			for b.Loop() {
				res = runBurst(b, shape, 12<<20, 400)
			}
			require.Equal(b, res.want, res.report.SHA, "the memex holds the client's text")
			b.ReportMetric(res.report.PeakRSSMB, "peak-RSS-MB")
			b.ReportMetric(res.report.HeapMB, "heap-MB")
			b.ReportMetric(res.catchUp.Seconds(), "catch-up-s")
			b.ReportMetric(res.request.Seconds(), "request-s")
			b.ReportMetric(float64(res.diagCount), "diagnostics")
		})
	}
}
