package bridge

import (
	"context"
	"fmt"
	"io"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestElispBridgeGivesItsTokenOnlyToTheDaemon: another local process (any
// user's) that listens on the port the editor connects to — the daemon is
// not running yet, or runs on another port — gets no token from
// passepartout-bridge.el: not by sending the daemon's handshake, not with a
// made-up proof, not by relaying the real daemon's own handshake (the
// daemon's proof names the connection it was made for). With its token the
// squatter could connect to the daemon and approve any Flight Plan. The
// benign twin: the daemon itself is answered with the token.
func TestElispBridgeGivesItsTokenOnlyToTheDaemon(t *testing.T) {
	emacs := testenv.NeedCommand(t, "emacs")
	runtime := t.TempDir()
	tok, _, err := LoadOrCreateToken(filepath.Join(runtime, "passepartout", "token"))
	require.NoError(t, err)
	d := startDaemon(t, Config{Token: tok})

	// relayed is what the real daemon says first to a connection of the
	// squatter's own: its nonce and proof.
	relayed := func(t *testing.T) string {
		hello, err := dial(t, d.addr).readFrame()
		require.NoError(t, err)
		return hello
	}
	cases := []struct {
		name string
		// greet is what the listener says first to the editor.
		greet func(t *testing.T) string
	}{
		{"the daemon's handshake with no proof", func(*testing.T) string {
			return `(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :VERSION "0.1.0"))`
		}},
		{"a made-up proof", func(*testing.T) string {
			return `(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :VERSION "0.1.0" :NONCE "00112233445566778899aabbccddeeff" :PROOF "` + strings.Repeat("ab", 32) + `"))`
		}},
		{"the proof a malformed nonce holds", func(*testing.T) string {
			return `(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :VERSION "0.1.0" :NONCE 7 :PROOF nil))`
		}},
		{"the real daemon's handshake, relayed", relayed},
		{"an acknowledgement with no handshake before it", func(*testing.T) string {
			return `(:TYPE :STATUS :META (:SOURCE :DAEMON) :PAYLOAD (:ACTION :HANDSHAKE :STATUS :OK :SESSION-ID "FAKE" :VERSION "0.1.0"))`
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			defer ln.Close()
			greeting := tc.greet(t)
			got := make(chan []byte, 1)
			go func() {
				ed, err := ln.Accept()
				if err != nil {
					got <- nil
					return
				}
				defer ed.Close()
				fmt.Fprintf(ed, "%06X%s", len(greeting), greeting)
				// Everything the editor sends until it gives up.
				b, _ := io.ReadAll(ed)
				got <- b
			}()
			out := connectFromEmacs(t, emacs, runtime, ln.Addr().String())
			received := <-got
			assert.NotContains(t, string(received), tok, "the squatter received the token")
			assert.NotContains(t, string(received), question, "the squatter received the question")
			assert.NotContains(t, out, "connected:", "the editor believes it is connected")
			assert.Contains(t, out, "refused:")
		})
	}
	t.Run("the daemon itself", func(t *testing.T) {
		out := connectFromEmacs(t, emacs, runtime, d.addr)
		assert.Regexp(t, `connected: [A-Z0-9]{26}\n`, out, "the daemon accepted the token and gave a session")
	})
	t.Run("the daemon itself on IPv6 loopback", func(t *testing.T) {
		srv, err := New(Config{Backend: newTestBackend(0), Token: tok, Version: "1.2.3"})
		require.NoError(t, err)
		ctx, cancel := context.WithCancel(context.Background())
		ln, err := Listen(ctx, "[::1]:0", false)
		if err != nil {
			cancel()
			t.Skipf("no IPv6 loopback here: %v", err)
		}
		done := make(chan error, 1)
		go func() { done <- srv.Serve(ctx, ln) }()
		defer func() { cancel(); <-done }()
		out := connectFromEmacs(t, emacs, runtime, ln.Addr().String())
		assert.Regexp(t, `connected: [A-Z0-9]{26}\n`, out, "the proof's addresses agree over IPv6")
	})
}

// question is what the editor asks once it believes it is connected.
const question = "what does my diary say"

// connectFromEmacs has passepartout-bridge.el connect to addr with the
// token under runtime and, once connected, ask the question; it returns
// what Emacs printed: "connected: …" or "refused: …".
func connectFromEmacs(t *testing.T, emacs, runtime, addr string) string {
	t.Helper()
	host, port, err := net.SplitHostPort(addr)
	require.NoError(t, err)
	ctx, cancel := context.WithTimeout(context.Background(), time.Minute)
	defer cancel()
	bridge := elispBridge(t)
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-Q", "-L", filepath.Dir(bridge), "-l", bridge, "--eval",
		`(progn (setq passepartout-bridge-host "`+host+`" passepartout-bridge-port `+port+` passepartout-bridge-timeout 3)
		  (condition-case err (progn (passepartout-bridge-connect) (princ (format "connected: %s\n" passepartout-bridge--session))
		                             (passepartout-bridge-request :ASK '(:TEXT "`+question+`")))
		    (error (princ (format "refused: %S\n" err))))
		  (passepartout-bridge-disconnect))`)
	cmd.Env = append(os.Environ(), "XDG_RUNTIME_DIR="+runtime)
	out, err := cmd.CombinedOutput()
	t.Logf("emacs:\n%s", out)
	require.NoError(t, err)
	return string(out)
}

// TestElispBridgeTrustsOnlyItsUsersToken: a token file someone else could
// have planted or read — another user's, or readable by others — is not
// used: a squatter proving it knows a token it planted gets neither the
// question nor a connection.
func TestElispBridgeTrustsOnlyItsUsersToken(t *testing.T) {
	emacs := testenv.NeedCommand(t, "emacs")
	const planted = "fedcba9876543210fedcba9876543210fedcba9876543210fedcba9876543210"
	for _, tc := range []struct {
		name string
		make func(t *testing.T, path string)
		root bool
		// why is what the user is told is wrong with the file.
		why string
	}{
		{"a token file others can read", func(t *testing.T, p string) {
			require.NoError(t, os.Chmod(p, 0o644))
		}, false, "can be read or written by others (-rw-r--r--)"},
		{"another user's token file", func(t *testing.T, p string) {
			require.NoError(t, os.Lchown(p, 65534, 65534))
		}, true, "belongs to another user"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("a second user needs root")
			}
			runtime := t.TempDir()
			p := filepath.Join(runtime, "passepartout", "token")
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
			require.NoError(t, os.WriteFile(p, []byte(planted+"\n"), 0o600))
			tc.make(t, p)

			ln, err := net.Listen("tcp", "127.0.0.1:0")
			require.NoError(t, err)
			defer ln.Close()
			got := make(chan []byte, 1)
			go func() {
				ed, err := ln.Accept()
				if err != nil {
					got <- nil
					return
				}
				defer ed.Close()
				nonce := "NONCE"
				hello := fmt.Sprintf(`(:TYPE :EVENT :PAYLOAD (:ACTION :HANDSHAKE :VERSION "0.1.0" :NONCE %q :PROOF %q))`,
					nonce, daemonProof(tokenDigest(planted), nonce, ed.RemoteAddr(), ed.LocalAddr()))
				fmt.Fprintf(ed, "%06X%s", len(hello), hello)
				b, _ := io.ReadAll(ed)
				got <- b
			}()
			out := connectFromEmacs(t, emacs, runtime, ln.Addr().String())
			received := <-got
			assert.NotContains(t, string(received), question, "the squatter received the question")
			assert.NotContains(t, string(received), ":TOKEN", "the editor answered the squatter's handshake")
			assert.Contains(t, out, fmt.Sprintf("refused: (passepartout-bridge-error %q)\n",
				"The token file "+p+" "+tc.why+", so it was not used: restart the daemon (`pp-lsp serve'), which replaces it with one only you can read"),
				"one sentence: what is wrong, and what to do")
			assert.NotContains(t, out, "closing the bridge", "said once, by the command that connects")
		})
	}
}
