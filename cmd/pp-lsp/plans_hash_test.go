package main

import (
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestThePlansListGivesTheHashToApproveWith: `pp-lsp plans --json`, run as
// a process, gives each plan's "hash" — the hash of the action its block
// holds, which a client sends back with an approval; edited and filed
// afresh (by `--run-approved`, another process), the plan is listed with
// the new action's hash, and nothing ran.
func TestThePlansListGivesTheHashToApproveWith(t *testing.T) {
	testenv.NeedCommand(t, "make")
	m := newMemexEnv(t, map[string]string{"notes.org": "* n\n", "Makefile": countMakefile, "out/.keep": ""})
	id := filePlan(t, m)
	var env []string
	for k, v := range m.env {
		env = append(env, k+"="+v)
	}
	list := func(args ...string) plansReport {
		t.Helper()
		cmd := testenv.ChildCommand(t, "pp-lsp", env, append([]string{"plans", "--root", m.root, "--json"}, args...)...)
		out, err := cmd.Output()
		require.NoError(t, err, string(out))
		var rep plansReport
		require.NoError(t, json.Unmarshal(out, &rep), string(out))
		require.Len(t, rep.Plans, 1)
		require.Equal(t, id, rep.Plans[0].ID)
		return rep
	}
	seen := list().Plans[0].Hash
	b, err := os.ReadFile(m.path("flightplans.org"))
	require.NoError(t, err)
	require.Contains(t, string(b), ":ACTION_HASH: "+seen, "the hash the file shows")

	edited := strings.Replace(strings.Replace(string(b), `"make count"`, `"touch out/edited"`, 1), "* PLAN ", "* APPROVED ", 1)
	require.NoError(t, os.WriteFile(m.path("flightplans.org"), []byte(edited), 0o644))
	rep := list("--run-approved")
	require.Len(t, rep.Runs, 1)
	assert.False(t, rep.Runs[0].Ran)
	now := rep.Plans[0]
	assert.Equal(t, "PLAN", now.State)
	assert.NotEqual(t, seen, now.Hash)
	b, err = os.ReadFile(m.path("flightplans.org"))
	require.NoError(t, err)
	assert.Contains(t, string(b), ":ACTION_HASH: "+now.Hash, "filed afresh with the hash the list gives")
	assert.NoFileExists(t, m.path("out/edited"))
	assert.NoFileExists(t, m.path("out/count.txt"))
}

// TestThePlansListGivesTheRevisionOfTheDiff: `pp-lsp plans --json`, run as
// a process, gives a file_write plan's "revision" — the :REVISION: beside
// its diff; its file edited and the plan filed afresh by `--run-approved`,
// it is listed with the same hash and a new revision, and nothing was
// written over the edit.
func TestThePlansListGivesTheRevisionOfTheDiff(t *testing.T) {
	m := newMemexEnv(t, map[string]string{"notes.org": "* n\n", "list.conf": "milk\n"})
	transcript := filepath.Join(t.TempDir(), "replay.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(
		`{"match":{"last_contains":"rewrite"},"repeat":true,"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"list.conf","content":"model's list\n","explanation":"tidy the list"}}]}}`+"\n"), 0o644))
	m.env["PASSEPARTOUT_PROVIDERS"] = "replay:" + transcript
	code, _, stderr := m.run(t, "ask", "--root", m.root, "--no-chat", m.path("notes.org")+":1", "rewrite the list")
	require.Equal(t, 0, code, stderr)
	var env []string
	for k, v := range m.env {
		env = append(env, k+"="+v)
	}
	list := func(args ...string) plansReport {
		t.Helper()
		cmd := testenv.ChildCommand(t, "pp-lsp", env, append([]string{"plans", "--root", m.root, "--json"}, args...)...)
		out, err := cmd.Output()
		require.NoError(t, err, string(out))
		var rep plansReport
		require.NoError(t, json.Unmarshal(out, &rep), string(out))
		require.Len(t, rep.Plans, 1)
		return rep
	}
	seen := list().Plans[0]
	require.True(t, strings.HasPrefix(seen.Revision, "hmac-sha256:"), "%+v", seen)
	b, err := os.ReadFile(m.path("flightplans.org"))
	require.NoError(t, err)
	require.Contains(t, string(b), ":REVISION:    "+seen.Revision, "the revision the file shows")

	const edited = "milk\neggs: the user's own line\n"
	require.NoError(t, os.WriteFile(m.path("list.conf"), []byte(edited), 0o644))
	require.NoError(t, os.WriteFile(m.path("flightplans.org"), []byte(strings.Replace(string(b), "* PLAN ", "* APPROVED ", 1)), 0o644))
	rep := list("--run-approved")
	require.Len(t, rep.Runs, 1)
	assert.False(t, rep.Runs[0].Ran)
	now := rep.Plans[0]
	assert.Equal(t, "PLAN", now.State)
	assert.Equal(t, seen.Hash, now.Hash, "the same action")
	assert.NotEqual(t, seen.Revision, now.Revision, "a new diff, a new revision")
	b, err = os.ReadFile(m.path("flightplans.org"))
	require.NoError(t, err)
	assert.Contains(t, string(b), ":REVISION:    "+now.Revision)
	got, err := os.ReadFile(m.path("list.conf"))
	require.NoError(t, err)
	assert.Equal(t, edited, string(got))
}
