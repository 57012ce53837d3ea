package main

import (
	"bytes"
	"context"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"pp-lsp/server/journal"
)

// memexEnv is a temp memex (its files from the map), a home, a data folder
// and the environment pointing at them.
type memexEnv struct {
	root, data string
	env        map[string]string
}

func newMemexEnv(t *testing.T, files map[string]string) *memexEnv {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	m := &memexEnv{root: filepath.Join(base, "memex"), data: filepath.Join(base, "data")}
	home := filepath.Join(base, "home")
	for _, d := range []string{m.root, m.data, home} {
		require.NoError(t, os.MkdirAll(d, 0o700))
	}
	for name, text := range files {
		p := filepath.Join(m.root, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	m.env = map[string]string{
		"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "PASSEPARTOUT_DATA_DIR": m.data,
		"PATH": os.Getenv("PATH"), "LANG": "C.UTF-8",
	}
	return m
}

// run runs pp-lsp with args in this environment.
func (m *memexEnv) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return m.env[k] }}
	code := run(context.Background(), c, args)
	return code, stdout.String(), stderr.String()
}

func (m *memexEnv) path(name string) string { return filepath.Join(m.root, name) }

// TestAskScenarios runs each testdata/ask/*.txtar: a memex, a replay
// transcript, the command line, and what must come out.
func TestAskScenarios(t *testing.T) {
	files, err := filepath.Glob("testdata/ask/*.txtar")
	require.NoError(t, err)
	require.NotEmpty(t, files)
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(f)
			require.NoError(t, err)
			sec := map[string]string{}
			memex := map[string]string{}
			for _, af := range ar.Files {
				if name, ok := strings.CutPrefix(af.Name, "memex/"); ok {
					memex[name] = string(af.Data)
					continue
				}
				sec[af.Name] = string(af.Data)
			}
			m := newMemexEnv(t, memex)
			transcript := filepath.Join(t.TempDir(), "replay.jsonl")
			require.NoError(t, os.WriteFile(transcript, []byte(sec["replay.jsonl"]), 0o644))
			m.env["PASSEPARTOUT_PROVIDERS"] = "replay:" + transcript

			fields := strings.Fields(sec["args"])
			require.GreaterOrEqual(t, len(fields), 2, "args: FILE:LINE TEXT")
			args := []string{"ask", "--root", m.root, filepath.Join(m.root, fields[0]), strings.Join(fields[1:], " ")}
			code, stdout, stderr := m.run(t, args...)

			want, err := strconv.Atoi(strings.TrimSpace(sec["want/exit"]))
			require.NoError(t, err)
			assert.Equal(t, want, code, "stdout:\n%s\nstderr:\n%s", stdout, stderr)
			if s, ok := sec["want/stdout"]; ok {
				assert.Equal(t, s, stdout)
			}
			inOrder(t, "stderr", stderr, sec["want/stderr"])
			if s, ok := sec["want/plans"]; ok {
				b, err := os.ReadFile(m.path("flightplans.org"))
				require.NoError(t, err)
				inOrder(t, "flightplans.org", string(b), s)
			}
			for name, text := range sec {
				if file, ok := strings.CutPrefix(name, "want/files/"); ok {
					b, err := os.ReadFile(m.path(file))
					require.NoError(t, err)
					assert.Equal(t, text, string(b), file)
				}
			}
			for _, p := range strings.Fields(sec["want/absent"]) {
				assert.NoFileExists(t, m.path(p))
			}
			rep, err := journal.Verify(context.Background(), m.path(journal.FileName), m.data)
			require.NoError(t, err)
			assert.True(t, rep.OK(), "the journal's chain holds: %+v", rep.Broken)
			assert.Positive(t, rep.Entries, "every proposal is journalled")
		})
	}
}

// inOrder checks that each non-blank line of want appears in got, in order.
func inOrder(t *testing.T, what, got, want string) {
	t.Helper()
	rest := got
	for _, l := range strings.Split(want, "\n") {
		l = strings.TrimSpace(l)
		if l == "" {
			continue
		}
		i := strings.Index(rest, l)
		if !assert.GreaterOrEqual(t, i, 0, "%s lacks (in order) %q\n--- %s:\n%s", what, l, what, got) {
			return
		}
		rest = rest[i+len(l):]
	}
}

func TestAskWithoutAProvider(t *testing.T) {
	m := newMemexEnv(t, map[string]string{"notes.org": "* n\n"})
	code, _, stderr := m.run(t, "ask", "--root", m.root, m.path("notes.org")+":1", "hello")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "PASSEPARTOUT_PROVIDERS")
	assert.NoFileExists(t, m.path(journal.FileName))
}

func TestAskUsage(t *testing.T) {
	m := newMemexEnv(t, map[string]string{"notes.org": "* n\n"})
	m.env["PASSEPARTOUT_PROVIDERS"] = "replay:/nonexistent.jsonl"
	for _, tc := range []struct {
		name string
		args []string
		text string
	}{
		{"no question", []string{"ask", m.path("notes.org") + ":1"}, "needs FILE:LINE and a question"},
		{"no line", []string{"ask", m.path("notes.org"), "hi"}, "is not FILE:LINE"},
		{"line zero", []string{"ask", m.path("notes.org") + ":0", "hi"}, "positive integer"},
		{"missing file", []string{"ask", m.path("nope.org") + ":1", "hi"}, "nope.org: it does not exist"},
		{"bad root", []string{"ask", "--root", m.path("nope"), m.path("notes.org") + ":1", "hi"}, "does not exist"},
		{"bad provider", []string{"ask", "--root", m.root, m.path("notes.org") + ":1", "hi"}, "nonexistent.jsonl"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, _, stderr := m.run(t, tc.args...)
			assert.Equal(t, 2, code, stderr)
			assert.Contains(t, stderr, tc.text)
		})
	}
}

// TestAskWithTheModelDown: the configured model does not answer. What
// failed is said once, in one line, in words (no "(1 attempts)", no dial
// error, no log line repeating it), and the exit status is 1; with two
// providers down, the first's failure is one warning (the cascade falls
// through) and the error names both.
func TestAskWithTheModelDown(t *testing.T) {
	deadA, deadB := closedPortURL(t), closedPortURL(t)
	m := newMemexEnv(t, map[string]string{"notes.org": "* Notes\nhello\n"})
	m.env["PASSEPARTOUT_PROVIDERS"] = "ollama:llama3.2@" + deadA
	code, stdout, stderr := m.run(t, "ask", "--root", m.root, "--no-chat", m.path("notes.org")+":1", "what is this?")
	assert.Equal(t, 1, code)
	assert.Empty(t, stdout)
	assert.Equal(t, "pp-lsp ask: asking the model: ollama:llama3.2@"+deadA+": unreachable: the connection to "+deadA+" was refused — is the server running at "+deadA+"?\n", stderr)

	m.env["PASSEPARTOUT_PROVIDERS"] = "ollama:llama3.2@" + deadA + ",ollama:qwen3@" + deadB
	code, _, stderr = m.run(t, "ask", "--root", m.root, "--no-chat", m.path("notes.org")+":1", "what is this?")
	assert.Equal(t, 1, code)
	lines := strings.Split(strings.TrimSuffix(stderr, "\n"), "\n")
	require.Len(t, lines, 2, stderr)
	assert.Equal(t, "pp-lsp ask: warning: model provider failed; falling through (provider: ollama:llama3.2@"+deadA+"; reason: unreachable: the connection to "+deadA+" was refused — is the server running at "+deadA+"?; next: ollama:qwen3@"+deadB+"; attempt: 1)", lines[0])
	assert.True(t, strings.HasPrefix(lines[1], "pp-lsp ask: asking the model: every provider failed: ollama:llama3.2@"+deadA+": unreachable: "), lines[1])
	assert.Contains(t, lines[1], "; ollama:qwen3@"+deadB+": unreachable: the connection to "+deadB+" was refused")
	for _, l := range lines {
		assertPlainText(t, l)
	}
}
