package bridge

import (
	"context"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// elispBridge is editors/emacs/passepartout-bridge.el in this checkout.
func elispBridge(t *testing.T) string {
	t.Helper()
	path := filepath.Join(testenv.ModuleRoot(t), "editors", "emacs", "passepartout-bridge.el")
	_, err := os.Stat(path)
	require.NoError(t, err)
	return path
}

// TestElispBridgeByteCompiles: the elisp bridge byte-compiles with no warning
// and passes checkdoc.
func TestElispBridgeByteCompiles(t *testing.T) {
	emacs := testenv.NeedCommand(t, "emacs")
	dir := t.TempDir()
	src, err := os.ReadFile(elispBridge(t))
	require.NoError(t, err)
	el := filepath.Join(dir, "passepartout-bridge.el")
	require.NoError(t, os.WriteFile(el, src, 0o644))
	out, err := exec.Command(emacs, "--batch", "-Q",
		"--eval", "(setq byte-compile-error-on-warn t)",
		"-f", "batch-byte-compile", el).CombinedOutput()
	require.NoError(t, err, "byte-compiling: %s", out)
	assert.NotContains(t, string(out), "Warning")
	_, err = os.Stat(el + "c")
	assert.NoError(t, err)

	// checkdoc, Emacs's own documentation style check, has nothing to say.
	out, err = exec.Command(emacs, "--batch", "-Q", "--eval",
		`(progn (require 'checkdoc) (checkdoc-file "`+el+`"))`).CombinedOutput()
	require.NoError(t, err, "checkdoc: %s", out)
	assert.NotContains(t, string(out), "Warning", "checkdoc: %s", out)
}

// TestElispBridgeAgainstTheDaemon runs testdata/bridge-test.el (ERT, in
// Emacs batch mode) with passepartout-bridge.el against this package's
// daemon: handshake with the token from its file, status, ping, an ask
// streamed into a buffer, cancel, the context, plans approved and rejected,
// approved with similar actions allowed, changes undone.
// The backend records what reached it, which is checked here after.
func TestElispBridgeAgainstTheDaemon(t *testing.T) {
	b := newTestBackend(20 * time.Millisecond)
	org := filepath.Join(t.TempDir(), "notes.org")
	require.NoError(t, os.WriteFile(org, []byte("#+title: Notes\n* Project\n** TODO Bridge\nSome text.\n"), 0o644))

	out := runBridgeERT(t, b, "bridge-test.el", "PP_TEST_ORG_FILE="+org)
	assert.Regexp(t, `Ran \d+ tests, \d+ results as expected, 0 unexpected`, out)

	b.mu.Lock()
	defer b.mu.Unlock()
	assert.Equal(t, []string{"p-1"}, b.approved)
	assert.Equal(t, []string{"p-2"}, b.rejected)
	assert.Equal(t, []string{"p-3"}, b.always)
	assert.Equal(t, []string{"", "c-1"}, b.undone)
	require.Len(t, b.contexts, 1)
	assert.Equal(t, org, b.contexts[0].File)
	assert.Equal(t, 3, b.contexts[0].Line)
	var fromOrg *AskRequest
	for i, a := range b.asks {
		if a.Text == "alpha beta gamma delta" {
			fromOrg = &b.asks[i]
		}
	}
	require.NotNil(t, fromOrg, "the ask from the Org file reached the backend")
	assert.Equal(t, org, fromOrg.File)
	assert.Equal(t, 3, fromOrg.Line)
	assert.NotEmpty(t, fromOrg.SessionID)
}

// runBridgeERT serves backend on a daemon with a token in its place under
// a fresh XDG_RUNTIME_DIR, runs the ERT file testdata/test with
// passepartout-bridge.el in Emacs batch (PP_TEST_PORT the daemon's port,
// env added), fails the test if any ERT test fails, and returns Emacs's
// output.
func runBridgeERT(t *testing.T, backend Backend, test string, env ...string) string {
	t.Helper()
	emacs := testenv.NeedCommand(t, "emacs")
	runtime := t.TempDir()
	tok, _, err := LoadOrCreateToken(filepath.Join(runtime, "passepartout", "token"))
	require.NoError(t, err)
	d := startDaemon(t, Config{Backend: backend, Token: tok})
	_, port, err := net.SplitHostPort(d.addr)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	file, err := filepath.Abs(filepath.Join("testdata", test))
	require.NoError(t, err)
	bridge := elispBridge(t)
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-Q",
		"-L", filepath.Dir(bridge), "-l", bridge, "-l", file,
		"-f", "ert-run-tests-batch-and-exit")
	cmd.Env = append(append(os.Environ(), "XDG_RUNTIME_DIR="+runtime, "PP_TEST_PORT="+port), env...)
	out, err := cmd.CombinedOutput()
	t.Logf("emacs:\n%s", out)
	require.NoError(t, err, "the ERT tests failed")
	return string(out)
}
