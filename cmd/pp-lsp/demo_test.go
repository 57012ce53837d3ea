package main

import (
	"bytes"
	"net"
	"os"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDemoUnreachableThenKept is the new user's first hour: a model
// configured but not running, `pp-lsp demo --keep`, then the commands the
// tour prints, on what it kept. The tour ends well (exit 0) with nothing
// but its own text on stdout and no log lines on stderr; doctor, given the
// tour's data dir as printed, verifies the journal up to its head.
func TestDemoUnreachableThenKept(t *testing.T) {
	t.Setenv("TMPDIR", t.TempDir())
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	env := map[string]string{"HOME": t.TempDir(), "PATH": os.Getenv("PATH"), "PASSEPARTOUT_PROVIDERS": "ollama:llama3.2@" + dead}
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return env[k] }}
	require.Equal(t, 0, run(t.Context(), c, []string{"demo", "--keep"}), stderr.String())
	assert.Empty(t, stderr.String(), "no log lines, no raw errors")
	tour := stdout.String()
	assert.Contains(t, tour, "is not ready: not reachable")
	assert.Contains(t, tour, "Chain verified: 8 entries")

	cd := regexp.MustCompile(`(?m)^   cd (\S+)$`).FindStringSubmatch(tour)
	data := regexp.MustCompile(`(?m)^   export PASSEPARTOUT_DATA_DIR=(\S+)$`).FindStringSubmatch(tour)
	require.NotNil(t, cd, tour)
	require.NotNil(t, data, tour)
	t.Chdir(cd[1])
	kept := map[string]string{"HOME": env["HOME"], "PASSEPARTOUT_DATA_DIR": data[1]}
	commands := regexp.MustCompile(`(?m)^   (pp-lsp .+)$`).FindAllStringSubmatch(tour, -1)
	require.Len(t, commands, 6, "outline, index, context, plans, skills, doctor")
	for _, line := range commands {
		args := strings.Fields(line[1])[1:]
		var out, errOut bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(k string) string { return kept[k] }}
		code := run(t.Context(), c, args)
		if args[0] == "doctor" {
			// No model is configured for the kept memex, nor is pp-lsp
			// installed: warnings, not failures.
			assert.Equal(t, 0, code, "%s:\n%s%s", line[1], out.String(), errOut.String())
			assert.Regexp(t, `(?m)^ok    journal \S+/journal.org: 12 entries, hash chain verified up to the recorded head$`, out.String())
			assert.Regexp(t, `(?m)^ok    data dir \S+: writable; 2 sealed plan records, 1 journal head`, out.String())
			continue
		}
		assert.Equal(t, 0, code, "%s: %s", line[1], errOut.String())
		assert.NotEmpty(t, out.String(), line[1])
	}
}
