package main

import (
	"bytes"
	"context"
	"errors"
	"io"
	"log/slog"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/server/agent"
)

// TestLogCarriesNoSecret: whatever logs through the command's logger —
// the language server, the MCP server, an SDK, a transport, none of them
// behind the agent's own redactor — a secret the gates' rules find is its
// mark on stderr, in a message, a value, an error, an attribute given
// before, in every format; the words around it, and text that only looks
// like a secret, are as written.
func TestLogCarriesNoSecret(t *testing.T) {
	const (
		awsKey = "AKIAZ5R2WQ7PLM3XK4TV"
		token  = "ghp_Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX0cV"
		twins  = "The AKIA prefix names AWS keys; build 3f2a9c1 passed."
	)
	for _, format := range []string{"human", "text", "json"} {
		t.Run(format, func(t *testing.T) {
			var stderr bytes.Buffer
			c := &cli{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(string) string { return "" }}
			log, err := newFlagSet("mcp", "pp-lsp mcp").parseLogged(c, []string{"--log-format", format, "--log-level", "info"})
			require.NoError(t, err)
			log.With("key", awsKey).Warn("a notification could not be applied: "+token, "err", errors.New("bad "+awsKey), "twins", twins,
				slog.Group("g", "inner", token))
			out := stderr.String()
			require.NotEmpty(t, out)
			assert.NotContains(t, out, awsKey)
			assert.NotContains(t, out, token)
			assert.Contains(t, out, "a notification could not be applied: [secret github-token]")
			assert.Contains(t, out, "bad [secret aws-access-key]")
			assert.Contains(t, out, twins)
		})
	}
}

// TestLogFixedValuesPassTheAgentsRedactor: a logger derived from the
// command's with With before the agent is open — a connection's, a
// server's — passes its fixed values through the agent's one redactor once
// it is (the vault's secrets, not only the rules'), in every format, with
// WithGroup's groups kept.
func TestLogFixedValuesPassTheAgentsRedactor(t *testing.T) {
	const secret = "correct-horse-battery-staple-42"
	for _, format := range []string{"human", "text", "json"} {
		t.Run(format, func(t *testing.T) {
			base := t.TempDir()
			root, config := filepath.Join(base, "memex"), filepath.Join(base, "config")
			require.NoError(t, os.MkdirAll(root, 0o700))
			require.NoError(t, os.MkdirAll(filepath.Join(config, "passepartout"), 0o700))
			require.NoError(t, gates.WriteVault(filepath.Join(config, "passepartout", "vault.json"), map[string]string{"wifi": secret}))
			env := map[string]string{"HOME": base, "XDG_CONFIG_HOME": config, "PASSEPARTOUT_DATA_DIR": filepath.Join(base, "data"), "PATH": os.Getenv("PATH")}
			var stderr bytes.Buffer
			c := &cli{stdin: strings.NewReader(""), stdout: &bytes.Buffer{}, stderr: &stderr, getenv: func(k string) string { return env[k] }}
			log, err := newFlagSet("serve", "pp-lsp serve").parseLogged(c, []string{"--log-format", format})
			require.NoError(t, err)
			conn := log.With("remote", secret).WithGroup("g").With("k", "the "+secret)
			a, err := agent.Open(context.Background(), agent.Setup{Roots: []string{root}, Getenv: c.getenv, Logger: log})
			require.NoError(t, err)
			t.Cleanup(func() { a.Close(context.Background()) })
			conn.Warn("a connection closed", "why", secret)
			out := stderr.String()
			require.Contains(t, out, "a connection closed")
			assert.NotContains(t, out, secret)
			switch format {
			case "human":
				assert.Contains(t, out, "a connection closed (remote: [vault:wifi]; g.k: the [vault:wifi]; g.why: [vault:wifi])")
			case "text":
				assert.Contains(t, out, `remote=[vault:wifi] g.k="the [vault:wifi]" g.why=[vault:wifi]`)
			case "json":
				assert.Contains(t, out, `"remote":"[vault:wifi]","g":{"k":"the [vault:wifi]","why":"[vault:wifi]"}`)
			}
		})
	}
}

// BenchmarkLogRecord: one warning with three values through the command's
// logger (text format), as it is ("redacted") and without the redactor
// ("bare"): what the redactor adds to each log line.
func BenchmarkLogRecord(b *testing.B) {
	c := &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: io.Discard, getenv: func(string) string { return "" }}
	redacted, err := newFlagSet("mcp", "pp-lsp mcp").parseLogged(c, []string{"--log-format", "text"})
	require.NoError(b, err)
	bare := slog.New(slog.NewTextHandler(io.Discard, nil))
	for _, l := range []struct {
		name string
		log  *slog.Logger
	}{{"bare", bare}, {"redacted", redacted}} {
		b.Run(l.name, func(b *testing.B) {
			for b.Loop() {
				l.log.Warn("the memex refused a buffer; serving it on its own", "path", "/home/u/notes/ops.org",
					"err", errors.New("line 12: an unterminated drawer"), "n", 3)
			}
		})
	}
}
