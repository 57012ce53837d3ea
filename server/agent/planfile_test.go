package agent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/flightplan"
	"pp-lsp/server/workspace/workspacetest"
)

// Filing into an open flightplans.org: on disk while the buffer is
// unmodified — also while the editor has not reloaded the server's own
// last write yet, so no plan is lost to a stale buffer — and through the
// editor, with a request to save, once the user has changed the buffer.
func TestPlansAreWrittenOnDiskUnderAnUnmodifiedBuffer(t *testing.T) {
	ed := workspacetest.New()
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": ""}, replay(t, countTranscript),
		func(o *Options) { o.Workspace = ed; o.Config.HeartbeatSeconds = 3600 })
	plans := fx.path(flightplan.FileName)
	fileAPlan(t, fx)
	first := fx.read(t, flightplan.FileName)
	ed.Open(plans, first)

	// The editor does not reload in between: two plans, both on disk.
	ed.Stale(true)
	fileAPlan(t, fx)
	fileAPlan(t, fx)
	assert.Len(t, flightplan.Parse([]byte(fx.read(t, flightplan.FileName))), 3, "every plan is on disk")
	assert.Equal(t, first, ed.Text(plans), "the buffer is left for the editor to reload")
	assert.Empty(t, ed.Edits(), "nothing was sent to the editor to confirm")
	ids := map[string]bool{}
	for _, p := range flightplan.Parse([]byte(fx.read(t, flightplan.FileName))) {
		ids[p.ID] = true
	}
	assert.Len(t, ids, 3)

	// Reloaded, then changed by the user: the next plan goes into the
	// buffer, and the user is asked to save.
	ed.Stale(false)
	ed.Reload(plans)
	require.Equal(t, fx.read(t, flightplan.FileName), ed.Text(plans))
	ed.Open(plans, ed.Text(plans)+"\n# my note\n")
	disk := fx.read(t, flightplan.FileName)
	fileAPlan(t, fx)
	assert.Equal(t, disk, fx.read(t, flightplan.FileName), "never written behind a modified buffer")
	require.Len(t, ed.Edits(), 1)
	assert.Len(t, flightplan.Parse([]byte(ed.Text(plans))), 4)
	assert.True(t, strings.HasSuffix(ed.SaveRequests()[0], "a new Flight Plan, Run `make count` in ."), "%v", ed.SaveRequests())
}
