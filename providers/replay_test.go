package providers

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReplayDemoExchange scripts the agent's three turns from
// testdata/replay/demo.jsonl: a proposal, the corrected proposal after a
// rejection, and a plain answer — each named "replay".
func TestReplayDemoExchange(t *testing.T) {
	logger, logs := captureLogs()
	c, err := New(Config{Providers: []ProviderConfig{{Kind: ProviderReplay, File: "testdata/replay/demo.jsonl"}}}, Options{Logger: logger})
	require.NoError(t, err)
	ctx := testCtx(t)

	ask := func(req Request) Response {
		t.Helper()
		s, err := c.Stream(ctx, req)
		require.NoError(t, err)
		resp, err := s.Collect()
		require.NoError(t, err)
		assert.Equal(t, "replay:testdata/replay/demo.jsonl", resp.Provider)
		assert.Equal(t, "replay", resp.Model)
		return resp
	}
	user := func(text string) Request {
		return Request{Task: "propose", System: "IDENTITY: Passepartout", Messages: []Message{{Role: RoleUser, Content: text}}}
	}

	first := ask(user("Please tidy the inbox."))
	assert.Equal(t, "I will clear it out.\n", first.Text)
	require.Len(t, first.ToolCalls, 1)
	assert.Equal(t, "shell", first.ToolCalls[0].Name)
	assert.JSONEq(t, `{"cmd":"rm -rf inbox.org","cwd":"."}`, string(first.ToolCalls[0].Arguments))
	assert.Equal(t, StopToolUse, first.StopReason)
	assert.Equal(t, Usage{InputTokens: 812, OutputTokens: 31}, first.Usage)

	retry := user("Please tidy the inbox.")
	retry.System += "\n\nPREVIOUS PROPOSAL REJECTED: policy: an explanation is required"
	second := ask(retry)
	require.Len(t, second.ToolCalls, 1)
	assert.Equal(t, "memory_edit", second.ToolCalls[0].Name)
	assert.Equal(t, "call_2", second.ToolCalls[0].ID)

	for range 2 {
		plain := ask(user("What is this node about?"))
		assert.Equal(t, "I have nothing to propose for this node.", plain.Text)
		assert.Empty(t, plain.ToolCalls)
		assert.Equal(t, StopEnd, plain.StopReason)
	}

	var replayLines int
	for _, r := range logs.records(t) {
		if r["provider"] == "replay:testdata/replay/demo.jsonl" {
			replayLines++
		}
	}
	assert.Equal(t, 1+4*2, replayLines, "in use at start; per answer its line and the cascade's")
}

// TestReplayStreamsInPieces: text arrives word by word, like a model's.
func TestReplayStreamsInPieces(t *testing.T) {
	r := loadReplayText(t, `{"match":{},"reply":{"text":"one two\nthree  four"}}`)
	s, err := r.Stream(testCtx(t), Request{})
	require.NoError(t, err)
	evs, err := collect(s)
	require.NoError(t, err)
	var pieces []string
	for _, ev := range evs {
		if ev.Kind == EventText {
			pieces = append(pieces, ev.Text)
		}
	}
	assert.Equal(t, []string{"one ", "two\n", "three  ", "four"}, pieces)
	assert.Equal(t, EventUsage, evs[len(evs)-2].Kind)
	assert.Equal(t, EventStop, evs[len(evs)-1].Kind)
}

func loadReplayText(t *testing.T, text string) *Replay {
	t.Helper()
	file := filepath.Join(t.TempDir(), "t.jsonl")
	require.NoError(t, os.WriteFile(file, []byte(text), 0o600))
	r, err := LoadReplay(file, Options{Logger: discardLogger()})
	require.NoError(t, err)
	return r
}

// TestReplayMatchers: each matcher, alone.
func TestReplayMatchers(t *testing.T) {
	req := Request{
		Task: "propose", System: "sys prompt",
		Messages: []Message{{Role: RoleUser, Content: "first question"}, {Role: RoleTool, Content: "tool output"}},
		Tools:    []Tool{{Name: "shell"}},
	}
	cases := []struct {
		match ReplayMatch
		holds bool
	}{
		{ReplayMatch{}, true},
		{ReplayMatch{Task: "propose"}, true},
		{ReplayMatch{Task: "chat"}, false},
		{ReplayMatch{SystemContains: "prompt"}, true},
		{ReplayMatch{SystemContains: "Prompt"}, false},
		{ReplayMatch{LastContains: "output"}, true},
		{ReplayMatch{LastContains: "question"}, false},
		{ReplayMatch{LastRole: "tool"}, true},
		{ReplayMatch{LastRole: "user"}, false},
		{ReplayMatch{AnyContains: "question"}, true},
		{ReplayMatch{AnyContains: "sys"}, true},
		{ReplayMatch{AnyContains: "absent"}, false},
		{ReplayMatch{HasTool: "shell"}, true},
		{ReplayMatch{HasTool: "eval"}, false},
		{ReplayMatch{Task: "propose", LastRole: "tool", HasTool: "shell"}, true},
	}
	for _, tc := range cases {
		assert.Equal(t, tc.holds, tc.match.holds(req), "%+v", tc.match)
	}
}

// TestReplayUnmatched: a request no entry answers is a clear error, and a
// used entry does not answer twice.
func TestReplayUnmatched(t *testing.T) {
	r := loadReplayText(t, `{"match":{"last_contains":"hello"},"reply":{"text":"hi"}}`)
	req := Request{Task: "chat", Messages: []Message{{Role: RoleUser, Content: "hello there"}}}
	s, err := r.Stream(testCtx(t), req)
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)

	_, err = r.Stream(testCtx(t), req)
	assert.Equal(t, KindReplay, KindOf(err))
	assert.Contains(t, err.Error(), `no unused entry matches this request (task "chat", last user message "hello there")`)
	assert.Contains(t, err.Error(), "add an entry for it to ")
}

// TestReplayScriptedFailures: an error entry falls through the cascade like
// a real failure; a cut reply is an error after its text.
func TestReplayScriptedFailures(t *testing.T) {
	logger, logs := captureLogs()
	c, err := New(Config{Providers: []ProviderConfig{
		{Kind: ProviderReplay, File: "testdata/replay/outage.jsonl"},
		{Kind: ProviderReplay, File: "testdata/replay/demo.jsonl"},
	}}, Options{Logger: logger})
	require.NoError(t, err)
	s, err := c.Stream(testCtx(t), Request{Messages: []Message{{Role: RoleUser, Content: "hi"}}})
	require.NoError(t, err)
	resp, err := s.Collect()
	require.NoError(t, err)
	assert.Equal(t, "replay:testdata/replay/demo.jsonl", resp.Provider)
	lines := cascadeLines(t, logs)
	require.Len(t, lines, 2)
	assert.Equal(t, "replay:testdata/replay/outage.jsonl", lines[0][1])
	assert.Contains(t, lines[0][2], "server error: scripted outage (transcript line 2)")

	r := loadReplayText(t, `{"match":{},"reply":{"text":"half an answer","tool_calls":[{"name":"shell","arguments":{}}],"cut":true}}`)
	s, err = r.Stream(testCtx(t), Request{})
	require.NoError(t, err)
	resp, err = s.Collect()
	assert.Equal(t, KindStreamCut, KindOf(err))
	assert.Equal(t, "half an answer", resp.Text)
	assert.Empty(t, resp.ToolCalls)
}

// TestReplayPaceAndCancel: a paced reply stops at once when cancelled.
func TestReplayPaceAndCancel(t *testing.T) {
	r := loadReplayText(t, `{"match":{},"reply":{"text":"`+strings.Repeat("word ", 50)+`","pace_ms":100}}`)
	ctx, cancel := context.WithCancel(testCtx(t))
	s, err := r.Stream(ctx, Request{})
	require.NoError(t, err)
	_, err = s.Next()
	require.NoError(t, err)
	cancel()
	start := time.Now()
	_, err = s.Collect()
	assert.Equal(t, KindCanceled, KindOf(err))
	assert.Less(t, time.Since(start), time.Second)
}

// TestReplayParseErrors name the line at fault.
func TestReplayParseErrors(t *testing.T) {
	cases := []struct{ text, want string }{
		{"", "no entries"},
		{"# only a comment\n\n", "no entries"},
		{`{"match":{}}`, `line 1: an entry needs exactly one of "reply" and "error"`},
		{"\n" + `{"match":{},"reply":{}}`, `line 2: a reply needs "text" or "tool_calls"`},
		{`{"match":{"last":"x"},"reply":{"text":"a"}}`, `line 1 does not fit: unknown field "last"`},
		{`{"match":{},"reply":{"text":"a"}} {"x":1}`, "line 1: more than one JSON value"},
		{`{"match":{},"reply":{"tool_calls":[{"arguments":{}}]}}`, "line 1: tool call 1 has no name"},
		{`{"match":{},"error":{"kind":"boom"}}`, `line 1: error kind "boom" is not one of`},
		{`{"match":{},"reply":{"text":"a","stop":"done"}}`, `line 1: stop "done" is not one of`},
		{`{"match":{},"reply":{"text":"a","pace_ms":-1}}`, "line 1: pace_ms -1"},
		{`not json`, "line 1 is not valid JSON: line 1, column 2: unexpected 'o'"},
	}
	for _, tc := range cases {
		_, err := parseReplay([]byte(tc.text))
		assert.ErrorContains(t, err, tc.want, "%q", tc.text)
	}
	_, err := LoadReplay(filepath.Join(t.TempDir(), "absent.jsonl"), Options{})
	assert.ErrorContains(t, err, "cannot read the replay transcript ")
	assert.ErrorContains(t, err, "absent.jsonl: it does not exist")
	_, err = New(Config{Providers: []ProviderConfig{{Kind: ProviderReplay, File: "testdata/nope.jsonl"}}}, Options{Logger: discardLogger()})
	assert.ErrorContains(t, err, "testdata/nope.jsonl")
}

// TestReplayArgumentsNormalised: arguments are kept as JSON.
func TestReplayArgumentsNormalised(t *testing.T) {
	r := loadReplayText(t, `{"match":{},"reply":{"tool_calls":[{"name":"message","arguments":{"text":"hi","explanation":"say hi"}},{"name":"noargs"}]}}`)
	s, err := r.Stream(testCtx(t), Request{})
	require.NoError(t, err)
	resp, err := s.Collect()
	require.NoError(t, err)
	require.Len(t, resp.ToolCalls, 2)
	assert.True(t, json.Valid(resp.ToolCalls[0].Arguments))
	assert.Regexp(t, `^call_[0-9a-f]{8}_0$`, resp.ToolCalls[0].ID, "ids are made up when absent")
	assert.Regexp(t, `^call_[0-9a-f]{8}_1$`, resp.ToolCalls[1].ID)
	assert.JSONEq(t, `{}`, string(resp.ToolCalls[1].Arguments))
}
