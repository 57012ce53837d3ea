package main

import (
	"bytes"
	"encoding/json"
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
	"pp-lsp/server/actuate/sandbox"
)

// runDoctorWith runs `pp-lsp doctor args…` with env as the whole
// environment and returns the exit code, stdout and stderr.
func runDoctorWith(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return env[k] }}
	code := run(t.Context(), c, append([]string{"doctor"}, args...))
	return code, stdout.String(), stderr.String()
}

func TestDoctor(t *testing.T) {
	const secret = "sk-doctor-test-SECRET-1234"

	ollama := providertest.NewServer(t)
	ollama.Route("GET /api/tags", providertest.Reply{Body: `{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest"}]}`})
	vec, _ := json.Marshal([][]float32{{0.1, 0.2, 0.3}})
	ollama.Route("POST /api/embed", providertest.Reply{Body: `{"model":"nomic-embed-text","embeddings":` + string(vec) + `}`})
	llamacpp := providertest.NewServer(t)
	llamacpp.Route("GET /models", providertest.Reply{Body: `{"object":"list","data":[{"id":"local","object":"model"}]}`})
	refusing := providertest.NewServer(t)
	refusing.Route("GET /models", providertest.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: ` + secret + `","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`})

	// The sandbox line depends on the kernel: ok where Landlock enforces
	// all of DESIGN §12, a warning otherwise.
	sbLine, sbWarn := "ok    sandbox: required: Landlock ABI", 0
	if st := sandbox.Probe(); !st.Available() || len(st.Gaps()) > 0 {
		sbLine, sbWarn = "warn  sandbox: ", 1
	}
	cases := []struct {
		name  string
		env   map[string]string
		code  int
		lines []string // each a prefix of one output line, in order
	}{
		{"nothing configured is a warning", map[string]string{}, 0, []string{
			"warn  providers: none configured: asking a model will fail until PASSEPARTOUT_PROVIDERS is set",
			"ok    embedder: trigram (memory's built-in",
			sbLine,
			fmt.Sprintf("doctor: 3 checks, %s, no failures", plural(1+sbWarn, "warning")),
		}},
		{"all well", map[string]string{
			"PASSEPARTOUT_PROVIDERS": "ollama:llama3.2@" + ollama.URL + ",openai:local@" + llamacpp.URL + ",replay:../../providers/testdata/replay/demo.jsonl",
			"EMBEDDING_PROVIDER":     "ollama", "EMBEDDING_BASE_URL": ollama.URL,
		}, 0, []string{
			"ok    provider ollama:llama3.2@" + ollama.URL + `: reachable, model "llama3.2" present, no key needed`,
			"ok    provider openai:local@" + llamacpp.URL + `: reachable, model "local" present, no key (OPENAI_API_KEY is unset; a local server needs none)`,
			"ok    provider replay:../../providers/testdata/replay/demo.jsonl: 3 entries; answers come from this transcript, not a model",
			"ok    embedder ollama:nomic-embed-text@" + ollama.URL + ": reachable, ollama:nomic-embed-text:3 (dimension 3)",
			sbLine,
			fmt.Sprintf("doctor: 5 checks, %s, no failures", plural(sbWarn, "warning")),
		}},
		{"model not pulled, key missing", map[string]string{
			"PASSEPARTOUT_PROVIDERS": "ollama:mistral@" + ollama.URL + ",anthropic:claude-sonnet-4-5@" + llamacpp.URL,
		}, 1, []string{
			"FAIL  provider ollama:mistral@" + ollama.URL + ": reachable, but model \"mistral\" is not pulled: run `ollama pull mistral`",
			"FAIL  provider anthropic:claude-sonnet-4-5@" + llamacpp.URL + ": no API key: set ANTHROPIC_API_KEY",
			"ok    embedder: trigram",
		}},
		{"key refused, and never printed", map[string]string{
			"PASSEPARTOUT_PROVIDERS": "openai:gpt-4o@" + refusing.URL, "OPENAI_API_KEY": secret,
		}, 1, []string{
			"FAIL  provider openai:gpt-4o@" + refusing.URL + ": the server refused the key (HTTP 401): invalid_request_error/invalid_api_key: Incorrect API key provided: [redacted] — check OPENAI_API_KEY",
		}},
		{"a bad entry is named", map[string]string{"PASSEPARTOUT_PROVIDERS": "ollama:llama3.2,gemini:pro"}, 1, []string{
			`FAIL  providers: PASSEPARTOUT_PROVIDERS entry "gemini:pro": provider kind "gemini" is not one of ollama, openai, anthropic, replay`,
			"ok    embedder: trigram",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runDoctorWith(t, tc.env)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			lines := strings.Split(strings.TrimSuffix(out, "\n"), "\n")
			require.GreaterOrEqual(t, len(lines), len(tc.lines), out)
			for i, want := range tc.lines {
				assert.True(t, strings.HasPrefix(lines[i], want), "line %d:\n got %q\nwant %q…", i, lines[i], want)
			}
			if tc.code == 1 {
				assert.Contains(t, errOut, "pp-lsp: doctor: ")
				assert.Contains(t, errOut, "failed (see the FAIL lines above)")
			}
			assert.NotContains(t, out+errOut, secret)
		})
	}
}

func TestDoctorUsage(t *testing.T) {
	code, _, errOut := runDoctorWith(t, nil, "extra")
	assert.Equal(t, 2, code)
	assert.Contains(t, errOut, `doctor takes no arguments, got "extra"`)

	code, _, errOut = runDoctorWith(t, nil, "-h")
	assert.Equal(t, 0, code)
	assert.Contains(t, errOut, "Usage: pp-lsp doctor")
}

func TestPlural(t *testing.T) {
	assert.Equal(t, "0 checks", plural(0, "check"))
	assert.Equal(t, "1 check", plural(1, "check"))
	assert.Equal(t, "3 warnings", plural(3, "warning"))
}
