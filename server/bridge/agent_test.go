package bridge

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/agent"
	"pp-lsp/server/host"
	"pp-lsp/server/plist"
)

const (
	notesOrg        = "#+TITLE: Notes\n* Project\n:PROPERTIES:\n:ID: proj\n:END:\nWhat is in the notes folder?\n"
	countMakefile   = "count:\n\techo ran >> out/count.txt\n"
	countTranscript = `{"match":{"last_contains":"count"},"repeat":true,"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"make count","explanation":"count once"}}]}}`
)

// openAgent opens the agent as pp-lsp serve does (agent.Open), over a memex
// of files in a temporary folder, with the replay transcript as its model.
func openAgent(t *testing.T, files map[string]string, transcript ...string) (*agent.Agent, string) {
	t.Helper()
	dir, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root := filepath.Join(dir, "memex")
	testenv.WriteTree(t, root, files)
	replay := filepath.Join(dir, "replay.jsonl")
	require.NoError(t, os.WriteFile(replay, []byte(strings.Join(transcript, "\n")+"\n"), 0o644))
	env := map[string]string{
		"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "config"), "PASSEPARTOUT_DATA_DIR": filepath.Join(dir, "data"),
		"PASSEPARTOUT_PROVIDERS": "replay:" + replay, "PATH": os.Getenv("PATH"), "LANG": "C.UTF-8",
	}
	ctx := context.Background()
	a, err := agent.Open(ctx, agent.Setup{Roots: []string{root}, Getenv: func(k string) string { return env[k] }})
	require.NoError(t, err)
	t.Cleanup(func() { a.Close(ctx) })
	return a, root
}

// TestTheBridgeServesTheAgent: every action of the wire, served by a real
// agent over a real memex, its answers in the bridge's own words.
func TestTheBridgeServesTheAgent(t *testing.T) {
	testenv.NeedCommand(t, "make")
	a, root := openAgent(t, map[string]string{"notes.org": notesOrg, "Makefile": countMakefile, "out/.keep": ""},
		`{"match":{"last_contains":"hello"},"reply":{"text":"Hello from the memex."}}`, countTranscript)
	d := startDaemon(t, Config{Backend: ForAgent(a)})
	c := dial(t, d.addr)
	c.handshake(d.token)

	c.request("1", `:ACTION :ASK :TEXT "hello" :FILE "notes.org" :LINE 2`)
	chunks, resp := c.exchange("1")
	assert.Equal(t, "Hello from the memex.", strings.Join(chunks, ""))
	assert.Equal(t, kw("ANSWERED"), get(resp, "PAYLOAD", "OUTCOME"))
	assert.Equal(t, "message", get(resp, "PAYLOAD", "TOOL"))
	assert.Equal(t, "allow", get(resp, "PAYLOAD", "VERDICT"))
	assert.NotEmpty(t, get(resp, "PAYLOAD", "SUMMARY"))

	c.request("2", `:ACTION :ASK :TEXT "count it" :FILE "notes.org" :LINE 2`)
	_, resp = c.exchange("2")
	assert.Equal(t, kw("FILED"), get(resp, "PAYLOAD", "OUTCOME"))
	id, ok := get(resp, "PAYLOAD", "PLAN-ID").(string)
	require.True(t, ok, "%v", resp)
	assert.Equal(t, "ask", get(resp, "PAYLOAD", "VERDICT"))
	assert.Contains(t, get(resp, "PAYLOAD", "SUMMARY"), "filed as a Flight Plan for your approval (permissions: ",
		"a filed plan is summed up as every front end sums it up")
	assert.NoFileExists(t, filepath.Join(root, "out/count.txt"))

	c.request("3", `:ACTION :CONTEXT :FILE "notes.org" :LINE 6 :BUDGET 500`)
	_, resp = c.exchange("3")
	assert.Contains(t, get(resp, "PAYLOAD", "TEXT"), "What is in the notes folder?")
	assert.Equal(t, int64(500), get(resp, "PAYLOAD", "BUDGET"))

	c.request("4", `:ACTION :PLANS`)
	_, resp = c.exchange("4")
	plans, _ := get(resp, "PAYLOAD", "PLANS").(plist.List)
	require.Len(t, plans, 1)
	assert.Equal(t, id, get(mustPlist(t, plans[0]), "ID"))

	c.request("5", `:ACTION :APPROVE :ID "`+id+`"`)
	_, resp = c.exchange("5")
	assert.Equal(t, "DONE", get(resp, "PAYLOAD", "STATE"))
	assert.Equal(t, true, get(resp, "PAYLOAD", "RAN"))
	got, err := os.ReadFile(filepath.Join(root, "out/count.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ran\n", string(got))

	c.request("6", `:ACTION :APPROVE :ID "`+id+`"`)
	_, resp = c.exchange("6")
	assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"))
	assert.Contains(t, get(resp, "PAYLOAD", "TEXT"), "already DONE")

	c.request("7", `:ACTION :STATUS`)
	_, resp = c.exchange("7")
	files, _ := get(resp, "PAYLOAD", "MEMEX", "FILES").(int64)
	assert.GreaterOrEqual(t, files, int64(2), "notes.org and flightplans.org")
	assert.Equal(t, int64(0), get(resp, "PAYLOAD", "MEMEX", "PLANS-PENDING"))
}

// TestTheBridgeWaitsForItsHostsAgent: served on a host whose agent is not
// up yet, the bridge answers :STATUS at once (saying why there are no
// figures), holds an :ASK until the agent is up, and once the host is
// closed says so.
func TestTheBridgeWaitsForItsHostsAgent(t *testing.T) {
	a, _ := openAgent(t, map[string]string{"notes.org": notesOrg}, `{"match":{"last_contains":"hello"},"reply":{"text":"Up now."}}`)
	h := host.New(nil)
	d := startDaemon(t, Config{Backend: ForHost(h)})
	c := dial(t, d.addr)
	c.handshake(d.token)

	c.request("1", `:ACTION :STATUS`)
	_, resp := c.exchange("1")
	assert.Contains(t, get(resp, "PAYLOAD", "MEMEX-ERROR"), "still coming up")

	c.request("2", `:ACTION :ASK :TEXT "hello"`)
	time.Sleep(50 * time.Millisecond)
	h.Up(a, nil, nil)
	chunks, resp := c.exchange("2")
	assert.Equal(t, "Up now.", strings.Join(chunks, ""))
	assert.Equal(t, kw("ANSWERED"), get(resp, "PAYLOAD", "OUTCOME"))

	require.NoError(t, h.Close(context.Background()))
	c.request("3", `:ACTION :PLANS`)
	_, resp = c.exchange("3")
	assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"))
	assert.Equal(t, host.ErrClosed.Error(), get(resp, "PAYLOAD", "TEXT"))

	// A host whose agent could not come up says why, to every request.
	h = host.New(nil)
	h.Up(nil, errors.New("the configuration file is not valid JSON"), nil)
	d = startDaemon(t, Config{Backend: ForHost(h)})
	c = dial(t, d.addr)
	c.handshake(d.token)
	c.request("1", `:ACTION :ASK :TEXT "hello"`)
	_, resp = c.exchange("1")
	assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"))
	assert.Equal(t, "the agent is not running: the configuration file is not valid JSON", get(resp, "PAYLOAD", "TEXT"))
}

// TestApproveAlwaysOverTheBridge: (:ACTION :APPROVE :ID … :ALWAYS t) runs
// the plan and adds its rule to the configuration file, said as :RULE; a
// value of :ALWAYS other than t or nil is refused, and so is a plan no
// rule is offered for (http always needs a human).
func TestApproveAlwaysOverTheBridge(t *testing.T) {
	testenv.NeedCommand(t, "make")
	a, root := openAgent(t, map[string]string{"notes.org": notesOrg, "Makefile": countMakefile, "out/.keep": ""},
		`{"match":{"last_role":"tool"},"repeat":true,"reply":{"text":"Counted."}}`, countTranscript,
		`{"match":{"last_contains":"fetch"},"reply":{"tool_calls":[{"name":"http","arguments":{"method":"GET","url":"https://example.org/","explanation":"fetch"}}]}}`)
	d := startDaemon(t, Config{Backend: ForAgent(a)})
	c := dial(t, d.addr)
	c.handshake(d.token)
	file := func(rid, text string) string {
		c.request(rid, `:ACTION :ASK :TEXT "`+text+`" :FILE "notes.org" :LINE 2`)
		_, resp := c.exchange(rid)
		id, ok := get(resp, "PAYLOAD", "PLAN-ID").(string)
		require.True(t, ok, "%v", resp)
		return id
	}
	id := file("1", "count it")

	c.request("2", `:ACTION :APPROVE :ID "`+id+`" :ALWAYS 1`)
	_, resp := c.exchange("2")
	assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"))
	assert.Equal(t, ":ALWAYS must be t or nil", get(resp, "PAYLOAD", "TEXT"))
	assert.NoFileExists(t, filepath.Join(root, "out/count.txt"))

	c.request("3", `:ACTION :APPROVE :ID "`+id+`" :ALWAYS t`)
	_, resp = c.exchange("3")
	assert.Equal(t, "DONE", get(resp, "PAYLOAD", "STATE"))
	assert.Equal(t, "shell(make count)", get(resp, "PAYLOAD", "RULE"))
	cfg, err := os.ReadFile(filepath.Join(filepath.Dir(root), "config", "passepartout", "config.json"))
	require.NoError(t, err)
	assert.Equal(t, `{"gates": {"permissions": {"allow": ["shell(make count)"]}}}`+"\n", string(cfg))

	id = file("4", "fetch it")
	c.request("5", `:ACTION :APPROVE :ID "`+id+`" :ALWAYS t`)
	_, resp = c.exchange("5")
	assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"))
	assert.Contains(t, get(resp, "PAYLOAD", "TEXT"), "http always needs a human's approval")
}

// TestUndoOverTheBridge: (:ACTION :UNDO :LIST t) lists the changes,
// (:ACTION :UNDO) takes back the latest, and again redoes it; a malformed
// :ID or :LIST is one clear sentence.
func TestUndoOverTheBridge(t *testing.T) {
	a, root := openAgent(t, map[string]string{"notes.org": notesOrg},
		`{"match":{"last_role":"tool"},"repeat":true,"reply":{"text":"Written."}}`,
		`{"match":{"last_contains":"write"},"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"new.org","content":"* New\n","explanation":"a note"}}]}}`)
	d := startDaemon(t, Config{Backend: ForAgent(a)})
	c := dial(t, d.addr)
	c.handshake(d.token)
	c.request("1", `:ACTION :ASK :TEXT "write a note" :FILE "notes.org" :LINE 2`)
	c.exchange("1")
	require.FileExists(t, filepath.Join(root, "new.org"))

	c.request("2", `:ACTION :UNDO :LIST t`)
	_, resp := c.exchange("2")
	changes, _ := get(resp, "PAYLOAD", "CHANGES").(plist.List)
	require.Len(t, changes, 1, "%v", resp)
	ch := mustPlist(t, changes[0])
	assert.Equal(t, "Write `new.org`", get(ch, "TITLE"))
	assert.Equal(t, plist.List{"new.org"}, get(ch, "FILES"))

	c.request("3", `:ACTION :UNDO`)
	_, resp = c.exchange("3")
	assert.Equal(t, "undo of Write `new.org`: removed new.org, which it made", get(resp, "PAYLOAD", "SUMMARY"), "%v", resp)
	assert.NoFileExists(t, filepath.Join(root, "new.org"))

	c.request("4", `:ACTION :UNDO`)
	_, resp = c.exchange("4")
	assert.Equal(t, "redo of Write `new.org`: made new.org again", get(resp, "PAYLOAD", "SUMMARY"))
	assert.FileExists(t, filepath.Join(root, "new.org"))

	for i, tc := range []struct{ payload, text string }{
		{`:ACTION :UNDO :ID 7`, ":ID must be a change's ID, as a string (or absent: the latest change)"},
		{`:ACTION :UNDO :LIST 1`, ":LIST must be t or nil"},
		{`:ACTION :UNDO :ID "nope"`, "\"nope\" is not a change's ID (a UUID; `pp-lsp undo --list` lists them)"},
	} {
		id := fmt.Sprint(10 + i)
		c.request(id, tc.payload)
		_, resp := c.exchange(id)
		assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"))
		assert.Equal(t, tc.text, get(resp, "PAYLOAD", "TEXT"))
	}
}

// TestTheBridgeHoldsAConversation: an :ASK starts a conversation whose file
// the answer names with the model and its tokens; :CHAT continues it and
// the model hears the first turn; :NO-CHAT keeps a question out.
func TestTheBridgeHoldsAConversation(t *testing.T) {
	a, root := openAgent(t, map[string]string{"notes.org": notesOrg},
		`{"match":{"last_contains":"hello"},"reply":{"text":"Hello.","usage":{"input_tokens":50,"output_tokens":2}}}`,
		`{"match":{"last_contains":"again"},"reply":{"text":"Hello again.","usage":{"input_tokens":70,"output_tokens":3}}}`,
		`{"match":{"last_contains":"alone"},"reply":{"text":"Alone."}}`)
	d := startDaemon(t, Config{Backend: ForAgent(a)})
	c := dial(t, d.addr)
	c.handshake(d.token)

	c.request("1", `:ACTION :ASK :TEXT "hello" :FILE "notes.org" :LINE 2`)
	_, resp := c.exchange("1")
	chat, ok := get(resp, "PAYLOAD", "CHAT").(string)
	require.True(t, ok, "%v", resp)
	assert.Equal(t, filepath.Join(root, "chats"), filepath.Dir(chat))
	assert.True(t, strings.HasPrefix(get(resp, "PAYLOAD", "MODEL").(string), "replay:"))
	assert.Equal(t, int64(50), get(resp, "PAYLOAD", "USAGE", "PROMPT"))
	assert.Equal(t, int64(2), get(resp, "PAYLOAD", "USAGE", "COMPLETION"))

	c.request("2", `:ACTION :ASK :TEXT "again?" :CHAT "`+chat+`"`)
	chunks, resp := c.exchange("2")
	assert.Equal(t, "Hello again.", strings.Join(chunks, ""))
	assert.Equal(t, chat, get(resp, "PAYLOAD", "CHAT"))
	assert.Equal(t, int64(70), get(resp, "PAYLOAD", "USAGE", "PROMPT"))
	b, err := os.ReadFile(chat)
	require.NoError(t, err)
	assert.Equal(t, 2, strings.Count(string(b), "\n* "), string(b))

	c.request("3", `:ACTION :ASK :TEXT "alone" :NO-CHAT t :FILE "notes.org" :LINE 2`)
	_, resp = c.exchange("3")
	assert.Nil(t, get(resp, "PAYLOAD", "CHAT"))
	entries, err := os.ReadDir(filepath.Join(root, "chats"))
	require.NoError(t, err)
	assert.Len(t, entries, 1)

	c.request("4", `:ACTION :ASK :TEXT "x" :CHAT 7`)
	_, resp = c.exchange("4")
	assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"))
	assert.Equal(t, ":ASK's :CHAT must be the conversation's file, a non-empty string", get(resp, "PAYLOAD", "TEXT"))
	c.request("5", `:ACTION :ASK :TEXT "x" :CHAT "/etc/passwd"`)
	_, resp = c.exchange("5")
	assert.Equal(t, kw("ERROR"), get(resp, "PAYLOAD", "STATUS"))
	assert.Contains(t, get(resp, "PAYLOAD", "TEXT"), "not an Org file")
}
