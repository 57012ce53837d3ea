package main

import (
	"bytes"
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// serveEnv is a fresh environment: its own runtime dir for the token.
func serveEnv(t *testing.T) (map[string]string, func(string) string) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_RUNTIME_DIR": filepath.Join(home, "run")}
	require.NoError(t, os.MkdirAll(env["XDG_RUNTIME_DIR"], 0o700))
	return env, func(k string) string { return env[k] }
}

func TestServeUsage(t *testing.T) {
	_, getenv := serveEnv(t)
	tests := []struct {
		name string
		args []string
		code int
		msg  string
	}{
		{"no address", []string{}, 2, "--tcp ADDR is required"},
		{"stray argument", []string{"--tcp", "127.0.0.1:0", "extra"}, 2, `unexpected argument "extra"`},
		{"unknown flag", []string{"--port", "1"}, 2, "--port: no such flag"},
		{"missing root", []string{"--tcp", "127.0.0.1:0", "--root", "/does/not/exist"}, 2, "--root /does/not/exist does not exist"},
		{"every interface", []string{"--tcp", ":0"}, 2, "--allow-remote allows it"},
		{"unspecified address", []string{"--tcp", "0.0.0.0:0"}, 2, "every interface"},
		{"a remote address", []string{"--tcp", "192.0.2.1:7655"}, 2, "not on this machine's loopback"},
		{"not HOST:PORT", []string{"--tcp", "7655"}, 2, "not HOST:PORT"},
		{"help", []string{"-h"}, 0, ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var out, errb bytes.Buffer
			code := run(context.Background(), &cli{stdin: strings.NewReader(""), stdout: &out, stderr: &errb, getenv: getenv}, append([]string{"serve"}, tt.args...))
			assert.Equal(t, tt.code, code, errb.String())
			assert.Contains(t, errb.String(), tt.msg)
		})
	}
}

// served is `pp-lsp serve` running in-process: the address it listens
// on, its log, the cancel that stops it and the status it ends with.
type served struct {
	addr   string
	logs   *testenv.SyncBuffer
	cancel context.CancelFunc
	done   chan int
}

// launchServe runs `pp-lsp serve` in-process and waits until it listens;
// the caller stops it (it is cancelled when the test ends).
func launchServe(t *testing.T, getenv func(string) string, args ...string) *served {
	t.Helper()
	ctx, cancel := context.WithCancel(context.Background())
	t.Cleanup(cancel)
	s := &served{logs: &testenv.SyncBuffer{}, cancel: cancel, done: make(chan int, 1)}
	go func() {
		s.done <- run(ctx, &cli{stdin: strings.NewReader(""), stdout: io.Discard, stderr: s.logs, getenv: getenv}, append([]string{"serve", "--log-level", "info"}, args...))
	}()
	listening := regexp.MustCompile(`pp-lsp serve: serving .* on (\S+) \(clients read the token from `)
	require.Eventually(t, func() bool {
		m := listening.FindStringSubmatch(s.logs.String())
		if m != nil {
			s.addr = m[1]
		}
		return m != nil
	}, 10*time.Second, 10*time.Millisecond, "serve did not start: %s", s.logs.String())
	return s
}

// startServe runs `pp-lsp serve` in-process until the test ends, which
// must find it exit cleanly, and returns the address it listens on and
// its log.
func startServe(t *testing.T, getenv func(string) string, args ...string) (string, *testenv.SyncBuffer) {
	t.Helper()
	s := launchServe(t, getenv, args...)
	t.Cleanup(func() {
		s.cancel()
		select {
		case code := <-s.done:
			assert.Equal(t, 0, code, "a shutdown is a clean exit: %s", s.logs.String())
		case <-time.After(10 * time.Second):
			t.Error("serve did not stop")
		}
	})
	return s.addr, s.logs
}

func TestServeCreatesTheTokenAndServes(t *testing.T) {
	env, getenv := serveEnv(t)
	addr, logs := startServe(t, getenv, "--tcp", "127.0.0.1:0", "--root", t.TempDir())

	tokenFile := filepath.Join(env["XDG_RUNTIME_DIR"], "passepartout", "token")
	info, err := os.Stat(tokenFile)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), info.Mode().Perm())
	dir, err := os.Stat(filepath.Dir(tokenFile))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), dir.Mode().Perm())
	raw, err := os.ReadFile(tokenFile)
	require.NoError(t, err)
	token := strings.TrimSpace(string(raw))
	require.Len(t, token, 64)

	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	defer nc.Close()
	hello := readTestFrame(t, nc)
	assert.Regexp(t, `^`+regexp.QuoteMeta(fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :VERSION %q`, version))+` :NONCE "[A-Z0-9]{26}" :PROOF "[0-9a-f]{64}"\)\)$`, hello)
	writeTestFrame(t, nc, fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN %q :CAPABILITIES nil))`, token))
	assert.Contains(t, readTestFrame(t, nc), ":STATUS :OK")
	writeTestFrame(t, nc, `(:TYPE :REQUEST :META (:REQUEST-ID "p") :PAYLOAD (:ACTION :PING))`)
	assert.Contains(t, readTestFrame(t, nc), `:TEXT "pong"`)

	// With no model configured, :ASK says which variable to set.
	writeTestFrame(t, nc, `(:TYPE :REQUEST :META (:REQUEST-ID "a") :PAYLOAD (:ACTION :ASK :TEXT "hello"))`)
	assert.Contains(t, readTestFrame(t, nc), `:TEXT ""`)
	assert.Contains(t, readTestFrame(t, nc), "PASSEPARTOUT_PROVIDERS")

	assert.Contains(t, logs.String(), "bridge token created")
	assert.NotContains(t, logs.String(), token, "the token is never logged")
}

func TestServeReusesTheTokenAndAllowsRemote(t *testing.T) {
	env, getenv := serveEnv(t)
	dir := filepath.Join(env["XDG_RUNTIME_DIR"], "passepartout")
	require.NoError(t, os.MkdirAll(dir, 0o700))
	token := strings.Repeat("5a", 32)
	require.NoError(t, os.WriteFile(filepath.Join(dir, "token"), []byte(token+"\n"), 0o600))

	addr, logs := startServe(t, getenv, "--tcp", "0.0.0.0:0", "--allow-remote")
	assert.Contains(t, logs.String(), "bridge token in use")
	_, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	nc, err := net.DialTimeout("tcp", net.JoinHostPort("127.0.0.1", port), 5*time.Second)
	require.NoError(t, err)
	defer nc.Close()
	readTestFrame(t, nc)
	writeTestFrame(t, nc, fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN %q))`, token))
	assert.Contains(t, readTestFrame(t, nc), ":STATUS :OK", "the token already in the file is the one served")
}

func readTestFrame(t *testing.T, nc net.Conn) string {
	t.Helper()
	require.NoError(t, nc.SetReadDeadline(time.Now().Add(5*time.Second)))
	var h [6]byte
	_, err := io.ReadFull(nc, h[:])
	require.NoError(t, err)
	n, err := strconv.ParseUint(string(h[:]), 16, 32)
	require.NoError(t, err)
	b := make([]byte, n)
	_, err = io.ReadFull(nc, b)
	require.NoError(t, err)
	return string(b)
}

func writeTestFrame(t *testing.T, nc net.Conn, payload string) {
	t.Helper()
	_, err := fmt.Fprintf(nc, "%06X%s", len(payload), payload)
	require.NoError(t, err)
}

// TestServeAsksTheAgent drives the real agent through the daemon: a question
// over the bridge is answered by the replay provider, streamed in chunks.
func TestServeAsksTheAgent(t *testing.T) {
	env, getenv := serveEnv(t)
	root := t.TempDir()
	note := filepath.Join(root, "note.org")
	require.NoError(t, os.WriteFile(note, []byte("* Garden\nSoil moisture sensors.\n"), 0o644))
	transcript := filepath.Join(t.TempDir(), "replay.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(`{"match":{},"reply":{"text":"Water bed two first."},"repeat":true}`+"\n"), 0o644))
	env["PASSEPARTOUT_PROVIDERS"] = "replay:" + transcript
	addr, _ := startServe(t, getenv, "--tcp", "127.0.0.1:0", "--root", root)

	nc := dialBridge(t, addr, env)

	writeTestFrame(t, nc, fmt.Sprintf(`(:TYPE :REQUEST :META (:REQUEST-ID "q1") :PAYLOAD (:ACTION :ASK :TEXT "What first?" :FILE %q :LINE 2))`, note))
	var answer strings.Builder
	for {
		f := readTestFrame(t, nc)
		if strings.Contains(f, ":TYPE :RESPONSE") {
			assert.Contains(t, f, `:REQUEST-ID "q1"`)
			assert.Contains(t, f, ":STATUS :OK", f)
			break
		}
		require.Contains(t, f, ":TYPE :STREAM-CHUNK", f)
		assert.Contains(t, f, `:REQUEST-ID "q1"`)
		if m := regexp.MustCompile(`:TEXT "([^"]*)"`).FindStringSubmatch(f); m != nil {
			answer.WriteString(m[1])
		}
	}
	assert.Contains(t, answer.String(), "Water bed two first.")
}

// dialBridge connects to the bridge at addr and authenticates with the token
// the daemon made under env's XDG_RUNTIME_DIR; the connection closes with
// the test.
func dialBridge(t *testing.T, addr string, env map[string]string) net.Conn {
	t.Helper()
	raw, err := os.ReadFile(filepath.Join(env["XDG_RUNTIME_DIR"], "passepartout", "token"))
	require.NoError(t, err)
	nc, err := net.DialTimeout("tcp", addr, 5*time.Second)
	require.NoError(t, err)
	t.Cleanup(func() { nc.Close() })
	readTestFrame(t, nc)
	writeTestFrame(t, nc, fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :TOKEN %q))`, strings.TrimSpace(string(raw))))
	require.Contains(t, readTestFrame(t, nc), ":STATUS :OK")
	return nc
}
