package lsp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestParseSettings(t *testing.T) {
	tests := []struct {
		name    string
		raw     string
		want    Settings
		unknown []string
		err     string
	}{
		{"nothing", ``, Settings{}, nil, ""},
		{"null", `null`, Settings{}, nil, ""},
		{"every key", `{"roots":["~/org"],"privacyTags":["p"],"budget":100,"semanticThreshold":0.5,"dataDir":"/d","configFile":"/c","providers":"replay:x","embeddingProvider":"ollama","embeddingModel":"m","embeddingBaseUrl":"http://h","assistant":"A","heartbeatInterval":9,"rescanInterval":2,"maxSymbols":7,"sandbox":"best-effort"}`,
			Settings{Roots: []string{"~/org"}, PrivacyTags: []string{"p"}, Budget: 100, SemanticThreshold: 0.5, DataDir: "/d", ConfigFile: "/c", Providers: "replay:x",
				EmbeddingProvider: "ollama", EmbeddingModel: "m", EmbeddingBaseURL: "http://h", Assistant: "A", HeartbeatSeconds: 9, RescanSeconds: 2, MaxSymbols: 7, Sandbox: "best-effort"}, nil, ""},
		{"a sandbox mode that is none", `{"sandbox":"sometimes"}`, Settings{}, nil, `"sandbox": the sandbox setting "sometimes" is none of required, best-effort, off`},
		{"unknown keys are reported", `{"budget":5,"colour":"blue","Budget":1}`, Settings{Budget: 5}, []string{"Budget", "colour"}, ""},
		{"a wrong type names the key", `{"budget":"lots"}`, Settings{}, nil, `the passepartout setting "budget" must be a whole number, not a string`},
		{"a fraction for a whole number", `{"maxSymbols":1.5}`, Settings{}, nil, `the passepartout setting "maxSymbols" must be a whole number, not 1.5`},
		{"a list for a string", `{"providers":["a","b"]}`, Settings{}, nil, `the passepartout setting "providers" must be a string, not a list`},
		{"a number in the tags", `{"privacyTags":["a",1]}`, Settings{}, nil, `the passepartout setting "privacyTags" must be a list of strings, not a number`},
		{"an object for a threshold", `{"semanticThreshold":{}}`, Settings{}, nil, `the passepartout setting "semanticThreshold" must be a number, not an object`},
		{"not an object", `[1]`, Settings{}, nil, "not a JSON object"},
		{"a negative budget", `{"budget":-1}`, Settings{}, nil, `"budget" must be positive`},
		{"a threshold above 1", `{"semanticThreshold":1.5}`, Settings{}, nil, `"semanticThreshold" must lie in [0, 1]`},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			got, unknown, err := parseSettings([]byte(tt.raw))
			if tt.err != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tt.err)
				assert.NotContains(t, err.Error(), "Go struct", "the user is told in words, not in Go's types")
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tt.want, got)
			assert.Equal(t, tt.unknown, unknown)
		})
	}
}

func TestSettingsLayers(t *testing.T) {
	base := Settings{Budget: 100, PrivacyTags: []string{"a"}, RescanSeconds: 3}
	over := base.over(Settings{Budget: 200, Providers: "x"})
	assert.Equal(t, Settings{Budget: 200, PrivacyTags: []string{"a"}, RescanSeconds: 3, Providers: "x"}, over, "only the fields a source sets change")

	env := map[string]string{"CONTEXT_BUDGET": "50", "PASSEPARTOUT_PROVIDERS": "from-env", "HOME": "/home/ada"}
	getenv := Settings{Providers: "from-settings", DataDir: "~/data", SemanticThreshold: 0.6}.env(func(k string) string { return env[k] })
	assert.Equal(t, "from-settings", getenv("PASSEPARTOUT_PROVIDERS"), "the editor's settings win over the environment")
	assert.Equal(t, "/home/ada/data", getenv("PASSEPARTOUT_DATA_DIR"))
	assert.Equal(t, "0.6", getenv("CONTEXT_SEMANTIC_THRESHOLD"))
	assert.Equal(t, "50", getenv("CONTEXT_BUDGET"), "an unset setting leaves the environment's")
	assert.Equal(t, "required", Settings{Sandbox: "off"}.env(func(string) string { return "required" })("PASSEPARTOUT_SANDBOX"), "the sandbox setting goes to the agent, not over the environment")

	assert.Equal(t, 50, Settings{}.budget(func(k string) string { return env[k] }))
	assert.Equal(t, 4000, Settings{}.budget(func(string) string { return "" }))
	assert.Equal(t, 0.75, Settings{}.threshold(func(string) string { return "" }))
	assert.Equal(t, 5*time.Second, Settings{}.rescan())
	assert.Equal(t, 200, Settings{}.maxSymbols())
	assert.Equal(t, []string{"/home/ada/org", "/w/notes", "/abs"},
		resolveRoots([]string{"~/org", "notes", "/abs", "/abs/"}, "/w", func(k string) string { return env[k] }))
}

// TestAProjectOnlyLowersTheBudgets: a project's budgets are kept when
// they lower those in force (the editor's own settings, else the
// environment, else the defaults) and cut to them when they would raise
// them.
func TestAProjectOnlyLowersTheBudgets(t *testing.T) {
	env := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }
	for _, tc := range []struct {
		name          string
		cur, project  Settings
		env           map[string]string
		budget, chats int
	}{
		{"defaults, raised", Settings{}, Settings{Budget: 1_000_000, ChatBudget: 1_000_000}, nil, 4000, 2000},
		{"defaults, lowered", Settings{}, Settings{Budget: 1000, ChatBudget: 500}, nil, 1000, 500},
		{"the editor's, raised", Settings{Budget: 8000, ChatBudget: 3000}, Settings{Budget: 9000, ChatBudget: 9000}, nil, 8000, 3000},
		{"the environment's, raised", Settings{}, Settings{Budget: 90000, ChatBudget: 90000}, map[string]string{"CONTEXT_BUDGET": "6000", "CHAT_BUDGET": "2500"}, 6000, 2500},
		{"none set", Settings{Budget: 8000}, Settings{}, nil, 0, 0},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := tc.project.lowerOnly(tc.cur, env(tc.env))
			assert.Equal(t, tc.budget, got.Budget)
			assert.Equal(t, tc.chats, got.ChatBudget)
		})
	}
}
