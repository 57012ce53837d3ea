package providers

import (
	"context"
	"encoding/json"
	"errors"
	"io"
	"log/slog"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// The three wire formats, as the tests name them.
var formats = []string{ProviderOllama, ProviderOpenAI, ProviderAnthropic}

// testKey is the key every test provider is given, so that every test can
// check it never appears where it must not.
const testKey = "sk-test-9f8e7d6c5b4a-SECRET"

// testEnv is the environment the tests' providers see.
func testEnv(extra map[string]string) func(string) string {
	env := map[string]string{EnvOpenAIKey: testKey, EnvAnthropicKey: testKey, "OLLAMA_KEY": testKey}
	for k, v := range extra {
		env[k] = v
	}
	return func(k string) string { return env[k] }
}

// fastTimeouts keep failure tests short; each test that measures one
// timeout sets it lower still.
func fastTimeouts() Timeouts {
	return Timeouts{
		Connect: Duration(2 * time.Second), FirstOutput: Duration(3 * time.Second),
		Stall: Duration(3 * time.Second), Total: Duration(10 * time.Second),
		RetryAfterCap: Duration(2 * time.Second),
	}
}

// providerConfig is a provider of format at base whose key is testKey
// (Ollama's through #env:OLLAMA_KEY, so that it too has one to leak).
func providerConfig(format, base string) ProviderConfig {
	pc := ProviderConfig{Kind: format, Model: "test-model", BaseURL: base}
	if format == ProviderOllama {
		pc.KeyEnv = "OLLAMA_KEY"
	}
	return pc
}

func newTestProvider(t *testing.T, format, base string, tm Timeouts, opts Options) Provider {
	t.Helper()
	if opts.Getenv == nil {
		opts.Getenv = testEnv(nil)
	}
	p, err := NewProvider(providerConfig(format, base), tm, opts)
	require.NoError(t, err)
	return p
}

// collect reads a stream to its end: its events and its error (nil when
// the answer completed).
func collect(s *Stream) ([]Event, error) {
	var evs []Event
	for ev, err := range s.Events() {
		if err != nil {
			return evs, err
		}
		evs = append(evs, ev)
	}
	return evs, nil
}

// madeUpID matches the ids the stream invents, which are random.
var madeUpID = regexp.MustCompile(`^call_[0-9a-f]{8}_`)

// eventLine renders an event as the golden files write it.
func eventLine(ev Event) string {
	m := map[string]any{"kind": ev.Kind.String()}
	switch ev.Kind {
	case EventText:
		m["text"] = ev.Text
	case EventToolCall:
		tc := ev.ToolCall
		tc.ID = madeUpID.ReplaceAllString(tc.ID, "call_*_")
		m["tool_call"] = tc
	case EventUsage:
		m["usage"] = ev.Usage
	case EventStop:
		m["stop"], m["raw"] = ev.Stop, ev.RawStop
	}
	b, _ := json.Marshal(m)
	return string(b)
}

// syncBuffer is a log sink safe for the handlers' concurrent writes.
type syncBuffer struct{ testenv.SyncBuffer }

// records returns the JSON log records written so far.
func (b *syncBuffer) records(t *testing.T) []map[string]any {
	t.Helper()
	var out []map[string]any
	dec := json.NewDecoder(strings.NewReader(b.String()))
	for {
		var m map[string]any
		err := dec.Decode(&m)
		if errors.Is(err, io.EOF) {
			return out
		}
		require.NoError(t, err)
		out = append(out, m)
	}
}

// captureLogs returns a logger writing JSON records to a buffer.
func captureLogs() (*slog.Logger, *syncBuffer) {
	buf := &syncBuffer{}
	return slog.New(slog.NewJSONHandler(buf, &slog.HandlerOptions{Level: slog.LevelDebug})), buf
}

// testCtx is a context that ends with the test, with a generous bound.
func testCtx(t *testing.T) context.Context {
	ctx, cancel := context.WithTimeout(t.Context(), 60*time.Second)
	t.Cleanup(cancel)
	return ctx
}

// sampleRequest is a conversation that exercises every part of a request:
// system prompt, a user turn, an assistant turn that called a tool, the
// tool's result, a new user turn, tools, max tokens and temperature.
func sampleRequest() Request {
	temp := 0.2
	return Request{
		System: "IDENTITY: Passepartout",
		Messages: []Message{
			{Role: RoleUser, Content: "What is in notes?"},
			{Role: RoleAssistant, ToolCalls: []ToolCall{{ID: "call_1", Name: "shell", Arguments: json.RawMessage(`{"cmd":"ls notes","cwd":".","explanation":"look"}`)}}},
			{Role: RoleTool, ToolCallID: "call_1", ToolName: "shell", Content: "todo.org\n"},
			{Role: RoleUser, Content: "Read it."},
		},
		Tools: []Tool{{
			Name: "file_read", Description: "Read a file under the roots.",
			Parameters: json.RawMessage(`{"type":"object","properties":{"path":{"type":"string"},"explanation":{"type":"string"}},"required":["path","explanation"]}`),
		}},
		MaxTokens:   512,
		Temperature: &temp,
	}
}
