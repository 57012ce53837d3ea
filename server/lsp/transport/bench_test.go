package transport

import (
	"bytes"
	"context"
	"encoding/json"
	"strings"
	"testing"

	"go.lsp.dev/jsonrpc2"
)

// BenchmarkRead measures reading messages as the server's connection
// does — framing, checking, decoding — for a keystroke's didChange and a
// 1 MiB didOpen, with this package's Stream ("checked") and with
// jsonrpc2's own, which checks less and ends the connection on a bad
// message ("jsonrpc2"): the price of the checks.
func BenchmarkRead(b *testing.B) {
	change := `{"jsonrpc":"2.0","method":"textDocument/didChange","params":{"textDocument":{"uri":"file:///home/me/notes/projects.org","version":42},"contentChanges":[{"range":{"start":{"line":120,"character":8},"end":{"line":120,"character":8}},"text":"x"}]}}`
	text, _ := json.Marshal(strings.Repeat("* TODO Héading :tag:\nSome \"quoted\" text with a [[id:1234][link]] and\ttabs.\n", 1<<20/70))
	open := `{"jsonrpc":"2.0","method":"textDocument/didOpen","params":{"textDocument":{"uri":"file:///home/me/notes/big.org","languageId":"org","version":1,"text":` + string(text) + `}}}`
	for _, msg := range []struct{ name, body string }{{"didChange", change}, {"didOpen-1MiB", open}} {
		const perStream = 64
		stream := []byte(strings.Repeat(frameOf(msg.body), perStream))
		for _, impl := range []struct {
			name string
			make func(*memConn) jsonrpc2.Stream
		}{
			{"checked", func(c *memConn) jsonrpc2.Stream { return NewStream(c, Options{}) }},
			{"jsonrpc2", func(c *memConn) jsonrpc2.Stream { return jsonrpc2.NewHeaderStream(c) }},
		} {
			b.Run(msg.name+"/"+impl.name, func(b *testing.B) {
				b.SetBytes(int64(len(msg.body)))
				b.ReportAllocs()
				src := bytes.NewReader(stream)
				var s jsonrpc2.Stream
				n := 0
				for b.Loop() {
					if n%perStream == 0 {
						src.Reset(stream)
						s = impl.make(&memConn{in: src})
					}
					n++
					if _, _, err := s.Read(context.Background()); err != nil {
						b.Fatal(err)
					}
				}
			})
		}
	}
}
