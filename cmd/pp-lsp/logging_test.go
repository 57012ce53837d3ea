package main

import (
	"bytes"
	"errors"
	"io"
	"log/slog"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
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
