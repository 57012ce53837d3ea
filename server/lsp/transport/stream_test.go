package transport

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"sync"
	"testing"
	"testing/iotest"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
)

// frameOf is body with its header, as a client writes it.
func frameOf(body string) string { return fmt.Sprintf("Content-Length: %d\r\n\r\n%s", len(body), body) }

// goodCall is the well-formed request every case ends with: reading must
// get to it whatever came before.
const goodCall = `{"jsonrpc":"2.0","id":"good","method":"workspace/symbol","params":{"query":"x"}}`

// memConn is a connection whose input is fixed bytes and whose output is
// kept.
type memConn struct {
	in  io.Reader
	mu  sync.Mutex
	out bytes.Buffer
}

func (c *memConn) Read(p []byte) (int, error) { return c.in.Read(p) }
func (c *memConn) Write(p []byte) (int, error) {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.out.Write(p)
}
func (c *memConn) Close() error { return nil }

// reply is one error response the stream sent, as the test reads it.
type reply struct {
	ID      string // the id's JSON
	Code    int64
	Message string
}

// parseReplies reads the frames in out strictly (a header with exactly
// Content-Length, CRLF) and returns the error responses in them, those of
// a batch answer flattened.
func parseReplies(t testing.TB, out []byte) []reply {
	t.Helper()
	var got []reply
	br := bufio.NewReader(bytes.NewReader(out))
	for {
		line, err := br.ReadString('\n')
		if err == io.EOF && line == "" {
			return got
		}
		require.NoError(t, err)
		require.True(t, strings.HasPrefix(line, "Content-Length: ") && strings.HasSuffix(line, "\r\n"), "header line %q", line)
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "Content-Length: "), "\r\n"))
		require.NoError(t, err)
		blank, err := br.ReadString('\n')
		require.NoError(t, err)
		require.Equal(t, "\r\n", blank)
		body := make([]byte, n)
		_, err = io.ReadFull(br, body)
		require.NoError(t, err)
		require.True(t, json.Valid(body), "the answer is JSON: %s", body)
		var many []json.RawMessage
		if body[0] == '[' {
			require.NoError(t, json.Unmarshal(body, &many))
			require.NotEmpty(t, many, "a batch answer is never empty")
		} else {
			many = []json.RawMessage{body}
		}
		for _, m := range many {
			var r struct {
				JSONRPC string          `json:"jsonrpc"`
				ID      json.RawMessage `json:"id"`
				Result  json.RawMessage `json:"result"`
				Error   *struct {
					Code    int64  `json:"code"`
					Message string `json:"message"`
				} `json:"error"`
			}
			require.NoError(t, json.Unmarshal(m, &r))
			require.Equal(t, "2.0", r.JSONRPC)
			require.NotNil(t, r.Error, "only errors are answered: %s", m)
			require.Nil(t, r.Result)
			require.NotEmpty(t, r.ID, "an answer always has an id, null when unknown: %s", m)
			got = append(got, reply{ID: string(r.ID), Code: r.Error.Code, Message: r.Error.Message})
		}
	}
}

// readAll reads messages until the input's end and returns them, the
// answers sent, and the final error.
func readAll(t testing.TB, input string, opts Options) ([]jsonrpc2.Message, []reply, error) {
	t.Helper()
	c := &memConn{in: strings.NewReader(input)}
	s := NewStream(c, opts)
	var msgs []jsonrpc2.Message
	for {
		m, _, err := s.Read(context.Background())
		if err != nil {
			return msgs, parseReplies(t, c.out.Bytes()), err
		}
		// Keep an owned copy: the next Read reuses the buffer.
		b := jsonrpc2.AppendMessage(nil, m)
		owned, derr := jsonrpc2.DecodeMessage(b)
		require.NoError(t, derr)
		msgs = append(msgs, owned)
	}
}

// describe names a message for comparison: "call ID METHOD",
// "notification METHOD" or "response ID error MESSAGE".
func describe(m jsonrpc2.Message) string {
	switch m := m.(type) {
	case *jsonrpc2.Call:
		return fmt.Sprintf("call %v %s", m.ID(), m.Method())
	case *jsonrpc2.Notification:
		return "notification " + m.Method()
	case *jsonrpc2.Response:
		if m.Err() != nil {
			return fmt.Sprintf("response %v error %s", m.ID(), m.Err())
		}
		return fmt.Sprintf("response %v", m.ID())
	}
	return fmt.Sprintf("%T", m)
}

// TestHostileInput: each malformed input is answered as JSON-RPC 2.0 says
// and skipped; the well-formed request after it is read.
func TestHostileInput(t *testing.T) {
	const parse, invalid = int64(jsonrpc2.ParseError), int64(jsonrpc2.InvalidRequest)
	long := strings.Repeat("x", 100<<10)
	tests := []struct {
		name  string
		input string
		want  []reply // Message is a substring
		msgs  []string
	}{
		{"not JSON", "Content-Length: 10\r\n\r\n{not json}", []reply{{"null", parse, "not JSON: invalid character 'n' looking for beginning of object key string (at byte 2)"}}, nil},
		{"an empty body", "Content-Length: 0\r\n\r\n", []reply{{"null", parse, "not JSON"}}, nil},
		{"trailing text", frameOf(`{"jsonrpc":"2.0","method":"a"} {}`), []reply{{"null", parse, "after top-level value"}}, nil},
		{"invalid JSON inside params", frameOf(`{"jsonrpc":"2.0","id":3,"method":"x","params":{"a":}}`), []reply{{"null", parse, "not JSON"}}, nil},
		{"a number", frameOf(`42`), []reply{{"null", invalid, "a JSON number, not an object"}}, nil},
		{"a string", frameOf(`"hi"`), []reply{{"null", invalid, "a JSON string, not an object"}}, nil},
		{"null", frameOf(`null`), []reply{{"null", invalid, "a JSON null"}}, nil},
		{"true", frameOf(`true`), []reply{{"null", invalid, "a JSON boolean"}}, nil},
		{"an empty batch", frameOf(`[]`), []reply{{"null", invalid, "an empty batch"}}, nil},
		{"a batch", frameOf(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"didSomething"},{"jsonrpc":"2.0","id":"two","method":"b"},7]`),
			[]reply{{"1", invalid, "batches are not served"}, {`"two"`, invalid, "batches are not served"}, {"null", invalid, "not an object"}}, nil},
		{"a batch of notifications", frameOf(`[{"jsonrpc":"2.0","method":"a"},{"jsonrpc":"2.0","method":"b","id":null}]`), nil, nil},
		{"an object id", frameOf(`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`), []reply{{"null", invalid, `"id" must be a string or an integer`}}, nil},
		{"an array id", frameOf(`{"jsonrpc":"2.0","id":[1],"method":"x"}`), []reply{{"null", invalid, `"id" must be`}}, nil},
		{"a boolean id", frameOf(`{"jsonrpc":"2.0","id":true,"method":"x"}`), []reply{{"null", invalid, `"id" must be`}}, nil},
		{"a fractional id", frameOf(`{"jsonrpc":"2.0","id":1.5,"method":"x"}`), []reply{{"1.5", invalid, `"id" must be`}}, nil},
		{"an id beyond int64", frameOf(`{"jsonrpc":"2.0","id":123456789012345678901234567890,"method":"x"}`), []reply{{"123456789012345678901234567890", invalid, `"id" must be`}}, nil},
		{"an exponent id", frameOf(`{"jsonrpc":"2.0","id":1e400,"method":"x"}`), []reply{{"1e400", invalid, `"id" must be`}}, nil},
		{"a long string id is served", frameOf(`{"jsonrpc":"2.0","id":"` + long + `","method":"x"}`), nil, []string{"call " + long + " x"}},
		{"no jsonrpc", frameOf(`{"id":7,"method":"x"}`), []reply{{"7", invalid, `"jsonrpc" must be "2.0"`}}, nil},
		{"jsonrpc 1.0", frameOf(`{"jsonrpc":"1.0","id":"a","method":"x"}`), []reply{{`"a"`, invalid, `"jsonrpc" must be "2.0"`}}, nil},
		{"a numeric method", frameOf(`{"jsonrpc":"2.0","id":8,"method":5}`), []reply{{"8", invalid, `"method" must be a string`}}, nil},
		{"no method", frameOf(`{"jsonrpc":"2.0","id":9}`), []reply{{"9", invalid, `no "method"`}}, nil},
		{"an empty object", frameOf(`{}`), []reply{{"null", invalid, `"jsonrpc" must be "2.0"`}}, nil},
		{"a method with a result", frameOf(`{"jsonrpc":"2.0","id":10,"method":"x","result":1}`), []reply{{"10", invalid, `may not carry "result"`}}, nil},
		{"a malformed response is not answered, its call gets the error", frameOf(`{"jsonrpc":"2.0","id":5,"result":1,"error":{"code":1,"message":"x"}}`), nil,
			[]string{"response 5 error the client's answer to this request was malformed"}},
		{"a malformed response with an odd id", frameOf(`{"jsonrpc":"2.0","id":{"x":1},"result":1}`), nil, nil},
		{"a header line without a colon", "Content-Length 10\r\n\r\n{not json}", []reply{{"null", parse, `a line that is not "Name: value" ("Content-Length 10")`}}, nil},
		{"a header with no Content-Length", "Content-Type: application/vscode-jsonrpc\r\n\r\n" + goodCall[:20], []reply{{"null", parse, "no Content-Length; reading resumes at the next Content-Length header"}}, nil},
		{"a negative Content-Length", "Content-Length: -5\r\n\r\n{}", []reply{{"null", parse, `Content-Length "-5" is negative`}}, nil},
		{"an enormous Content-Length", "Content-Length: 99999999999999999999999\r\n\r\n{}", []reply{{"null", parse, "is over the limit of 134217728 bytes"}}, nil},
		{"a Content-Length over the limit", "Content-Length: 134217729\r\n\r\n{}", []reply{{"null", parse, "over the limit"}}, nil},
		{"a Content-Length that is not a number", "Content-Length: ten\r\n\r\n{}", []reply{{"null", parse, "is not a decimal number"}}, nil},
		{"a Content-Length in hex", "Content-Length: 0x10\r\n\r\n{}", []reply{{"null", parse, "is not a decimal number"}}, nil},
		{"two Content-Lengths", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}", []reply{{"null", parse, "two Content-Lengths, 2 and 3"}}, nil},
		{"a huge header line", "Content-Length: 2\r\nX-Junk: " + long + "\r\n\r\n{}", []reply{{"null", parse, "longer than 8192 bytes"}}, nil},
		{"a huge header without a newline", long, []reply{{"null", parse, "longer than 8192 bytes"}}, nil},
		{"binary garbage", "\x00\x01\xff\xfe\r\n\r\n", []reply{{"null", parse, "not \"Name: value\""}}, nil},
		{"a body shorter than stated", "Content-Length: 5\r\n\r\n" + goodCall, []reply{{"null", parse, "not JSON"}, {"null", parse, "not \"Name: value\""}}, nil},
		// Well-formed variations that are served.
		{"blank lines between messages", "\r\n\r\n \n", nil, nil},
		{"LF line endings, lower case, extra fields", "content-length: 30\nContent-Type: application/vscode-jsonrpc; charset=utf-8\n\n" + `{"jsonrpc":"2.0","method":"n"}`, nil, []string{"notification n"}},
		{"a leading zero", "Content-Length: 030\r\n\r\n" + `{"jsonrpc":"2.0","method":"n"}`, nil, []string{"notification n"}},
		{"a notification with params null", frameOf(`{"jsonrpc":"2.0","method":"exit","params":null}`), nil, []string{"notification exit"}},
		{"a response", frameOf(`{"jsonrpc":"2.0","id":4,"result":{"applied":true}}`), nil, []string{"response 4"}},
		{"an error response", frameOf(`{"jsonrpc":"2.0","id":4,"error":{"code":-32601,"message":"no"}}`), nil, []string{"response 4 error no"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			msgs, replies, err := readAll(t, tt.input+frameOf(goodCall), Options{})
			assert.ErrorIs(t, err, io.EOF)
			require.Len(t, replies, len(tt.want), "answers: %v", replies)
			for i, w := range tt.want {
				assert.Equal(t, w.ID, replies[i].ID, "answer %d", i)
				assert.Equal(t, w.Code, replies[i].Code, "answer %d", i)
				assert.Contains(t, replies[i].Message, w.Message, "answer %d", i)
			}
			var got []string
			for _, m := range msgs {
				got = append(got, describe(m))
			}
			assert.Equal(t, append(tt.msgs, "call good workspace/symbol"), got)
		})
	}
}

// TestEndOfInput: the input's end between messages is io.EOF, inside one
// io.ErrUnexpectedEOF; garbage before the end is answered first.
func TestEndOfInput(t *testing.T) {
	tests := []struct {
		name    string
		input   string
		want    error
		replies int
	}{
		{"nothing", "", io.EOF, 0},
		{"blank lines", "\r\n\r\n", io.EOF, 0},
		{"after a message", frameOf(goodCall), io.EOF, 0},
		{"inside a header", "Content-Len", io.ErrUnexpectedEOF, 0},
		{"after a header", "Content-Length: 10\r\n\r\n", io.ErrUnexpectedEOF, 0},
		{"inside a body", "Content-Length: 10\r\n\r\n{\"a\"", io.ErrUnexpectedEOF, 0},
		{"inside a body stated huge", "Content-Length: 100000000\r\n\r\n{\"a\"", io.ErrUnexpectedEOF, 0},
		{"garbage", "Content-Length: -1\r\n\r\n{}", io.EOF, 1},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, replies, err := readAll(t, tt.input, Options{})
			assert.ErrorIs(t, err, tt.want)
			if tt.want == io.EOF {
				assert.NotErrorIs(t, err, io.ErrUnexpectedEOF)
			}
			assert.Len(t, replies, tt.replies)
		})
	}
}

// TestMemoryFollowsTheInput: a header stating a huge length allocates
// nothing for it; the buffer grows with the bytes that actually arrive.
func TestMemoryFollowsTheInput(t *testing.T) {
	const stated = 100 << 20
	for _, sent := range []int{0, 10, 1 << 20} {
		t.Run(strconv.Itoa(sent), func(t *testing.T) {
			s := NewStream(&memConn{in: strings.NewReader(fmt.Sprintf("Content-Length: %d\r\n\r\n%s", stated, strings.Repeat("x", sent)))}, Options{})
			_, _, err := s.Read(context.Background())
			require.ErrorIs(t, err, io.ErrUnexpectedEOF)
			assert.LessOrEqual(t, cap(s.rd.buf), max(initialBuffer, 2*(sent+64)), "the buffer for %d bytes received", sent)
		})
	}

	// Skipping a huge header, or megabytes of garbage, takes no more.
	for name, input := range map[string]string{
		"a long header line": "Content-Length: 1\r\nX: " + strings.Repeat("y", 4<<20),
		"garbage":            strings.Repeat("garbage without a frame ", 200000),
	} {
		t.Run(name, func(t *testing.T) {
			s := NewStream(&memConn{in: strings.NewReader(input)}, Options{})
			_, _, err := s.Read(context.Background())
			require.ErrorIs(t, err, io.EOF)
			assert.LessOrEqual(t, cap(s.rd.buf), 2*DefaultMaxHeader)
		})
	}

	// A header that arrives a byte at a time grows the buffer by doubling,
	// not a byte at a time (thousands of copies).
	allocs := testing.AllocsPerRun(1, func() {
		src := iotest.OneByteReader(strings.NewReader("Content-Length: 1\r\nX: " + strings.Repeat("y", 2*DefaultMaxHeader)))
		s := NewStream(&memConn{in: src}, Options{})
		_, _, _ = s.Read(context.Background())
	})
	assert.Less(t, allocs, 50.0)

	// A large message is read, and its buffer given back after it.
	big := `{"jsonrpc":"2.0","method":"big","params":"` + strings.Repeat("z", keptBuffer) + `"}`
	c := &memConn{in: strings.NewReader(frameOf(big) + frameOf(goodCall))}
	s := NewStream(c, Options{})
	m, _, err := s.Read(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "notification big", describe(m))
	m, _, err = s.Read(context.Background())
	require.NoError(t, err)
	assert.Equal(t, "call good workspace/symbol", describe(m))
	_, _, err = s.Read(context.Background())
	require.ErrorIs(t, err, io.EOF)
	assert.Equal(t, initialBuffer, cap(s.rd.buf))
}

// TestLimits: the limits are the caller's, and a message at the limit is
// read.
func TestLimits(t *testing.T) {
	body := `{"jsonrpc":"2.0","method":"n","params":"` + strings.Repeat("p", 100) + `"}`
	msgs, replies, err := readAll(t, frameOf(body), Options{MaxMessage: len(body)})
	require.ErrorIs(t, err, io.EOF)
	assert.Empty(t, replies)
	assert.Len(t, msgs, 1)

	_, replies, _ = readAll(t, frameOf(body), Options{MaxMessage: len(body) - 1})
	require.Len(t, replies, 1)
	assert.Contains(t, replies[0].Message, fmt.Sprintf("over the limit of %d bytes", len(body)-1))

	_, replies, _ = readAll(t, "Content-Length: 2\r\nX: "+strings.Repeat("h", 100)+"\r\n\r\n{}", Options{MaxHeader: 64})
	require.Len(t, replies, 1)
	assert.Contains(t, replies[0].Message, "longer than 64 bytes")
}

// TestLogsNeverHoldTheMessage: a malformed message is logged by its
// reason, never by its text, which may be the user's notes.
func TestLogsNeverHoldTheMessage(t *testing.T) {
	var log bytes.Buffer
	const canary = "PRIVATE-CANARY-7f3a"
	input := frameOf(`{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"text":"`+canary+`"},}`) +
		frameOf(`{"jsonrpc":"1.0","id":1,"method":"x","params":{"text":"`+canary+`"}}`) +
		frameOf(`[{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"text":"`+canary+`"}}]`) +
		"Content-Length: x\r\nX-" + canary + ": 1\r\n\r\n"
	c := &memConn{in: strings.NewReader(input)}
	s := NewStream(c, Options{Logger: slog.New(slog.NewTextHandler(&log, nil))})
	for {
		if _, _, err := s.Read(context.Background()); err != nil {
			break
		}
	}
	assert.Equal(t, 4, strings.Count(log.String(), "the client sent a malformed message"), "%s", log.String())
	assert.Contains(t, log.String(), "method=x")
	assert.NotContains(t, log.String(), canary)
}

// TestTheConnectionSurvives runs a real jsonrpc2 connection on a Stream:
// hostile bytes are answered, the connection keeps serving, and a call
// the server made gets the error when the client's answer is malformed,
// instead of waiting forever.
func TestTheConnectionSurvives(t *testing.T) {
	srvIn, cliOut := io.Pipe()
	cliIn, srvOut := io.Pipe()
	conn := jsonrpc2.NewConn(NewStream(pipe{srvIn, srvOut}, Options{}))
	conn.Go(context.Background(), func(_ context.Context, req *jsonrpc2.Request) (any, error) {
		return "served " + req.Method(), nil
	})
	t.Cleanup(func() {
		cliOut.Close()
		cliIn.Close()
		conn.Close()
	})
	frames := newFrameReader(cliIn)
	send := func(s string) {
		_, err := io.WriteString(cliOut, s)
		require.NoError(t, err)
	}

	send("Content-Length: 10\r\n\r\n{not json}")
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":null,"error":{"code":-32700,"message":"parse error: the message is not JSON: invalid character 'n' looking for beginning of object key string (at byte 2)"}}`, frames.next(t))
	send(frameOf(`{"jsonrpc":"2.0","id":1,"method":"ping"}`))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":1,"result":"served ping"}`, frames.next(t))

	// The server calls the client; the client answers with garbage.
	done := make(chan error, 1)
	go func() {
		_, err := conn.Call(context.Background(), "workspace/configuration", nil, nil)
		done <- err
	}()
	var call struct {
		ID int64 `json:"id"`
	}
	require.NoError(t, json.Unmarshal([]byte(frames.next(t)), &call))
	send(frameOf(fmt.Sprintf(`{"jsonrpc":"2.0","id":%d,"result":[],"error":{"code":1}}`, call.ID)))
	select {
	case err := <-done:
		assert.ErrorContains(t, err, "the client's answer to this request was malformed")
	case <-time.After(10 * time.Second):
		t.Fatal("the call still waits for its answer")
	}
	send(frameOf(`{"jsonrpc":"2.0","id":2,"method":"still"}`))
	assert.JSONEq(t, `{"jsonrpc":"2.0","id":2,"result":"served still"}`, frames.next(t))
}

type pipe struct {
	io.Reader
	io.WriteCloser
}

// frameReader reads the frames a stream wrote, strictly.
type frameReader struct{ br *bufio.Reader }

func newFrameReader(r io.Reader) *frameReader { return &frameReader{br: bufio.NewReader(r)} }

func (f *frameReader) next(t *testing.T) string {
	t.Helper()
	type result struct {
		body string
		err  error
	}
	ch := make(chan result, 1)
	go func() {
		line, err := f.br.ReadString('\n')
		if err != nil {
			ch <- result{err: err}
			return
		}
		n, err := strconv.Atoi(strings.TrimSuffix(strings.TrimPrefix(line, "Content-Length: "), "\r\n"))
		if err != nil {
			ch <- result{err: fmt.Errorf("header %q: %w", line, err)}
			return
		}
		if blank, err := f.br.ReadString('\n'); err != nil || blank != "\r\n" {
			ch <- result{err: errors.New("no blank line after the header")}
			return
		}
		b := make([]byte, n)
		_, err = io.ReadFull(f.br, b)
		ch <- result{string(b), err}
	}()
	select {
	case r := <-ch:
		require.NoError(t, r.err)
		return r.body
	case <-time.After(10 * time.Second):
		t.Fatal("no answer within 10s")
		return ""
	}
}

// TestBufferedSeesABurst: the messages a client sent back to back are
// seen queued (Buffered) while the first is handled, the buffer grows to
// take a burst in one read, and the last one leaves nothing queued.
func TestBufferedSeesABurst(t *testing.T) {
	const n = 600
	note := `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"contentChanges":[{"text":"x"}]}}`
	s := NewStream(&memConn{in: strings.NewReader(strings.Repeat(frameOf(note), n))}, Options{})
	queued := 0
	for i := range n {
		_, _, err := s.Read(context.Background())
		require.NoError(t, err, "message %d", i)
		if s.Buffered() > 0 {
			queued++
		}
	}
	assert.Zero(t, s.Buffered(), "nothing queued after the last")
	assert.Greater(t, queued, n*9/10, "most messages of the burst found the next one queued")
	assert.Equal(t, burstBuffer, cap(s.rd.buf), "the buffer grew to take a burst in")
}
