package agent

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http"
	"net/http/httptest"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
	"pp-lsp/providers"
)

// ollamaEmbed is a loopback Ollama answering POST /api/embed as Ollama
// does, one vector for each input, and keeping every input it was sent.
type ollamaEmbed struct {
	mu     sync.Mutex
	inputs []string
}

func (o *ollamaEmbed) ServeHTTP(w http.ResponseWriter, r *http.Request) {
	var req struct {
		Model string   `json:"model"`
		Input []string `json:"input"`
	}
	if r.URL.Path != "/api/embed" || json.NewDecoder(r.Body).Decode(&req) != nil {
		http.Error(w, `{"error":"bad request"}`, http.StatusBadRequest)
		return
	}
	o.mu.Lock()
	o.inputs = append(o.inputs, req.Input...)
	o.mu.Unlock()
	vs := make([][]float32, len(req.Input))
	for i, in := range req.Input {
		vs[i] = []float32{float32(len(in)%7) + 1, float32(strings.Count(in, "e")) + 1, 1}
	}
	w.Header().Set("Content-Type", "application/json")
	json.NewEncoder(w).Encode(map[string]any{"model": req.Model, "embeddings": vs})
}

func (o *ollamaEmbed) sent() string {
	o.mu.Lock()
	defer o.mu.Unlock()
	return strings.Join(o.inputs, "\n")
}

// TestNoSecretReachesTheEmbedder: a configured embedder (Ollama's, here
// on loopback) is a model on another machine as much as the chat model
// is: every note it is sent to embed, and every search query, carries the
// rules' secrets and the vault's as their marks, and the words around
// them as written. A vault the gates refuse (edited by hand, readable by
// others) still has its secrets redacted, there and in the context the
// model is given.
func TestNoSecretReachesTheEmbedder(t *testing.T) {
	for _, c := range []struct {
		name  string
		spoil func(t *testing.T, path string)
	}{
		{"a sound vault", func(*testing.T, string) {}},
		{"a vault readable by others", func(t *testing.T, path string) { require.NoError(t, os.Chmod(path, 0o644)) }},
		{"a vault edited by hand", func(t *testing.T, path string) {
			b, err := os.ReadFile(path)
			require.NoError(t, err)
			edited := strings.Replace(string(b), `"secrets": {`, `"secrets": {"extra": "added-by-hand-9f8e7d",`, 1)
			require.NotEqual(t, string(b), edited)
			require.NoError(t, os.WriteFile(path, []byte(edited), 0o600))
		}},
	} {
		t.Run(c.name, func(t *testing.T) {
			emb := &ollamaEmbed{}
			srv := httptest.NewServer(emb)
			t.Cleanup(srv.Close)
			base, err := filepath.EvalSymlinks(t.TempDir())
			require.NoError(t, err)
			root, home := filepath.Join(base, "memex"), filepath.Join(base, "home")
			testenv.WriteTree(t, root, map[string]string{
				"ops.org":  opsOrg,
				"wifi.org": "* Wifi\nThe wifi is " + vaultValue + " at home.\n",
			})
			cfg := filepath.Join(home, ".config", "passepartout")
			require.NoError(t, os.MkdirAll(cfg, 0o700))
			vault := filepath.Join(cfg, "vault.json")
			require.NoError(t, gates.WriteVault(vault, map[string]string{"wifi": vaultValue}))
			c.spoil(t, vault)
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"),
				"PASSEPARTOUT_DATA_DIR": filepath.Join(base, "data"), "PATH": os.Getenv("PATH"), "LANG": "C.UTF-8",
				"EMBEDDING_PROVIDER": "ollama", "EMBEDDING_BASE_URL": srv.URL}
			ctx := context.Background()
			setup := Setup{Roots: []string{root}, Getenv: func(k string) string { return env[k] }, Serve: true}
			mx, err := OpenMemex(ctx, setup)
			require.NoError(t, err)
			t.Cleanup(func() { mx.Close(ctx) })
			require.NoError(t, mx.WaitEmbedded(ctx))
			setup.Memex = mx
			a, err := Open(ctx, setup)
			require.NoError(t, err)
			t.Cleanup(func() { a.Close(ctx) })
			_, err = a.Search(ctx, SearchRequest{Query: "the deploy key " + awsKey})
			require.NoError(t, err)
			view, err := a.Context(ctx, ContextRequest{File: "wifi.org", Line: 1})
			require.NoError(t, err)

			sent := emb.sent()
			require.NotEmpty(t, sent, "the notes were embedded by the loopback Ollama")
			for _, s := range []string{awsKey, githubToken, dbPassword, vaultValue} {
				assert.NotContains(t, sent, s)
				assert.NotContains(t, view.Text, s)
			}
			for _, k := range []string{"The deploy key is [secret aws-access-key] and [secret github-token] here.", twins,
				"The wifi is [vault:wifi] at home.", "the deploy key [secret aws-access-key]"} {
				assert.Contains(t, sent, k)
			}
			assert.Contains(t, view.Text, "The wifi is [vault:wifi] at home.")
		})
	}
}

// BenchmarkRedactingEmbedder: a batch of 64 notes (the default batch) to
// the loopback Ollama, through the embedder alone ("bare") and through
// the redactor first ("redacted"): what redaction adds to each request.
func BenchmarkRedactingEmbedder(b *testing.B) {
	srv := httptest.NewServer(&ollamaEmbed{})
	b.Cleanup(srv.Close)
	env := map[string]string{"EMBEDDING_PROVIDER": "ollama", "EMBEDDING_BASE_URL": srv.URL}
	var pc providers.Config
	require.NoError(b, pc.ApplyEnv(func(k string) string { return env[k] }))
	e, err := providers.NewEmbedder(context.Background(), pc, providers.Options{Getenv: func(string) string { return "" }})
	require.NoError(b, err)
	texts := make([]string, providers.DefaultEmbeddingBatch)
	for i := range texts {
		texts[i] = fmt.Sprintf("Call the plumber about the kitchen sink %d\nHe said the valve (part 3f2a9c1) needs replacing; "+
			"see [[https://example.com/valves?page=%d][the catalogue]] and [[id:0b3d2e4c][notes]].\n", i, i)
	}
	for _, c := range []struct {
		name string
		emb  memory.Embedder
	}{{"bare", e}, {"redacted", redactingEmbedder{e, gates.Redactor(nil)}}} {
		b.Run(c.name, func(b *testing.B) {
			ctx := context.Background()
			for b.Loop() {
				if _, err := c.emb.Embed(ctx, texts); err != nil {
					b.Fatal(err)
				}
			}
		})
	}
}
