package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"io"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"
	"go.lsp.dev/jsonrpc2"
)

// FuzzStream feeds any bytes, then a well-formed request, to a Stream. No
// input may panic it or make it loop; every message it returns is
// well-formed JSON-RPC, every answer it sends is a well-formed frame of
// JSON-RPC error responses, its buffer stays within twice the input, and
// reading ends with the input. Input that holds no "Content-Length" cannot
// hide the request after it: that request is the last message read.
// Seeds: the hostile inputs of TestHostileInput, and testdata/fuzz.
func FuzzStream(f *testing.F) {
	for _, seed := range []string{
		"Content-Length: 10\r\n\r\n{not json}",
		frameOf(`42`), frameOf(`[]`), frameOf(`[{"jsonrpc":"2.0","id":1,"method":"a"},{"jsonrpc":"2.0","method":"b"}]`),
		frameOf(`{"jsonrpc":"2.0","id":{"a":1},"method":"x"}`), frameOf(`{"jsonrpc":"2.0","id":1.5,"method":"x"}`),
		frameOf(`{"jsonrpc":"2.0","id":5,"result":1,"error":{"code":1,"message":"x"}}`),
		"Content-Length: -5\r\n\r\n{}", "Content-Length: 99999999999999999999\r\n\r\n", "Content-Length: 2\r\nContent-Length: 3\r\n\r\n{}",
		"Content-Type: x\r\n\r\n{}", "Content-Length 10\r\n\r\n", "\x00\xff\r\n\r\n", "Content-Length: 5\r\n\r\n" + goodCall,
		"content-length: 30\nX: y\n\n" + `{"jsonrpc":"2.0","method":"n"}`, "\r\n\r\n", "Content-Len", "X: y",
	} {
		f.Add([]byte(seed))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		input := append(bytes.Clone(data), frameOf(goodCall)...)
		c := &memConn{in: bytes.NewReader(input)}
		s := NewStream(c, Options{MaxHeader: 256, MaxMessage: 1 << 16})
		var last jsonrpc2.Message
		for reads := 0; ; reads++ {
			require.Less(t, reads, len(input)+2, "more messages than bytes: a loop")
			m, _, err := s.Read(context.Background())
			require.LessOrEqual(t, cap(s.rd.buf), max(initialBuffer, 2*len(input)), "the buffer outgrew the input")
			if err != nil {
				require.True(t, errors.Is(err, io.EOF) || errors.Is(err, io.ErrUnexpectedEOF), "the input's end, not %v", err)
				break
			}
			b := jsonrpc2.AppendMessage(nil, m)
			require.True(t, json.Valid(b), "a returned message re-encodes as JSON: %s", b)
			_, derr := jsonrpc2.DecodeMessage(b)
			require.NoError(t, derr, "%s", b)
			last, _ = jsonrpc2.DecodeMessage(b) // owned: the stream reuses its buffer
		}
		for _, r := range parseReplies(t, c.out.Bytes()) {
			require.Contains(t, []int64{int64(jsonrpc2.ParseError), int64(jsonrpc2.InvalidRequest)}, r.Code)
		}
		if !strings.Contains(strings.ToLower(string(data)), "content-length") {
			require.NotNil(t, last, "the request after %q was lost", data)
			require.Equal(t, "call good workspace/symbol", describe(last))
		}
	})
}
