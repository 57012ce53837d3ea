package main

import (
	"context"
	"encoding/json"
	"os"
	"os/signal"
	"path/filepath"
	"strings"
	"sync"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/journal"
)

// TestMain lets the test binary be the sandbox's helper, as pp-lsp is, and
// run as pp-lsp itself (the child "pp-lsp"), so that a test can start
// several real processes.
func TestMain(m *testing.M) {
	testenv.Main(m, sandbox.Main, testenv.Child("pp-lsp", func(args []string) int {
		// As main does: SIGINT and SIGTERM end a command cleanly.
		ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
		defer stop()
		return run(ctx, &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, args)
	}))
}

const countMakefile = "count:\n\techo ran >> out/count.txt\n"

// filePlan asks a question that the replay model answers with `make count`,
// which the gates ask about: a Flight Plan is filed. It returns its ID.
func filePlan(t *testing.T, m *memexEnv) string {
	t.Helper()
	transcript := filepath.Join(t.TempDir(), "replay.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(
		`{"match":{"last_contains":"count"},"repeat":true,"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"make count","explanation":"count once"}}]}}`+"\n"), 0o644))
	m.env["PASSEPARTOUT_PROVIDERS"] = "replay:" + transcript
	code, _, stderr := m.run(t, "ask", "--root", m.root, "--no-chat", m.path("notes.org")+":1", "count it")
	require.Equal(t, 0, code, stderr)
	_, after, ok := strings.Cut(stderr, "filed as Flight Plan ")
	require.True(t, ok, stderr)
	return after[:36]
}

func (m *memexEnv) approveInFile(t *testing.T) {
	t.Helper()
	b, err := os.ReadFile(m.path("flightplans.org"))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(m.path("flightplans.org"), []byte(strings.Replace(string(b), "* PLAN ", "* APPROVED ", 1)), 0o644))
}

func TestPlansListsAndRunsApproved(t *testing.T) {
	m := newMemexEnv(t, map[string]string{"notes.org": "* n\n", "Makefile": countMakefile, "out/.keep": ""})
	id := filePlan(t, m)

	code, out, stderr := m.run(t, "plans", "--root", m.root)
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, out, "STATE  ID")
	assert.Contains(t, out, "PLAN   "+id+"  shell")

	code, out, _ = m.run(t, "plans", "--root", m.root, "--run-approved", "--json")
	require.Equal(t, 0, code)
	var rep plansReport
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	require.Len(t, rep.Plans, 1)
	assert.Empty(t, rep.Runs, "nothing is approved yet")
	assert.NoFileExists(t, m.path("out/count.txt"))

	m.approveInFile(t)
	code, out, stderr = m.run(t, "plans", "--root", m.root, "--run-approved")
	require.Equal(t, 0, code, stderr)
	assert.Contains(t, stderr, "plan "+id+" (Run `make count` in .): DONE — exit status 0")
	assert.Contains(t, out, "DONE   "+id)
	b, err := os.ReadFile(m.path("out/count.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ran\n", string(b))

	code, out, _ = m.run(t, "plans", "--root", m.root, "--json")
	require.Equal(t, 0, code)
	require.NoError(t, json.Unmarshal([]byte(out), &rep))
	assert.Equal(t, "DONE", rep.Plans[0].State)

	code, _, stderr = m.run(t, "plans", "extra")
	assert.Equal(t, 2, code, stderr)
}

// TestTwoProcessesApprovingAtOnceRunThePlanOnce starts several real
// pp-lsp processes that all pick up the same approved plan at once.
func TestTwoProcessesApprovingAtOnceRunThePlanOnce(t *testing.T) {
	testenv.NeedCommand(t, "make")
	m := newMemexEnv(t, map[string]string{"notes.org": "* n\n", "Makefile": "count:\n\techo ran >> out/count.txt; sleep 0.3\n", "out/.keep": ""})
	id := filePlan(t, m)
	m.approveInFile(t)
	var env []string
	for k, v := range m.env {
		env = append(env, k+"="+v)
	}
	const n = 4
	outs := make([]string, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Go(func() {
			cmd := testenv.ChildCommand(t, "pp-lsp", env, "plans", "--root", m.root, "--run-approved", "--json")
			b, err := cmd.CombinedOutput()
			assert.NoError(t, err, string(b))
			outs[i] = string(b)
		})
	}
	wg.Wait()
	b, err := os.ReadFile(m.path("out/count.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ran\n", string(b), "exactly one process ran it")
	ran := 0
	for _, o := range outs {
		ran += strings.Count(o, `"ran":true`)
	}
	assert.Equal(t, 1, ran, strings.Join(outs, "\n"))
	plans, err := os.ReadFile(m.path("flightplans.org"))
	require.NoError(t, err)
	assert.Equal(t, 1, strings.Count(string(plans), "DONE: exit status 0"), "the result is written once")
	assert.Contains(t, string(plans), "* DONE ")
	_, err = os.Stat(filepath.Join(m.data, "flightplans", "records", id+".run"))
	assert.NoError(t, err)
	rep, err := journal.Verify(context.Background(), m.path(journal.FileName), m.data)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v", rep.Broken)
}

func TestDoctorNamesATamperedJournalEntry(t *testing.T) {
	m := newMemexEnv(t, map[string]string{"notes.org": "* n\n", "Makefile": countMakefile, "out/.keep": ""})
	filePlan(t, m)
	code, out, _ := m.run(t, "doctor", "--root", m.root)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "ok    journal "+m.path(journal.FileName)+": 3 entries, hash chain verified up to the recorded head", "the start, the proposal, the plan")

	b, err := os.ReadFile(m.path(journal.FileName))
	require.NoError(t, err)
	tampered := strings.Replace(string(b), ":VERDICT:     ask", ":VERDICT:     allow", 1)
	require.NotEqual(t, string(b), tampered)
	require.NoError(t, os.WriteFile(m.path(journal.FileName), []byte(tampered), 0o644))
	code, out, _ = m.run(t, "doctor", "--root", m.root)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAIL  journal "+m.path(journal.FileName)+": entry 3 (line ")
	assert.Contains(t, out, "but entry 2 (line ")
}
