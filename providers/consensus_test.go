package providers

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
)

func callAnswer(name, args string) providertest.Answer {
	return providertest.Answer{Calls: []providertest.Call{{ID: "call_x", Name: name, Args: args, Pieces: 3}}, InputTokens: 10, OutputTokens: 5}
}

// TestConsensus: k providers proposing the same action agree even when
// their explanations, key order, number spelling and tool-name spelling
// differ; a provider still thinking when k agree is cancelled; different
// actions or failures are a disagreement the result spells out.
func TestConsensus(t *testing.T) {
	same1 := callAnswer("file_write", `{"path":"notes/a.org","content":"* TODO x\n","mode":1,"explanation":"add the task"}`)
	same2 := callAnswer("FILE-WRITE", `{"explanation":"the user asked for it","mode":1.0,"content":"* TODO x\n","path":"notes/a.org"}`)
	other := callAnswer("shell", `{"cmd":"rm -rf notes","cwd":".","explanation":"clean"}`)

	t.Run("agree", func(t *testing.T) {
		// The two that agree answer a little late, so that the slow one's
		// request is surely out (and has a connection to close) by then.
		a := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOllama, same1), FrameDelay: 20 * time.Millisecond})
		b := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOpenAI, same2), FrameDelay: 20 * time.Millisecond})
		slow := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderAnthropic, other)[:2], Hang: true})
		pcs := []ProviderConfig{providerConfig(ProviderOllama, a.URL), providerConfig(ProviderOpenAI, b.URL), providerConfig(ProviderAnthropic, slow.URL)}
		c, _ := cascadeOf(t, fastTimeouts(), pcs...)
		res, err := c.Consensus(testCtx(t), sampleRequest(), 2, nil)
		require.NoError(t, err)
		assert.True(t, res.Agreed, res.Summary)
		assert.Equal(t, `file_write {"content":"* TODO x\n","mode":1,"path":"notes/a.org"}`, res.Key)
		assert.Equal(t, pcs[0].Name(), res.Response.Provider)
		require.Len(t, res.Votes, 3)
		assert.Equal(t, KindCanceled, KindOf(res.Votes[2].Err), "the slow one is cancelled")
		assert.Contains(t, res.Summary, "2 providers agree")
		select {
		case <-slow.ClientGone():
		case <-time.After(3 * time.Second):
			t.Fatal("the slow provider's connection was not closed")
		}
	})

	t.Run("disagree", func(t *testing.T) {
		a := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOllama, same1)})
		b := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOpenAI, other)})
		down := providertest.NewServer(t, providertest.Reply{Status: 500, Body: providertest.AnthropicError("api_error", "Internal server error")})
		pcs := []ProviderConfig{providerConfig(ProviderOllama, a.URL), providerConfig(ProviderOpenAI, b.URL), providerConfig(ProviderAnthropic, down.URL)}
		c, logs := cascadeOf(t, fastTimeouts(), pcs...)
		res, err := c.Consensus(testCtx(t), sampleRequest(), 2, nil)
		require.NoError(t, err)
		assert.False(t, res.Agreed)
		assert.Empty(t, res.Key)
		assert.Contains(t, res.Summary, "no consensus: 2 needed, at most 1 agree")
		assert.Contains(t, res.Summary, pcs[0].Name()+" proposed file_write")
		assert.Contains(t, res.Summary, pcs[1].Name()+" proposed shell")
		assert.Contains(t, res.Summary, pcs[2].Name()+" failed (server error)")
		assert.Len(t, cascadeLines(t, logs), 1, "one line for the failure")
	})

	t.Run("custom key", func(t *testing.T) {
		a := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOllama, same1)})
		b := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOpenAI, other)})
		c, _ := cascadeOf(t, fastTimeouts(), providerConfig(ProviderOllama, a.URL), providerConfig(ProviderOpenAI, b.URL))
		res, err := c.Consensus(testCtx(t), sampleRequest(), 2, func(r Response) string { return string(r.StopReason) })
		require.NoError(t, err)
		assert.True(t, res.Agreed, "both stopped for tool use: %s", res.Summary)
	})

	t.Run("too few providers", func(t *testing.T) {
		c, _ := cascadeOf(t, fastTimeouts(), providerConfig(ProviderOllama, "http://127.0.0.1:1"))
		_, err := c.Consensus(testCtx(t), sampleRequest(), 2, nil)
		assert.ErrorContains(t, err, "a consensus of 2 needs at least 2 providers; 1 are selected")
		_, err = c.Consensus(testCtx(t), sampleRequest(), 1, nil)
		assert.ErrorContains(t, err, "k of at least 2")
	})
}

// TestCanonicalKey: what counts as the same action.
func TestCanonicalKey(t *testing.T) {
	call := func(name, args string) Response {
		return Response{ToolCalls: []ToolCall{{Name: name, Arguments: json.RawMessage(args)}}}
	}
	cases := []struct {
		name string
		a, b Response
		same bool
	}{
		{"explanations differ", call("shell", `{"cmd":"ls","explanation":"a"}`), call("shell", `{"cmd":"ls","explanation":"b"}`), true},
		{"key order and spaces", call("shell", `{"cmd":"ls","cwd":"."}`), call("shell", `{ "cwd" : ".", "cmd" : "ls" }`), true},
		{"tool spelling", call("file-read", `{"path":"a"}`), call("FILE_READ", `{"path":"a"}`), true},
		{"1 and 1.0", call("x", `{"n":1}`), call("x", `{"n":1.0}`), true},
		{"different command", call("shell", `{"cmd":"ls"}`), call("shell", `{"cmd":"rm"}`), false},
		{"nested explanation counts", call("x", `{"a":{"explanation":"1"}}`), call("x", `{"a":{"explanation":"2"}}`), false},
		{"message whitespace", Response{Text: "Done.\n"}, Response{Text: "  Done. "}, true},
		{"message vs call", Response{Text: "shell"}, call("shell", `{}`), false},
		{"html-ish text kept", call("x", `{"s":"<a>&"}`), call("x", `{"s":"\u003ca\u003e\u0026"}`), true},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.same, CanonicalKey(tc.a) == CanonicalKey(tc.b), "%q vs %q", CanonicalKey(tc.a), CanonicalKey(tc.b))
		})
	}
	assert.Equal(t, `x {"s":"<a>&"}`, CanonicalKey(call("x", `{"s":"<a>&"}`)))
}
