package main

import (
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
	"pp-lsp/server/chat"
)

// systemPrompt is the system message of an OpenAI request.
func systemPrompt(t *testing.T, r providertest.Recorded) string {
	t.Helper()
	msgs, _ := r.JSON()["messages"].([]any)
	require.NotEmpty(t, msgs)
	s, _ := msgs[0].(map[string]any)["content"].(string)
	return s
}

var reChatLine = regexp.MustCompile(`(?m)^chat: (.+)$`)

// TestAskHoldsAConversation: a question starts a conversation whose file
// the CLI names; --chat continues it (with or without FILE:LINE) and the
// model receives the earlier turn; --no-chat keeps a question out.
func TestAskHoldsAConversation(t *testing.T) {
	srv := providertest.NewServer(t,
		providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Model: "m1", Text: []string{"Water them."}, InputTokens: 30, OutputTokens: 3})},
		providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Model: "m1", Text: []string{"Daily."}, InputTokens: 40, OutputTokens: 2})},
		providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Model: "m1", Text: []string{"Alone."}, InputTokens: 5, OutputTokens: 1})},
	)
	m := newMemexEnv(t, map[string]string{"notes.org": "* Garden\nTomatoes.\n"})
	m.env["PASSEPARTOUT_PROVIDERS"] = "openai:m1@" + srv.URL + "/v1"

	code, stdout, stderr := m.run(t, "ask", "--root", m.root, m.path("notes.org")+":2", "What do tomatoes need?")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "Water them.\n", stdout)
	assert.Contains(t, stderr, "answered by openai:m1: 30 tokens in, 3 out\n")
	match := reChatLine.FindStringSubmatch(stderr)
	require.NotNil(t, match, stderr)
	chatPath := match[1]
	assert.Equal(t, m.path("chats"), filepath.Dir(chatPath))

	code, stdout, stderr = m.run(t, "ask", "--root", m.root, "--chat", chatPath, "How often?")
	require.Equal(t, 0, code, stderr)
	assert.Equal(t, "Daily.\n", stdout)
	assert.Contains(t, stderr, "chat: "+chatPath+"\n")
	msgs := srv.Requests()[1].JSON()["messages"].([]any)
	var convo []string
	for _, x := range msgs[1:] {
		x := x.(map[string]any)
		convo = append(convo, x["role"].(string)+": "+x["content"].(string))
	}
	assert.Equal(t, []string{"user: What do tomatoes need?", "assistant: Water them.", "user: How often?"}, convo)

	code, _, stderr = m.run(t, "ask", "--root", m.root, "--no-chat", m.path("notes.org")+":1", "alone")
	require.Equal(t, 0, code, stderr)
	assert.NotContains(t, stderr, "chat:")
	entries, err := os.ReadDir(m.path("chats"))
	require.NoError(t, err)
	assert.Len(t, entries, 1, "--no-chat made no conversation")

	b, err := os.ReadFile(chatPath)
	require.NoError(t, err)
	c := chat.Parse(b, nil)
	require.Len(t, c.Turns, 2)
	assert.Equal(t, "What do tomatoes need?", c.Title)
	assert.Equal(t, []string{"Water them.", "Daily."}, []string{c.Turns[0].Answer, c.Turns[1].Answer})
	assert.Equal(t, "openai:m1", c.Turns[1].Model)
	assert.Equal(t, 40, c.Turns[1].TokensIn)
	assert.Equal(t, "../notes.org", c.Turns[1].From, "asked from nowhere in particular: where the conversation began")
	assert.Contains(t, systemPrompt(t, srv.Requests()[1]), "(asked from "+m.path("notes.org")+", line 2)")
}

func TestAskInAChatOutsideTheMemexIsRefused(t *testing.T) {
	m := newMemexEnv(t, map[string]string{"notes.org": "* n\n"})
	transcript := filepath.Join(t.TempDir(), "r.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(`{"reply":{"text":"x"}}`+"\n"), 0o644))
	m.env["PASSEPARTOUT_PROVIDERS"] = "replay:" + transcript
	outside := filepath.Join(t.TempDir(), "other.org")
	require.NoError(t, os.WriteFile(outside, []byte("#+title: other\n"), 0o644))
	code, _, stderr := m.run(t, "ask", "--root", m.root, "--chat", outside, "hi")
	assert.Equal(t, 2, code)
	assert.Equal(t, "pp-lsp ask: the conversation "+outside+" is outside the memex roots\n", stderr)
	b, err := os.ReadFile(outside)
	require.NoError(t, err)
	assert.Equal(t, "#+title: other\n", string(b))
	assert.False(t, strings.Contains(stderr, "\n\n"))
}

// TestAskNoChatFromAPrivateNoteIsRefusedWithoutALocalModel: `pp-lsp ask
// --no-chat` from a private note, with only a remote model configured, is
// refused saying why and what to do, and the model hears nothing — as a
// conversation asked from there is.
func TestAskNoChatFromAPrivateNoteIsRefusedWithoutALocalModel(t *testing.T) {
	srv := providertest.NewServer(t,
		providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Model: "m1", Text: []string{"Heard."}, InputTokens: 3, OutputTokens: 1})})
	m := newMemexEnv(t, map[string]string{"diary.org": "#+filetags: :private:\n* Friday\nThe clinic called.\n"})
	m.env["PASSEPARTOUT_PROVIDERS"] = "openai:m1@" + srv.URL + "/v1"
	code, stdout, stderr := m.run(t, "ask", "--root", m.root, "--no-chat", m.path("diary.org")+":3", "what did the oncologist say?")
	assert.Equal(t, 1, code, stderr)
	assert.Empty(t, stdout)
	assert.Contains(t, stderr, "the question is private (asked from a private note, or in a private conversation) and no provider it may use is marked local")
	assert.Empty(t, srv.Requests(), "the remote model heard a question asked from a private note")
}
