package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"sync/atomic"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/internal/testenv"
	"pp-lsp/memory/foveal"
	"pp-lsp/server/agent"
)

// runContextCLI runs `pp-lsp context` in-process with a fresh home (so
// the store lands in a temporary data folder) and the given environment.
func runContextCLI(t *testing.T, env map[string]string, args ...string) (int, string, string) {
	t.Helper()
	home := t.TempDir()
	full := map[string]string{"HOME": home, "XDG_DATA_HOME": filepath.Join(home, ".local", "share")}
	for k, v := range env {
		full[k] = v
	}
	var out, errb bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return full[k] }}
	code := run(context.Background(), c, append([]string{"context"}, args...))
	return code, out.String(), errb.String()
}

// privateTexts are titles and sentences of examples/memex that only
// private nodes hold: health.org is private by #+filetags:, finances.org
// has an @personal subtree, the journal a :private: day.
var privateTexts = []string{
	"Health", "Running log", "Easy 8 km", "Book the dentist",
	"Accounts", "emergency fund", "Tax return 2026", "shoebox",
	"2026-11-19 Thursday", "hard conversation",
}

// TestContextExampleMemex renders the context from a cursor in
// projects/pp-lsp.org, as JSON and as text.
func TestContextExampleMemex(t *testing.T) {
	root := filepath.Join(testenv.ModuleRoot(t), "examples", "memex")
	file := filepath.Join(root, "projects", "pp-lsp.org")
	code, out, errOut := runContextCLI(t, nil, "--json", "--root", root, file+":47")
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut)
	var raw map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &raw))
	for _, k := range []string{"foveal", "text", "tokens", "budget", "full_tokens", "nodes", "semantic"} {
		assert.Contains(t, raw, k, "DESIGN §5's key %s", k)
	}
	var v foveal.View
	require.NoError(t, json.Unmarshal([]byte(out), &v))
	assert.Equal(t, foveal.Foveal{ID: "file:" + file + "::*Design notes/*Foveal-peripheral context", File: file, Line: 46, Title: "Foveal-peripheral context"}, v.Foveal)
	assert.Equal(t, foveal.DefaultBudget, v.Budget)
	assert.LessOrEqual(t, v.Tokens, v.Budget)
	assert.Equal(t, foveal.CountTokens(v.Text), v.Tokens)
	assert.Greater(t, v.FullTokens, v.Tokens)
	assert.Equal(t, 7, v.Nodes.Private, "4 in health.org, 2 in finances.org, 1 in the journal")
	assert.Contains(t, v.Text, "*** Foveal-peripheral context\n:PROPERTIES:\n:FOVEAL: t\n:END:\n   The foveal node in full")
	assert.Contains(t, v.Text, "* pp-lsp :project:code:\n:PROPERTIES:\n:ID: 94510af2-afdd-482c-bfa0-f459ea5d78f0\n:FILE: projects/pp-lsp.org\n:END:\n")
	assert.Contains(t, v.Text, "* Finances\n", "a public file with a private subtree is shown")
	assert.Contains(t, v.Text, "** TODO Renew the home insurance\n")
	assert.NotContains(t, v.Text, "An in-process index is enough", "a sibling's body is not shown")
	for _, p := range privateTexts {
		assert.NotContains(t, v.Text, p)
	}
	require.NotEmpty(t, v.Semantic, "the thesis chapter on foveal-peripheral rendering is related")
	assert.Equal(t, "75ae4eee-9b5e-4d93-8a4c-a4b95538bfcc", v.Semantic[0].ID)
	assert.Contains(t, v.Text, ":SEMANTIC_SCORE: ")

	code, text, errOut := runContextCLI(t, nil, "--root", root, file+":47")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, v.Text, text, "without --json, the same text")

	code, after, errOut := runContextCLI(t, nil, file+":47", "--root", root, "--json")
	require.Equal(t, 0, code, errOut)
	assert.Equal(t, out, after, "flags after FILE:LINE")
}

// TestContextBudgetAndEnvironment: --budget wins over CONTEXT_BUDGET,
// which wins over the default; CONTEXT_SEMANTIC_THRESHOLD is read.
func TestContextBudgetAndEnvironment(t *testing.T) {
	root := filepath.Join(testenv.ModuleRoot(t), "examples", "memex")
	cursor := filepath.Join(root, "projects", "pp-lsp.org") + ":48"
	tests := []struct {
		name    string
		env     map[string]string
		args    []string
		budget  int
		related bool
	}{
		{"default", nil, nil, foveal.DefaultBudget, true},
		{"the environment", map[string]string{foveal.EnvBudget: "500"}, nil, 500, true},
		{"the flag wins", map[string]string{foveal.EnvBudget: "500"}, []string{"--budget", "450"}, 450, true},
		{"a strict threshold", map[string]string{foveal.EnvThreshold: "0.99"}, nil, foveal.DefaultBudget, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			args := append(append([]string{"--json", "--root", root}, tt.args...), cursor)
			code, out, errOut := runContextCLI(t, tt.env, args...)
			require.Equal(t, 0, code, errOut)
			var v foveal.View
			require.NoError(t, json.Unmarshal([]byte(out), &v))
			assert.Equal(t, tt.budget, v.Budget)
			assert.LessOrEqual(t, v.Tokens, tt.budget)
			assert.Equal(t, "Foveal-peripheral context", v.Foveal.Title)
			assert.Contains(t, v.Text, "everything else as a title with its ID.")
			assert.Equal(t, tt.related, len(v.Semantic) > 0, "related nodes: %v", v.Semantic)
			if tt.budget < 1000 {
				assert.Positive(t, v.Nodes.Folded)
				assert.Contains(t, v.Text, " more ")
			}
		})
	}
}

// TestContextPrivateCursor: with the cursor in a file private by
// #+filetags:, no node is foveal and nothing of the file is shown; in the
// @personal subtree of finances.org, the same for that subtree.
func TestContextPrivateCursor(t *testing.T) {
	root := filepath.Join(testenv.ModuleRoot(t), "examples", "memex")
	for _, cursor := range []string{"areas/health.org:9", "areas/finances.org:12", "journal/2026-11.org:12"} {
		t.Run(cursor, func(t *testing.T) {
			code, out, errOut := runContextCLI(t, nil, "--json", "--root", root, filepath.Join(root, cursor))
			require.Equal(t, 0, code, errOut)
			var v foveal.View
			require.NoError(t, json.Unmarshal([]byte(out), &v))
			assert.Empty(t, v.Foveal.ID)
			assert.Empty(t, v.Foveal.Title)
			assert.Equal(t, filepath.Join(root, strings.Split(cursor, ":")[0]), v.Foveal.File)
			assert.Empty(t, v.Semantic)
			assert.NotContains(t, v.Text, ":FOVEAL:")
			for _, p := range privateTexts {
				assert.NotContains(t, v.Text, p)
			}
		})
	}
}

// TestContextErrors: bad usage and bad input are exit 2 with one clear
// sentence naming what is wrong.
func TestContextErrors(t *testing.T) {
	root := filepath.Join(testenv.ModuleRoot(t), "examples", "memex")
	inbox := filepath.Join(root, "inbox.org")
	outside := filepath.Join(t.TempDir(), "elsewhere.org")
	require.NoError(t, os.WriteFile(outside, []byte("* Elsewhere\n"), 0o644))
	notes := filepath.Join(t.TempDir(), "notes.txt")
	require.NoError(t, os.WriteFile(notes, []byte("plain\n"), 0o644))
	tests := []struct {
		name string
		env  map[string]string
		args []string
		msg  string
	}{
		{"no cursor", nil, []string{"--root", root}, "takes one FILE:LINE"},
		{"two cursors", nil, []string{"--root", root, inbox + ":1", inbox + ":2"}, "takes one FILE:LINE"},
		{"not FILE:LINE", nil, []string{"--root", root, inbox}, "is not FILE:LINE"},
		{"line zero", nil, []string{"--root", root, inbox + ":0"}, "LINE must be a positive integer"},
		{"no such file", nil, []string{"--root", root, filepath.Join(root, "nope.org") + ":1"}, "nope.org: it does not exist"},
		{"outside the roots", nil, []string{"--root", root, outside + ":1"}, "elsewhere.org is not an Org file of the memex: it must be a visible *.org file under --root " + root},
		{"not an Org file", nil, []string{"--root", filepath.Dir(notes), notes + ":1"}, "notes.txt is not an Org file of the memex"},
		{"line past the end", nil, []string{"--root", root, inbox + ":999"}, "inbox.org has 11 lines, so line 999 is past its end"},
		{"budget too small", nil, []string{"--root", root, "--budget", "10", inbox + ":1"}, "--budget: 10 is below the least budget of 64 tokens"},
		{"bad CONTEXT_BUDGET", map[string]string{foveal.EnvBudget: "many"}, []string{"--root", root, inbox + ":1"}, `CONTEXT_BUDGET="many"`},
		{"bad threshold", map[string]string{foveal.EnvThreshold: "2"}, []string{"--root", root, inbox + ":1"}, `CONTEXT_SEMANTIC_THRESHOLD="2"`},
		{"missing root", nil, []string{"--root", filepath.Join(root, "nope"), inbox + ":1"}, "does not exist"},
		{"unknown flag", nil, []string{"--frobnicate", inbox + ":1"}, "--frobnicate: no such flag"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runContextCLI(t, tt.env, tt.args...)
			assert.Equal(t, 2, code, errOut)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tt.msg)
		})
	}
}

// TestContextRedactsSecrets: `pp-lsp context` prints the view the model
// gets, so the secrets the gates' rules find in a public note are marks
// there, as text and in the JSON, and the words around them — and text
// that only looks like a secret — are as written; so are the vault's
// secrets, as the agent's redactor marks them.
func TestContextRedactsSecrets(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"ops.org": "* Servers\nThe deploy key is AKIAIOSFODNN7EXAMPLQ and ghp_abcdefghijklmnopqrstuvwxyz0123456789 here.\n" +
		":PROPERTIES:\n:API_TOKEN: sk-ant-api03-Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX\n:END:\n" +
		"The AKIA prefix names AWS keys; build 3f2a9c1 passed.\nThe wifi is correct-horse-battery-staple-42 at home.\n** Notes\nmore text\n"})
	config := t.TempDir()
	require.NoError(t, os.MkdirAll(filepath.Join(config, "passepartout"), 0o700))
	require.NoError(t, gates.WriteVault(filepath.Join(config, "passepartout", "vault.json"), map[string]string{"wifi": "correct-horse-battery-staple-42"}))
	secrets := []string{"AKIAIOSFODNN7EXAMPLQ", "ghp_abcdefghijklmnopqrstuvwxyz0123456789", "sk-ant-api03-Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX", "correct-horse-battery-staple-42"}
	kept := []string{"The deploy key is [secret aws-access-key] and [secret github-token] here.", "The AKIA prefix names AWS keys; build 3f2a9c1 passed.",
		"The wifi is [vault:wifi] at home.", "more text"}
	for _, tc := range []struct {
		name string
		args []string
		text func(t *testing.T, out string) string
	}{
		{"text", nil, func(t *testing.T, out string) string { return out }},
		{"json", []string{"--json"}, func(t *testing.T, out string) string {
			var v foveal.View
			require.NoError(t, json.Unmarshal([]byte(out), &v))
			assert.LessOrEqual(t, v.Tokens, v.Budget)
			assert.Equal(t, foveal.CountTokens(v.Text), v.Tokens, "the figures are the redacted text's")
			return v.Text
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, errOut := runContextCLI(t, map[string]string{"XDG_CONFIG_HOME": config}, append(tc.args, "--root", root, filepath.Join(root, "ops.org")+":2")...)
			require.Equal(t, 0, code, errOut)
			text := tc.text(t, out)
			for _, s := range secrets {
				assert.NotContains(t, out, s)
			}
			for _, k := range kept {
				assert.Contains(t, text, k)
			}
		})
	}
}

// TestContextReadsTheSettingsOnce: `pp-lsp context` reads the settings —
// the configuration file, the environment, the vault — once, as opening
// the memex alone reads them (the memex and the redactor used to read
// them each, and could see two configurations).
func TestContextReadsTheSettingsOnce(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"ops.org": "* Servers\nsome text\n"})
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_DATA_HOME": filepath.Join(home, ".local", "share"), "XDG_CONFIG_HOME": filepath.Join(home, ".config")}
	reads := func(do func(getenv func(string) string)) int {
		var n atomic.Int32
		do(func(k string) string {
			if k == "XDG_CONFIG_HOME" {
				n.Add(1)
			}
			return env[k]
		})
		return int(n.Load())
	}
	ctx := context.Background()
	once := reads(func(getenv func(string) string) {
		m, err := agent.OpenMemex(ctx, agent.Setup{Roots: []string{root}, Getenv: getenv, Serve: true})
		require.NoError(t, err)
		require.NoError(t, m.Close(ctx))
	})
	require.Positive(t, once)
	got := reads(func(getenv func(string) string) {
		var out, errb bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv}
		require.Equal(t, 0, run(ctx, c, []string{"context", "--root", root, filepath.Join(root, "ops.org") + ":2"}), errb.String())
		require.Contains(t, out.String(), "some text")
	})
	assert.Equal(t, once, got, "the settings are read as often as by opening the memex alone")
}
