package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"log/slog"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/providers"
	"pp-lsp/providers/providertest"
	"pp-lsp/server/chat"
	"pp-lsp/server/journal"
)

// wireFormat is one provider API as the loopback server speaks it.
type wireFormat struct {
	kind   string
	frames func(providertest.Answer) []string
	// turns reads the conversation a request carried, each message as
	// "role: text" or "role: tool_call NAME ARGS" / "role: tool_result ID
	// TEXT", in the API's own structure (the system prompt left out).
	turns func(t *testing.T, body map[string]any) []string
}

var wireFormats = []wireFormat{
	{providers.ProviderOllama, providertest.OllamaFrames, func(t *testing.T, body map[string]any) []string {
		var out []string
		for _, m := range body["messages"].([]any) {
			m := m.(map[string]any)
			switch {
			case m["role"] == "system":
			case m["tool_calls"] != nil:
				for _, c := range m["tool_calls"].([]any) {
					f := c.(map[string]any)["function"].(map[string]any)
					args, _ := json.Marshal(f["arguments"])
					out = append(out, fmt.Sprintf("assistant: tool_call %s %s", f["name"], args))
				}
			case m["role"] == "tool":
				out = append(out, fmt.Sprintf("tool: tool_result %s %s", m["tool_name"], m["content"]))
			default:
				out = append(out, fmt.Sprintf("%s: %s", m["role"], m["content"]))
			}
		}
		return out
	}},
	{providers.ProviderOpenAI, providertest.OpenAIFrames, func(t *testing.T, body map[string]any) []string {
		var out []string
		assert.Equal(t, map[string]any{"include_usage": true}, body["stream_options"], "usage is asked for")
		for _, m := range body["messages"].([]any) {
			m := m.(map[string]any)
			switch {
			case m["role"] == "system":
			case m["tool_calls"] != nil:
				for _, c := range m["tool_calls"].([]any) {
					c := c.(map[string]any)
					f := c["function"].(map[string]any)
					out = append(out, fmt.Sprintf("assistant: tool_call %s %s [%s]", f["name"], f["arguments"], c["id"]))
				}
			case m["role"] == "tool":
				out = append(out, fmt.Sprintf("tool: tool_result [%s] %s", m["tool_call_id"], m["content"]))
			default:
				out = append(out, fmt.Sprintf("%s: %s", m["role"], m["content"]))
			}
		}
		return out
	}},
	{providers.ProviderAnthropic, providertest.AnthropicFrames, func(t *testing.T, body map[string]any) []string {
		var out []string
		assert.NotEmpty(t, body["system"], "the system prompt travels outside the messages")
		for _, m := range body["messages"].([]any) {
			m := m.(map[string]any)
			if s, ok := m["content"].(string); ok {
				out = append(out, fmt.Sprintf("%s: %s", m["role"], s))
				continue
			}
			for _, b := range m["content"].([]any) {
				b := b.(map[string]any)
				switch b["type"] {
				case "text":
					out = append(out, fmt.Sprintf("%s: %s", m["role"], b["text"]))
				case "tool_use":
					args, _ := json.Marshal(b["input"])
					out = append(out, fmt.Sprintf("%s: tool_call %s %s [%s]", m["role"], b["name"], args, b["id"]))
				case "tool_result":
					out = append(out, fmt.Sprintf("%s: tool_result [%s] %s", m["role"], b["tool_use_id"], b["content"]))
				}
			}
		}
		return out
	}},
}

func (w wireFormat) config(url string) providers.ProviderConfig {
	base := url
	if w.kind == providers.ProviderOpenAI {
		base += "/v1"
	}
	return providers.ProviderConfig{Kind: w.kind, Model: "test-" + w.kind, BaseURL: base, KeyEnv: "PP_TEST_KEY"}
}

func (w wireFormat) provider(t *testing.T, answers ...providertest.Answer) (providers.Provider, *providertest.Server) {
	t.Helper()
	var replies []providertest.Reply
	for _, a := range answers {
		replies = append(replies, providertest.Reply{Frames: w.frames(a)})
	}
	srv := providertest.NewServer(t, replies...)
	p, err := providers.NewProvider(w.config(srv.URL), providers.Timeouts{}, testProviderOptions)
	require.NoError(t, err)
	return p, srv
}

const chatNotes = "#+title: Notes\n* Garden\nTomatoes need water.\n* Kitchen\nThe oven is broken.\n"

// askChat asks text as a question of a conversation: chatFile continues
// one ("" starts one), from file:line (1-based; "" for nowhere).
func (fx *fixture) askChat(t *testing.T, chatFile, file string, line int, text string) (AskResult, error) {
	t.Helper()
	req := AskRequest{Source: SourceCLI, Text: text, Chat: chatFile, NewChat: chatFile == ""}
	if file != "" {
		req.File, req.Line = fx.path(file), line-1
	}
	return fx.agent.Ask(context.Background(), req, nil)
}

func TestAFollowUpCarriesTheEarlierTurnsInTheProvidersOwnStructure(t *testing.T) {
	for _, w := range wireFormats {
		t.Run(w.kind, func(t *testing.T) {
			p, srv := w.provider(t,
				providertest.Answer{Model: "test-" + w.kind, Calls: []providertest.Call{{ID: "toolu_1", Name: "file_read", Args: `{"path":"notes.org","explanation":"to see the garden"}`}}, InputTokens: 100, OutputTokens: 9},
				providertest.Answer{Model: "test-" + w.kind, Text: []string{"Tomatoes ", "need water."}, InputTokens: 150, OutputTokens: 4},
				providertest.Answer{Model: "test-" + w.kind, Text: []string{"Yes, daily."}, InputTokens: 200, OutputTokens: 3},
			)
			fx := newFixture(t, map[string]string{"notes.org": chatNotes}, p)

			first, err := fx.askChat(t, "", "notes.org", 3, "What does the garden need?")
			require.NoError(t, err)
			require.Equal(t, StatusAnswered, first.Status, first.Summary)
			require.NotEmpty(t, first.Chat)
			assert.Equal(t, Usage{Prompt: 250, Completion: 13}, first.Usage, "the provider's own figures, both calls")
			assert.Equal(t, w.kind+":test-"+w.kind, first.Model)
			assert.True(t, strings.HasPrefix(first.Chat, filepath.Join(fx.root, "chats", time.Now().Format("2006-01-02")+"-what-does-the-garden-need")), first.Chat)

			second, err := fx.askChat(t, first.Chat, "notes.org", 5, "Every day?")
			require.NoError(t, err)
			assert.Equal(t, first.Chat, second.Chat)
			assert.Equal(t, "Yes, daily.", second.Text)
			assert.Equal(t, Usage{Prompt: 200, Completion: 3}, second.Usage)

			reqs := srv.Requests()
			require.Len(t, reqs, 3)
			got := w.turns(t, reqs[2].JSON())
			args := `{"path":"notes.org"}`
			var want []string
			switch w.kind {
			case providers.ProviderOllama:
				want = []string{"user: What does the garden need?", "assistant: tool_call file_read " + args,
					"tool: tool_result file_read ran: " + resultLine(t, fx), "assistant: Tomatoes need water.", "user: Every day?"}
			default:
				want = []string{"user: What does the garden need?", "assistant: tool_call file_read " + args + " [chat_0_0]",
					"tool: tool_result [chat_0_0] ran: " + resultLine(t, fx), "assistant: Tomatoes need water.", "user: Every day?"}
				if w.kind == providers.ProviderAnthropic {
					want[2] = "user: tool_result [chat_0_0] ran: " + resultLine(t, fx)
				}
			}
			assert.Equal(t, want, got)
			assert.Contains(t, systemIn(reqs[2].JSON()), "The oven is broken.", "beside the foveal context of the cursor")

			c := chat.Parse([]byte(fx.read(t, strings.TrimPrefix(first.Chat, fx.root+"/"))), nil)
			assert.Equal(t, "What does the garden need?", c.Title)
			require.Len(t, c.Turns, 2)
			assert.Equal(t, w.kind+":test-"+w.kind, c.Turns[0].Model)
			assert.Equal(t, []int{250, 13}, []int{c.Turns[0].TokensIn, c.Turns[0].TokensOut})
			assert.Equal(t, "../notes.org", c.Turns[0].From, "relative to the chat, as Org reads it")
			assert.Equal(t, 3, c.Turns[0].FromLine)
			assert.Equal(t, "Tomatoes need water.", c.Turns[0].Answer)
			require.Len(t, c.Turns[0].Actions, 1)
			assert.Equal(t, chat.VerbRan, c.Turns[0].Actions[0].Verb)
			assert.Equal(t, "Yes, daily.", c.Turns[1].Answer)
			assert.Contains(t, fx.verifyJournal(t), "turn")
		})
	}
}

// resultLine is the one-line result the file_read of notes.org recorded.
func resultLine(t *testing.T, fx *fixture) string {
	t.Helper()
	entries, err := os.ReadDir(fx.path("chats"))
	require.NoError(t, err)
	require.NotEmpty(t, entries)
	c := chat.Parse([]byte(fx.read(t, "chats/"+entries[0].Name())), nil)
	require.NotEmpty(t, c.Turns)
	require.NotEmpty(t, c.Turns[0].Actions)
	return c.Turns[0].Actions[0].Result
}

// systemIn is the system prompt a request carried, in any of the formats.
func systemIn(body map[string]any) string {
	if s, ok := body["system"].(string); ok {
		return s
	}
	return body["messages"].([]any)[0].(map[string]any)["content"].(string)
}

// writeChat writes a conversation of n turns, each question and answer
// of about size words.
func (fx *fixture) writeChat(t *testing.T, name, header string, n, size int) {
	t.Helper()
	var b strings.Builder
	b.WriteString(header)
	require.NoError(t, os.MkdirAll(filepath.Dir(fx.path(name)), 0o755))
	for i := range n {
		b.WriteString("\n" + chat.Render(chat.Turn{Question: fmt.Sprintf("question %d %s", i, strings.Repeat("w ", size)), Asked: time.Now(),
			Model: "ollama:x", Answer: fmt.Sprintf("answer %d %s", i, strings.Repeat("w ", size)), From: fx.path("notes.org"), FromLine: 4}))
	}
	fx.write(t, name, b.String())
}

func TestTheOldestTurnsAreDroppedBeyondTheBudget(t *testing.T) {
	for _, w := range wireFormats {
		t.Run(w.kind, func(t *testing.T) {
			p, srv := w.provider(t, providertest.Answer{Text: []string{"ok"}, InputTokens: 1, OutputTokens: 1})
			one := chat.Tokens(chat.Turn{Question: "question 0 " + strings.Repeat("w ", 30), Answer: "answer 0 " + strings.Repeat("w ", 30)}.Messages(0))
			fx := newFixture(t, map[string]string{"notes.org": chatNotes}, p, func(o *Options) { o.Config.ChatBudget = 3*one + one/2 })
			fx.writeChat(t, "chats/long.org", "#+title: long\n", 8, 30)

			res, err := fx.askChat(t, "chats/long.org", "notes.org", 2, "and now?")
			require.NoError(t, err)
			assert.Equal(t, fx.path("chats/long.org"), res.Chat)
			var questions []string
			for _, m := range w.turns(t, srv.Requests()[0].JSON()) {
				if q, ok := strings.CutPrefix(m, "user: "); ok {
					questions = append(questions, strings.Fields(q)[0]+" "+strings.Fields(q)[1])
				}
			}
			assert.Equal(t, []string{"question 5", "question 6", "question 7", "and now?"}, questions)
		})
	}
}

func TestACutStreamLeavesATurnMarkedFailed(t *testing.T) {
	for _, w := range wireFormats {
		t.Run(w.kind, func(t *testing.T) {
			frames := w.frames(providertest.Answer{Text: []string{"The begin", "ning of an ", "answer that never ends"}, InputTokens: 5, OutputTokens: 5})
			srv := providertest.NewServer(t, providertest.Reply{Frames: frames, CutAfter: 3})
			p, err := providers.NewProvider(w.config(srv.URL), providers.Timeouts{}, testProviderOptions)
			require.NoError(t, err)
			fx := newFixture(t, map[string]string{"notes.org": chatNotes}, p)
			fx.writeChat(t, "chats/c.org", "#+title: c\n", 1, 3)
			before := fx.read(t, "chats/c.org")

			res, _ := fx.askChat(t, "chats/c.org", "notes.org", 2, "go on")
			assert.Equal(t, StatusFailed, res.Status)
			after := fx.read(t, "chats/c.org")
			require.True(t, strings.HasPrefix(after, before), "the earlier turns are untouched")
			c := chat.Parse([]byte(after), nil)
			require.Len(t, c.Turns, 2)
			assert.Equal(t, "go on", c.Turns[1].Question)
			assert.NotEmpty(t, c.Turns[1].Failed)
			assert.Empty(t, c.Turns[1].Answer, "no half answer is kept")
			assert.Contains(t, after, ":STATUS: failed")
			entries, err := os.ReadDir(fx.path("chats"))
			require.NoError(t, err)
			assert.Len(t, entries, 1, "no temp file is left behind")
			assert.Len(t, c.History(10000), 2, "a failed turn is not history")
		})
	}
}

func TestConcurrentQuestionsIntoOneChatSerialise(t *testing.T) {
	var replies []providertest.Reply
	for _, text := range []string{"first answer", "second answer"} {
		replies = append(replies, providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Text: []string{text}, InputTokens: 1, OutputTokens: 1}), FrameDelay: 20 * time.Millisecond})
	}
	srv := providertest.NewServer(t, replies...)
	p, err := providersFor(srv.URL + "/v1")
	require.NoError(t, err)
	fx := newFixture(t, map[string]string{"notes.org": chatNotes}, p)
	fx.writeChat(t, "chats/c.org", "#+title: c\n", 0, 0)

	var wg sync.WaitGroup
	errs := make([]error, 2)
	for i := range 2 {
		wg.Add(1)
		go func() {
			defer wg.Done()
			_, errs[i] = fx.askChat(t, "chats/c.org", "notes.org", 2, fmt.Sprintf("question %d", i))
		}()
	}
	wg.Wait()
	require.NoError(t, errs[0])
	require.NoError(t, errs[1])
	reqs := srv.Requests()
	require.Len(t, reqs, 2)
	// The second question asked saw the first one's whole turn.
	assert.Len(t, wireFormats[1].turns(t, reqs[0].JSON()), 1)
	assert.Len(t, wireFormats[1].turns(t, reqs[1].JSON()), 3)
	c := chat.Parse([]byte(fx.read(t, "chats/c.org")), nil)
	require.Len(t, c.Turns, 2)
	assert.Equal(t, "first answer", c.Turns[0].Answer)
	assert.Equal(t, "second answer", c.Turns[1].Answer)
}

// testProviderOptions give the loopback providers their test key.
var testProviderOptions = providers.Options{Logger: slog.New(slog.DiscardHandler), Getenv: func(k string) string {
	if k == "PP_TEST_KEY" {
		return "sk-test"
	}
	return ""
}}

// cascade builds a cascade of the given providers (discarding logs).
func cascade(t *testing.T, pcs ...providers.ProviderConfig) providers.Provider {
	t.Helper()
	c, err := providers.New(providers.Config{Providers: pcs}, testProviderOptions)
	require.NoError(t, err)
	return c
}

func TestAPrivateChatGoesOnlyToLocalProviders(t *testing.T) {
	remote := providertest.NewServer(t, providertest.Reply{Frames: providertest.AnthropicFrames(providertest.Answer{Text: []string{"remote"}})})
	local := providertest.NewServer(t, providertest.Reply{Frames: providertest.OllamaFrames(providertest.Answer{Text: []string{"local"}, InputTokens: 1, OutputTokens: 1})})
	p := cascade(t, wireFormats[2].config(remote.URL), wireFormats[0].config(local.URL))
	fx := newFixture(t, map[string]string{"notes.org": chatNotes}, p)
	fx.writeChat(t, "chats/secret.org", "#+title: secret\n#+filetags: :private:\n", 2, 3)

	res, err := fx.askChat(t, "chats/secret.org", "notes.org", 2, "more")
	require.NoError(t, err)
	assert.Equal(t, "local", res.Text)
	assert.Empty(t, remote.Requests(), "the remote provider heard nothing")
	require.Len(t, local.Requests(), 1)
	assert.Len(t, wireFormats[0].turns(t, local.Requests()[0].JSON()), 5)

	// With no local provider the private chat is not sent anywhere.
	fx2 := newFixture(t, map[string]string{"notes.org": chatNotes}, cascade(t, wireFormats[2].config(remote.URL)))
	fx2.writeChat(t, "chats/secret.org", "#+title: secret\n#+filetags: :private:\n", 1, 3)
	res, err = fx2.askChat(t, "chats/secret.org", "notes.org", 2, "more")
	require.NoError(t, err)
	assert.Equal(t, StatusFailed, res.Status)
	assert.Contains(t, res.Summary, "private")
	assert.Empty(t, remote.Requests())

	// A private chat is hidden from the context of other questions.
	ctxRes, err := fx.agent.Context(context.Background(), ContextRequest{File: fx.path("notes.org"), Line: 1})
	require.NoError(t, err)
	assert.NotContains(t, ctxRes.Text, "question 0")
}

func TestTheChatsModelPicksAProviderOfTheCascade(t *testing.T) {
	first := providertest.NewServer(t)
	second := providertest.NewServer(t, providertest.Reply{Frames: providertest.OllamaFrames(providertest.Answer{Text: []string{"from the second"}, InputTokens: 1, OutputTokens: 1})})
	fx := newFixture(t, map[string]string{"notes.org": chatNotes}, cascade(t,
		providers.ProviderConfig{Kind: providers.ProviderOpenAI, Model: "big", BaseURL: first.URL + "/v1"},
		wireFormats[0].config(second.URL)))
	fx.writeChat(t, "chats/m.org", "#+title: m\n#+PROPERTY: MODEL ollama:test-ollama\n", 0, 0)
	res, err := fx.askChat(t, "chats/m.org", "notes.org", 2, "hi")
	require.NoError(t, err)
	assert.Equal(t, "from the second", res.Text)
	assert.Equal(t, "ollama:test-ollama", res.Model)
	assert.Empty(t, first.Requests())

	fx.write(t, "chats/n.org", "#+title: n\n#+PROPERTY: MODEL nobody:x\n")
	res, err = fx.askChat(t, "chats/n.org", "notes.org", 2, "hi")
	require.NoError(t, err)
	assert.Equal(t, StatusFailed, res.Status)
	assert.Contains(t, res.Summary, `no provider of the cascade is named "nobody:x"`)
}

func TestUsageIsEstimatedAndSaidSoWhenTheProviderGivesNone(t *testing.T) {
	// An OpenAI-compatible server that ignores stream_options sends no
	// usage chunk.
	var frames []string
	for _, f := range providertest.OpenAIFrames(providertest.Answer{Text: []string{"An answer without figures."}}) {
		if !strings.Contains(f, `"choices":[]`) {
			frames = append(frames, f)
		}
	}
	srv := providertest.NewServer(t, providertest.Reply{Frames: frames})
	p, err := providersFor(srv.URL + "/v1")
	require.NoError(t, err)
	fx := newFixture(t, map[string]string{"notes.org": chatNotes}, p)
	res, err := fx.askChat(t, "", "notes.org", 2, "how much?")
	require.NoError(t, err)
	assert.True(t, res.Usage.Estimated)
	assert.Positive(t, res.Usage.Prompt)
	assert.Positive(t, res.Usage.Completion)
	text := fx.read(t, strings.TrimPrefix(res.Chat, fx.root+"/"))
	assert.Contains(t, text, ":TOKENS_ESTIMATED: t")
}

func TestAQuestionAskedFromTheChatFileContinuesIt(t *testing.T) {
	p, srv := wireFormats[1].provider(t, providertest.Answer{Text: []string{"again"}, InputTokens: 1, OutputTokens: 1})
	fx := newFixture(t, map[string]string{"notes.org": chatNotes}, p)
	fx.writeChat(t, "chats/c.org", "#+title: c\n", 1, 2)
	res, err := fx.agent.Ask(context.Background(), AskRequest{Source: SourceLSP, Text: "and?", File: fx.path("chats/c.org"), Line: 3, NewChat: true}, nil)
	require.NoError(t, err)
	assert.Equal(t, fx.path("chats/c.org"), res.Chat)
	body := srv.Requests()[0].JSON()
	assert.Len(t, wireFormats[1].turns(t, body), 3)
	assert.Contains(t, systemIn(body), "(asked from "+fx.path("notes.org")+", line 4)", "the context is where the conversation began")
	c := chat.Parse([]byte(fx.read(t, "chats/c.org")), nil)
	require.Len(t, c.Turns, 2)
	assert.Equal(t, "../notes.org", c.Turns[1].From)
}

func TestAFollowUpNamesAConversationInTheRoots(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": chatNotes}, replay(t, `{"reply":{"text":"x"}}`))
	for _, name := range []string{"/etc/passwd", "../outside.org", "flightplans.org", "chats/none.org", "notes.org"} {
		_, err := fx.askChat(t, name, "notes.org", 1, "hi")
		require.Error(t, err, name)
		assert.ErrorIs(t, err, ErrUsage, name)
	}
	_, err := os.Stat(fx.path("flightplans.org"))
	assert.ErrorIs(t, err, os.ErrNotExist)
	assert.Equal(t, chatNotes, fx.read(t, "notes.org"), "a note that is no conversation grows no turn")

	// A conversation moved out of chats/ is still one.
	fx.writeChat(t, "archive/old.org", "#+title: old\n", 1, 2)
	res, err := fx.askChat(t, "archive/old.org", "notes.org", 1, "hi")
	require.NoError(t, err)
	assert.Equal(t, fx.path("archive/old.org"), res.Chat)
}

// TestAChatPrivateAsOrgReadsItGoesToNoRemoteModel: a conversation is
// private by every #+FILETAGS: line, wherever it is (Org applies them
// all, and so does the memex), as much as by the first one: its turns
// never reach a provider not marked local.
func TestAChatPrivateAsOrgReadsItGoesToNoRemoteModel(t *testing.T) {
	for _, tc := range []struct{ name, header, trailer string }{
		{"second filetags line", "#+title: secret\n#+filetags: :work:\n#+filetags: :private:\n", ""},
		{"filetags after the turns", "#+title: secret\n", "#+filetags: :private:\n"},
		{"filetags upper case after a turn", "#+title: secret\n", "#+FILETAGS: :Private:\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			remote := providertest.NewServer(t, providertest.Reply{Frames: providertest.AnthropicFrames(providertest.Answer{Text: []string{"remote"}})})
			fx := newFixture(t, map[string]string{"notes.org": chatNotes}, cascade(t, wireFormats[2].config(remote.URL)))
			fx.writeChat(t, "chats/secret.org", tc.header, 2, 3)
			if tc.trailer != "" {
				old, err := os.ReadFile(fx.path("chats/secret.org"))
				require.NoError(t, err)
				fx.write(t, "chats/secret.org", string(old)+tc.trailer)
			}
			res, err := fx.askChat(t, "chats/secret.org", "notes.org", 2, "more")
			require.NoError(t, err)
			assert.Equal(t, StatusFailed, res.Status)
			for _, r := range remote.Requests() {
				assert.False(t, strings.Contains(string(r.Body), "question 0"), "a private turn reached the remote model")
			}
			assert.Zero(t, len(remote.Requests()), "the remote provider heard nothing")
		})
	}
}

// TestAPrivateConversationsActionsStayOutOfLaterPrompts: what a private
// conversation's pass did — an action's summary, logged — never reaches
// the LOGS of a later question's prompt, which may go to a remote model;
// a public pass's does.
func TestAPrivateConversationsActionsStayOutOfLaterPrompts(t *testing.T) {
	local := providertest.NewServer(t, providertest.Reply{Frames: providertest.OllamaFrames(providertest.Answer{
		Calls:       []providertest.Call{{ID: "c1", Name: "file_write", Args: `{"path":"reminders/oncology.txt","content":"friday\n","explanation":"a reminder"}`}},
		InputTokens: 1, OutputTokens: 1})})
	remote := providertest.NewServer(t,
		providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Calls: []providertest.Call{{ID: "c1", Name: "file_write",
			Args: `{"path":"reminders/tomatoes.txt","content":"water\n","explanation":"a reminder"}`}}})},
		providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Text: []string{"fine"}})})
	p := cascade(t, providers.ProviderConfig{Kind: providers.ProviderOpenAI, Model: "remote", BaseURL: remote.URL + "/v1"}, wireFormats[0].config(local.URL))
	fx := newFixture(t, map[string]string{"notes.org": chatNotes}, p)
	fx.writeChat(t, "chats/secret.org", "#+title: secret\n#+filetags: :private:\n", 1, 3)

	res, err := fx.askChat(t, "chats/secret.org", "notes.org", 2, "remind me")
	require.NoError(t, err)
	require.Equal(t, StatusRan, res.Status, "%+v", res)
	require.FileExists(t, fx.path("reminders/oncology.txt"))
	for _, q := range []string{"remind me of the tomatoes", "anything else?"} {
		_, err = fx.askChat(t, "", "notes.org", 2, q)
		require.NoError(t, err)
	}
	reqs := remote.Requests()
	require.Len(t, reqs, 2)
	body := string(reqs[1].Body)
	assert.Contains(t, body, "reminders/tomatoes.txt", "a public pass's action is in the LOGS")
	assert.False(t, strings.Contains(body, "oncology"), "the private conversation's action reached a remote model")
}

// TestAConversationAskedFromAPrivatePlaceIsPrivate: a question asked from
// a note private as a whole, or from inside a private node, makes a
// conversation private on disk (gates.PrivateSpans reads it so, and so
// the memex and every consumer): it goes only to a local provider, its
// follow-ups too, and neither the private file's name (the turn's :FROM:)
// nor the question reaches a remote model through a later question's
// context. A turn asked so into a public conversation is a private turn,
// and the conversation's later turns are private too.
func TestAConversationAskedFromAPrivatePlaceIsPrivate(t *testing.T) {
	const (
		name     = "divorce-lawyer-meeting"
		question = "what did the oncologist say"
	)
	notes := "#+title: Notes\n* Garden\nTomatoes need water.\n* Diary :private:\nThe clinic called.\n"
	files := map[string]string{"notes.org": notes, "notes/" + name + ".org": "#+filetags: :private:\n* Friday\nBring the papers.\n"}
	for _, w := range wireFormats[1:] {
		for _, place := range []struct {
			name string
			file string
			line int
		}{{"a private file", "notes/" + name + ".org", 2}, {"a private node", "notes.org", 5}} {
			t.Run(w.kind+"/"+place.name, func(t *testing.T) {
				ans := func(s string) providertest.Answer {
					return providertest.Answer{Text: []string{s}, InputTokens: 1, OutputTokens: 1}
				}
				remote := providertest.NewServer(t, providertest.Reply{Frames: w.frames(ans("remote"))}, providertest.Reply{Frames: w.frames(ans("remote"))})
				local := providertest.NewServer(t, providertest.Reply{Frames: providertest.OllamaFrames(ans("local"))},
					providertest.Reply{Frames: providertest.OllamaFrames(ans("local"))}, providertest.Reply{Frames: providertest.OllamaFrames(ans("local"))})
				fx := newFixture(t, files, cascade(t, w.config(remote.URL), wireFormats[0].config(local.URL)))
				tags := fx.mx.Snapshot().PrivacyTags()

				// A new conversation from the private place.
				res, err := fx.askChat(t, "", place.file, place.line, question)
				require.NoError(t, err)
				assert.Equal(t, "local", res.Text, "%+v", res)
				assert.Zero(t, len(remote.Requests()), "the remote provider heard the question")
				require.NotEmpty(t, res.Chat)
				text, err := os.ReadFile(res.Chat)
				require.NoError(t, err)
				_, whole := gates.PrivateSpans(text, tags)
				assert.True(t, whole, "the conversation is private as a whole:\n%s", text)
				priv := res.Chat

				// A follow-up from a public place stays private.
				res, err = fx.askChat(t, priv, "notes.org", 3, "and then?")
				require.NoError(t, err)
				assert.Equal(t, "local", res.Text, "%+v", res)
				assert.Zero(t, len(remote.Requests()), "the remote provider heard the follow-up")

				// A public conversation's follow-up from the private place:
				// its turn is private, and so is every later one.
				fx.writeChat(t, "chats/pub.org", "#+title: pub\n", 1, 2)
				res, err = fx.askChat(t, "chats/pub.org", place.file, place.line, question+" again")
				require.NoError(t, err)
				assert.Equal(t, "local", res.Text, "%+v", res)
				assert.Zero(t, len(remote.Requests()), "the remote provider heard the turn asked from the private place")
				pub := []byte(fx.read(t, "chats/pub.org"))
				spans, _ := gates.PrivateSpans(pub, tags)
				require.Len(t, spans, 1, "%s", pub)
				assert.Contains(t, string(pub[spans[0].Start:spans[0].End]), "again", "the turn is the private part")
				assert.NotContains(t, string(pub[:spans[0].Start]), name)

				// A new question from a public place, to the remote model:
				// nothing of the private conversations is in its context.
				res, err = fx.askChat(t, "", "notes.org", 3, "what grows?")
				require.NoError(t, err)
				assert.Equal(t, "remote", res.Text, "%+v", res)
				reqs := remote.Requests()
				require.Len(t, reqs, 1)
				body := string(reqs[0].Body)
				assert.Contains(t, body, "Tomatoes", "the public notes are in the context")
				assert.Contains(t, body, "question 0", "the public turn is in the context")
				for _, secret := range []string{name, "oncologist", "clinic"} {
					assert.False(t, strings.Contains(body, secret), "%q reached the remote model", secret)
				}
			})
		}
	}
}

// TestAQuestionFromAFileItsSetupFileMakesPrivateIsPrivate: a question
// asked from a file outside the memex (Org text in a .txt) that a
// #+SETUPFILE: makes private — as the gates, the filter and file_read
// read it (gates.PrivateSpansOf) — starts a private conversation: it goes
// only to a local provider.
func TestAQuestionFromAFileItsSetupFileMakesPrivateIsPrivate(t *testing.T) {
	ans := func(s string) providertest.Answer {
		return providertest.Answer{Text: []string{s}, InputTokens: 1, OutputTokens: 1}
	}
	w := wireFormats[1]
	remote := providertest.NewServer(t, providertest.Reply{Frames: w.frames(ans("remote"))})
	local := providertest.NewServer(t, providertest.Reply{Frames: providertest.OllamaFrames(ans("local"))})
	files := map[string]string{
		"notes.org":     chatNotes,
		"private.setup": "#+filetags: :private:\n",
		"draft.txt":     "#+SETUPFILE: private.setup\n* Friday\nThe oncologist called.\n",
	}
	fx := newFixture(t, files, cascade(t, w.config(remote.URL), wireFormats[0].config(local.URL)))
	_, held := fx.mx.Snapshot().File(fx.path("draft.txt"))
	require.False(t, held, "the file is outside the memex")

	res, err := fx.askChat(t, "", "draft.txt", 2, "what did the oncologist say")
	require.NoError(t, err)
	assert.Equal(t, "local", res.Text, "%+v", res)
	assert.Zero(t, len(remote.Requests()), "the remote provider heard a question asked from a private file")
}

// filePrivatePlan asks in a private conversation, which a local model
// answers by proposing "make oncology-friday", filed as a plan; the
// remote model, which answers later public questions, is returned to
// read what it heard.
func filePrivatePlan(t *testing.T, opts ...fixtureOption) (*fixture, *providertest.Server, AskResult) {
	t.Helper()
	local := providertest.NewServer(t, providertest.Reply{Frames: providertest.OllamaFrames(providertest.Answer{
		Calls:       []providertest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"make oncology-friday","explanation":"the appointment"}`}},
		InputTokens: 1, OutputTokens: 1})})
	remote := providertest.NewServer(t, providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Text: []string{"fine"}})})
	p := cascade(t, providers.ProviderConfig{Kind: providers.ProviderOpenAI, Model: "remote", BaseURL: remote.URL + "/v1"}, wireFormats[0].config(local.URL))
	fx := newFixture(t, map[string]string{"notes.org": chatNotes}, p, opts...)
	fx.writeChat(t, "chats/secret.org", "#+title: secret\n#+filetags: :private:\n", 1, 3)
	res, err := fx.askChat(t, "chats/secret.org", "notes.org", 2, "when is it")
	require.NoError(t, err)
	require.Equal(t, StatusFiled, res.Status, "%+v", res)
	return fx, remote, res
}

// TestARuleFromAPrivateConversationsPlanStaysOutOfLaterPrompts: approving
// a plan a private conversation filed with similar actions allowed from
// then on logs the rule it adds — which names the action, and so may quote
// the conversation — never into the LOGS of a later prompt, which may go
// to a remote model.
func TestARuleFromAPrivateConversationsPlanStaysOutOfLaterPrompts(t *testing.T) {
	cfg := filepath.Join(t.TempDir(), "pp.json")
	fx, remote, res := filePrivatePlan(t, func(o *Options) { o.ConfigFile = cfg })
	run, err := fx.agent.ApproveAlways(context.Background(), res.PlanID)
	require.NoError(t, err)
	require.Contains(t, run.Rule, "oncology", "the rule names the action")

	_, err = fx.askChat(t, "", "notes.org", 2, "anything else?")
	require.NoError(t, err)
	reqs := remote.Requests()
	require.Len(t, reqs, 1)
	body := string(reqs[0].Body)
	assert.Contains(t, body, "LOGS", "the prompt has its LOGS")
	assert.False(t, strings.Contains(body, "oncology"), "the private conversation's rule reached a remote model: %s", body)
}

// TestAPrivatePlansChangeStaysOutOfLaterPrompts: the run of a plan a
// private conversation filed logs the change it recorded (to undo) never
// into the LOGS of a later prompt, which may go to a remote model: as
// everything else such a plan logs, it is logged with the run's context,
// which keeps it out.
func TestAPrivatePlansChangeStaysOutOfLaterPrompts(t *testing.T) {
	local := providertest.NewServer(t, providertest.Reply{Frames: providertest.OllamaFrames(providertest.Answer{
		Calls:       []providertest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"make oncology-friday","explanation":"the appointment"}`}},
		InputTokens: 1, OutputTokens: 1})})
	remote := providertest.NewServer(t, providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Text: []string{"fine"}})})
	p := cascade(t, providers.ProviderConfig{Kind: providers.ProviderOpenAI, Model: "remote", BaseURL: remote.URL + "/v1"}, wireFormats[0].config(local.URL))
	fx := newFixture(t, map[string]string{"notes.org": chatNotes, "Makefile": "oncology-friday:\n\techo '* Friday' > out/when.org\n", "out/.keep": ""}, p)
	fx.writeChat(t, "chats/secret.org", "#+title: secret\n#+filetags: :private:\n", 1, 3)
	ctx := context.Background()
	res, err := fx.askChat(t, "chats/secret.org", "notes.org", 2, "when is it")
	require.NoError(t, err)
	require.Equal(t, StatusFiled, res.Status, "%+v", res)
	run, err := fx.agent.Approve(ctx, res.PlanID)
	require.NoError(t, err)
	require.True(t, run.Ran, "%+v", run)
	changes, err := fx.agent.Changes(ctx)
	require.NoError(t, err)
	require.Len(t, changes, 1, "the run's change is recorded")

	_, err = fx.askChat(t, "", "notes.org", 2, "anything else?")
	require.NoError(t, err)
	reqs := remote.Requests()
	require.Len(t, reqs, 1)
	body := string(reqs[0].Body)
	assert.Contains(t, body, "LOGS", "the prompt has its LOGS")
	// The change's ID is redacted as a token wherever it stands; what
	// must not be there is the line that says the private run changed
	// files.
	assert.False(t, strings.Contains(body, changes[0].ID) || strings.Contains(body, "checkpoint recorded"),
		"the private plan's change reached a remote model: %s", body)
}

// TestAQuestionFromAPrivatePlaceInNoConversationIsPrivate: a question
// asked from a private place in no conversation (--no-chat, "noChat")
// is as private as one in a conversation: only a local provider hears
// it, its journal entries say :PRIVATE: t, and nothing of it is in a
// later question's LOGS; with no local provider it is refused, and no
// model hears it. (Before, it went to the remote model, its context
// without the private nodes but its question and place as they were.)
func TestAQuestionFromAPrivatePlaceInNoConversationIsPrivate(t *testing.T) {
	const question = "what did the oncologist say"
	notes := "#+title: Notes\n* Garden\nTomatoes need water.\n* Diary :private:\nThe clinic called.\n"
	files := map[string]string{"notes.org": notes, "notes/divorce.org": "#+filetags: :private:\n* Friday\nBring the papers.\n"}
	ans := func(s string) providertest.Answer {
		return providertest.Answer{Text: []string{s}, InputTokens: 1, OutputTokens: 1}
	}
	w := wireFormats[1]
	for _, place := range []struct {
		name string
		file string
		line int
	}{{"a private file", "notes/divorce.org", 2}, {"a private node", "notes.org", 5}} {
		t.Run(place.name, func(t *testing.T) {
			remote := providertest.NewServer(t, providertest.Reply{Frames: w.frames(ans("remote"))})
			local := providertest.NewServer(t, providertest.Reply{Frames: providertest.OllamaFrames(ans("local"))})
			fx := newFixture(t, files, cascade(t, w.config(remote.URL), wireFormats[0].config(local.URL)))

			res, _, err := fx.ask(t, place.file, place.line, question)
			require.NoError(t, err)
			assert.Equal(t, "local", res.Text, "%+v", res)
			assert.Zero(t, len(remote.Requests()), "the remote provider heard the question")
			assert.Empty(t, res.Chat, "no conversation")
			var mine int
			for _, h := range journal.Headlines([]byte(fx.read(t, journal.FileName))) {
				if h.Kind != journal.KindStart {
					mine++
					assert.True(t, h.Private, "journal entry %q is private", h.Line)
				}
			}
			assert.Positive(t, mine)

			res, _, err = fx.ask(t, "notes.org", 3, "what grows?")
			require.NoError(t, err)
			assert.Equal(t, "remote", res.Text, "%+v", res)
			reqs := remote.Requests()
			require.Len(t, reqs, 1)
			body := string(reqs[0].Body)
			assert.Contains(t, body, "Tomatoes")
			for _, secret := range []string{"oncologist", "divorce", "clinic"} {
				assert.False(t, strings.Contains(body, secret), "%q reached the remote model", secret)
			}
		})
		t.Run(place.name+", no local provider", func(t *testing.T) {
			p, remote := w.provider(t, ans("remote"))
			fx := newFixture(t, files, p)
			res, _, err := fx.ask(t, place.file, place.line, question)
			require.NoError(t, err)
			assert.Equal(t, StatusFailed, res.Status)
			require.NotEmpty(t, res.Passes)
			assert.ErrorContains(t, res.Passes[len(res.Passes)-1].Err, "is not marked local")
			assert.Zero(t, len(remote.Requests()), "the remote provider heard the question")
		})
	}
}

// TestTheHeartbeatsLogOfAPrivatePlanStaysOutOfLaterPrompts: what the
// heartbeat logs of a private conversation's plan it could not handle (a
// plan that ran, set to REJECTED afterwards) is kept out of the LOGS of
// later prompts, as everything else such a plan logs.
func TestTheHeartbeatsLogOfAPrivatePlanStaysOutOfLaterPrompts(t *testing.T) {
	fx, remote, res := filePrivatePlan(t)
	ctx := context.Background()
	_, err := fx.agent.Approve(ctx, res.PlanID)
	require.NoError(t, err)
	plans := fx.read(t, "flightplans.org")
	rejected := regexp.MustCompile(`(?m)^\* (DONE|FAILED) `).ReplaceAllString(plans, "* REJECTED ")
	require.NotEqual(t, plans, rejected, plans)
	fx.write(t, "flightplans.org", rejected)
	runs, err := fx.agent.Pickup(ctx)
	require.NoError(t, err)
	require.Len(t, runs, 1)
	require.Error(t, runs[0].Err, "the plan has run: it cannot be rejected")
	fx.write(t, "flightplans.org", rejected)
	fx.agent.tick(ctx, false)

	_, err = fx.askChat(t, "", "notes.org", 2, "anything else?")
	require.NoError(t, err)
	reqs := remote.Requests()
	require.Len(t, reqs, 1)
	body := string(reqs[0].Body)
	assert.Contains(t, body, "LOGS", "the prompt has its LOGS")
	assert.False(t, strings.Contains(body, res.PlanID), "the heartbeat's log of the private plan reached a remote model")
}
