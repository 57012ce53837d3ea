package providers

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
)

// vec is a recognisable vector: [seed, seed+0.5, …] of dim values.
func vec(seed float32, dim int) []float32 {
	v := make([]float32, dim)
	for i := range v {
		v[i] = seed + float32(i)/2
	}
	return v
}

func ollamaEmbedBody(vs ...[]float32) string {
	b, _ := json.Marshal(map[string]any{"model": "nomic-embed-text", "embeddings": vs, "total_duration": 14143917, "load_duration": 1019500, "prompt_eval_count": 8})
	return string(b)
}

// openaiEmbedBody answers with data in the given index order.
func openaiEmbedBody(order []int, vs ...[]float32) string {
	var data []string
	for _, i := range order {
		b, _ := json.Marshal(vs[i])
		data = append(data, fmt.Sprintf(`{"object":"embedding","index":%d,"embedding":%s}`, i, b))
	}
	return fmt.Sprintf(`{"object":"list","data":[%s],"model":"text-embedding-3-small","usage":{"prompt_tokens":8,"total_tokens":8}}`, strings.Join(data, ","))
}

func embedConfig(kind, base string, batch int) Config {
	return Config{Embedding: Embedding{Kind: kind, BaseURL: base, BatchSize: batch}, Timeouts: fastTimeouts()}
}

// TestEmbedders: each API, probed for its dimension, asked in batches, the
// vectors back in input order; the request shape is the API's.
func TestEmbedders(t *testing.T) {
	texts := []string{"alpha", "beta", "gamma", "delta", "epsilon"}
	cases := []struct {
		kind    string
		path    string
		model   string
		replies []providertest.Reply
		body    func(batch []string) string
	}{
		{ProviderOllama, "/api/embed", "nomic-embed-text", []providertest.Reply{
			{Body: ollamaEmbedBody(vec(9, 4))},
			{Body: ollamaEmbedBody(vec(0, 4), vec(1, 4))},
			{Body: ollamaEmbedBody(vec(2, 4), vec(3, 4))},
			{Body: ollamaEmbedBody(vec(4, 4))},
		}, func(b []string) string {
			in, _ := json.Marshal(b)
			return `{"model":"nomic-embed-text","input":` + string(in) + `}`
		}},
		{ProviderOpenAI, "/embeddings", "text-embedding-3-small", []providertest.Reply{
			{Body: openaiEmbedBody([]int{0}, vec(9, 4))},
			{Body: openaiEmbedBody([]int{1, 0}, vec(0, 4), vec(1, 4))},
			{Body: openaiEmbedBody([]int{0, 1}, vec(2, 4), vec(3, 4))},
			{Body: openaiEmbedBody([]int{0}, vec(4, 4))},
		}, func(b []string) string {
			in, _ := json.Marshal(b)
			return `{"model":"text-embedding-3-small","input":` + string(in) + `,"encoding_format":"float"}`
		}},
	}
	for _, tc := range cases {
		t.Run(tc.kind, func(t *testing.T) {
			srv := providertest.NewServer(t, tc.replies...)
			e, err := NewEmbedder(testCtx(t), embedConfig(tc.kind, srv.URL, 2), Options{Getenv: testEnv(nil)})
			require.NoError(t, err)
			assert.Equal(t, tc.kind+":"+tc.model+":4", e.ID())
			assert.Equal(t, 4, e.Dimension())

			vs, err := e.Embed(testCtx(t), texts)
			require.NoError(t, err)
			require.Len(t, vs, len(texts))
			for i, v := range vs {
				assert.Equal(t, vec(float32(i), 4), v, "vector %d in input order", i)
			}
			reqs := srv.Requests()
			require.Len(t, reqs, 4, "the probe, then batches of 2, 2, 1")
			batches := [][]string{{"dimension probe"}, texts[0:2], texts[2:4], texts[4:5]}
			for i, r := range reqs {
				assert.Equal(t, "POST", r.Method)
				assert.Equal(t, tc.path, r.Path)
				assert.JSONEq(t, tc.body(batches[i]), string(r.Body))
			}
			if tc.kind == ProviderOpenAI {
				assert.Equal(t, "Bearer "+testKey, reqs[0].Header.Get("Authorization"))
			}

			empty, err := e.Embed(testCtx(t), nil)
			require.NoError(t, err)
			assert.Empty(t, empty)
			assert.Len(t, srv.Requests(), 4, "nothing to embed, nothing asked")
		})
	}
}

// TestEmbedderRefusesBadAnswers: wrong counts, dimensions, zero or empty
// vectors, broken indexes and error bodies are clear errors.
func TestEmbedderRefusesBadAnswers(t *testing.T) {
	probe := providertest.Reply{Body: ollamaEmbedBody(vec(1, 3))}
	cases := []struct {
		name  string
		kind  string
		reply providertest.Reply
		want  string
	}{
		{"fewer vectors", ProviderOllama, providertest.Reply{Body: ollamaEmbedBody(vec(1, 3))}, "asked for 2 embeddings, got 1"},
		{"dimension changed", ProviderOllama, providertest.Reply{Body: ollamaEmbedBody(vec(1, 5), vec(2, 5))}, "text 0 got a vector of dimension 5, not 3"},
		{"dimensions differ in one answer", ProviderOllama, providertest.Reply{Body: ollamaEmbedBody(vec(1, 3), vec(2, 4))}, "differ in dimension (3 and 4)"},
		{"zero vector", ProviderOllama, providertest.Reply{Body: ollamaEmbedBody(vec(1, 3), make([]float32, 3))}, "the embedding of text 1 is all zeros"},
		{"empty vector", ProviderOllama, providertest.Reply{Body: `{"embeddings":[[1,2,3],[]]}`}, "the embedding of text 1 is empty"},
		{"model missing", ProviderOllama, providertest.Reply{Status: 404, Body: providertest.OllamaError(`model "nomic-embed-text" not found, try pulling it first`)}, "ollama pull nomic-embed-text"},
		{"not JSON", ProviderOllama, providertest.Reply{Body: "<html>"}, "did not answer the API's JSON"},
		{"duplicate index", ProviderOpenAI, providertest.Reply{Body: openaiEmbedBody([]int{0, 0}, vec(1, 3), vec(2, 3))}, "indexes are not 0…1, each once"},
		{"index out of range", ProviderOpenAI, providertest.Reply{Body: `{"data":[{"index":0,"embedding":[1,2,3]},{"index":7,"embedding":[1,2,3]}]}`}, "indexes are not 0…1"},
		{"rate limited", ProviderOpenAI, providertest.Reply{Status: 429, Body: providertest.OpenAIError("Rate limit reached", "requests", "rate_limit_exceeded")}, "rate limited (HTTP 429)"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			p := probe
			if tc.kind == ProviderOpenAI {
				p = providertest.Reply{Body: openaiEmbedBody([]int{0}, vec(1, 3))}
			}
			srv := providertest.NewServer(t, p, tc.reply)
			e, err := NewEmbedder(testCtx(t), embedConfig(tc.kind, srv.URL, 8), Options{Getenv: testEnv(nil)})
			require.NoError(t, err)
			_, err = e.Embed(testCtx(t), []string{"a", "b"})
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "embedder "+tc.kind+":")
			assert.NotContains(t, err.Error(), testKey)
		})
	}
}

// TestNewEmbedderChoices: trigram is memory's; unknown kinds and dead
// servers are errors; the context is honoured.
func TestNewEmbedderChoices(t *testing.T) {
	for _, kind := range []string{"", "trigram", "TRIGRAM"} {
		_, err := NewEmbedder(testCtx(t), Config{Embedding: Embedding{Kind: kind}}, Options{})
		assert.ErrorIs(t, err, ErrTrigramEmbedder, "%q", kind)
	}
	assert.Contains(t, ErrTrigramEmbedder.Error(), "memory's built-in embedder")

	_, err := NewEmbedder(testCtx(t), Config{Embedding: Embedding{Kind: "word2vec"}}, Options{})
	assert.ErrorContains(t, err, `EMBEDDING_PROVIDER "word2vec" is not one of trigram, ollama, openai`)

	_, err = NewEmbedder(testCtx(t), embedConfig(ProviderOllama, "http://127.0.0.1:1", 0), Options{})
	assert.Equal(t, KindUnreachable, KindOf(err), "error: %v", err)

	srv := providertest.NewServer(t, providertest.Reply{Silent: true})
	ctx, cancel := context.WithCancel(testCtx(t))
	cancel()
	_, err = NewEmbedder(ctx, embedConfig(ProviderOllama, srv.URL, 0), Options{})
	assert.Equal(t, KindCanceled, KindOf(err), "error: %v", err)
}

// embedder is memory's interface, restated: the test fails to compile if
// Embedder stops satisfying it.
type embedder interface {
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	ID() string
}

var _ embedder = (*Embedder)(nil)
