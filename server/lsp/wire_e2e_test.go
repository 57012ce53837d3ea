package lsp

import (
	"bufio"
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"pp-lsp/internal/testenv"
)

// The wire scripts drive the built binary, `pp-lsp --stdio`, over its
// stdin and stdout, byte for byte: each testdata/wire/*.txtar is one
// process's session. Files named memex/… are its working directory (the
// memex). The file "script" holds one command per line (blank lines and
// lines starting with # are ignored):
//
//	send "GO STRING"     these bytes, as they are, to the server's stdin
//	sendn N "GO STRING"  the same bytes N times
//	frame JSON           the JSON with a correct Content-Length header
//	> ANSWER             the next response the server sends, as
//	                     "error ID CODE: MESSAGE" or "result ID JSON" (a
//	                     result over 200 bytes is shown as {…}); those of
//	                     a batch's answer one by one
//
// In every command the session's folder is written $TMP.
//	log "TEXT"           the server's log (stderr) so far holds TEXT
//	no-log "TEXT"        it does not (at the end of the session too)
//	close                close the server's stdin
//	exit N               the process ends with status N within 10s
//
// Every response must be expected: one the script did not expect fails
// it. The server's notifications are ignored and its requests answered
// with null, as a plain client would.

func TestWireScripts(t *testing.T) {
	bin := buildBinary(t)
	testenv.Scenarios(t, "testdata/wire/*.txtar", func(t *testing.T, f string) {
		runWireScript(t, bin, f)
	})
}

// buildBinary builds pp-lsp into the test's temporary directory.
func buildBinary(t *testing.T) string {
	t.Helper()
	bin := filepath.Join(t.TempDir(), "pp-lsp")
	build := exec.Command("go", "build", "-o", bin, "./cmd/pp-lsp")
	build.Dir = testenv.ModuleRoot(t)
	out, err := build.CombinedOutput()
	require.NoError(t, err, "go build: %s", out)
	return bin
}

// stdioServer is the binary running `--stdio` with its pipes.
type stdioServer struct {
	t       *testing.T
	cmd     *exec.Cmd
	stdin   io.WriteCloser
	inMu    sync.Mutex
	answers chan string // the responses, summarised
	stderr  testenv.SyncBuffer
	exited  chan error
}

// startStdio runs bin --stdio in dir with a private home, data and
// configuration.
func startStdio(t *testing.T, bin, dir string) *stdioServer {
	t.Helper()
	home := filepath.Join(dir, "home")
	require.NoError(t, os.MkdirAll(home, 0o755))
	memex := filepath.Join(dir, "memex")
	require.NoError(t, os.MkdirAll(memex, 0o755))
	cmd := exec.Command(bin, "--stdio")
	cmd.Dir = memex
	cmd.Env = []string{
		"HOME=" + home, "PATH=" + os.Getenv("PATH"), "LANG=C.UTF-8",
		"XDG_CONFIG_HOME=" + filepath.Join(home, ".config"), "XDG_DATA_HOME=" + filepath.Join(home, ".local", "share"),
		"XDG_RUNTIME_DIR=" + filepath.Join(dir, "run"), "XDG_STATE_HOME=" + filepath.Join(home, ".local", "state"),
		"PASSEPARTOUT_DATA_DIR=" + filepath.Join(dir, "data"), "HEARTBEAT_INTERVAL=3600",
	}
	s := &stdioServer{t: t, cmd: cmd, answers: make(chan string, 1000), exited: make(chan error, 1)}
	cmd.Stderr = &s.stderr
	var err error
	s.stdin, err = cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	go s.readOutput(stdout)
	go func() { s.exited <- cmd.Wait() }()
	t.Cleanup(func() {
		s.stdin.Close()
		select {
		case <-s.exited:
		case <-time.After(10 * time.Second):
			_ = cmd.Process.Kill()
			<-s.exited
		}
		if t.Failed() {
			t.Logf("the server's log:\n%s", s.stderr.String())
		}
	})
	return s
}

// readOutput reads the server's frames strictly — exactly a Content-Length
// line and a blank line, CRLF — answers its requests and passes on the
// summaries of its responses. A frame that breaks the protocol is
// reported as an answer of its own, which no script expects.
func (s *stdioServer) readOutput(stdout io.Reader) {
	defer close(s.answers)
	br := bufio.NewReader(stdout)
	for {
		line, err := br.ReadString('\n')
		if err != nil {
			if line != "" {
				s.answers <- fmt.Sprintf("BROKEN OUTPUT: %q then %v", line, err)
			}
			return
		}
		n, perr := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "Content-Length: "), "\r\n"))
		blank, berr := br.ReadString('\n')
		if !strings.HasPrefix(line, "Content-Length: ") || perr != nil || berr != nil || blank != "\r\n" {
			s.answers <- fmt.Sprintf("BROKEN OUTPUT: header %q %q", line, blank)
			return
		}
		body := make([]byte, n)
		if _, err := io.ReadFull(br, body); err != nil {
			s.answers <- fmt.Sprintf("BROKEN OUTPUT: a body cut off: %v", err)
			return
		}
		if bytes.HasPrefix(body, []byte("[")) { // a batch's answer: its responses in turn
			var ms []map[string]json.RawMessage
			if err := json.Unmarshal(body, &ms); err != nil || len(ms) == 0 {
				s.answers <- fmt.Sprintf("BROKEN OUTPUT: not an array of responses: %s", body)
				return
			}
			for _, m := range ms {
				s.answers <- summariseResponse(m)
			}
			continue
		}
		var m map[string]json.RawMessage
		if err := json.Unmarshal(body, &m); err != nil {
			s.answers <- fmt.Sprintf("BROKEN OUTPUT: not a JSON object: %s", body)
			return
		}
		if _, ok := m["method"]; ok {
			if id, ok := m["id"]; ok {
				answer := fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"result":null}`, id)
				_ = s.write(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(answer), answer))
			}
			continue
		}
		s.answers <- summariseResponse(m)
	}
}

// summariseResponse is how a script shows a response.
func summariseResponse(m map[string]json.RawMessage) string {
	if e, ok := m["error"]; ok {
		var je struct {
			Code    int64  `json:"code"`
			Message string `json:"message"`
		}
		_ = json.Unmarshal(e, &je)
		return fmt.Sprintf("error %s %d: %s", m["id"], je.Code, je.Message)
	}
	var compact bytes.Buffer
	_ = json.Compact(&compact, m["result"])
	return fmt.Sprintf("result %s %s", m["id"], compact.String())
}

// shorten writes the session's folder as $TMP and a result over 200 bytes
// as {…} or […].
func shorten(answer, dir string) string {
	answer = strings.ReplaceAll(answer, dir, "$TMP")
	if rest, ok := strings.CutPrefix(answer, "result "); ok {
		id, r, _ := strings.Cut(rest, " ")
		if len(r) > 200 {
			return fmt.Sprintf("result %s %s…%s", id, r[:1], r[len(r)-1:])
		}
	}
	return answer
}

func (s *stdioServer) write(b string) error {
	s.inMu.Lock()
	defer s.inMu.Unlock()
	_, err := io.WriteString(s.stdin, b)
	return err
}

// next waits for the next response.
func (s *stdioServer) next() (string, bool) {
	select {
	case a, ok := <-s.answers:
		return a, ok
	case <-time.After(20 * time.Second):
		return "TIMEOUT: no answer within 20s", true
	}
}

func runWireScript(t *testing.T, bin, file string) {
	ar, err := txtar.ParseFile(file)
	require.NoError(t, err)
	dir := t.TempDir()
	var script string
	for _, f := range ar.Files {
		if f.Name == "script" {
			script = string(f.Data)
			continue
		}
		p := filepath.Join(dir, filepath.FromSlash(f.Name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, f.Data, 0o644))
	}
	require.NotEmpty(t, script, "the archive has no script")
	s := startStdio(t, bin, dir)
	var noLog []string
	for n, line := range strings.Split(script, "\n") {
		line = strings.TrimSpace(line)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		where := fmt.Sprintf("%s:%d: %s", filepath.Base(file), n+1, line)
		verb, arg, _ := strings.Cut(line, " ")
		unquote := func() string {
			v, err := strconv.Unquote(arg)
			require.NoError(t, err, where)
			return v
		}
		switch verb {
		case "send":
			require.NoError(t, s.write(strings.ReplaceAll(unquote(), "$TMP", dir)), where)
		case "sendn":
			count, rest, _ := strings.Cut(arg, " ")
			k, err := strconv.Atoi(count)
			require.NoError(t, err, where)
			arg = rest
			require.NoError(t, s.write(strings.Repeat(unquote(), k)), where)
		case "frame":
			arg = strings.ReplaceAll(arg, "$TMP", dir)
			require.True(t, json.Valid([]byte(arg)), "%s: not JSON", where)
			require.NoError(t, s.write(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(arg), arg)), where)
		case ">":
			got, ok := s.next()
			require.True(t, ok, "%s: the server closed its output", where)
			assert.Equal(t, arg, shorten(got, dir), where)
		case "log":
			want := unquote()
			assert.Eventually(t, func() bool { return strings.Contains(s.stderr.String(), want) }, 10*time.Second, 20*time.Millisecond, "%s: not in the log:\n%s", where, s.stderr.String())
		case "no-log":
			noLog = append(noLog, unquote())
			assert.NotContains(t, s.stderr.String(), noLog[len(noLog)-1], where)
		case "close":
			require.NoError(t, s.stdin.Close(), where)
		case "exit":
			want, err := strconv.Atoi(arg)
			require.NoError(t, err, where)
			select {
			case err := <-s.exited:
				s.exited <- err
				code := 0
				var ee *exec.ExitError
				if errors.As(err, &ee) {
					code = ee.ExitCode()
				}
				assert.Equal(t, want, code, "%s: %v", where, err)
			case <-time.After(10 * time.Second):
				t.Fatalf("%s: the server is still running", where)
			}
		default:
			t.Fatalf("%s: unknown command", where)
		}
	}
	// Nothing unexpected came after.
	select {
	case a, ok := <-s.answers:
		if ok {
			t.Errorf("%s: an answer the script did not expect: %s", filepath.Base(file), a)
		}
	case <-time.After(100 * time.Millisecond):
	}
	for _, text := range noLog {
		assert.NotContains(t, s.stderr.String(), text, "at the end of the session")
	}
}

// TestWireMemoryIsBounded feeds the binary what would make a naive reader
// allocate gigabytes — a header stating 2 GB, megabytes of garbage, a body
// stated at 100 MB of which little arrives — and checks the process's peak
// memory, then that it still answers.
func TestWireMemoryIsBounded(t *testing.T) {
	if runtime.GOOS != "linux" {
		t.Skip("reads the peak memory from /proc")
	}
	bin := buildBinary(t)
	s := startStdio(t, bin, t.TempDir())
	peak := func() int {
		b, err := os.ReadFile(fmt.Sprintf("/proc/%d/status", s.cmd.Process.Pid))
		require.NoError(t, err)
		for l := range strings.SplitSeq(string(b), "\n") {
			if v, ok := strings.CutPrefix(l, "VmHWM:"); ok {
				kb, err := strconv.Atoi(strings.TrimSpace(strings.TrimSuffix(strings.TrimSpace(v), "kB")))
				require.NoError(t, err)
				return kb << 10
			}
		}
		t.Fatal("no VmHWM")
		return 0
	}
	call := func(id int, method, params string) string {
		body := fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"method":%q,"params":%s}`, id, method, params)
		require.NoError(t, s.write(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body)))
		a, _ := s.next()
		return a
	}
	require.True(t, strings.HasPrefix(call(1, "initialize", `{"capabilities":{}}`), "result 1 {"))
	base := peak()

	const hostileHeader = "Content-Length: 2000000000\r\n\r\n"
	require.NoError(t, s.write(hostileHeader))
	garbage := strings.Repeat("{\"garbage\": \"no frame here\"} ", 2<<20/30)
	for range 25 { // 50 MB
		require.NoError(t, s.write(garbage))
	}
	a, _ := s.next()
	assert.Equal(t, `error null -32700: parse error: the Content-Length "2000000000" is over the limit of 134217728 bytes; reading resumes at the next Content-Length header`, a)
	a = call(2, "workspace/symbol", `{"query":""}`)
	assert.True(t, strings.HasPrefix(a, "result 2 "), "%s", a)
	assert.Contains(t, s.stderr.String(), fmt.Sprintf("skipped input to the next message header (bytes: %d)", len(hostileHeader)+25*len(garbage)), "the log says what was skipped")

	// A body stated at 100 MB, of which 1 MB arrives: memory follows the
	// bytes, not the header.
	require.NoError(t, s.write("Content-Length: 100000000\r\n\r\n"+strings.Repeat("x", 1<<20)))
	time.Sleep(500 * time.Millisecond)
	grown := peak() - base
	t.Logf("peak memory %d MiB at the start, %d MiB more after 51 MB of hostile input", base>>20, grown>>20)
	assert.Less(t, grown, 40<<20, "the peak memory grew with what a header stated")
	require.NoError(t, s.stdin.Close())
	select {
	case err := <-s.exited:
		var ee *exec.ExitError
		require.ErrorAs(t, err, &ee, "the input ended inside a message: status 1")
		assert.Equal(t, 1, ee.ExitCode())
		s.exited <- err
	case <-time.After(10 * time.Second):
		t.Fatal("the server did not end with its input")
	}
}
