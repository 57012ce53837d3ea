package agent

import (
	"testing"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/actuate/sandbox"
)

// TestMain lets the test binary be the sandbox's helper, as pp-lsp is:
// shell and eval actions in these tests run confined, as they do for a
// user.
func TestMain(m *testing.M) { testenv.Main(m, sandbox.Main) }
