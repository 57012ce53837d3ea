package providers

import (
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"pp-lsp/providers/providertest"
)

// splitFrames cuts a recorded stream where a server would flush: after each
// SSE event (a blank line) or each NDJSON line.
func splitFrames(stream, format string) []string {
	sep := "\n\n"
	if format == ProviderOllama {
		sep = "\n"
	}
	var out []string
	for stream != "" {
		i := strings.Index(stream, sep)
		if i < 0 {
			return append(out, stream)
		}
		out = append(out, stream[:i+len(sep)])
		stream = stream[i+len(sep):]
	}
	return out
}

// TestWireGolden serves each recorded stream of testdata/wire byte for byte
// from a loopback server and checks the events it decodes to. SSE streams
// are also served as other real servers send them: CRLF line ends,
// keep-alive comments between events, both, and (OpenAI-compatible) an
// event: line before each data: line.
func TestWireGolden(t *testing.T) {
	files, err := filepath.Glob("testdata/wire/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, file := range files {
		ar, err := txtar.ParseFile(file)
		require.NoError(t, err)
		format := strings.TrimSpace(strings.TrimPrefix(strings.SplitN(string(ar.Comment), "\n", 2)[0], "format:"))
		var stream, want string
		for _, f := range ar.Files {
			switch f.Name {
			case "stream":
				stream = string(f.Data)
			case "events":
				want = string(f.Data)
			}
		}
		require.NotEmpty(t, stream, file)
		variations := map[string]providertest.Variation{"as recorded": {}}
		if format != ProviderOllama {
			variations["crlf"] = providertest.Variation{CRLF: true}
			variations["keep-alive"] = providertest.Variation{KeepAlive: true}
			variations["crlf+keep-alive"] = providertest.Variation{CRLF: true, KeepAlive: true}
			if format == ProviderOpenAI { // some OpenAI-compatible servers name their events
				variations["event-lines"] = providertest.Variation{EventLines: "completion", CRLF: true, KeepAlive: true}
			}
		} else {
			variations["crlf"] = providertest.Variation{CRLF: true}
		}
		for vname, v := range variations {
			t.Run(filepath.Base(file)+"/"+vname, func(t *testing.T) {
				srv := providertest.NewServer(t, providertest.Reply{Frames: providertest.Vary(splitFrames(stream, format), v)})
				p := newTestProvider(t, format, srv.URL, fastTimeouts(), Options{})
				s, err := p.Stream(testCtx(t), sampleRequest())
				require.NoError(t, err)
				evs, err := collect(s)
				require.NoError(t, err)
				wantLines := strings.Split(strings.TrimSpace(want), "\n")
				require.Len(t, evs, len(wantLines))
				for i, ev := range evs {
					assert.JSONEq(t, wantLines[i], eventLine(ev), "event %d", i)
				}
				resp := s.Response()
				assert.Equal(t, p.Name(), resp.Provider)
				assert.Equal(t, "test-model", resp.Model)
			})
		}
	}
}

// TestRequestShape checks, per API, the method, path, headers and the JSON
// body of a request carrying every part a conversation has.
func TestRequestShape(t *testing.T) {
	cases := []struct {
		format  string
		path    string
		frames  []string
		headers map[string]string
		body    string
	}{
		{
			format: ProviderOllama, path: "/api/chat",
			frames:  providertest.OllamaFrames(providertest.Answer{Model: "test-model", Text: []string{"ok"}}),
			headers: map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + testKey},
			body: `{"model":"test-model","stream":true,
				"messages":[
					{"role":"system","content":"IDENTITY: Passepartout"},
					{"role":"user","content":"What is in notes?"},
					{"role":"assistant","content":"","tool_calls":[{"function":{"name":"shell","arguments":{"cmd":"ls notes","cwd":".","explanation":"look"}}}]},
					{"role":"tool","content":"todo.org\n","tool_name":"shell"},
					{"role":"user","content":"Read it."}],
				"tools":[{"type":"function","function":{"name":"file_read","description":"Read a file under the roots.",
					"parameters":{"type":"object","properties":{"path":{"type":"string"},"explanation":{"type":"string"}},"required":["path","explanation"]}}}],
				"options":{"temperature":0.2,"num_predict":512}}`,
		},
		{
			format: ProviderOpenAI, path: "/chat/completions",
			frames:  providertest.OpenAIFrames(providertest.Answer{Model: "test-model", Text: []string{"ok"}}),
			headers: map[string]string{"Content-Type": "application/json", "Authorization": "Bearer " + testKey},
			body: `{"model":"test-model","stream":true,"stream_options":{"include_usage":true},"max_tokens":512,"temperature":0.2,
				"messages":[
					{"role":"system","content":"IDENTITY: Passepartout"},
					{"role":"user","content":"What is in notes?"},
					{"role":"assistant","content":null,"tool_calls":[{"id":"call_1","type":"function","function":{"name":"shell","arguments":"{\"cmd\":\"ls notes\",\"cwd\":\".\",\"explanation\":\"look\"}"}}]},
					{"role":"tool","tool_call_id":"call_1","content":"todo.org\n"},
					{"role":"user","content":"Read it."}],
				"tools":[{"type":"function","function":{"name":"file_read","description":"Read a file under the roots.",
					"parameters":{"type":"object","properties":{"path":{"type":"string"},"explanation":{"type":"string"}},"required":["path","explanation"]}}}]}`,
		},
		{
			format: ProviderAnthropic, path: "/v1/messages",
			frames:  providertest.AnthropicFrames(providertest.Answer{Model: "test-model", Text: []string{"ok"}}),
			headers: map[string]string{"Content-Type": "application/json", "X-Api-Key": testKey, "Anthropic-Version": "2023-06-01"},
			body: `{"model":"test-model","max_tokens":512,"stream":true,"temperature":0.2,
				"system":"IDENTITY: Passepartout",
				"messages":[
					{"role":"user","content":"What is in notes?"},
					{"role":"assistant","content":[{"type":"tool_use","id":"call_1","name":"shell","input":{"cmd":"ls notes","cwd":".","explanation":"look"}}]},
					{"role":"user","content":[{"type":"tool_result","tool_use_id":"call_1","content":"todo.org\n"},{"type":"text","text":"Read it."}]}],
				"tools":[{"name":"file_read","description":"Read a file under the roots.",
					"input_schema":{"type":"object","properties":{"path":{"type":"string"},"explanation":{"type":"string"}},"required":["path","explanation"]}}]}`,
		},
	}
	for _, tc := range cases {
		t.Run(tc.format, func(t *testing.T) {
			srv := providertest.NewServer(t, providertest.Reply{Frames: tc.frames})
			p := newTestProvider(t, tc.format, srv.URL+"/", fastTimeouts(), Options{})
			s, err := p.Stream(testCtx(t), sampleRequest())
			require.NoError(t, err)
			resp, err := s.Collect()
			require.NoError(t, err)
			assert.Equal(t, "ok", resp.Text)

			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			assert.Equal(t, "POST", reqs[0].Method)
			assert.Equal(t, tc.path, reqs[0].Path)
			for k, v := range tc.headers {
				assert.Equal(t, v, reqs[0].Header.Get(k), "header %s", k)
			}
			assert.JSONEq(t, tc.body, string(reqs[0].Body))
		})
	}
}

// TestOpenAIProperMaxTokens: OpenAI's own API gets max_completion_tokens
// (its reasoning models refuse max_tokens); other servers get max_tokens.
func TestOpenAIProperMaxTokens(t *testing.T) {
	o := NewOpenAI(ProviderConfig{Kind: ProviderOpenAI, Model: "m", BaseURL: "https://api.openai.com/v1"}, nil, Timeouts{}, Options{})
	assert.True(t, o.isOpenAIProper())
	o = NewOpenAI(ProviderConfig{Kind: ProviderOpenAI, Model: "m", BaseURL: "http://127.0.0.1:8080/v1"}, nil, Timeouts{}, Options{})
	assert.False(t, o.isOpenAIProper())
}

// TestRequestWithoutExtras: no tools, no temperature, no max tokens — the
// optional fields are left out, and Anthropic still gets its required
// max_tokens.
func TestRequestWithoutExtras(t *testing.T) {
	req := Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}}
	cases := []struct {
		format string
		frames []string
		body   string
	}{
		{ProviderOllama, providertest.OllamaFrames(providertest.Answer{Model: "test-model", Text: []string{"ok"}}),
			`{"model":"test-model","stream":true,"messages":[{"role":"user","content":"hi"}]}`},
		{ProviderOpenAI, providertest.OpenAIFrames(providertest.Answer{Model: "test-model", Text: []string{"ok"}}),
			`{"model":"test-model","stream":true,"stream_options":{"include_usage":true},"messages":[{"role":"user","content":"hi"}]}`},
		{ProviderAnthropic, providertest.AnthropicFrames(providertest.Answer{Model: "test-model", Text: []string{"ok"}}),
			`{"model":"test-model","stream":true,"max_tokens":4096,"messages":[{"role":"user","content":"hi"}]}`},
	}
	for _, tc := range cases {
		t.Run(tc.format, func(t *testing.T) {
			srv := providertest.NewServer(t, providertest.Reply{Frames: tc.frames})
			p := newTestProvider(t, tc.format, srv.URL, fastTimeouts(), Options{})
			s, err := p.Stream(testCtx(t), req)
			require.NoError(t, err)
			_, err = s.Collect()
			require.NoError(t, err)
			assert.JSONEq(t, tc.body, string(srv.Requests()[0].Body))
		})
	}
}
