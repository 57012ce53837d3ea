package bridge

import (
	"context"
	"os"
	"path/filepath"
	"regexp"
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

// TestAnApprovalOverTheBridgeOfAnOlderDiffWritesNothing: over real framed
// TCP, :PLANS gives a file_write plan's :REVISION; the file is edited on
// disk after that and the plan filed afresh, same :HASH, new diff; an
// :APPROVE with the :HASH and :REVISION the client showed writes nothing
// (the file keeps the edit byte for byte) and is journalled as refused;
// with the :REVISION listed now it runs.
func TestAnApprovalOverTheBridgeOfAnOlderDiffWritesNothing(t *testing.T) {
	a, root := openAgent(t, map[string]string{"notes.org": notesOrg, "list.conf": "milk\n"},
		`{"match":{"last_contains":"rewrite"},"repeat":true,"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"list.conf","content":"model's list\n","explanation":"tidy the list"}}]}}`)
	d := startDaemon(t, Config{Backend: ForAgent(a)})
	c := dial(t, d.addr)
	c.handshake(d.token)
	c.request("1", `:ACTION :ASK :TEXT "rewrite the list" :FILE "notes.org" :LINE 2`)
	_, resp := c.exchange("1")
	id, ok := get(resp, "PAYLOAD", "PLAN-ID").(string)
	require.True(t, ok, "%v", resp)
	listed := func(rid string) (hash, revision string) {
		c.request(rid, `:ACTION :PLANS`)
		_, resp := c.exchange(rid)
		plans, _ := get(resp, "PAYLOAD", "PLANS").(plist.List)
		require.Len(t, plans, 1)
		p := mustPlist(t, plans[0])
		hash, _ = get(p, "HASH").(string)
		revision, _ = get(p, "REVISION").(string)
		require.True(t, strings.HasPrefix(revision, "hmac-sha256:"), "%v", p)
		return hash, revision
	}
	hash, seen := listed("2")
	target := filepath.Join(root, "list.conf")
	const edited = "milk\neggs: the user's own line\n"
	require.NoError(t, os.WriteFile(target, []byte(edited), 0o644))
	// An approval finds the file changed: the plan is filed afresh.
	c.request("3", `:ACTION :APPROVE :ID "`+id+`" :HASH "`+hash+`" :REVISION "`+seen+`"`)
	_, resp = c.exchange("3")
	require.Equal(t, "PLAN", get(resp, "PAYLOAD", "STATE"), "%v", resp)
	hashNow, now := listed("4")
	require.Equal(t, hash, hashNow)
	require.NotEqual(t, seen, now)

	journalFile := filepath.Join(root, "journal.org")
	for i, tc := range []struct{ args, want string }{
		{`:HASH "` + hash + `" :REVISION "` + seen + `"`, "the plan changed since you saw it: look again"},
		{`:HASH "` + hash + `" :REVISION "` + seen + `" :ALWAYS t`, "the plan changed since you saw it: look again"},
		{`:HASH "` + hash + `" :REVISION ""`, ":REVISION must be the plan's revision"},
		{`:HASH "` + hash + `" :REVISION 7`, ":REVISION must be the plan's revision"},
		{`:HASH "` + hash + `" :REVISION "` + strings.ToUpper(now) + `"`, "is not a plan's revision"},
	} {
		rid := "bad" + string(rune('a'+i))
		c.request(rid, `:ACTION :APPROVE :ID "`+id+`" `+tc.args)
		_, resp := c.exchange(rid)
		assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"), tc.args)
		assert.Contains(t, get(resp, "PAYLOAD", "TEXT"), tc.want, tc.args)
		b, err := os.ReadFile(target)
		require.NoError(t, err)
		assert.Equal(t, edited, string(b), "the file is byte-identical")
	}
	j, err := os.ReadFile(journalFile)
	require.NoError(t, err)
	assert.Len(t, regexp.MustCompile(`(?m)^:KIND:\s+refused$`).FindAll(j, -1), 2, "each refused approval is journalled")

	c.request("5", `:ACTION :APPROVE :ID "`+id+`" :HASH "`+hash+`" :REVISION "`+now+`"`)
	_, resp = c.exchange("5")
	assert.Equal(t, "DONE", get(resp, "PAYLOAD", "STATE"), "%v", resp)
	b, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "model's list\n", string(b))
}
