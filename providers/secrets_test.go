package providers

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
)

// TestKeyNeverLeaks runs every failure path of every API — through the
// cascade, with its logging — with a key set and servers that echo the key
// back in their error messages, and checks that the key went out in its
// header and nowhere else: not in any error's text or %+v, not in any log
// record. Doctor's diagnoses and the embedders' errors are swept too.
func TestKeyNeverLeaks(t *testing.T) {
	echo := "invalid key " + testKey + " (" + testKey[:12] + "…)"
	replies := map[string]func(format string) providertest.Reply{
		"400": func(f string) providertest.Reply { return providertest.Reply{Status: 400, Body: errorBody(f, echo)} },
		"401": func(f string) providertest.Reply { return providertest.Reply{Status: 401, Body: errorBody(f, echo)} },
		"403": func(f string) providertest.Reply { return providertest.Reply{Status: 403, Body: echo} },
		"404": func(f string) providertest.Reply { return providertest.Reply{Status: 404, Body: errorBody(f, echo)} },
		"429": func(f string) providertest.Reply {
			return providertest.Reply{Status: 429, Header: map[string]string{"Retry-After": "3600"}, Body: errorBody(f, echo)}
		},
		"500": func(f string) providertest.Reply { return providertest.Reply{Status: 500, Body: errorBody(f, echo)} },
		"stream error": func(f string) providertest.Reply {
			return providertest.Reply{Frames: []string{strings.ReplaceAll(streamError(f), "Overloaded", echo)}}
		},
		"garbage": func(string) providertest.Reply { return providertest.Reply{Frames: []string{echo + "\n"}} },
		"cut": func(f string) providertest.Reply {
			at := firstOutputFrame(f)
			return providertest.Reply{Frames: framesOf(f, textAnswer)[:at], CutAfter: at + 1}
		},
		"silent": func(string) providertest.Reply { return providertest.Reply{Silent: true} },
	}
	var everything strings.Builder
	for _, format := range formats {
		for name, reply := range replies {
			t.Run(format+"/"+name, func(t *testing.T) {
				t.Parallel()
				srv := providertest.NewServer(t, reply(format))
				tm := fastTimeouts()
				tm.FirstOutput = Duration(300 * time.Millisecond)
				c, logs := cascadeOf(t, tm, providerConfig(format, srv.URL))
				_, err := c.Stream(testCtx(t), sampleRequest())
				require.Error(t, err)
				for _, text := range []string{err.Error(), fmt.Sprintf("%+v", err), fmt.Sprintf("%#v", err), logs.String()} {
					assert.NotContains(t, text, testKey)
				}
				reqs := srv.Requests()
				require.Len(t, reqs, 1)
				sent := reqs[0].Header.Get("Authorization") + reqs[0].Header.Get("X-Api-Key")
				assert.Contains(t, sent, testKey, "the key did go out, in its header")
			})
		}
	}

	t.Run("doctor", func(t *testing.T) {
		srv := providertest.NewServer(t)
		for _, path := range []string{"GET /api/tags", "GET /models", "GET /v1/models"} {
			srv.Route(path, providertest.Reply{Status: 401, Body: echo})
		}
		var pcs []ProviderConfig
		for _, f := range formats {
			pcs = append(pcs, providerConfig(f, srv.URL))
		}
		for _, d := range Diagnose(testCtx(t), Config{Providers: pcs, Embedding: Embedding{Kind: "openai", BaseURL: srv.URL}}, Options{Getenv: testEnv(nil)}) {
			everything.WriteString(d.Detail)
			assert.NotContains(t, d.Detail, testKey)
		}
	})

	t.Run("embedder", func(t *testing.T) {
		srv := providertest.NewServer(t, providertest.Reply{Status: 401, Body: providertest.OpenAIError(echo, "invalid_request_error", "invalid_api_key")},
			providertest.Reply{Body: "not json " + testKey})
		for range 2 {
			_, err := NewEmbedder(testCtx(t), embedConfig(ProviderOpenAI, srv.URL, 1), Options{Getenv: testEnv(nil)})
			require.Error(t, err)
			assert.NotContains(t, err.Error(), testKey)
		}
	})
	assert.Contains(t, everything.String(), "[redacted]", "the echoes were there to be redacted")
}
