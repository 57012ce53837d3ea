package lsp

import (
	"path/filepath"
	"strings"
	"testing"
)

// TestEmacsPlansFollowTheFile: the plans list and the plan view show
// flightplans.org as it is now when another program rewrites it, by
// themselves, keeping every window's place and the selected window; a
// key pressed before the change could be read does nothing; the JSON's
// \u003a escapes read as their characters (eglot-plans-follow.el).
func TestEmacsPlansFollowTheFile(t *testing.T) {
	needEglot(t)
	e := newApprovalE2E(t)
	out := runEditor(t, e, "emacs", "--batch", "-Q", "-l", filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "eglot-plans-follow.el"))
	t.Logf("emacs:\n%s", strings.Join(out, "\n"))
	for _, want := range []string{
		"FILED filed",
		"ESCAPE written: true",
		"ESCAPE shown as the colon: true",
		"ESCAPES shown: 1 of 8 (only the plain one in JSON)",
		"VIEW follows by itself: true",
		"LIST follows by itself: true",
		"SELECTED window kept: true",
		"LIST window kept its place: true",
		"VIEW window kept its place: true",
		"VIEW says it changed: true",
		"AT ONCE approved: false",
		"AT ONCE said: true",
		"AT ONCE ran: false",
		"LATER approved as shown: PLAN",
		"LATER ran: true",
		"EXIT 0",
	} {
		has(t, out, want)
	}
}
