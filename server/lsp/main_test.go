package lsp

import (
	"testing"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/actuate/sandbox"
)

// TestMain lets the test binary be the sandbox's helper, as pp-lsp is.
func TestMain(m *testing.M) { testenv.Main(m, sandbox.Main, testenv.Child("burst", burstChild)) }
