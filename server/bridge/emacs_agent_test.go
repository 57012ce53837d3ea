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

// TestElispBridgeWithTheAgent runs testdata/bridge-agent-test.el (ERT,
// Emacs batch) with passepartout-bridge.el against the daemon serving a
// real agent: a proposal the gates file is said in the answer as a plan
// (a button to the plans), approving it runs it and reverts the open,
// unmodified flightplans.org buffer, and :STATUS reads as a sentence.
func TestElispBridgeWithTheAgent(t *testing.T) {
	emacs := testenv.NeedCommand(t, "emacs")
	testenv.NeedCommand(t, "make")
	a, root := openAgent(t, map[string]string{"notes.org": notesOrg, "Makefile": countMakefile, "out/.keep": ""}, countTranscript)
	runtime := t.TempDir()
	tok, _, err := LoadOrCreateToken(filepath.Join(runtime, "passepartout", "token"))
	require.NoError(t, err)
	d := startDaemon(t, Config{Backend: ForAgent(a), Token: tok})
	_, port, err := net.SplitHostPort(d.addr)
	require.NoError(t, err)

	ctx, cancel := context.WithTimeout(context.Background(), 3*time.Minute)
	defer cancel()
	test, err := filepath.Abs(filepath.Join("testdata", "bridge-agent-test.el"))
	require.NoError(t, err)
	bridge := elispBridge(t)
	cmd := exec.CommandContext(ctx, emacs, "--batch", "-Q",
		"-L", filepath.Dir(bridge), "-l", bridge, "-l", test,
		"-f", "ert-run-tests-batch-and-exit")
	cmd.Env = append(os.Environ(),
		"XDG_RUNTIME_DIR="+runtime,
		"PP_TEST_PORT="+port,
		"PP_TEST_ORG_FILE="+filepath.Join(root, "notes.org"),
		"PP_TEST_PLANS="+a.PlansPath(),
	)
	out, err := cmd.CombinedOutput()
	t.Logf("emacs:\n%s", out)
	require.NoError(t, err, "the ERT tests failed")
	assert.Regexp(t, `Ran 2 tests, 2 results as expected, 0 unexpected`, string(out))

	// The approved plan ran.
	got, err := os.ReadFile(filepath.Join(root, "out", "count.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ran\n", string(got))
}
