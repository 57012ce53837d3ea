package providers

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"golang.org/x/tools/txtar"
)

// goldenStreams returns the recorded streams of testdata/wire for format,
// the fuzzers' seeds.
func goldenStreams(f *testing.F, format string) [][]byte {
	files, err := filepath.Glob("testdata/wire/" + format + "_*.txtar")
	if err != nil {
		f.Fatal(err)
	}
	var out [][]byte
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		if err != nil {
			f.Fatal(err)
		}
		for _, af := range ar.Files {
			if af.Name == "stream" {
				out = append(out, af.Data)
			}
		}
	}
	return out
}

// drain runs a decoder over any bytes: it must end (every step consumes
// input or ends the answer), never panic, and every tool call it assembles
// must carry valid JSON arguments.
func drain(t *testing.T, dec decoder) {
	for range 1 << 20 {
		evs, err := dec.step()
		for _, ev := range evs {
			if ev.Kind == EventToolCall && !json.Valid(ev.ToolCall.Arguments) {
				t.Fatalf("tool call arguments are not JSON: %q", ev.ToolCall.Arguments)
			}
		}
		if err != nil {
			if errors.Is(err, io.EOF) {
				if _, again := dec.step(); !errors.Is(again, io.EOF) {
					t.Fatalf("a finished decoder gave %v, not io.EOF", again)
				}
			}
			return
		}
	}
	t.Fatal("the decoder never ended")
}

func FuzzOllamaStream(f *testing.F) {
	for _, s := range goldenStreams(f, ProviderOllama) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		drain(t, ollamaWire{}.decoder(bytes.NewReader(data)))
	})
}

func FuzzOpenAIStream(f *testing.F) {
	for _, s := range goldenStreams(f, ProviderOpenAI) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		drain(t, openaiWire{}.decoder(bytes.NewReader(data)))
	})
}

func FuzzAnthropicStream(f *testing.F) {
	for _, s := range goldenStreams(f, ProviderAnthropic) {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		drain(t, anthropicWire{}.decoder(bytes.NewReader(data)))
	})
}

func FuzzParseProviders(f *testing.F) {
	for _, s := range []string{
		"ollama:llama3.2", "openai:m@http://127.0.0.1:8080/v1#env:K,anthropic:claude#vault:w",
		"replay:a.jsonl", "openai:a@b@http://h", ",,", "openai:m@http://u:p@h/",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, s string) {
		ps, err := ParseProviders(s)
		if err != nil {
			return
		}
		for _, p := range ps {
			if err := p.Validate(); err != nil {
				t.Fatalf("parsed entry %+v does not validate: %v", p, err)
			}
			if p.Kind != ProviderReplay && strings.ContainsAny(p.Name(), ",") {
				t.Fatalf("name %q holds a comma", p.Name())
			}
		}
	})
}

func FuzzReplay(f *testing.F) {
	for _, file := range []string{"testdata/replay/demo.jsonl", "testdata/replay/outage.jsonl"} {
		data, err := os.ReadFile(file)
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseReplay(data)
		if err != nil {
			return
		}
		for _, e := range entries {
			if e.Reply == nil {
				continue
			}
			for _, ev := range replayEvents(Request{}, e.Reply) {
				if ev.Kind == EventToolCall && !json.Valid(ev.ToolCall.Arguments) {
					t.Fatalf("replayed arguments are not JSON: %q", ev.ToolCall.Arguments)
				}
			}
		}
	})
}
