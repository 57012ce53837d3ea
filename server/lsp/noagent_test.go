package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"

	"pp-lsp/server/host"
)

// TestTheAgentsCommandsSayWhyItIsNotRunning: when the agent could not be
// opened (a replay file with a pace_ms out of range, a provider the
// configuration cannot make), the agent's commands answer every client
// with the reason itself — not only the server's earlier message, which an
// editor may tuck away — and never a secret of the configuration (a
// provider URL's credentials).
func TestTheAgentsCommandsSayWhyItIsNotRunning(t *testing.T) {
	for _, tc := range []struct {
		name      string
		providers func(dir string) string
		want      string
	}{
		{"a replay pace out of range", func(dir string) string {
			p := filepath.Join(dir, "slow.jsonl")
			require.NoError(t, os.WriteFile(p, []byte(`{"match":{},"repeat":true,"reply":{"text":"late","pace_ms":20000}}`+"\n"), 0o644))
			return "replay:" + p
		}, "pace_ms 20000 is outside 0…10000"},
		{"a provider URL with credentials", func(string) string {
			return "nosuchkind:https://bob:hunter2hunter2@127.0.0.1:1/v1"
		}, "the agent is not running: "},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "memex")
			require.NoError(t, os.MkdirAll(root, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(root, "a.org"), []byte("* A note\n"), 0o644))
			env := map[string]string{"HOME": dir, "PASSEPARTOUT_DATA_DIR": filepath.Join(dir, "data"), "XDG_CONFIG_HOME": filepath.Join(dir, "config"),
				"HEARTBEAT_INTERVAL": "3600", "PASSEPARTOUT_PROVIDERS": tc.providers(dir)}
			c := newTestClient(t, Options{Getenv: func(k string) string { return env[k] }, WorkDir: root})
			c.initialize(root, clientFull, nil)
			c.waitReady()
			// The memex is read before the agent is opened: until the
			// opening has failed, the command says the agent is still
			// coming up (a loaded machine shows that window).
			var err error
			for deadline := time.Now().Add(30 * time.Second); ; time.Sleep(20 * time.Millisecond) {
				err = c.call(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandPlans, "arguments": []any{map[string]any{}}}, nil)
				if err == nil || !strings.Contains(err.Error(), host.ErrNotUp.Error()) || time.Now().After(deadline) {
					break
				}
			}
			require.Error(t, err)
			t.Log(err)
			assert.Contains(t, err.Error(), "the agent is not running: ")
			assert.Contains(t, err.Error(), tc.want)
			assert.NotContains(t, err.Error(), "hunter2")
		})
	}
}
