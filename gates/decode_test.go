package gates

import (
	"encoding/json"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestDecodeFormsAgree(t *testing.T) {
	want := NewAction(ToolShell, "why", map[string]string{"cmd": "ls notes", "cwd": "."})
	jsonForm, err := DecodeJSON([]byte(`{"tool":"shell","args":{"cmd":"ls notes","cwd":"."},"explanation":"why"}`))
	require.NoError(t, err)
	// (:TOOL :SHELL :ARGS (:CMD "ls notes" :CWD ".") :EXPLANATION "why") as a plist reader hands it over.
	plist, err := DecodeValue([]any{"TOOL", "SHELL", "ARGS", []any{"CMD", "ls notes", "CWD", "."}, "EXPLANATION", "why"})
	require.NoError(t, err)
	// The seeds' (:TYPE :REQUEST :PAYLOAD (:ACTION :SHELL :CMD "ls notes" :EXPLANATION "why")).
	seeds, err := DecodeValue([]any{":TYPE", ":REQUEST", ":PAYLOAD", []any{":ACTION", ":SHELL", ":CMD", "ls notes", ":EXPLANATION", "why"}})
	require.NoError(t, err)
	asMap, err := DecodeValue(map[string]any{"Tool": "shell", "ARGS": map[string]any{"cmd": "ls notes"}, "explanation": "why"})
	require.NoError(t, err)
	openai, err := DecodeToolCall(map[string]any{"type": "function", "function": map[string]any{"name": "shell", "arguments": `{"cmd":"ls notes","cwd":".","explanation":"why"}`}})
	require.NoError(t, err)
	anthropic, err := DecodeToolCall(map[string]any{"type": "tool_use", "name": "SHELL", "input": map[string]any{"cmd": "ls notes", "explanation": "why"}})
	require.NoError(t, err)
	for name, a := range map[string]Action{"json": jsonForm, "plist": plist, "seeds": seeds, "map": asMap, "openai": openai, "anthropic": anthropic} {
		assert.Equal(t, string(want.CanonicalJSON()), string(a.CanonicalJSON()), name)
		assert.Equal(t, want.Hash(), a.Hash(), name)
	}
}

func TestParseTool(t *testing.T) {
	for _, name := range []string{":FILE-READ", ":file_read", "file_read", "File-Read", " FILE_READ "} {
		tool, ok := ParseTool(name)
		assert.True(t, ok, name)
		assert.Equal(t, ToolFileRead, tool, name)
	}
	_, ok := ParseTool("browser")
	assert.False(t, ok)
}

func TestDecodeJSONErrors(t *testing.T) {
	cases := []struct{ name, in, reason string }{
		{"bad json", `{"tool":`, "JSON"},
		{"array", `[{"tool":"message"}]`, "must be an object"},
		{"null", `null`, "must be an object"},
		{"string", `"x"`, "must be an object"},
		{"unknown tool", `{"tool":"browser","args":{"url":"x"}}`, "unknown tool"},
		{"missing tool", `{"args":{"cmd":"ls"}}`, "no tool"},
		{"missing args", `{"tool":"shell","explanation":"x"}`, "without args"},
		{"missing required", `{"tool":"http","args":{"url":"https://x"}}`, `"method"`},
		{"wrong type", `{"tool":"shell","args":{"cmd":["rm","-rf","/"]}}`, "must be a string"},
		{"null arg", `{"tool":"file_read","args":{"path":null}}`, "must be a string"},
		{"extra arg", `{"tool":"shell","args":{"cmd":"ls","sudo":true}}`, `"sudo"`},
		{"extra top-level key", `{"tool":"shell","args":{"cmd":"ls"},"approved":true}`, "unknown top-level key"},
		{"explanation case", `{"tool":"shell","args":{"cmd":"ls"},"Explanation":"x"}`, "unknown top-level key"},
		{"explanation type", `{"tool":"shell","args":{"cmd":"ls"},"explanation":42}`, "explanation must be a string"},
		{"duplicate key", `{"tool":"message","tool":"shell","args":{"cmd":"ls"}}`, "duplicate key"},
		{"trailing data", `{"tool":"message","args":{"text":"x"}} {}`, "trailing"},
		{"invalid utf-8", "{\"tool\":\"message\",\"args\":{\"text\":\"\xff\"}}", "UTF-8"},
		{"deep nesting", `{"tool":"message","args":{"text":"x"},"explanation":` + nested(40) + `}`, "deeper"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := DecodeJSON([]byte(tc.in))
			require.Error(t, err)
			var de *DecodeError
			assert.ErrorAs(t, err, &de)
			assert.Contains(t, err.Error(), tc.reason)
		})
	}
}

func nested(n int) string {
	s := "1"
	for i := 0; i < n; i++ {
		s = "[" + s + "]"
	}
	return s
}

func TestDecodeToolCalls(t *testing.T) {
	var openai any
	require.NoError(t, json.Unmarshal([]byte(`{"tool_calls":[{"id":"c1","type":"function","function":{"name":"file_read","arguments":"{\"path\":\"inbox.org\",\"explanation\":\"x\"}"}},{"id":"c2","type":"function","function":{"name":"message","arguments":{"text":"hi","explanation":"y"}}}]}`), &openai))
	acts, err := DecodeToolCalls(openai)
	require.NoError(t, err)
	require.Len(t, acts, 2)
	assert.Equal(t, ToolFileRead, acts[0].Tool)
	assert.Equal(t, "inbox.org", acts[0].Arg("path"))
	assert.Equal(t, "y", acts[1].Explanation)

	var anthropic any
	require.NoError(t, json.Unmarshal([]byte(`{"content":[{"type":"text","text":"sure"},{"type":"tool_use","id":"t1","name":"send","input":{"channel":"email","to":"a@b.c","text":"hi","explanation":"z"}}]}`), &anthropic))
	acts, err = DecodeToolCalls(anthropic)
	require.NoError(t, err)
	require.Len(t, acts, 1)
	assert.Equal(t, ToolSend, acts[0].Tool)

	_, err = DecodeToolCall(map[string]any{"type": "function", "function": map[string]any{"name": "shell", "arguments": `{"cmd":1}`}})
	assert.Error(t, err)
	_, err = DecodeToolCall(map[string]any{"type": "function", "function": map[string]any{"name": "nope", "arguments": `{}`}})
	assert.Error(t, err)
	_, err = DecodeToolCall("x")
	assert.Error(t, err)
}

func TestCanonicalJSON(t *testing.T) {
	a := NewAction(ToolHTTP, "why <b>", map[string]string{"url": "https://x/?a=1&b=2", "method": "GET"})
	assert.Equal(t, `{"tool":"http","args":{"body":"","method":"GET","url":"https://x/?a=1&b=2"},"explanation":"why <b>"}`, string(a.CanonicalJSON()))
	assert.Regexp(t, `^sha256:[0-9a-f]{64}$`, a.Hash())
	b := NewAction(ToolHTTP, "why <b>", map[string]string{"method": "GET", "url": "https://x/?a=1&b=2", "body": ""})
	assert.Equal(t, a.Hash(), b.Hash(), "defaults and key order do not change the hash")
}

func TestTypedRoundTrip(t *testing.T) {
	cases := []ToolArgs{
		ShellArgs{Cmd: "ls", Cwd: "."}, FileReadArgs{Path: "a.org"}, FileWriteArgs{Path: "a.org", Content: "x"},
		HTTPArgs{Method: "GET", URL: "https://x.example", Body: ""}, MessageArgs{Text: "hi"},
		SendArgs{Channel: "email", To: "a@b.c", Text: "hi"}, EvalArgs{Lang: "python", Code: "1"}, MemoryEditArgs{ID: "n", Content: "x"},
	}
	for _, c := range cases {
		a := Build(c, "why")
		assert.Equal(t, c, a.Typed())
		back, err := DecodeJSON(a.CanonicalJSON())
		require.NoError(t, err)
		assert.Equal(t, a.Hash(), back.Hash())
	}
	assert.Equal(t, ".", Build(ShellArgs{Cmd: "ls"}, "x").Arg("cwd"))
}
