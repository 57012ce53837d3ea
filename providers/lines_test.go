package providers

import (
	"errors"
	"io"
	"strings"
	"testing"
	"testing/iotest"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readSSE(r io.Reader) ([]sseEvent, error) {
	sr := newSSEReader(r)
	var out []sseEvent
	for {
		ev, err := sr.next()
		if errors.Is(err, io.EOF) {
			return out, nil
		}
		if err != nil {
			return out, err
		}
		out = append(out, ev)
	}
}

// TestSSEGrammar: the parts of the event-stream grammar real servers use.
func TestSSEGrammar(t *testing.T) {
	cases := []struct {
		name string
		in   string
		want []sseEvent
	}{
		{"data and blank line", "data: {}\n\n", []sseEvent{{data: []byte("{}")}}},
		{"no space after colon", "data:{}\n\n", []sseEvent{{data: []byte("{}")}}},
		{"only one space removed", "data:  x\n\n", []sseEvent{{data: []byte(" x")}}},
		{"event name", "event: message_stop\ndata: {}\n\n", []sseEvent{{name: "message_stop", data: []byte("{}")}}},
		{"comments skipped", ": keep-alive\n\n:\ndata: a\n\n", []sseEvent{{data: []byte("a")}}},
		{"multi-line data", "data: a\ndata: b\n\n", []sseEvent{{data: []byte("a\nb")}}},
		{"id and retry ignored", "id: 7\nretry: 100\ndata: a\n\n", []sseEvent{{data: []byte("a")}}},
		{"name does not leak to the next event", "event: x\ndata: 1\n\ndata: 2\n\n", []sseEvent{{name: "x", data: []byte("1")}, {data: []byte("2")}}},
		{"event without data dropped", "event: ping\n\ndata: 2\n\n", []sseEvent{{data: []byte("2")}}},
		{"CRLF", "event: a\r\ndata: 1\r\n\r\n", []sseEvent{{name: "a", data: []byte("1")}}},
		{"lone CR", "data: 1\r\rdata: 2\r\r", []sseEvent{{data: []byte("1")}, {data: []byte("2")}}},
		{"pending at EOF", "data: [DONE]", []sseEvent{{data: []byte("[DONE]")}}},
		{"field without colon", "data\n\n", []sseEvent{{}}},
		{"unknown field", "foo: bar\ndata: 1\n\n", []sseEvent{{data: []byte("1")}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := readSSE(strings.NewReader(tc.in))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			// One byte at a time: a CR at the end of a read must wait for
			// its LF.
			got, err = readSSE(iotest.OneByteReader(strings.NewReader(tc.in)))
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
}

func TestSSETruncated(t *testing.T) {
	sr := newSSEReader(strings.NewReader("data: 1\n\ndata: {\"par"))
	ev, err := sr.next()
	require.NoError(t, err)
	assert.False(t, sr.truncated())
	assert.Equal(t, "1", string(ev.data))
	ev, err = sr.next()
	require.NoError(t, err)
	assert.True(t, sr.truncated())
	assert.Equal(t, `{"par`, string(ev.data))
}

func TestLineTooLong(t *testing.T) {
	long := "data: " + strings.Repeat("x", maxLine+1) + "\n\n"
	_, err := readSSE(strings.NewReader(long))
	assert.ErrorIs(t, err, errLineTooLong)

	nd := newNDJSONReader(strings.NewReader(strings.Repeat("x", maxLine+1)))
	_, err = nd.next()
	assert.ErrorIs(t, err, errLineTooLong)
}

func TestNDJSON(t *testing.T) {
	nd := newNDJSONReader(strings.NewReader("{\"a\":1}\r\n\n  \n{\"b\":2}"))
	var lines []string
	for {
		l, err := nd.next()
		if errors.Is(err, io.EOF) {
			break
		}
		require.NoError(t, err)
		lines = append(lines, string(l))
	}
	assert.Equal(t, []string{`{"a":1}`, `{"b":2}`}, lines)
	assert.True(t, nd.truncated(), "the last line had no line end")
}

func TestNormalizeArgs(t *testing.T) {
	cases := []struct{ in, want string }{
		{``, `{}`},
		{`  `, `{}`},
		{`{"a":1}`, `{"a":1}`},
		{` {"a":1} `, `{"a":1}`},
		{`{"a":`, `"{\"a\":"`},
		{`ls -la`, `"ls -la"`},
		{`[1,2]`, `[1,2]`},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, string(normalizeArgs([]byte(tc.in))), "%q", tc.in)
	}
}

func TestAPIErrorMessage(t *testing.T) {
	cases := []struct{ in, want string }{
		{`{"error":"model 'x' not found"}`, "model 'x' not found"},
		{`{"error":{"message":"Incorrect API key","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`, "invalid_request_error/invalid_api_key: Incorrect API key"},
		{`{"error":{"message":"busy","type":"server_error","code":null}}`, "server_error: busy"},
		{`{"type":"error","error":{"type":"overloaded_error","message":"Overloaded"}}`, "overloaded_error: Overloaded"},
		{`{"message":"plain"}`, "plain"},
		{`{"detail":"Not Found"}`, "Not Found"},
		{`{"detail":[{"loc":["body","model"],"msg":"field required"}]}`, `[{"loc":["body","model"],"msg":"field required"}]`},
		{`{}`, ""},
		{"upstream connect error\n", "upstream connect error"},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, apiErrorMessage([]byte(tc.in)), tc.in)
	}
}

func TestClipAndRedact(t *testing.T) {
	assert.Equal(t, "a b c", clip(" a\n b\t c ", 10))
	assert.Equal(t, "abc…", clip("abcdef", 3))
	assert.Equal(t, "é…", clip("éé", 3), "never half a rune")
	assert.Equal(t, "key [redacted] here", redact("key sk-1 here", "sk-1"))
	assert.Equal(t, "unchanged", redact("unchanged", ""))
}
