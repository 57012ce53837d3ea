package bridge

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/plist"
)

// TestAnApprovalOverTheBridgeChecksWhatTheUserSaw: over real framed TCP,
// :PLANS gives each plan's :HASH; the plan is edited on disk and filed
// afresh under the same ID; an :APPROVE carrying the hash the client
// showed runs nothing (with :ALWAYS, adds no rule), one carrying the hash
// listed now runs the plan; a :HASH that is not one is refused, saying so.
func TestAnApprovalOverTheBridgeChecksWhatTheUserSaw(t *testing.T) {
	testenv.NeedCommand(t, "make")
	a, root := openAgent(t, map[string]string{"notes.org": notesOrg, "Makefile": countMakefile, "out/.keep": ""}, countTranscript)
	d := startDaemon(t, Config{Backend: ForAgent(a)})
	c := dial(t, d.addr)
	c.handshake(d.token)
	c.request("1", `:ACTION :ASK :TEXT "count it" :FILE "notes.org" :LINE 2`)
	_, resp := c.exchange("1")
	id, ok := get(resp, "PAYLOAD", "PLAN-ID").(string)
	require.True(t, ok, "%v", resp)
	listed := func(rid string) string {
		c.request(rid, `:ACTION :PLANS`)
		_, resp := c.exchange(rid)
		plans, _ := get(resp, "PAYLOAD", "PLANS").(plist.List)
		require.Len(t, plans, 1)
		p := mustPlist(t, plans[0])
		require.Equal(t, id, get(p, "ID"))
		h, _ := get(p, "HASH").(string)
		require.True(t, strings.HasPrefix(h, "sha256:"), "%v", p)
		return h
	}
	seen := listed("2")
	plansFile := filepath.Join(root, "flightplans.org")
	text, err := os.ReadFile(plansFile)
	require.NoError(t, err)
	require.Contains(t, string(text), ":ACTION_HASH: "+seen)

	// Edited and approved in the file, then picked up: filed afresh.
	edited := strings.Replace(strings.Replace(string(text), `"make count"`, `"touch out/edited"`, 1), "* PLAN ", "* APPROVED ", 1)
	require.NoError(t, os.WriteFile(plansFile, []byte(edited), 0o644))
	_, err = a.Pickup(context.Background())
	require.NoError(t, err)
	now := listed("3")
	require.NotEqual(t, seen, now)
	cfg := filepath.Join(filepath.Dir(root), "config", "passepartout", "config.json")

	for i, tc := range []struct{ args, want string }{
		{`:HASH "` + seen + `"`, "the plan changed since you saw it: look again"},
		{`:HASH "` + seen + `" :ALWAYS t`, "the plan changed since you saw it: look again"},
		{`:HASH "` + strings.ToUpper(now) + `"`, "is not a plan's action hash"},
		{`:HASH "` + strings.TrimPrefix(now, "sha256:") + `"`, "is not a plan's action hash"},
		{`:HASH ""`, ":HASH must be the plan's action hash"},
		{`:HASH 12`, ":HASH must be the plan's action hash"},
		{`:HASH :SHA256`, ":HASH must be the plan's action hash"},
	} {
		rid := "bad" + string(rune('a'+i))
		c.request(rid, `:ACTION :APPROVE :ID "`+id+`" `+tc.args)
		_, resp := c.exchange(rid)
		assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"), tc.args)
		assert.Contains(t, get(resp, "PAYLOAD", "TEXT"), tc.want, tc.args)
		assert.NoFileExists(t, filepath.Join(root, "out/edited"), "the action the user never saw did not run")
		assert.NoFileExists(t, filepath.Join(root, "out/count.txt"))
		assert.NoFileExists(t, cfg, "no rule was added")
	}

	c.request("4", `:ACTION :APPROVE :ID "`+id+`" :HASH "`+now+`"`)
	_, resp = c.exchange("4")
	assert.Equal(t, "DONE", get(resp, "PAYLOAD", "STATE"), "%v", resp)
	assert.Equal(t, true, get(resp, "PAYLOAD", "RAN"))
	assert.FileExists(t, filepath.Join(root, "out/edited"))
	assert.NoFileExists(t, filepath.Join(root, "out/count.txt"))
}
