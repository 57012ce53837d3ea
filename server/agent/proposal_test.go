package agent

import (
	"encoding/json"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/providers"
)

func TestParseProposal(t *testing.T) {
	call := func(name, args string) providers.ToolCall {
		return providers.ToolCall{ID: "c", Name: name, Arguments: json.RawMessage(args)}
	}
	ls := gates.Build(gates.ShellArgs{Cmd: "ls notes", Cwd: "."}, "look")
	for _, tc := range []struct {
		name    string
		resp    providers.Response
		want    *gates.Action
		message bool
		errText string
	}{
		{name: "tool call", resp: providers.Response{ToolCalls: []providers.ToolCall{call("shell", `{"cmd":"ls notes","explanation":"look"}`)}}, want: &ls},
		{name: "tool call, dashes and case", resp: providers.Response{ToolCalls: []providers.ToolCall{call("SHELL", `{"cmd":"ls notes","cwd":".","explanation":"look"}`)}}, want: &ls},
		{name: "two tool calls", resp: providers.Response{ToolCalls: []providers.ToolCall{call("shell", `{}`), call("shell", `{}`)}}, errText: "one action per answer"},
		{name: "unknown tool", resp: providers.Response{ToolCalls: []providers.ToolCall{call("launch", `{"explanation":"x"}`)}}, errText: "not a valid action"},
		{name: "plist", resp: providers.Response{Text: `(:TOOL :SHELL :ARGS (:CMD "ls notes" :CWD ".") :EXPLANATION "look")`}, want: &ls},
		{name: "the seeds' plist", resp: providers.Response{Text: `(:TYPE :REQUEST :PAYLOAD (:ACTION :SHELL :CMD "ls notes" :EXPLANATION "look"))`}, want: &ls},
		{name: "fenced plist", resp: providers.Response{Text: "```lisp\n(:tool :shell :args (:cmd \"ls notes\") :explanation \"look\")\n```"}, want: &ls},
		{name: "read-eval", resp: providers.Response{Text: `(:TOOL :SHELL :ARGS (:CMD #.(run-program "rm") :CWD ".") :EXPLANATION "x")`}, errText: "cannot be read"},
		{name: "reader macro first", resp: providers.Response{Text: `#.(delete-file "x")`}, errText: "cannot be read"},
		{name: "quoted form", resp: providers.Response{Text: `'(:TOOL :SHELL)`}, errText: "cannot be read"},
		{name: "list that is no plist", resp: providers.Response{Text: `(shell "ls")`}, errText: "not a property list"},
		{name: "JSON action text", resp: providers.Response{Text: `{"tool":"shell","args":{"cmd":"ls notes","cwd":"."},"explanation":"look"}`}, want: &ls},
		{name: "prose", resp: providers.Response{Text: "Your notes hold two files."}, message: true},
		{name: "Org keyword prose", resp: providers.Response{Text: "#+begin_quote\nhi\n#+end_quote"}, message: true},
		{name: "a JSON object that is no action", resp: providers.Response{Text: `{"answer": 42}`}, message: true},
		{name: "empty", resp: providers.Response{Text: "  \n"}, errText: "empty"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := parseProposal(tc.resp)
			if tc.errText != "" {
				require.Error(t, p.err)
				assert.Contains(t, p.err.Error(), tc.errText)
				assert.NotEmpty(t, p.raw+tc.resp.Text+"x")
				return
			}
			require.NoError(t, p.err)
			assert.Equal(t, tc.message, p.message)
			if tc.message {
				assert.Equal(t, gates.ToolMessage, p.action.Tool)
				assert.Equal(t, strings.TrimSpace(tc.resp.Text), p.action.Arg("text"))
				return
			}
			assert.Equal(t, tc.want.Hash(), p.action.Hash(), string(p.action.CanonicalJSON()))
		})
	}
}

func TestHoldback(t *testing.T) {
	for _, tc := range []struct {
		name   string
		deltas []string
		live   string // what reached the caller while streaming
	}{
		{"prose streams at once", []string{"Hel", "lo ", "there"}, "Hello there"},
		{"leading blanks wait for the first word", []string{"  ", "\n", "Hi"}, "  \nHi"},
		{"a plist is held", []string{"(:TOOL", " :SHELL)"}, ""},
		{"a fence is held", []string{"``", "`lisp\n(:x)"}, ""},
		{"reader syntax is held", []string{"#", ".(x)"}, ""},
		{"an Org keyword is prose", []string{"#", "+TITLE: x"}, "#+TITLE: x"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var got strings.Builder
			h := &holdback{emit: func(s string) error { got.WriteString(s); return nil }}
			for _, d := range tc.deltas {
				require.NoError(t, h.text(d))
			}
			assert.Equal(t, tc.live, got.String())
			require.NoError(t, h.flush())
			assert.Equal(t, strings.Join(tc.deltas, ""), got.String(), "flushing sends the rest")
		})
	}
}

func TestSystemPromptOrder(t *testing.T) {
	sig := Signal{File: "/m/notes.org", Line: 4, Rejections: []Rejection{{Try: 1, Proposal: `{"tool":"shell","args":{"cmd":"cat key sk-live-123"}}`,
		Verdict: gates.Verdict{Verdict: "deny", Gate: "dispatcher", Reason: "secrets: sk-live-123 leaks", Trace: []gates.TraceEntry{{Gate: "dispatcher", Priority: 150, Result: "blocked"}}}}}}
	redact := func(s string) string { return strings.ReplaceAll(s, "sk-live-123", "[vault:key]") }
	p := systemPrompt("Jeeves", gates.BuiltinTools(), "* the foveal node", []string{"12:00:00 INFO ran"}, sig, "- Skill \"Cite\":\n  cite\n", redact)
	order := []string{"IDENTITY: You are Jeeves", "TOOLS:", "- shell{cmd, cwd?, explanation}", "CONTEXT:", "(asked from /m/notes.org, line 5)", "* the foveal node",
		"LOGS:", "12:00:00 INFO ran", "MANDATES:", "You propose; you never act", "- Skill \"Cite\":", "PREVIOUS PROPOSAL REJECTED (try 1 of 3):", "denied by dispatcher", "trace: dispatcher(150) blocked"}
	last := -1
	for _, s := range order {
		i := strings.Index(p, s)
		require.GreaterOrEqual(t, i, 0, "missing %q", s)
		assert.Greater(t, i, last, "%q out of order", s)
		last = i
	}
	assert.NotContains(t, p, "sk-live-123", "vault secrets are scrubbed from the trace")
}

func TestToolDefinitions(t *testing.T) {
	defs := ToolDefinitions(gates.BuiltinTools())
	require.Len(t, defs, 8)
	for _, d := range defs {
		_, ok := gates.ParseTool(d.Name)
		assert.True(t, ok, d.Name)
		var schema struct {
			Type       string         `json:"type"`
			Properties map[string]any `json:"properties"`
			Required   []string       `json:"required"`
		}
		require.NoError(t, json.Unmarshal(d.Parameters, &schema))
		assert.Equal(t, "object", schema.Type)
		assert.Contains(t, schema.Required, "explanation")
		assert.Contains(t, schema.Properties, "explanation")
	}
}

func TestPerceive(t *testing.T) {
	roots := []string{"/memex"}
	for _, tc := range []struct {
		name    string
		in      Signal
		errText string
		check   func(*testing.T, Signal)
	}{
		{name: "normalised", in: Signal{Text: "  hi  ", File: "notes/../a.org", Line: -3}, check: func(t *testing.T, s Signal) {
			assert.Equal(t, "hi", s.Text)
			assert.Equal(t, "/memex/a.org", s.File)
			assert.Zero(t, s.Line)
			assert.Equal(t, SensorUserInput, s.Sensor)
			assert.NotEmpty(t, s.Session)
		}},
		{name: "empty question", in: Signal{Text: " "}, errText: "empty"},
		{name: "not UTF-8", in: Signal{Text: "\xff"}, errText: "UTF-8"},
		{name: "too long", in: Signal{Text: strings.Repeat("x", MaxText+1)}, errText: "limit"},
		{name: "too deep", in: Signal{Text: "x", Depth: MaxDepth + 1}, errText: "dropped"},
		{name: "deepest allowed", in: Signal{Text: "x", Depth: MaxDepth}},
		{name: "heartbeat needs no text", in: Heartbeat()},
	} {
		t.Run(tc.name, func(t *testing.T) {
			s, err := Perceive(tc.in, roots)
			if tc.errText != "" {
				assert.ErrorContains(t, err, tc.errText)
				return
			}
			require.NoError(t, err)
			if tc.check != nil {
				tc.check(t, s)
			}
		})
	}
}
