package providers

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"

	"pp-lsp/providers/providertest"
)

// benchAnswer is a long answer: 2000 text pieces and one tool call whose
// 4 KiB of arguments arrive in 100 fragments.
func benchAnswer() providertest.Answer {
	a := providertest.Answer{Model: "bench", InputTokens: 1000, OutputTokens: 2000}
	for i := range 2000 {
		a.Text = append(a.Text, fmt.Sprintf("word%d ", i))
	}
	content := strings.Repeat("x", 4096)
	a.Calls = []providertest.Call{{ID: "call_b", Name: "file_write", Args: `{"path":"a.org","content":"` + content + `","explanation":"bench"}`, Pieces: 100}}
	return a
}

// BenchmarkDecode measures each format's decoder alone, bytes to events:
// the cost this package adds per streamed answer, without the network.
func BenchmarkDecode(b *testing.B) {
	a := benchAnswer()
	for _, format := range formats {
		var frames []string
		switch format {
		case ProviderOllama:
			frames = providertest.OllamaFrames(a)
		case ProviderOpenAI:
			frames = providertest.OpenAIFrames(a)
		default:
			frames = providertest.AnthropicFrames(a)
		}
		stream := []byte(strings.Join(frames, ""))
		var w wire
		switch format {
		case ProviderOllama:
			w = ollamaWire{}
		case ProviderOpenAI:
			w = openaiWire{}
		default:
			w = anthropicWire{}
		}
		b.Run(format, func(b *testing.B) {
			b.SetBytes(int64(len(stream)))
			b.ReportAllocs()
			for b.Loop() {
				dec := w.decoder(bytes.NewReader(stream))
				events := 0
				for {
					evs, err := dec.step()
					events += len(evs)
					if errors.Is(err, io.EOF) {
						break
					}
					if err != nil {
						b.Fatal(err)
					}
				}
				if events != 2003 {
					b.Fatalf("%d events", events)
				}
			}
		})
	}
}

// BenchmarkStreamLoopback measures a whole answer through a loopback
// server: request, stream, events, assembled response.
func BenchmarkStreamLoopback(b *testing.B) {
	a := benchAnswer()
	for _, format := range formats {
		b.Run(format, func(b *testing.B) {
			frames := framesOf(format, a)
			srv := providertest.NewServer(b)
			path := map[string]string{ProviderOllama: "POST /api/chat", ProviderOpenAI: "POST /chat/completions", ProviderAnthropic: "POST /v1/messages"}[format]
			srv.Route(path, providertest.Reply{Frames: frames})
			pc := providerConfig(format, srv.URL)
			p, err := NewProvider(pc, fastTimeouts(), Options{Getenv: testEnv(nil), Logger: discardLogger()})
			if err != nil {
				b.Fatal(err)
			}
			req := Request{Messages: []Message{{Role: RoleUser, Content: "bench"}}}
			b.ReportAllocs()
			for b.Loop() {
				s, err := p.Stream(b.Context(), req)
				if err != nil {
					b.Fatal(err)
				}
				resp, err := s.Collect()
				if err != nil || len(resp.ToolCalls) != 1 {
					b.Fatal(err, len(resp.ToolCalls))
				}
			}
		})
	}
}
