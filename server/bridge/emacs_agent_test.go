package bridge

import (
	"os"
	"path/filepath"
	"testing"

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
	testenv.NeedCommand(t, "emacs")
	testenv.NeedCommand(t, "make")
	a, root := openAgent(t, map[string]string{"notes.org": notesOrg, "Makefile": countMakefile, "out/.keep": "", "list.conf": "milk\n"}, countTranscript,
		`{"match":{"last_contains":"rewrite"},"repeat":true,"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"list.conf","content":"model's list\n","explanation":"tidy the list"}}]}}`)
	out := runBridgeERT(t, ForAgent(a), "bridge-agent-test.el",
		"PP_TEST_ORG_FILE="+filepath.Join(root, "notes.org"), "PP_TEST_PLANS="+a.PlansPath())
	assert.Regexp(t, `Ran 4 tests, 4 results as expected, 0 unexpected`, out)

	// The approved plan ran.
	got, err := os.ReadFile(filepath.Join(root, "out", "count.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ran\n", string(got))
}
