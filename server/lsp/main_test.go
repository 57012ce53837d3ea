package lsp

import (
	"os"
	"testing"

	"pp-lsp/server/actuate/sandbox"
)

// TestMain lets the test binary be the sandbox's helper, as pp-lsp is.
func TestMain(m *testing.M) {
	sandbox.Main()
	os.Exit(m.Run())
}
