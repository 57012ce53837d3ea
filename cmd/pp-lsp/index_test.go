package main

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// runIndexCLI runs `pp-lsp index` in-process.
func runIndexCLI(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_DATA_HOME": filepath.Join(home, ".local", "share")}
	var out, errb bytes.Buffer
	code := run(context.Background(), &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}, append([]string{"index"}, args...))
	return code, out.String(), errb.String()
}

// TestIndexExampleMemex indexes examples/memex: 15 files, 26 IDs and the
// one deliberately broken id link (inbox.org).
func TestIndexExampleMemex(t *testing.T) {
	root := filepath.Join(testenv.ModuleRoot(t), "examples", "memex")
	code, out, errOut := runIndexCLI(t, "--json", "--root", root)
	require.Equal(t, 0, code, errOut)
	assert.Empty(t, errOut)
	var rep map[string]any
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	for _, k := range []string{"files", "headlines", "ids", "links", "id_links", "broken_id_links", "duplicate_ids", "root_hash"} {
		assert.Contains(t, rep, k)
	}
	assert.EqualValues(t, 15, rep["files"])
	assert.EqualValues(t, 26, rep["ids"])
	assert.EqualValues(t, 1, rep["broken_id_links"])
	assert.EqualValues(t, 0, rep["duplicate_ids"])
	assert.Len(t, rep["root_hash"], 64)
	assert.NotContains(t, rep, "findings", "only with --findings")

	code, out, _ = runIndexCLI(t, "--json", "--findings", "--root", root)
	require.Equal(t, 0, code)
	var withF struct {
		Findings []findingJSON `json:"findings"`
	}
	require.NoError(t, json.Unmarshal([]byte(out), &withF))
	require.Len(t, withF.Findings, 1)
	assert.Equal(t, "broken-id-link", withF.Findings[0].Code)
	assert.Equal(t, filepath.Join(root, "inbox.org"), withF.Findings[0].File)
	assert.Positive(t, withF.Findings[0].Line)
}

// TestIndexTempMemex covers several roots, the default root (the current
// directory), the human summary, and the root hash's independence of the
// tree's absolute place.
func TestIndexTempMemex(t *testing.T) {
	a, b := t.TempDir(), t.TempDir()
	files := map[string]string{
		"one.org": ":PROPERTIES:\n:ID: one\n:END:\n#+title: One\n* Dup\n:PROPERTIES:\n:ID: dup\n:END:\nSee [[id:two]] and [[id:nowhere]].\n",
		"two.org": "* Two\n:PROPERTIES:\n:ID: two\n:END:\n* Dup again\n:PROPERTIES:\n:ID: dup\n:END:\n[[https://orgmode.org]] [[file:one.org::*Dup]]\n",
	}
	for name, text := range files {
		require.NoError(t, os.WriteFile(filepath.Join(a, name), []byte(text), 0o644))
		require.NoError(t, os.MkdirAll(filepath.Join(b, "sub"), 0o755))
		require.NoError(t, os.WriteFile(filepath.Join(b, "sub", name), []byte(text), 0o644))
	}
	code, out, errOut := runIndexCLI(t, "--json", "--root", a)
	require.Equal(t, 0, code, errOut)
	var ra indexReport
	require.NoError(t, json.Unmarshal([]byte(out), &ra))
	assert.Equal(t, indexReport{Files: 2, Headlines: 3, IDs: 3, Links: 4, IDLinks: 2, BrokenIDLinks: 1, DuplicateIDs: 1,
		RootHash: ra.RootHash, Nodes: 5, FileLinks: 1, Roots: []string{a}}, ra)

	code, out, _ = runIndexCLI(t, "--json", "--root", filepath.Join(b, "sub"))
	require.Equal(t, 0, code)
	var rb indexReport
	require.NoError(t, json.Unmarshal([]byte(out), &rb))
	assert.Equal(t, ra.RootHash, rb.RootHash, "the same tree elsewhere hashes the same")

	code, out, _ = runIndexCLI(t, "--json", "--root", a, "--root", b)
	require.Equal(t, 0, code)
	var both indexReport
	require.NoError(t, json.Unmarshal([]byte(out), &both))
	assert.Equal(t, 4, both.Files)
	assert.Equal(t, 3, both.DuplicateIDs, "dup, and one, two in both roots")

	t.Chdir(a)
	code, out, _ = runIndexCLI(t)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "2 Org files, 3 headlines, 3 IDs, 4 links")
	assert.Contains(t, out, "1 broken id links, 1 duplicate IDs")
	assert.Contains(t, out, "root hash: "+ra.RootHash)
}

// TestIndexErrors: a missing root is bad input (exit 2) naming the root;
// stray arguments and unknown flags are usage errors.
func TestIndexErrors(t *testing.T) {
	missing := filepath.Join(t.TempDir(), "no-such-root")
	tests := []struct {
		name string
		args []string
		want string
	}{
		{"missing root", []string{"--json", "--root", missing}, "no-such-root"},
		{"root is a file", []string{"--root", filepath.Join(testenv.ModuleRoot(t), "go.mod")}, "not a folder"},
		{"stray argument", []string{"somewhere"}, "takes no operands"},
		{"unknown flag", []string{"--frobnicate"}, "frobnicate"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			code, out, errOut := runIndexCLI(t, tt.args...)
			assert.Equal(t, 2, code)
			assert.Empty(t, out)
			assert.Contains(t, errOut, tt.want)
		})
	}
	code, out, errOut := runIndexCLI(t, "--help")
	assert.Equal(t, 0, code)
	assert.Empty(t, errOut)
	assert.Contains(t, out, "--root DIR")
}

// TestIndexSkipsBinaryFiles: a binary file named .org is counted in
// skipped_files, named with its reason by --findings, and never read as
// Org; outline and context refuse it as bad input (exit 2) in one sentence.
func TestIndexSkipsBinaryFiles(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "note.org"), []byte("* Note\n"), 0o644))
	// 3,303 bytes of a PNG named .org, as a user's mistake leaves it.
	png := append([]byte("\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR"), bytes.Repeat([]byte{0, 1, 2, 0xff, '*', ' ', 'x', '\n'}, 411)...)
	bin := filepath.Join(root, "photo.org")
	require.NoError(t, os.WriteFile(bin, png, 0o644))

	code, out, errOut := runIndexCLI(t, "--json", "--findings", "--root", root)
	require.Equal(t, 0, code, errOut)
	var rep indexReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, 1, rep.Files)
	assert.Equal(t, 1, rep.Headlines, "nothing of the binary file is parsed")
	assert.Equal(t, 1, rep.SkippedFiles)
	require.Len(t, rep.Findings, 1)
	assert.Equal(t, "not-text", rep.Findings[0].Code)
	assert.Equal(t, bin, rep.Findings[0].File)
	assert.Contains(t, rep.Findings[0].Message, "it holds NUL bytes")

	code, out, _ = runIndexCLI(t, "--root", root)
	require.Equal(t, 0, code)
	assert.Contains(t, out, "1 files skipped")
	assert.Contains(t, out, "`pp-lsp index --findings` says which files and why")

	for _, args := range [][]string{{"outline", "--json", bin}, {"context", "--root", root, bin + ":1"}} {
		var stdout, stderr bytes.Buffer
		c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
		assert.Equal(t, 2, run(t.Context(), c, args), stderr.String())
		assert.Empty(t, stdout.String(), "not a byte of it reaches the output")
		assert.Equal(t, "pp-lsp "+args[0]+": "+bin+" is not an Org file: it holds NUL bytes (the first at byte 8), so it is binary, not Org text\n", stderr.String())
	}
}
