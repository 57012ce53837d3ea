package providers

import (
	"context"
	"errors"
	"net/http"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
)

// cascadeOf builds a cascade over the given providers with captured logs.
func cascadeOf(t *testing.T, tm Timeouts, pcs ...ProviderConfig) (*Cascade, *syncBuffer) {
	t.Helper()
	logger, logs := captureLogs()
	c, err := New(Config{Providers: pcs, Timeouts: tm}, Options{Getenv: testEnv(nil), Logger: logger})
	require.NoError(t, err)
	return c, logs
}

// cascadeLines returns the cascade's own log records: message, provider
// and reason.
func cascadeLines(t *testing.T, logs *syncBuffer) [][3]string {
	t.Helper()
	var out [][3]string
	for _, r := range logs.records(t) {
		msg, _ := r["msg"].(string)
		if !strings.HasPrefix(msg, "model provider") {
			continue
		}
		provider, _ := r["provider"].(string)
		reason, _ := r["reason"].(string)
		out = append(out, [3]string{msg, provider, reason})
	}
	return out
}

// TestCascadeFallThrough: a 500, an unreachable server and a stream cut
// before any output each fall through, in order, with one log line each;
// the third provider answers.
func TestCascadeFallThrough(t *testing.T) {
	failing := providertest.NewServer(t, providertest.Reply{Status: 500, Body: providertest.OllamaError("llama runner process has terminated")})
	cut := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderAnthropic, textAnswer)[:2], CutAfter: 3})
	good := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOpenAI, textAnswer)})
	dead := providertest.NewServer(t)
	deadURL := dead.URL
	dead.Close()

	pcs := []ProviderConfig{
		providerConfig(ProviderOllama, failing.URL),
		providerConfig(ProviderOpenAI, deadURL),
		providerConfig(ProviderAnthropic, cut.URL),
		providerConfig(ProviderOpenAI, good.URL),
	}
	c, logs := cascadeOf(t, fastTimeouts(), pcs...)
	s, err := c.Stream(testCtx(t), sampleRequest())
	require.NoError(t, err)
	resp, err := s.Collect()
	require.NoError(t, err)
	assert.Equal(t, "one two three four five", resp.Text)
	assert.Equal(t, pcs[3].Name(), resp.Provider)

	lines := cascadeLines(t, logs)
	require.Len(t, lines, 4, "one line per attempt: %v", lines)
	for i, want := range []struct{ msg, reason string }{
		{"model provider failed; falling through", "server error (HTTP 500): llama runner process has terminated"},
		{"model provider failed; falling through", "unreachable"},
		{"model provider failed; falling through", "stream cut"},
		{"model provider answering", ""},
	} {
		assert.Equal(t, want.msg, lines[i][0])
		assert.Equal(t, pcs[i].Name(), lines[i][1])
		assert.Contains(t, lines[i][2], want.reason)
	}
	assert.NotContains(t, logs.String(), testKey)
}

// TestCascadeRetryAfter: a 429 whose Retry-After fits the cap is waited
// out and retried on the same provider; once the waits would pass the cap,
// or when Retry-After is beyond it or absent, the cascade falls through.
func TestCascadeRetryAfter(t *testing.T) {
	limited := func(after string) providertest.Reply {
		r := providertest.Reply{Status: 429, Body: providertest.OpenAIError("Rate limit reached for requests", "requests", "rate_limit_exceeded")}
		if after != "" {
			r.Header = map[string]string{"Retry-After": after}
		}
		return r
	}
	replies := func(rs ...providertest.Reply) func() []providertest.Reply {
		return func() []providertest.Reply { return rs }
	}
	cases := []struct {
		name       string
		first      func() []providertest.Reply // built when the case runs: an HTTP-date is relative to now
		cap        time.Duration
		answeredBy int // index of the provider that answers
		firstHits  int // requests the first server received
		minWait    time.Duration
		lines      []string
	}{
		{"honoured, then answered", replies(limited("1"), providertest.Reply{Frames: framesOf(ProviderOpenAI, textAnswer)}), 1500 * time.Millisecond,
			0, 2, time.Second, []string{"model provider rate-limited; retrying after its Retry-After", "model provider answering"}},
		{"HTTP-date honoured", func() []providertest.Reply {
			return []providertest.Reply{limited(time.Now().Add(2 * time.Second).UTC().Format(http.TimeFormat)), {Frames: framesOf(ProviderOpenAI, textAnswer)}}
		}, 2500 * time.Millisecond,
			0, 2, 500 * time.Millisecond, []string{"model provider rate-limited; retrying after its Retry-After", "model provider answering"}},
		{"honoured once, then over the cap", replies(limited("1"), limited("1")), 1500 * time.Millisecond,
			1, 2, time.Second, []string{"model provider rate-limited; retrying after its Retry-After", "model provider failed; falling through", "model provider answering"}},
		{"beyond the cap", replies(limited("3600")), 1500 * time.Millisecond,
			1, 1, 0, []string{"model provider failed; falling through", "model provider answering"}},
		{"no Retry-After", replies(limited("")), 1500 * time.Millisecond,
			1, 1, 0, []string{"model provider failed; falling through", "model provider answering"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			t.Parallel()
			first := providertest.NewServer(t, tc.first()...)
			second := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOllama, textAnswer)})
			tm := fastTimeouts()
			tm.RetryAfterCap = Duration(tc.cap)
			pcs := []ProviderConfig{providerConfig(ProviderOpenAI, first.URL), providerConfig(ProviderOllama, second.URL)}
			c, logs := cascadeOf(t, tm, pcs...)
			start := time.Now()
			s, err := c.Stream(testCtx(t), sampleRequest())
			require.NoError(t, err)
			resp, err := s.Collect()
			require.NoError(t, err)
			assert.GreaterOrEqual(t, time.Since(start), tc.minWait)
			assert.Equal(t, pcs[tc.answeredBy].Name(), resp.Provider)
			assert.Len(t, first.Requests(), tc.firstHits)
			var msgs []string
			for _, l := range cascadeLines(t, logs) {
				msgs = append(msgs, l[0])
			}
			assert.Equal(t, tc.lines, msgs)
		})
	}
}

// TestCascadeCancelDuringRetryWait: cancelling while the cascade waits out
// a Retry-After ends it at once, without trying the next provider.
func TestCascadeCancelDuringRetryWait(t *testing.T) {
	first := providertest.NewServer(t, providertest.Reply{Status: 429, Header: map[string]string{"Retry-After": "2"}, Body: "{}"})
	second := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOllama, textAnswer)})
	tm := fastTimeouts()
	tm.RetryAfterCap = Duration(5 * time.Second)
	c, _ := cascadeOf(t, tm, providerConfig(ProviderOpenAI, first.URL), providerConfig(ProviderOllama, second.URL))
	ctx, cancel := context.WithTimeout(testCtx(t), 300*time.Millisecond)
	defer cancel()
	start := time.Now()
	_, err := c.Stream(ctx, sampleRequest())
	assert.Equal(t, KindCanceled, KindOf(err), "error: %v", err)
	assert.Less(t, time.Since(start), 1500*time.Millisecond)
	assert.Empty(t, second.Requests())
}

// TestCascadeCutAfterOutput: once output has reached the caller, a cut is
// the caller's error; the next provider is never asked.
func TestCascadeCutAfterOutput(t *testing.T) {
	cut := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOpenAI, textAnswer), CutAfter: 3})
	spare := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOllama, textAnswer)})
	c, logs := cascadeOf(t, fastTimeouts(), providerConfig(ProviderOpenAI, cut.URL), providerConfig(ProviderOllama, spare.URL))
	s, err := c.Stream(testCtx(t), sampleRequest())
	require.NoError(t, err)
	resp, err := s.Collect()
	assert.Equal(t, KindStreamCut, KindOf(err), "error: %v", err)
	assert.Equal(t, "one two ", resp.Text)
	assert.Empty(t, spare.Requests())
	assert.Len(t, cascadeLines(t, logs), 1, "only the answering line")
}

// TestCascadeAllFail: every failure is in the error, in order.
func TestCascadeAllFail(t *testing.T) {
	a := providertest.NewServer(t, providertest.Reply{Status: 401, Body: providertest.OpenAIError("Incorrect API key provided: "+testKey, "invalid_request_error", "invalid_api_key")})
	b := providertest.NewServer(t, providertest.Reply{Status: 529, Body: providertest.AnthropicError("overloaded_error", "Overloaded")})
	c, logs := cascadeOf(t, fastTimeouts(), providerConfig(ProviderOpenAI, a.URL), providerConfig(ProviderAnthropic, b.URL))
	_, err := c.Stream(testCtx(t), sampleRequest())
	var ce *CascadeError
	require.ErrorAs(t, err, &ce)
	require.Len(t, ce.Attempts, 2)
	assert.Equal(t, KindAuth, KindOf(ce.Attempts[0]))
	assert.Equal(t, KindServer, KindOf(ce.Attempts[1]))
	assert.Contains(t, err.Error(), "every provider failed: ")
	assert.Contains(t, err.Error(), "check the key in OPENAI_API_KEY")
	assert.NotContains(t, err.Error(), testKey)
	assert.NotContains(t, logs.String(), testKey)
	assert.Len(t, cascadeLines(t, logs), 2)
}

// TestNoProvider: asking with nothing configured names the variable.
func TestNoProvider(t *testing.T) {
	c, err := New(Config{}, Options{})
	require.NoError(t, err)
	_, err = c.Stream(testCtx(t), sampleRequest())
	require.ErrorIs(t, err, ErrNoProvider)
	assert.Contains(t, err.Error(), "PASSEPARTOUT_PROVIDERS")
	_, err = c.Consensus(testCtx(t), sampleRequest(), 2, nil)
	require.ErrorIs(t, err, ErrNoProvider)
}

// TestSelectorRoutes: the first matching rule picks providers and models;
// the model reaches the wire; no matching rule means the whole cascade.
func TestSelectorRoutes(t *testing.T) {
	small := providertest.NewServer(t)
	big := providertest.NewServer(t)
	pcs := []ProviderConfig{providerConfig(ProviderOllama, small.URL), providerConfig(ProviderOpenAI, big.URL)}
	pcs[0].Alias = "local"
	rules := []Rule{
		{Task: "propose", MaxPromptTokens: 100, Use: []Route{{Provider: "local", Model: "qwen2.5:0.5b"}}},
		{Task: "propose", Use: []Route{{Provider: "openai", Model: "gpt-big"}, {Provider: "local"}}},
		{Task: "summarise", Use: []Route{{Provider: pcs[1].Name()}}},
	}
	c, err := New(Config{Providers: pcs, Rules: rules, Timeouts: fastTimeouts()}, Options{Getenv: testEnv(nil), Logger: discardLogger()})
	require.NoError(t, err)

	short := Request{Task: "propose", Messages: []Message{{Role: RoleUser, Content: "hi"}}}
	long := Request{Task: "propose", Messages: []Message{{Role: RoleUser, Content: strings.Repeat("word ", 200)}}}
	cases := []struct {
		name   string
		req    Request
		server *providertest.Server
		frames []string
		model  string
	}{
		{"small prompt → local small model", short, small, framesOf(ProviderOllama, textAnswer), "qwen2.5:0.5b"},
		{"large prompt → the big model", long, big, framesOf(ProviderOpenAI, textAnswer), "gpt-big"},
		{"other task → the cascade's first", Request{Task: "chat", Messages: short.Messages}, small, framesOf(ProviderOllama, textAnswer), "test-model"},
		{"summarise → openai with its own model", Request{Task: "summarise", Messages: short.Messages}, big, framesOf(ProviderOpenAI, textAnswer), "test-model"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			tc.server.Push(providertest.Reply{Frames: tc.frames})
			before := len(tc.server.Requests())
			s, err := c.Stream(testCtx(t), tc.req)
			require.NoError(t, err)
			resp, err := s.Collect()
			require.NoError(t, err)
			reqs := tc.server.Requests()
			require.Len(t, reqs, before+1)
			assert.Equal(t, tc.model, reqs[before].JSON()["model"])
			assert.Equal(t, tc.model, resp.Model)
		})
	}
}

// TestSelectorFallsThroughRoutes: a rule's routes are a cascade too.
func TestSelectorFallsThroughRoutes(t *testing.T) {
	down := providertest.NewServer(t, providertest.Reply{Status: 503, Body: "{}"})
	up := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOllama, textAnswer)})
	pcs := []ProviderConfig{providerConfig(ProviderOpenAI, down.URL), providerConfig(ProviderOllama, up.URL)}
	rules := []Rule{{Use: []Route{{Provider: "openai"}, {Provider: "ollama", Model: "fallback"}}}}
	c, err := New(Config{Providers: pcs, Rules: rules, Timeouts: fastTimeouts()}, Options{Getenv: testEnv(nil), Logger: discardLogger()})
	require.NoError(t, err)
	s, err := c.Stream(testCtx(t), sampleRequest())
	require.NoError(t, err)
	resp, err := s.Collect()
	require.NoError(t, err)
	assert.Equal(t, "fallback", resp.Model)
	assert.Equal(t, "fallback", up.Requests()[0].JSON()["model"])
}

// TestEstimateTokens counts bytes over four, rounded up.
func TestEstimateTokens(t *testing.T) {
	cases := []struct {
		req  Request
		want int
	}{
		{Request{}, 0},
		{Request{System: "abcd"}, 1},
		{Request{System: "abcde"}, 2},
		{Request{Messages: []Message{{Role: RoleUser, Content: "abcd"}}}, 2}, // "user" counts too
	}
	for _, tc := range cases {
		assert.Equal(t, tc.want, EstimateTokens(tc.req))
	}
}

// TestCascadeErrorUnwrap: errors.As reaches each attempt's *Error.
func TestCascadeErrorUnwrap(t *testing.T) {
	err := error(&CascadeError{Attempts: []error{&Error{Kind: KindTimeout}, errors.New("plain")}})
	var pe *Error
	require.ErrorAs(t, err, &pe)
	assert.Equal(t, KindTimeout, pe.Kind)
}
