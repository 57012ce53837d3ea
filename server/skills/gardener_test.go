package skills

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
)

// TestAGardenerReportSetsNoEditorOptionNorRunsALink: the report names
// notes by their file names, which a folder anyone filled chooses; written
// into the daily note, a name holding a modeline sets nothing in the
// Neovim that opens it, and one closing the link and opening an elisp
// link makes no link that runs code.
func TestAGardenerReportSetsNoEditorOptionNorRunsALink(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{
		"x vim: set tw=7 :.org":                      "* Orphan one\n",
		"y]] [[elisp:(kill-emacs)][click me]] z.org": "* Orphan two\n",
	})
	ctx := context.Background()
	mx, err := memory.Open(ctx, memory.Options{Roots: []string{root}})
	require.NoError(t, err)
	t.Cleanup(func() { mx.Close(ctx) })
	now := time.Date(2026, 11, 26, 6, 30, 0, 0, time.Local)
	g := Tend(mx.Snapshot(), now, func(string) (time.Time, bool) { return now, true })
	require.Len(t, g.Orphans, 2)
	report := "#+title: Daily\n" + g.Org(root, now)
	p := filepath.Join(t.TempDir(), "daily.org")
	require.NoError(t, os.WriteFile(p, []byte(report), 0o644))
	assert.Equal(t, "0", testenv.NvimOption(t, p, "textwidth"), "%s", report)
	assert.False(t, strings.Contains(report, "[[elisp:"), "%s", report)
}
