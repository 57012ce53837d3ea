package main

import (
	"bufio"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/providers/providertest"
	"pp-lsp/server/chat"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
)

// TestMCPStopsWithACallRunning: the client of `pp-lsp mcp` goes away
// (stdin closed) while an allowed command it proposed still runs. The
// server stops the command, journals its result, and exits within
// seconds: the journal is whole (doctor verifies it), the action's
// result is in it, and its chain is recorded in the head — nothing is
// left half-written, nothing waits for ever.
func TestMCPStopsWithACallRunning(t *testing.T) {
	m := mcpEnv(t)
	cmd := m.ppLspCommand(t, "mcp", "--root", m.root)
	stdin, err := cmd.StdinPipe()
	require.NoError(t, err)
	stdout, err := cmd.StdoutPipe()
	require.NoError(t, err)
	require.NoError(t, cmd.Start())
	out := bufio.NewReader(stdout)
	send := func(s string) {
		_, err := io.WriteString(stdin, s+"\n")
		require.NoError(t, err)
	}
	send(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"protocolVersion":"2025-06-18","capabilities":{},"clientInfo":{"name":"t","version":"1"}}}`)
	line, err := out.ReadString('\n')
	require.NoError(t, err)
	require.Contains(t, line, `"id":1`)
	send(`{"jsonrpc":"2.0","method":"notifications/initialized"}`)
	send(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"propose_action","arguments":{"action":{"tool":"shell","args":{"cmd":"sleep 30","cwd":"."},"explanation":"wait"}}}}`)
	jpath := m.path(journal.FileName)
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(jpath)
		return strings.Contains(string(b), "proposal shell: allow")
	}, 20*time.Second, 20*time.Millisecond, "the command was allowed and started")
	time.Sleep(300 * time.Millisecond)
	start := time.Now()
	require.NoError(t, stdin.Close())
	go io.Copy(io.Discard, out) //nolint:errcheck // drained to the end
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case err := <-done:
		t.Logf("exited after %v: %v", time.Since(start), err)
	case <-time.After(20 * time.Second):
		cmd.Process.Kill()
		t.Fatal("pp-lsp mcp did not exit with a call running")
	}
	assert.Less(t, time.Since(start), 10*time.Second)
	b, err := os.ReadFile(jpath)
	require.NoError(t, err)
	assert.Contains(t, string(b), "result shell:", "the running action's result is journalled")
	code, dout, _ := m.run(t, "doctor", "--root", m.root)
	assert.Contains(t, dout, fmt.Sprintf("ok    journal %s:", jpath), "code %d:\n%s", code, dout)
	assert.Contains(t, dout, "hash chain verified up to the recorded head", dout)
}

// TestServeStopsWithAQuestionRunning: `pp-lsp serve` is stopped (SIGTERM:
// its context ends) while a bridge client's question waits on a model
// that has begun to answer and then hangs. The model's request is
// cancelled, serve returns promptly with status 0, the conversation's
// file holds the turn as it ended (whole Org, no half-written line), the
// journal is whole, and nothing under the roots or the data folder is
// written after serve returned.
func TestServeStopsWithAQuestionRunning(t *testing.T) {
	srv := providertest.NewServer(t, providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Model: "m1", Text: []string{"Let me think"}})[:2], Hang: true})
	env, getenv := serveEnv(t)
	data := filepath.Join(t.TempDir(), "data")
	env["PASSEPARTOUT_DATA_DIR"] = data
	env["PASSEPARTOUT_PROVIDERS"] = "openai:m1@" + srv.URL + "/v1"
	root := t.TempDir()
	note := filepath.Join(root, "notes.org")
	require.NoError(t, os.WriteFile(note, []byte("* Garden\nTomatoes.\n"), 0o644))

	s := launchServe(t, getenv, "--tcp", "127.0.0.1:0", "--root", root)
	logs, cancel, done := s.logs, s.cancel, s.done
	nc := dialBridge(t, s.addr, env)
	writeTestFrame(t, nc, fmt.Sprintf(`(:TYPE :REQUEST :META (:REQUEST-ID "q") :PAYLOAD (:ACTION :ASK :TEXT "What do tomatoes need?" :FILE %q :LINE 2))`, note))
	require.Eventually(t, func() bool { return len(srv.Requests()) == 1 }, 10*time.Second, 10*time.Millisecond, "the model was asked")
	time.Sleep(200 * time.Millisecond) // the first words are out

	start := time.Now()
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, logs.String())
	case <-time.After(15 * time.Second):
		t.Fatalf("serve did not stop with a question running: %s", logs.String())
	}
	t.Logf("serve stopped after %v", time.Since(start))
	assert.Less(t, time.Since(start), 8*time.Second)
	select {
	case <-srv.ClientGone():
	case <-time.After(5 * time.Second):
		t.Error("the model's request was not cancelled")
	}

	before := treeBytes(t, root, data)
	time.Sleep(1500 * time.Millisecond)
	assert.Equal(t, before, treeBytes(t, root, data), "written after serve returned")

	chats, err := filepath.Glob(filepath.Join(root, "chats", "*.org"))
	require.NoError(t, err)
	require.Len(t, chats, 1, "the question began a conversation")
	for _, c := range chats {
		b, err := os.ReadFile(c)
		require.NoError(t, err)
		assert.True(t, strings.HasSuffix(string(b), "\n"), "%s ends with a whole line:\n%s", c, b)
		assert.Len(t, chat.Parse(b, nil).Turns, 1, "%s", b)
	}
	m := &memexEnv{root: root, env: env}
	code, dout, _ := m.run(t, "doctor", "--root", root)
	assert.Contains(t, dout, "hash chain verified up to the recorded head", "code %d:\n%s", code, dout)
}

// treeBytes is every regular file under the folders, by path.
func treeBytes(t *testing.T, dirs ...string) map[string]string {
	t.Helper()
	out := map[string]string{}
	for _, d := range dirs {
		require.NoError(t, filepath.WalkDir(d, func(p string, e fs.DirEntry, err error) error {
			if err != nil || !e.Type().IsRegular() {
				return err
			}
			b, err := os.ReadFile(p)
			if err == nil {
				out[p] = string(b)
			}
			return nil
		}))
	}
	return out
}

// TestServeStopsWithAPlanRunning: `pp-lsp serve` is stopped while an
// approved plan, approved over the bridge, runs a long command. The
// command is stopped, serve returns promptly, the plan's final state is
// in flightplans.org (whole: every plan parses with its ID), the command
// left no effect, the journal is whole, and nothing is written after
// serve returned.
func TestServeStopsWithAPlanRunning(t *testing.T) {
	testenv.NeedCommand(t, "make")
	srv := providertest.NewServer(t, providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Model: "m1",
		Calls: []providertest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"make count","cwd":".","explanation":"count them"}`}}})})
	env, getenv := serveEnv(t)
	data := filepath.Join(t.TempDir(), "data")
	env["PASSEPARTOUT_DATA_DIR"] = data
	env["PASSEPARTOUT_PROVIDERS"] = "openai:m1@" + srv.URL + "/v1"
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{
		"notes.org": "* Garden\nTomatoes.\n",
		"Makefile":  "count:\n\tsleep 30\n\techo ran >> out/count.txt\n",
		"out/.keep": "",
	})
	note := filepath.Join(root, "notes.org")

	s := launchServe(t, getenv, "--tcp", "127.0.0.1:0", "--root", root)
	logs, cancel, done := s.logs, s.cancel, s.done
	nc := dialBridge(t, s.addr, env)
	writeTestFrame(t, nc, fmt.Sprintf(`(:TYPE :REQUEST :META (:REQUEST-ID "q") :PAYLOAD (:ACTION :ASK :TEXT "Count them." :FILE %q :LINE 2 :NO-CHAT t))`, note))
	planID := regexp.MustCompile(`:PLAN-ID "([0-9a-f-]{36})"`)
	var id string
	for id == "" {
		if m := planID.FindStringSubmatch(readTestFrame(t, nc)); m != nil {
			id = m[1]
		}
	}
	writeTestFrame(t, nc, fmt.Sprintf(`(:TYPE :REQUEST :META (:REQUEST-ID "a") :PAYLOAD (:ACTION :APPROVE :ID %q))`, id))
	require.Eventually(t, func() bool {
		b, _ := os.ReadFile(filepath.Join(root, journal.FileName))
		return strings.Contains(string(b), "(approved by command)") || strings.Contains(string(b), "approval")
	}, 10*time.Second, 10*time.Millisecond, "the plan was approved")
	time.Sleep(500 * time.Millisecond) // make runs its sleep

	start := time.Now()
	cancel()
	select {
	case code := <-done:
		assert.Equal(t, 0, code, logs.String())
	case <-time.After(20 * time.Second):
		t.Fatalf("serve did not stop with a plan running: %s", logs.String())
	}
	t.Logf("serve stopped after %v", time.Since(start))
	assert.Less(t, time.Since(start), 8*time.Second)

	before := treeBytes(t, root, data)
	time.Sleep(1500 * time.Millisecond)
	assert.Equal(t, before, treeBytes(t, root, data), "written after serve returned")
	assert.NoFileExists(t, filepath.Join(root, "out", "count.txt"), "the command was stopped before its effect")
	plans, err := os.ReadFile(filepath.Join(root, "flightplans.org"))
	require.NoError(t, err)
	parsed := flightplan.Parse(plans)
	require.Len(t, parsed, 1, "%s", plans)
	assert.Equal(t, id, parsed[0].ID)
	assert.NotEqual(t, flightplan.StateApproved, parsed[0].State, "the plan's end is written:\n%s", plans)
	m := &memexEnv{root: root, env: env}
	code, dout, _ := m.run(t, "doctor", "--root", root)
	assert.Contains(t, dout, "hash chain verified up to the recorded head", "code %d:\n%s", code, dout)
}
