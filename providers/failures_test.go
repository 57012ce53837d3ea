package providers

import (
	"context"
	"errors"
	"fmt"
	"io"
	"net"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
)

// framesOf renders an answer in format's stream.
func framesOf(format string, a providertest.Answer) []string {
	a.Model = "test-model"
	switch format {
	case ProviderOllama:
		return providertest.OllamaFrames(a)
	case ProviderOpenAI:
		return providertest.OpenAIFrames(a)
	}
	return providertest.AnthropicFrames(a)
}

// errorBody is format's error body, echoing the key as careless servers do.
func errorBody(format, msg string) string {
	switch format {
	case ProviderOllama:
		return providertest.OllamaError(msg)
	case ProviderOpenAI:
		return providertest.OpenAIError(msg, "invalid_request_error", "invalid_api_key")
	}
	return providertest.AnthropicError("authentication_error", msg)
}

// streamError is format's error inside a stream (after a 200).
func streamError(format string) string {
	switch format {
	case ProviderOllama:
		return `{"error":"an error was encountered while running the model: unexpected EOF"}` + "\n"
	case ProviderOpenAI:
		return `data: {"error":{"message":"The server had an error while processing your request.","type":"server_error","param":null,"code":null}}` + "\n\n"
	}
	return "event: error\ndata: {\"type\": \"error\", \"error\": {\"type\": \"overloaded_error\", \"message\": \"Overloaded\"}}\n\n"
}

// anyOutput marks a case whose delivered text depends on timing.
const anyOutput = "\x00any"

// textAnswer is a five-piece answer, long enough to cut in the middle.
var textAnswer = providertest.Answer{Text: []string{"one ", "two ", "three ", "four ", "five"}, InputTokens: 10, OutputTokens: 5}

// firstOutputFrame is the index of the first frame that carries text.
func firstOutputFrame(format string) int {
	switch format {
	case ProviderOllama:
		return 0
	case ProviderOpenAI:
		return 1 // after the role chunk
	}
	return 3 // after message_start, content_block_start, ping
}

// TestFailures drives each API's failure modes against a loopback server
// and checks that each ends promptly in an error of the right kind that
// never holds the key.
func TestFailures(t *testing.T) {
	type check struct {
		kind       ErrorKind
		status     int
		contains   string
		retryAfter time.Duration
		output     string // text delivered before the failure
		serverGone bool   // the server must see the client leave
	}
	cases := []struct {
		name  string
		reply func(format string) providertest.Reply
		tm    func(Timeouts) Timeouts
		want  check
	}{
		{"error body", func(f string) providertest.Reply {
			return providertest.Reply{Status: 400, Body: errorBody(f, "model 'test-model' does not support tools")}
		}, nil, check{kind: KindBadRequest, status: 400, contains: "does not support tools"}},
		{"401 echoing the key", func(f string) providertest.Reply {
			return providertest.Reply{Status: 401, Body: errorBody(f, "Incorrect API key provided: "+testKey+".")}
		}, nil, check{kind: KindAuth, status: 401, contains: "Incorrect API key provided: [redacted]"}},
		{"404 model", func(f string) providertest.Reply {
			return providertest.Reply{Status: 404, Body: errorBody(f, `model "test-model" not found, try pulling it first`)}
		}, nil, check{kind: KindNotFound, status: 404, contains: "not found"}},
		{"429 with Retry-After", func(f string) providertest.Reply {
			return providertest.Reply{Status: 429, Header: map[string]string{"Retry-After": "7"}, Body: errorBody(f, "Rate limit reached")}
		}, nil, check{kind: KindRateLimited, status: 429, contains: "Rate limit reached", retryAfter: 7 * time.Second}},
		{"500", func(f string) providertest.Reply {
			return providertest.Reply{Status: 500, Body: errorBody(f, "internal error")}
		}, nil, check{kind: KindServer, status: 500, contains: "internal error"}},
		{"502 from a proxy, in HTML", func(string) providertest.Reply {
			return providertest.Reply{Status: 502, Header: map[string]string{"Content-Type": "text/html"}, Body: "<html><body><h1>502 Bad Gateway</h1></body></html>"}
		}, nil, check{kind: KindServer, status: 502, contains: "502 Bad Gateway"}},
		{"not the API's format", func(string) providertest.Reply {
			return providertest.Reply{Frames: []string{"<html>\n", "<body>hello</body>\n", "</html>\n"}}
		}, nil, check{kind: KindProtocol}},
		{"error inside the stream, before output", func(f string) providertest.Reply {
			frames := framesOf(f, textAnswer)
			at := firstOutputFrame(f)
			return providertest.Reply{Frames: append(append([]string{}, frames[:at]...), streamError(f))}
		}, nil, check{kind: KindServer}},
		{"error inside the stream, after output", func(f string) providertest.Reply {
			frames := framesOf(f, textAnswer)
			at := firstOutputFrame(f) + 2
			return providertest.Reply{Frames: append(append([]string{}, frames[:at]...), streamError(f))}
		}, nil, check{kind: KindServer, output: "one two "}},
		{"stream cut before any output", func(f string) providertest.Reply {
			at := firstOutputFrame(f)
			return providertest.Reply{Frames: framesOf(f, textAnswer)[:at], CutAfter: at + 1}
		}, nil, check{kind: KindStreamCut}},
		{"stream cut halfway", func(f string) providertest.Reply {
			return providertest.Reply{Frames: framesOf(f, textAnswer), CutAfter: firstOutputFrame(f) + 3}
		}, nil, check{kind: KindStreamCut, output: "one two three "}},
		{"stream cut inside a line", func(f string) providertest.Reply {
			frames := framesOf(f, textAnswer)
			at := firstOutputFrame(f) + 1
			half := frames[at][:len(frames[at])/2]
			return providertest.Reply{Frames: append(append([]string{}, frames[:at]...), half), CutAfter: at + 1}
		}, nil, check{kind: KindStreamCut, output: "one "}},
		{"server never answers", func(string) providertest.Reply {
			return providertest.Reply{Silent: true}
		}, func(t Timeouts) Timeouts { t.FirstOutput = Duration(300 * time.Millisecond); return t },
			check{kind: KindTimeout, contains: "first-output timeout", serverGone: true}},
		{"headers, then nothing", func(f string) providertest.Reply {
			return providertest.Reply{Frames: framesOf(f, textAnswer)[:firstOutputFrame(f)], Hang: true}
		}, func(t Timeouts) Timeouts { t.FirstOutput = Duration(300 * time.Millisecond); return t },
			check{kind: KindTimeout, contains: "first-output timeout", serverGone: true}},
		{"stalls after output", func(f string) providertest.Reply {
			return providertest.Reply{Frames: framesOf(f, textAnswer)[:firstOutputFrame(f)+1], Hang: true}
		}, func(t Timeouts) Timeouts { t.Stall = Duration(300 * time.Millisecond); return t },
			check{kind: KindTimeout, contains: "stall timeout", output: "one ", serverGone: true}},
		{"total timeout", func(f string) providertest.Reply {
			long := providertest.Answer{}
			for i := range 50 {
				long.Text = append(long.Text, fmt.Sprintf("w%d ", i))
			}
			return providertest.Reply{Frames: framesOf(f, long), FrameDelay: 40 * time.Millisecond}
		}, func(t Timeouts) Timeouts { t.Total = Duration(600 * time.Millisecond); return t },
			check{kind: KindTimeout, contains: "total timeout", output: anyOutput, serverGone: true}},
	}
	for _, format := range formats {
		for _, tc := range cases {
			t.Run(format+"/"+tc.name, func(t *testing.T) {
				t.Parallel()
				srv := providertest.NewServer(t, tc.reply(format))
				tm := fastTimeouts()
				if tc.tm != nil {
					tm = tc.tm(tm)
				}
				logger, logs := captureLogs()
				p := newTestProvider(t, format, srv.URL, tm, Options{Logger: logger})
				start := time.Now()
				var out string
				s, err := p.Stream(testCtx(t), sampleRequest())
				if err == nil {
					var evs []Event
					evs, err = collect(s)
					out = s.Response().Text
					require.Error(t, err, "events: %v", evs)
				}
				elapsed := time.Since(start)
				assert.Less(t, elapsed, time.Duration(tm.Total)+2*time.Second, "ended within the timeouts")

				var pe *Error
				require.ErrorAs(t, err, &pe)
				assert.Equal(t, tc.want.kind, pe.Kind, "kind; error: %v", err)
				assert.Equal(t, p.Name(), pe.Provider)
				assert.Equal(t, tc.want.status, pe.Status)
				assert.Contains(t, err.Error(), tc.want.contains)
				assert.Equal(t, tc.want.retryAfter, pe.RetryAfter)
				if tc.want.output != anyOutput {
					assert.Equal(t, tc.want.output, out)
				}
				assert.NotContains(t, err.Error(), testKey)
				assert.NotContains(t, logs.String(), testKey)
				if tc.want.serverGone {
					select {
					case <-srv.ClientGone():
					case <-time.After(3 * time.Second):
						t.Fatal("the server never saw the client leave")
					}
				}
			})
		}
	}
}

// TestCancelMidStream: cancelling the context while an answer streams ends
// it at once — Next returns a KindCanceled error and the server sees the
// connection close. Closing the stream does the same.
func TestCancelMidStream(t *testing.T) {
	for _, format := range formats {
		for _, how := range []string{"cancel", "close"} {
			t.Run(format+"/"+how, func(t *testing.T) {
				t.Parallel()
				frames := framesOf(format, textAnswer)
				srv := providertest.NewServer(t, providertest.Reply{Frames: frames[:firstOutputFrame(format)+2], Hang: true})
				p := newTestProvider(t, format, srv.URL, fastTimeouts(), Options{})
				ctx, cancel := context.WithCancel(testCtx(t))
				defer cancel()
				s, err := p.Stream(ctx, sampleRequest())
				require.NoError(t, err)
				for s.Response().Text != "one two " {
					_, err := s.Next()
					require.NoError(t, err)
				}
				next := make(chan error, 1)
				go func() { _, err := s.Next(); next <- err }() // blocked: the server sends nothing more
				time.Sleep(50 * time.Millisecond)
				start := time.Now()
				if how == "cancel" {
					cancel()
				} else {
					require.NoError(t, s.Close())
				}
				select {
				case err := <-next:
					assert.Equal(t, KindCanceled, KindOf(err), "error: %v", err)
				case <-time.After(2 * time.Second):
					t.Fatal("Next did not return after the cancellation")
				}
				select {
				case path := <-srv.ClientGone():
					assert.NotEmpty(t, path)
				case <-time.After(2 * time.Second):
					t.Fatal("the server never saw the connection close")
				}
				t.Logf("ended %s after the %s", time.Since(start), how)
			})
		}
	}
}

// TestUnreachable: nothing listens at the base URL.
func TestUnreachable(t *testing.T) {
	l, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := l.Addr().String()
	require.NoError(t, l.Close())
	for _, format := range formats {
		t.Run(format, func(t *testing.T) {
			p := newTestProvider(t, format, "http://"+addr, fastTimeouts(), Options{})
			_, err := p.Stream(testCtx(t), sampleRequest())
			require.Error(t, err)
			assert.Equal(t, KindUnreachable, KindOf(err), "error: %v", err)
			assert.Contains(t, err.Error(), "is the server running at http://"+addr)
			assert.NotContains(t, err.Error(), testKey)
		})
	}
}

// TestMissingKey: Anthropic refuses to send a request without a key and
// says where to put one; OpenAI-compatible servers may need none.
func TestMissingKey(t *testing.T) {
	srv := providertest.NewServer(t)
	p, err := NewProvider(ProviderConfig{Kind: ProviderAnthropic, Model: "m", BaseURL: srv.URL}, fastTimeouts(), Options{Getenv: func(string) string { return "" }})
	require.NoError(t, err)
	_, err = p.Stream(testCtx(t), sampleRequest())
	assert.Equal(t, KindConfig, KindOf(err))
	assert.Contains(t, err.Error(), "set ANTHROPIC_API_KEY")
	assert.Empty(t, srv.Requests(), "no request without a key")

	srv.Push(providertest.Reply{Frames: framesOf(ProviderOpenAI, textAnswer)})
	p, err = NewProvider(ProviderConfig{Kind: ProviderOpenAI, Model: "m", BaseURL: srv.URL}, fastTimeouts(), Options{})
	require.NoError(t, err)
	s, err := p.Stream(testCtx(t), sampleRequest())
	require.NoError(t, err)
	_, err = s.Collect()
	require.NoError(t, err)
	assert.Empty(t, srv.Requests()[0].Header.Get("Authorization"), "no key, no Authorization header")
}

// TestStreamAfterEOF: a finished stream keeps answering io.EOF, and its
// Response is whole.
func TestStreamAfterEOF(t *testing.T) {
	srv := providertest.NewServer(t, providertest.Reply{Frames: framesOf(ProviderOllama, textAnswer)})
	p := newTestProvider(t, ProviderOllama, srv.URL, fastTimeouts(), Options{})
	s, err := p.Stream(testCtx(t), sampleRequest())
	require.NoError(t, err)
	resp, err := s.Collect()
	require.NoError(t, err)
	_, err = s.Next()
	assert.True(t, errors.Is(err, io.EOF))
	assert.Equal(t, "one two three four five", resp.Text)
	assert.Equal(t, StopEnd, resp.StopReason)
	assert.Equal(t, Usage{InputTokens: 10, OutputTokens: 5, Duration: 4883583458}, resp.Usage)
	assert.Positive(t, resp.FirstOutput)
	assert.GreaterOrEqual(t, resp.Elapsed, resp.FirstOutput)
	require.NoError(t, s.Close())
}
