package providers

import (
	"encoding/json"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseProviders(t *testing.T) {
	cases := []struct {
		in    string
		want  []ProviderConfig
		names []string
	}{
		{"ollama:llama3.2", []ProviderConfig{{Kind: "ollama", Model: "llama3.2"}},
			[]string{"ollama:llama3.2@http://127.0.0.1:11434"}},
		{" ollama:qwen2.5:0.5b@http://127.0.0.1:11434/ , openai:gpt-4o-mini ,", []ProviderConfig{
			{Kind: "ollama", Model: "qwen2.5:0.5b", BaseURL: "http://127.0.0.1:11434"},
			{Kind: "openai", Model: "gpt-4o-mini"}},
			[]string{"ollama:qwen2.5:0.5b@http://127.0.0.1:11434", "openai:gpt-4o-mini@https://api.openai.com/v1"}},
		{"openai:local@http://127.0.0.1:8080/v1", []ProviderConfig{{Kind: "openai", Model: "local", BaseURL: "http://127.0.0.1:8080/v1"}},
			[]string{"openai:local@http://127.0.0.1:8080/v1"}},
		{"anthropic:claude-sonnet-4-5", []ProviderConfig{{Kind: "anthropic", Model: "claude-sonnet-4-5"}},
			[]string{"anthropic:claude-sonnet-4-5@https://api.anthropic.com"}},
		{"openai:anthropic/claude-3.5-sonnet@https://openrouter.ai/api/v1#env:OPENROUTER_API_KEY", []ProviderConfig{
			{Kind: "openai", Model: "anthropic/claude-3.5-sonnet", BaseURL: "https://openrouter.ai/api/v1", KeyEnv: "OPENROUTER_API_KEY"}},
			[]string{"openai:anthropic/claude-3.5-sonnet@https://openrouter.ai/api/v1"}},
		{"anthropic:claude-haiku-4-5#vault:anthropic-work", []ProviderConfig{{Kind: "anthropic", Model: "claude-haiku-4-5", KeyVault: "anthropic-work"}}, nil},
		{"openai:org@team/model@http://h:1/v1", []ProviderConfig{{Kind: "openai", Model: "org@team/model", BaseURL: "http://h:1/v1"}}, nil},
		{"replay:testdata/replay/demo.jsonl", []ProviderConfig{{Kind: "replay", File: "testdata/replay/demo.jsonl"}},
			[]string{"replay:testdata/replay/demo.jsonl"}},
		{"replay:C:/transcripts/a#1.jsonl", []ProviderConfig{{Kind: "replay", File: "C:/transcripts/a#1.jsonl"}}, nil},
		{"OLLAMA:m", []ProviderConfig{{Kind: "ollama", Model: "m"}}, nil},
		{"", nil, nil},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			got, err := ParseProviders(tc.in)
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
			for i, n := range tc.names {
				assert.Equal(t, n, got[i].Name())
			}
		})
	}
}

func TestParseProvidersErrors(t *testing.T) {
	cases := []struct{ in, want string }{
		{"ollama", `PASSEPARTOUT_PROVIDERS entry "ollama": want kind:model[@base_url] or replay:FILE`},
		{"ollama:m, gemini:pro", `entry "gemini:pro": provider kind "gemini" is not one of ollama, openai, anthropic, replay`},
		{"openai:", `entry "openai:": the openai provider needs a model (openai:MODEL)`},
		{"openai:@http://h/v1", `entry "openai:@http://h/v1": the openai provider needs a model`},
		{"openai:m@localhost:8080", `entry "openai:m@localhost:8080": the base URL after @ must start with http:// or https://`},
		{"openai:m@http://", `base URL "http:" is not an http:// or https:// URL`},
		{"openai:m@http://user:pw@h/v1", `holds credentials`},
		{"openai:m#OPENAI_API_KEY", `key reference "#OPENAI_API_KEY" is neither #env:VAR nor #vault:ENTRY`},
		{"openai:m#env:", `is neither #env:VAR nor #vault:ENTRY`},
		{"replay:", `entry "replay:": a replay provider needs its transcript file`},
	}
	for _, tc := range cases {
		t.Run(tc.in, func(t *testing.T) {
			_, err := ParseProviders(tc.in)
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "pw@", "credentials are never repeated")
		})
	}
}

func TestApplyEnv(t *testing.T) {
	base := Config{
		Providers: []ProviderConfig{{Kind: "ollama", Model: "from-file"}},
		Embedding: Embedding{Kind: "ollama", Model: "nomic-embed-text"},
	}
	t.Run("environment wins", func(t *testing.T) {
		c := base
		require.NoError(t, c.ApplyEnv(func(k string) string {
			return map[string]string{
				EnvProviders: "openai:gpt-4o", EnvEmbeddingKind: "OpenAI",
				EnvEmbeddingModel: "text-embedding-3-large", EnvEmbeddingBaseURL: "http://127.0.0.1:9/v1",
			}[k]
		}))
		assert.Equal(t, []ProviderConfig{{Kind: "openai", Model: "gpt-4o"}}, c.Providers)
		assert.Equal(t, Embedding{Kind: "openai", Model: "text-embedding-3-large", BaseURL: "http://127.0.0.1:9/v1"}, c.Embedding)
	})
	t.Run("unset keeps the file's", func(t *testing.T) {
		c := base
		require.NoError(t, c.ApplyEnv(func(string) string { return "" }))
		assert.Equal(t, base, c)
	})
	t.Run("a bad entry changes nothing", func(t *testing.T) {
		c := base
		err := c.ApplyEnv(func(k string) string {
			if k == EnvProviders {
				return "ollama:ok,bogus:x"
			}
			return ""
		})
		assert.ErrorContains(t, err, `entry "bogus:x"`)
		assert.Equal(t, base, c)
	})
}

func TestConfigJSON(t *testing.T) {
	in := `{
	  "providers": [{"kind":"ollama","model":"llama3.2","alias":"local"},
	                {"kind":"openai","model":"m","base_url":"http://127.0.0.1:8080/v1","key_env":"LLAMA_KEY"}],
	  "rules": [{"task":"propose","max_prompt_tokens":2000,"use":[{"provider":"local"}]}],
	  "consensus": 2,
	  "timeouts": {"connect":"3s","first_output":120,"total":"10m"},
	  "embedding": {"provider":"ollama","model":"nomic-embed-text"}
	}`
	var c Config
	require.NoError(t, json.Unmarshal([]byte(in), &c))
	require.NoError(t, c.Validate())
	assert.Equal(t, Duration(3*time.Second), c.Timeouts.Connect)
	assert.Equal(t, Duration(120*time.Second), c.Timeouts.FirstOutput)
	assert.Equal(t, Duration(10*time.Minute), c.Timeouts.Total)
	assert.Equal(t, "LLAMA_KEY", c.Providers[1].KeyEnv)
	assert.Equal(t, 2, c.Consensus)
	full := c.Timeouts.withDefaults()
	assert.Equal(t, Duration(DefaultStallTimeout), full.Stall)
	assert.Equal(t, Duration(DefaultRetryAfterCap), full.RetryAfterCap)

	out, err := json.Marshal(c)
	require.NoError(t, err)
	var back Config
	require.NoError(t, json.Unmarshal(out, &back))
	assert.Equal(t, c, back)
	assert.Contains(t, string(out), `"connect":"3s"`)

	var bad Config
	assert.ErrorContains(t, json.Unmarshal([]byte(`{"timeouts":{"connect":"soon"}}`), &bad), `duration "soon"`)
}

func TestConfigValidate(t *testing.T) {
	ps := []ProviderConfig{{Kind: "ollama", Model: "m"}}
	cases := []struct {
		name string
		cfg  Config
		want string
	}{
		{"unknown route", Config{Providers: ps, Rules: []Rule{{Use: []Route{{Provider: "openai"}}}}}, `selector rule 1 names provider "openai", which is not configured`},
		{"empty rule", Config{Providers: ps, Rules: []Rule{{Task: "x"}}}, "selector rule 1 uses no provider"},
		{"max below min", Config{Providers: ps, Rules: []Rule{{MinPromptTokens: 10, MaxPromptTokens: 5, Use: []Route{{Provider: "ollama"}}}}}, "below min_prompt_tokens"},
		{"both key sources", Config{Providers: []ProviderConfig{{Kind: "openai", Model: "m", KeyEnv: "A", KeyVault: "B"}}}, "names both key_env and key_vault"},
		{"negative consensus", Config{Consensus: -1}, "consensus -1"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			assert.ErrorContains(t, tc.cfg.Validate(), tc.want)
		})
	}
}

// mapVault is a vault in memory.
type mapVault map[string]string

func (v mapVault) Get(name string) (string, error) {
	if s, ok := v[name]; ok {
		return s, nil
	}
	return "", assert.AnError
}

func TestKeyResolution(t *testing.T) {
	env := func(k string) string {
		return map[string]string{"OPENAI_API_KEY": "from-env", "MY_KEY": " padded \n"}[k]
	}
	cases := []struct {
		name    string
		ref     keyRef
		vault   Vault
		want    string
		wantErr string
	}{
		{"default from env", keyRefFor(ProviderOpenAI, "", ""), nil, "from-env", ""},
		{"the vault wins over env", keyRefFor(ProviderOpenAI, "", ""), mapVault{"OPENAI_API_KEY": "from-vault"}, "from-vault", ""},
		{"vault without the entry: env", keyRefFor(ProviderOpenAI, "", ""), mapVault{}, "from-env", ""},
		{"named env, trimmed", keyRefFor(ProviderOpenAI, "MY_KEY", ""), nil, "padded", ""},
		{"named vault entry", keyRefFor(ProviderAnthropic, "", "work"), mapVault{"work": "v"}, "v", ""},
		{"named vault entry missing", keyRefFor(ProviderAnthropic, "", "work"), mapVault{}, "", `reading the key from vault entry "work"`},
		{"no vault open", keyRefFor(ProviderAnthropic, "", "work"), nil, "", `no vault is open`},
		{"ollama needs none", keyRefFor(ProviderOllama, "", ""), nil, "", ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.ref.resolve(Options{Getenv: env, Vault: tc.vault})
			if tc.wantErr != "" {
				assert.ErrorContains(t, err, tc.wantErr)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, got)
		})
	}
	assert.True(t, keyRefFor(ProviderAnthropic, "", "").required)
	assert.False(t, keyRefFor(ProviderOpenAI, "", "").required)
}

func TestParseRetryAfter(t *testing.T) {
	now := time.Date(2026, 11, 21, 20, 0, 0, 0, time.UTC)
	cases := []struct {
		header map[string]string
		want   time.Duration
	}{
		{map[string]string{"Retry-After": "3"}, 3 * time.Second},
		{map[string]string{"Retry-After": "1.5"}, 1500 * time.Millisecond},
		{map[string]string{"Retry-After": "Sat, 21 Nov 2026 20:00:30 GMT"}, 30 * time.Second},
		{map[string]string{"Retry-After": "Sat, 21 Nov 2026 19:00:00 GMT"}, 0},
		{map[string]string{"Retry-After": "-4"}, 0},
		{map[string]string{"Retry-After": "soon"}, 0},
		{map[string]string{"Retry-After": "20", "Retry-After-Ms": "250"}, 250 * time.Millisecond},
		{nil, 0},
	}
	for _, tc := range cases {
		h := make(map[string][]string)
		for k, v := range tc.header {
			h[k] = []string{v}
		}
		assert.Equal(t, tc.want, parseRetryAfter(h, now), "%v", tc.header)
	}
}
