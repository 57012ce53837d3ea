package main

import (
	"bytes"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// runOutlineCLI runs `pp-lsp outline` in-process and returns the exit code,
// stdout and stderr.
func runOutlineCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var out, errOut bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errOut, getenv: func(string) string { return "" }}
	code := run(t.Context(), c, append([]string{"outline"}, args...))
	return code, out.String(), errOut.String()
}

// TestOutlineMatchesEmacs prints orgast's fixtures and compares them byte
// for byte with what Emacs printed for the same files.
func TestOutlineMatchesEmacs(t *testing.T) {
	t.Chdir(filepath.Join("..", "..", "orgast", "testdata", "outline"))
	for _, name := range []string{"headlines.org", "links.org", "properties.org", "crlf.org"} {
		t.Run(name, func(t *testing.T) {
			want, err := os.ReadFile(strings.TrimSuffix(name, ".org") + ".json")
			require.NoError(t, err)
			code, out, errOut := runOutlineCLI(t, "--json", name)
			require.Equal(t, 0, code, errOut)
			assert.Equal(t, string(want), out)
		})
	}
}

func TestOutlineJSONShape(t *testing.T) {
	dir := t.TempDir()
	a := filepath.Join(dir, "a.org")
	b := filepath.Join(dir, "b.org")
	require.NoError(t, os.WriteFile(a, []byte("#+TITLE: A\n* TODO [#A] Task :work:\nSCHEDULED: <2026-01-05 Mon>\n:PROPERTIES:\n:ID: a1\n:END:\nSee [[id:b1][B]].\n"), 0o644))
	require.NoError(t, os.WriteFile(b, []byte(":PROPERTIES:\n:ID: b-file\n:END:\n* B\n"), 0o644))

	code, out, errOut := runOutlineCLI(t, b, "--json", a)
	require.Equal(t, 0, code, errOut)
	assert.True(t, strings.HasSuffix(out, "]\n"))
	var files []map[string]json.RawMessage
	require.NoError(t, json.Unmarshal([]byte(out), &files))
	require.Len(t, files, 2)
	assert.JSONEq(t, `"`+b+`"`, string(files[0]["file"]), "files in argument order, names as given")
	assert.JSONEq(t, `"`+a+`"`, string(files[1]["file"]))
	assert.JSONEq(t, `{"ID":"b-file"}`, string(files[0]["file_properties"]))
	assert.JSONEq(t, `null`, string(files[0]["title"]))
	assert.JSONEq(t, `"A"`, string(files[1]["title"]))
	assert.JSONEq(t, `[{"level":1,"todo":"TODO","todo_type":"todo","priority":"A","title":"Task","tags":["work"],
		"commented":false,"archived":false,"scheduled":"<2026-01-05 Mon>","deadline":null,"closed":null,
		"properties":{"ID":"a1"},"begin_line":2,"end_line":7}]`, string(files[1]["headlines"]))
	assert.JSONEq(t, `[{"type":"id","path":"b1","search":null,"line":7}]`, string(files[1]["links"]))
	// Keys come in Emacs's order.
	assert.Less(t, strings.Index(out, `"file"`), strings.Index(out, `"title"`))
	assert.Less(t, strings.Index(out, `"todo_keywords"`), strings.Index(out, `"headlines"`))
}

func TestOutlineErrors(t *testing.T) {
	dir := t.TempDir()
	good := filepath.Join(dir, "good.org")
	require.NoError(t, os.WriteFile(good, []byte("* A\n"), 0o644))
	missing := filepath.Join(dir, "missing.org")
	tests := []struct {
		name     string
		args     []string
		code     int
		stderr   string
		noStdout bool
		oneLine  bool // the error is one sentence
	}{
		{"no --json", []string{good}, 2, "--json is required", true, true},
		{"no file", []string{"--json"}, 2, "no FILE given", true, true},
		{"unknown flag", []string{"--yaml", good}, 2, "--yaml: no such flag", true, true},
		{"unreadable file", []string{"--json", good, missing}, 2, "cannot read " + missing + ": it does not exist", true, true},
		{"a directory", []string{"--json", dir}, 2, "cannot read " + dir + ": it is a folder", true, true},
		{"help", []string{"-h"}, 0, "", false, false},
		{"files after --", []string{"--json", "--", good}, 0, "", false, false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runOutlineCLI(t, tt.args...)
			assert.Equal(t, tt.code, code, errOut)
			assert.Contains(t, errOut, tt.stderr)
			if tt.noStdout {
				assert.Empty(t, out)
			} else {
				assert.NotEmpty(t, out)
			}
			if tt.oneLine {
				assert.Equal(t, 1, strings.Count(strings.TrimSpace(errOut), "\n")+1, "one line: %q", errOut)
			}
		})
	}
}
