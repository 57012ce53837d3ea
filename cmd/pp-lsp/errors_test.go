package main

import (
	"bytes"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// goisms are fragments of Go's own error texts (the os, flag, strconv and
// encoding/json packages): a person should read what is wrong with their
// input, not which call failed.
var goisms = []string{
	"open ", "stat ", "lstat ", "invalid character", "parse error", "flag provided but not defined",
	"no such file or directory", "json: cannot", "json: unknown", "Go struct", "Go value", "strconv.", "dial tcp", "listen tcp",
	"missing port in address", "level=", "time=",
}

// assertPlainText checks one line of output for Go's own wording.
func assertPlainText(t *testing.T, line string) {
	t.Helper()
	for _, g := range goisms {
		assert.NotContains(t, line, g, "a Go-ism in %q", line)
	}
}

// TestBadInvocations runs every subcommand wrongly, and checks what a
// person sees: exactly one line on stderr, "pp-lsp COMMAND: …", naming
// the input at fault in plain words; nothing on stdout; exit 2 for bad
// usage or input.
func TestBadInvocations(t *testing.T) {
	home := t.TempDir()
	root := filepath.Join(home, "org")
	require.NoError(t, os.MkdirAll(root, 0o755))
	note := writeFile(t, root, "note.org", "* Note\n")
	binary := writeFile(t, root, "photo.org", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"+strings.Repeat("\x00", 3300))
	badJSON := writeFile(t, home, "bad.json", "{\n  \"gates\": nul\n}\n")
	badKind := writeFile(t, home, "kind.json", `{"gates": "deny"}`)
	missing := filepath.Join(home, "none.json")
	okEnv := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, "config"), "XDG_RUNTIME_DIR": filepath.Join(home, "run"),
		"PASSEPARTOUT_DATA_DIR": filepath.Join(home, "data"), "PASSEPARTOUT_PROVIDERS": "replay:" + missing}
	badConfigEnv := map[string]string{}
	for k, v := range okEnv {
		badConfigEnv[k] = v
	}
	writeFile(t, filepath.Join(home, "badcfg", "passepartout"), "config.json", "{\"gates\": nul}")
	noModelEnv := map[string]string{}
	for k, v := range okEnv {
		if k != "PASSEPARTOUT_PROVIDERS" {
			noModelEnv[k] = v
		}
	}
	badConfigEnv["XDG_CONFIG_HOME"] = filepath.Join(home, "badcfg")

	cases := []struct {
		name string
		env  map[string]string // nil: okEnv
		args []string
		msg  string // stderr is exactly this line, or starts with it when it ends in "…"
	}{
		{"no such flag", nil, []string{"--frobnicate"}, "pp-lsp: --frobnicate: no such flag; a command comes first ('pp-lsp --help' lists them)"},
		{"no such command", nil, []string{"frobnicate"}, `pp-lsp: "frobnicate" is not a command; 'pp-lsp --help' lists them`},
		{"version operand", nil, []string{"version", "now"}, `pp-lsp version: takes no operands, got "now"`},

		{"outline without --json", nil, []string{"outline", note}, "pp-lsp outline: --json is required (usage: pp-lsp outline --json FILE...)"},
		{"outline of nothing", nil, []string{"outline", "--json"}, "pp-lsp outline: no FILE given (usage: pp-lsp outline --json FILE...)"},
		{"outline of a missing file", nil, []string{"outline", "--json", "/nonexistent.org"}, "pp-lsp outline: cannot read /nonexistent.org: it does not exist"},
		{"outline of a folder", nil, []string{"outline", "--json", root}, "pp-lsp outline: cannot read " + root + ": it is a folder, not a file"},
		{"outline of a binary file", nil, []string{"outline", "--json", binary}, "pp-lsp outline: " + binary + " is not an Org file: it holds NUL bytes (the first at byte 8), so it is binary, not Org text"},
		{"outline with a flag too many", nil, []string{"outline", "--json", "--yaml", note}, "pp-lsp outline: --yaml: no such flag; 'pp-lsp outline --help' lists them"},

		{"index of a missing root", nil, []string{"index", "--root", filepath.Join(home, "gone")}, "pp-lsp index: bad memex root: " + filepath.Join(home, "gone") + " does not exist"},
		{"index of a file", nil, []string{"index", "--root", note}, "pp-lsp index: bad memex root: " + note + " is not a folder"},
		{"skills of a missing root", nil, []string{"skills", "--root", filepath.Join(home, "gone")}, "pp-lsp skills: bad memex root: " + filepath.Join(home, "gone") + " does not exist"},
		{"skills with an operand", nil, []string{"skills", root}, `pp-lsp skills: takes no operands, got "` + root + `" (roots go after --root)`},
		{"skills with a bad bool", nil, []string{"skills", "--json=maybe"}, `pp-lsp skills: --json: "maybe" is not true or false`},
		{"index with an operand", nil, []string{"index", root}, `pp-lsp index: takes no operands, got "` + root + `" (roots go after --root)`},
		{"index with a bad bool", nil, []string{"index", "--json=maybe"}, `pp-lsp index: --json: "maybe" is not true or false`},
		{"index with a bad log level", nil, []string{"index", "--log-level", "loud"}, `pp-lsp index: --log-level: "loud" is not a log level; use debug, info, warn or error`},
		{"index with a bad log format", nil, []string{"index", "--log-format", "xml"}, `pp-lsp index: --log-format: "xml" is not a log format; use human, text or json`},
		{"index with a bad PASSEPARTOUT_LOG", map[string]string{"PASSEPARTOUT_LOG": "loud"}, []string{"index", "--root", root}, `pp-lsp index: PASSEPARTOUT_LOG: "loud" is not a log level; use debug, info, warn or error`},

		{"context with a word for a budget", nil, []string{"context", "--budget", "abc", note + ":1"}, `pp-lsp context: --budget: "abc" is not a whole number`},
		{"context with no budget", nil, []string{"context", note + ":1", "--budget"}, "pp-lsp context: --budget needs a value (--budget N)"},
		{"context of a missing file", nil, []string{"context", "--root", root, filepath.Join(root, "nope.org") + ":1"}, "pp-lsp context: cannot read " + filepath.Join(root, "nope.org") + ": it does not exist"},
		{"context of a binary file", nil, []string{"context", "--root", root, binary + ":1"}, "pp-lsp context: " + binary + " is not an Org file: it holds NUL bytes…"},
		{"context at line zero", nil, []string{"context", note + ":0"}, `pp-lsp context: "` + note + `:0": LINE must be a positive integer`},
		{"context with a bad configuration", badConfigEnv, []string{"context", "--root", root, note + ":1"}, "pp-lsp context: the configuration file " + filepath.Join(home, "badcfg", "passepartout", "config.json") + " is not valid JSON: line 1, column 14: unexpected '}'"},

		{"gate with a missing configuration", nil, []string{"gate", "--root", root, "--config", missing}, "pp-lsp gate: cannot read the configuration file " + missing + ": it does not exist"},
		{"gate with a configuration not JSON", nil, []string{"gate", "--root", root, "--config", badJSON}, "pp-lsp gate: the configuration file " + badJSON + " is not valid JSON: line 2, column 15: unexpected end of line"},
		{"gate with a configuration of the wrong shape", nil, []string{"gate", "--root", root, "--config", badKind}, "pp-lsp gate: " + badKind + ": the gates configuration does not fit: line 1: the value must be an object, not a string"},
		{"gate with a file for a root", nil, []string{"gate", "--root", note}, "pp-lsp gate: --root " + note + " is not a folder"},

		{"ask without a question", nil, []string{"ask", note + ":1"}, "pp-lsp ask: needs FILE:LINE and a question (usage: pp-lsp ask [--root DIR]... [--chat FILE | --no-chat] [FILE:LINE] TEXT)"},
		{"ask in a chat without a question", nil, []string{"ask", "--chat", note}, "pp-lsp ask: needs a question (usage: pp-lsp ask [--root DIR]... [--chat FILE | --no-chat] [FILE:LINE] TEXT)"},
		{"ask in a chat and in none", nil, []string{"ask", "--chat", note, "--no-chat", "hi"}, "pp-lsp ask: --chat and --no-chat contradict each other; give one"},
		{"ask in a missing chat", nil, []string{"ask", "--chat", filepath.Join(root, "gone.org"), "hi"}, "pp-lsp ask: cannot read " + filepath.Join(root, "gone.org") + ": it does not exist"},
		{"ask about a binary file", nil, []string{"ask", "--root", root, binary + ":1", "what?"}, "pp-lsp ask: " + binary + " is not an Org file: it holds NUL bytes…"},
		{"ask with a missing root", nil, []string{"ask", "--root", filepath.Join(home, "gone"), note + ":1", "hi"}, "pp-lsp ask: --root " + filepath.Join(home, "gone") + " does not exist"},
		{"ask with a missing transcript", nil, []string{"ask", "--root", root, note + ":1", "hi"}, "pp-lsp ask: cannot read the replay transcript " + missing + ": it does not exist"},

		{"plans with an operand", nil, []string{"plans", "now"}, `pp-lsp plans: takes no operands, got "now"`},
		{"plans with a bad configuration", badConfigEnv, []string{"plans", "--root", root}, "pp-lsp plans: the configuration file …"},

		{"undo with two IDs", nil, []string{"undo", "a", "b"}, `pp-lsp undo: takes at most one change ID, got "a" and "b"`},
		{"undo --list with an ID", nil, []string{"undo", "--list", "x"}, `pp-lsp undo: --list takes no change ID, got "x"`},
		{"undo of a word for an ID", noModelEnv, []string{"undo", "--root", root, "nope"}, "pp-lsp undo: \"nope\" is not a change's ID (a UUID; `pp-lsp undo --list` lists them)"},
		{"undo of an unknown change", noModelEnv, []string{"undo", "--root", root, "0b6f2d1e-3c4a-4e5f-8a9b-0c1d2e3f4a5b"}, "pp-lsp undo: no change has the ID 0b6f2d1e-3c4a-4e5f-8a9b-0c1d2e3f4a5b (it may have been dropped to keep the checkpoints within their size)"},
		{"undo with a missing root", nil, []string{"undo", "--root", filepath.Join(home, "gone")}, "pp-lsp undo: --root " + filepath.Join(home, "gone") + " does not exist"},
		{"undo with a bad configuration", badConfigEnv, []string{"undo", "--root", root}, "pp-lsp undo: the configuration file …"},

		{"serve without an address", nil, []string{"serve"}, "pp-lsp serve: --tcp ADDR is required, e.g. --tcp 127.0.0.1:7655"},
		{"serve on a word", nil, []string{"serve", "--tcp", "notanaddr"}, `pp-lsp serve: --tcp: "notanaddr" is not HOST:PORT, e.g. 127.0.0.1:7655`},
		{"serve on a port too large", nil, []string{"serve", "--tcp", "127.0.0.1:99999"}, `pp-lsp serve: --tcp: "127.0.0.1:99999" has no port number from 0 to 65535 after the colon`},
		{"serve on a remote address", nil, []string{"serve", "--root", root, "--tcp", "192.0.2.1:7655"}, "pp-lsp serve: --tcp: 192.0.2.1:7655 is not on this machine's loopback (--allow-remote allows it)"},
		{"serve on every interface", nil, []string{"serve", "--root", root, "--tcp", ":0"}, "pp-lsp serve: --tcp: :0 listens on every interface, not only this machine's loopback (--allow-remote allows it)"},
		{"mcp with a missing root", nil, []string{"mcp", "--root", filepath.Join(home, "gone")}, "pp-lsp mcp: --root " + filepath.Join(home, "gone") + " does not exist"},
		{"mcp with a file as root", nil, []string{"mcp", "--root", note}, "pp-lsp mcp: --root " + note + " is not a folder"},
		{"mcp with a missing configuration", nil, []string{"mcp", "--config", missing}, "pp-lsp mcp: cannot read the configuration file " + missing + ": it does not exist"},
		{"mcp with no rescan", nil, []string{"mcp", "--rescan", "0"}, "pp-lsp mcp: --rescan: 0 is not a number of seconds (1 or more)"},
		{"mcp with a word for a rescan", nil, []string{"mcp", "--rescan", "often"}, `pp-lsp mcp: --rescan: "often" is not a whole number`},
		{"mcp with an operand", nil, []string{"mcp", "now"}, `pp-lsp mcp: unexpected argument "now"`},
		{"mcp with a flag it lacks", nil, []string{"mcp", "--tcp", "127.0.0.1:0"}, "pp-lsp mcp: …"},
		{"serve with a missing root", nil, []string{"serve", "--tcp", "127.0.0.1:0", "--root", filepath.Join(home, "gone")}, "pp-lsp serve: --root " + filepath.Join(home, "gone") + " does not exist"},

		{"--stdio with a word for an address", nil, []string{"--stdio", "--tcp", "notanaddr"}, `pp-lsp --stdio: --tcp: "notanaddr" is not HOST:PORT, e.g. 127.0.0.1:7655`},
		{"--stdio with a missing configuration", nil, []string{"--stdio", "--config", missing}, "pp-lsp --stdio: cannot read the configuration file " + missing + ": it does not exist"},
		{"--stdio with a flag too many", nil, []string{"--stdio", "--port", "1"}, "pp-lsp --stdio: --port: no such flag; 'pp-lsp --stdio --help' lists them"},

		{"doctor with an operand", nil, []string{"doctor", "now"}, `pp-lsp doctor: takes no operands, got "now" (roots go after --root)`},
		{"demo with an operand", nil, []string{"demo", "now"}, `pp-lsp demo: unexpected argument "now"`},
		{"demo with a flag too many", nil, []string{"demo", "--fast"}, "pp-lsp demo: --fast: no such flag; 'pp-lsp demo --help' lists them"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := tc.env
			if env == nil {
				env = okEnv
			}
			var stdout, stderr bytes.Buffer
			c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return env[k] }}
			code := run(t.Context(), c, tc.args)
			assert.Equal(t, 2, code, "stderr: %s", stderr.String())
			assert.Empty(t, stdout.String())
			got := stderr.String()
			require.True(t, strings.HasSuffix(got, "\n"), "%q", got)
			assert.Equal(t, 1, strings.Count(got, "\n"), "exactly one line: %q", got)
			got = strings.TrimSuffix(got, "\n")
			if prefix, ok := strings.CutSuffix(tc.msg, "…"); ok {
				assert.True(t, strings.HasPrefix(got, prefix), "got  %q\nwant %q…", got, prefix)
			} else {
				assert.Equal(t, tc.msg, got)
			}
			assertPlainText(t, got)
		})
	}
}

// TestHelp: --help, -h and help print the usage to stdout and succeed, for
// pp-lsp and for each command; flags are shown with two dashes.
func TestHelp(t *testing.T) {
	names := []string{"--stdio"}
	for n := range commands() {
		names = append(names, n)
	}
	for _, name := range names {
		for _, h := range []string{"--help", "-h"} {
			var stdout, stderr bytes.Buffer
			c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
			code := run(t.Context(), c, []string{name, h})
			assert.Equal(t, 0, code, name)
			assert.Empty(t, stderr.String(), name)
			assert.Contains(t, stdout.String(), "Usage: pp-lsp ", name)
			assert.Contains(t, stdout.String(), "  --log-level LEVEL ", name)
			assert.NotRegexp(t, `(?m)^\s+-[a-z]`, stdout.String(), "%s: one dash in %s", name, stdout.String())
		}
	}
	var stdout bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &bytes.Buffer{}, getenv: func(string) string { return "" }}
	assert.Equal(t, 0, run(t.Context(), c, []string{"--help"}))
	assert.Contains(t, stdout.String(), "pp-lsp doctor [--root DIR]...")
}
