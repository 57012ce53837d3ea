package providers

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
)

const (
	ollamaTags      = `{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest","modified_at":"2025-05-04T17:37:44.706015396-07:00","size":2019393189,"digest":"a80c4f17acd55265feec403c7aef86be0c25983ab279d83f3bcd3abbcb5b8b72","details":{"parent_model":"","format":"gguf","family":"llama","families":["llama"],"parameter_size":"3.2B","quantization_level":"Q4_K_M"}},{"name":"qwen2.5:0.5b","model":"qwen2.5:0.5b"}]}`
	openaiModels    = `{"object":"list","data":[{"id":"qwen2.5-0.5b-instruct","object":"model","created":1740000000,"owned_by":"llamacpp"}]}`
	anthropicModels = `{"data":[{"type":"model","id":"claude-sonnet-4-5-20250929","display_name":"Claude Sonnet 4.5","created_at":"2025-09-29T00:00:00Z"}],"has_more":false,"first_id":"claude-sonnet-4-5-20250929","last_id":"claude-sonnet-4-5-20250929"}`
)

func TestDiagnose(t *testing.T) {
	ollama := providertest.NewServer(t)
	ollama.Route("GET /api/tags", providertest.Reply{Body: ollamaTags})
	ollama.Route("POST /api/embed", providertest.Reply{Body: ollamaEmbedBody(vec(1, 768))})
	llamacpp := providertest.NewServer(t)
	llamacpp.Route("GET /models", providertest.Reply{Body: openaiModels})
	anthropic := providertest.NewServer(t)
	anthropic.Route("GET /v1/models", providertest.Reply{Body: anthropicModels})
	refusing := providertest.NewServer(t)
	refusing.Route("GET /v1/models", providertest.Reply{Status: 401, Body: providertest.AnthropicError("authentication_error", "invalid x-api-key "+testKey)})
	dead := providertest.NewServer(t)
	deadURL := dead.URL
	dead.Close()

	noKeys := func(k string) string {
		if k == EnvAnthropicKey || k == EnvOpenAIKey {
			return ""
		}
		return testEnv(nil)(k)
	}
	cases := []struct {
		name   string
		pc     ProviderConfig
		getenv func(string) string
		status Status
		detail string
	}{
		{"ollama, model present", ProviderConfig{Kind: "ollama", Model: "llama3.2", BaseURL: ollama.URL}, nil,
			StatusOK, `reachable, model "llama3.2" present, no key needed`},
		{"ollama, model not pulled", ProviderConfig{Kind: "ollama", Model: "mistral", BaseURL: ollama.URL}, nil,
			StatusFail, "model \"mistral\" is not pulled: run `ollama pull mistral` (it lists llama3.2:latest, qwen2.5:0.5b)"},
		{"ollama, not running", ProviderConfig{Kind: "ollama", Model: "llama3.2", BaseURL: deadURL}, nil,
			StatusFail, "not reachable: the connection to " + deadURL + " was refused"},
		{"llama.cpp without a key", ProviderConfig{Kind: "openai", Model: "qwen2.5-0.5b-instruct", BaseURL: llamacpp.URL}, noKeys,
			StatusOK, `reachable, model "qwen2.5-0.5b-instruct" present, no key (OPENAI_API_KEY is unset; a local server needs none)`},
		{"llama.cpp, another model name", ProviderConfig{Kind: "openai", Model: "gpt-4o", BaseURL: llamacpp.URL}, nil,
			StatusWarn, `the server does not list model "gpt-4o" (it lists qwen2.5-0.5b-instruct); key from OPENAI_API_KEY`},
		{"anthropic alias", ProviderConfig{Kind: "anthropic", Model: "claude-sonnet-4-5", BaseURL: anthropic.URL}, nil,
			StatusOK, `reachable, model "claude-sonnet-4-5" present, key from ANTHROPIC_API_KEY`},
		{"anthropic without a key", ProviderConfig{Kind: "anthropic", Model: "claude-sonnet-4-5", BaseURL: anthropic.URL}, noKeys,
			StatusFail, "no API key: set ANTHROPIC_API_KEY"},
		{"anthropic, key refused", ProviderConfig{Kind: "anthropic", Model: "claude-sonnet-4-5", BaseURL: refusing.URL}, nil,
			StatusFail, "the server refused the key (HTTP 401): authentication_error: invalid x-api-key [redacted] — check ANTHROPIC_API_KEY"},
		{"named key unset", ProviderConfig{Kind: "anthropic", Model: "m", BaseURL: anthropic.URL, KeyEnv: "WORK_KEY"}, nil,
			StatusFail, "no API key: set WORK_KEY"},
		{"replay", ProviderConfig{Kind: "replay", File: "testdata/replay/demo.jsonl"}, nil,
			StatusOK, "3 entries; answers come from this transcript, not a model"},
		{"replay missing", ProviderConfig{Kind: "replay", File: "testdata/replay/absent.jsonl"}, nil,
			StatusFail, "it does not exist"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			getenv := tc.getenv
			if getenv == nil {
				getenv = testEnv(nil)
			}
			ds := Diagnose(testCtx(t), Config{Providers: []ProviderConfig{tc.pc}}, Options{Getenv: getenv})
			require.Len(t, ds, 2, "the provider, then the embedder")
			d := ds[0]
			assert.Equal(t, "provider "+tc.pc.Name(), d.Subject)
			assert.Equal(t, tc.status, d.Status, d.Detail)
			assert.Contains(t, d.Detail, tc.detail)
			assert.NotContains(t, d.Detail, testKey)
			assert.Equal(t, "embedder", ds[1].Subject)
		})
	}
	reqs := anthropic.Requests()
	require.NotEmpty(t, reqs)
	assert.Equal(t, "/v1/models?limit=1000", reqs[0].Path)
	assert.Equal(t, testKey, reqs[0].Header.Get("X-Api-Key"))
	assert.Equal(t, AnthropicVersion, reqs[0].Header.Get("Anthropic-Version"))

	t.Run("no providers", func(t *testing.T) {
		ds := Diagnose(testCtx(t), Config{}, Options{})
		require.Len(t, ds, 2)
		assert.Equal(t, StatusWarn, ds[0].Status)
		assert.Contains(t, ds[0].Detail, "PASSEPARTOUT_PROVIDERS")
		assert.Equal(t, StatusOK, ds[1].Status)
		assert.Contains(t, ds[1].Detail, "trigram")
	})
	t.Run("embedder", func(t *testing.T) {
		ds := Diagnose(testCtx(t), Config{Embedding: Embedding{Kind: "ollama", BaseURL: ollama.URL}}, Options{})
		d := ds[len(ds)-1]
		assert.Equal(t, StatusOK, d.Status, d.Detail)
		assert.Equal(t, "embedder ollama:nomic-embed-text@"+ollama.URL, d.Subject)
		assert.Contains(t, d.Detail, "ollama:nomic-embed-text:768 (dimension 768)")

		ds = Diagnose(testCtx(t), Config{Embedding: Embedding{Kind: "openai", BaseURL: deadURL}}, Options{})
		d = ds[len(ds)-1]
		assert.Equal(t, StatusFail, d.Status)
		assert.Contains(t, d.Detail, "unreachable")
	})
}

func TestStatusString(t *testing.T) {
	assert.Equal(t, "ok", StatusOK.String())
	assert.Equal(t, "warn", StatusWarn.String())
	assert.Equal(t, "FAIL", StatusFail.String())
}
