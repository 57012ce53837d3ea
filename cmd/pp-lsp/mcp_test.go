package main

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"
	"time"

	sdk "github.com/modelcontextprotocol/go-sdk/mcp"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/journal"
)

// mcpMemex is the memex the MCP tests serve: public notes that link to each
// other (one holding a key, mcpKey), a private subtree, and a Makefile whose
// target the gates ask about.
var mcpMemex = map[string]string{
	"notes.org": "#+TITLE: Notes\n" +
		"* Project Lighthouse\n:PROPERTIES:\n:ID: proj\n:END:\nThe lighthouse project keeps its plans in [[id:garden][the garden]].\n" +
		"The keeper's token is " + mcpKey + ", kept here.\n" +
		"** Diary :private:\n:PROPERTIES:\n:ID: diary\n:END:\nmy confidential words about the harbour master stay here\n" +
		"* Garden\n:PROPERTIES:\n:ID: garden\n:END:\nTomatoes and beans; see [[id:proj]].\n",
	"Makefile":  countMakefile,
	"out/.keep": "",
}

// mcpKey is a key in a public note: another agent gets its mark, never
// the key.
const mcpKey = "ghp_Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX0cV"

// mcpEnv is a memex with a fake home holding files that `rm -rf ~` would
// remove.
func mcpEnv(t *testing.T) *memexEnv {
	m := newMemexEnv(t, mcpMemex)
	testenv.WriteTree(t, m.env["HOME"], map[string]string{"precious.txt": "keep me\n", "docs/letter.txt": "dear\n"})
	return m
}

// ppLspCommand is this test binary started as `pp-lsp args…` in m's
// environment (nothing else of the test's; under -race, without the
// second's sleep at exit).
func (m *memexEnv) ppLspCommand(t *testing.T, args ...string) *exec.Cmd {
	env := []string{"GORACE=atexit_sleep_ms=0"}
	for k, v := range m.env {
		env = append(env, k+"="+v)
	}
	return testenv.ChildCommand(t, "pp-lsp", env, args...)
}

// mcpCalls are the calls an agent makes, in order; key names each result.
func mcpCalls(m *memexEnv) []map[string]any {
	shell := func(cmd string) map[string]any {
		return map[string]any{"tool": "shell", "args": map[string]any{"cmd": cmd, "cwd": "."}, "explanation": "the agent asks"}
	}
	return []map[string]any{
		{"key": "search", "name": "memex_search", "arguments": map[string]any{"query": "Garden"}},
		{"key": "context", "name": "memex_context", "arguments": map[string]any{"file": m.path("notes.org"), "line": 5}},
		{"key": "private", "name": "node_read", "arguments": map[string]any{"id": "diary"}},
		{"key": "node", "name": "node_read", "arguments": map[string]any{"id": "proj"}},
		{"key": "backlinks", "name": "backlinks", "arguments": map[string]any{"id": "garden"}},
		{"key": "rm", "name": "propose_action", "arguments": map[string]any{"action": shell("rm -rf ~")}},
		{"key": "ask", "name": "propose_action", "arguments": map[string]any{"action": shell("make count")}},
		{"key": "ls", "name": "propose_action", "arguments": map[string]any{"action": shell("ls")}},
		{"key": "approve", "name": "propose_action", "arguments": map[string]any{"action": shell("sed -i s/PLAN/APPROVED/ flightplans.org")}},
		{"key": "bad", "name": "propose_action", "arguments": map[string]any{"action": map[string]any{"tool": "teleport"}}},
		{"key": "plans", "name": "plans_list", "arguments": map[string]any{}},
	}
}

// npmCache is where .ci/deps installs the pinned TypeScript SDK: outside
// the repository, in the user's cache.
func npmCache() string {
	base := os.Getenv("XDG_CACHE_HOME")
	if base == "" {
		home, _ := os.UserHomeDir()
		base = filepath.Join(home, ".cache")
	}
	return filepath.Join(base, "pp-lsp-npm")
}

// TestMCPWithTheTypeScriptSDK: a real, independent MCP client — the
// official TypeScript SDK, pinned in testdata/mcp-client — spawns `pp-lsp
// mcp`, lists the tools, searches, reads the context, is refused a private
// node, has `rm -rf ~` denied with nothing removed, gets a Flight Plan for
// an action the gates ask about, runs an allowed `ls`, cannot approve its
// plan, and every call is in the journal with source mcp.
func TestMCPWithTheTypeScriptSDK(t *testing.T) {
	nodeJS := testenv.NeedCommand(t, "node")
	cache := npmCache()
	pinned, err := os.ReadFile("testdata/mcp-client/package.json")
	require.NoError(t, err)
	var pkg struct {
		Dependencies map[string]string `json:"dependencies"`
	}
	require.NoError(t, json.Unmarshal(pinned, &pkg))
	installed, err := os.ReadFile(filepath.Join(cache, "node_modules/@modelcontextprotocol/sdk/package.json"))
	var got struct {
		Version string `json:"version"`
	}
	if err != nil || json.Unmarshal(installed, &got) != nil || got.Version != pkg.Dependencies["@modelcontextprotocol/sdk"] {
		why := "the TypeScript MCP SDK " + pkg.Dependencies["@modelcontextprotocol/sdk"] + " is not installed in " + cache + " (.ci/deps installs it with npm)"
		if testenv.InCI() {
			t.Fatal("CI=true: " + why)
		}
		t.Skip(why)
	}
	client, err := filepath.Abs("testdata/mcp-client/client.cjs")
	require.NoError(t, err)

	m := mcpEnv(t)
	srv := m.ppLspCommand(t, "mcp", "--root", m.root)
	env := map[string]string{}
	for _, kv := range srv.Env {
		k, v, _ := strings.Cut(kv, "=")
		env[k] = v
	}
	spec, err := json.Marshal(map[string]any{"command": srv.Path, "args": srv.Args[1:], "env": env, "calls": mcpCalls(m)})
	require.NoError(t, err)
	cmd := exec.Command(nodeJS, client, string(spec))
	cmd.Env = []string{"NODE_PATH=" + filepath.Join(cache, "node_modules"), "PATH=" + os.Getenv("PATH"), "HOME=" + m.env["HOME"]}
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "the client: %s", stderr.String())

	var res struct {
		Server       struct{ Name string }
		Instructions string
		Tools        []struct{ Name, Description string }
		Progress     int
		Calls        map[string]struct {
			Thrown            string
			IsError           bool
			Content           []struct{ Type, Text string }
			StructuredContent json.RawMessage
		}
	}
	require.NoError(t, json.Unmarshal(out, &res), "%s", out)
	assert.Equal(t, "pp-lsp", res.Server.Name)
	assert.NotContains(t, string(out), mcpKey, "no answer holds the note's key")
	var names []string
	for _, tl := range res.Tools {
		names = append(names, tl.Name)
		if tl.Name == "propose_action" {
			assert.Contains(t, tl.Description, "Flight Plan")
			assert.Contains(t, tl.Description, "you cannot approve it")
		}
	}
	slices.Sort(names)
	assert.Equal(t, []string{"backlinks", "memex_context", "memex_search", "node_read", "plans_list", "propose_action"}, names)
	for key, c := range res.Calls {
		assert.Empty(t, c.Thrown, "%s: the SDK took every answer (its structuredContent fits the tool's outputSchema)", key)
	}
	structured := func(key string, v any) {
		t.Helper()
		c := res.Calls[key]
		require.False(t, c.IsError, "%s: %v", key, c.Content)
		require.NoError(t, json.Unmarshal(c.StructuredContent, v), key)
	}

	var search struct{ Hits []struct{ ID, Title string } }
	structured("search", &search)
	require.NotEmpty(t, search.Hits)
	assert.Equal(t, "garden", search.Hits[0].ID)

	var view struct {
		Text   string
		Foveal struct{ ID string }
	}
	structured("context", &view)
	assert.Equal(t, "proj", view.Foveal.ID)
	assert.Contains(t, view.Text, "The lighthouse project keeps its plans")
	assert.Contains(t, view.Text, "The keeper's token is [secret github-token], kept here.")
	assert.NotContains(t, view.Text, "confidential")

	private := res.Calls["private"]
	assert.True(t, private.IsError)
	require.Len(t, private.Content, 1)
	assert.Equal(t, `No node of the memex has the ID "diary".`, private.Content[0].Text)

	var node struct{ Text string }
	structured("node", &node)
	assert.Contains(t, node.Text, "* Project Lighthouse")
	assert.Contains(t, node.Text, "The keeper's token is [secret github-token], kept here.")
	assert.NotContains(t, node.Text, "confidential")

	var back struct{ Backlinks []struct{ ID string } }
	structured("backlinks", &back)
	require.Len(t, back.Backlinks, 1)
	assert.Equal(t, "proj", back.Backlinks[0].ID)

	var rm struct {
		Verdict, Gate, Reason, Status string
		Result                        *struct{}
	}
	structured("rm", &rm)
	assert.Equal(t, "deny", rm.Verdict)
	assert.Equal(t, "denied", rm.Status)
	assert.Nil(t, rm.Result)
	assert.FileExists(t, filepath.Join(m.env["HOME"], "precious.txt"), "nothing was removed")
	assert.FileExists(t, filepath.Join(m.env["HOME"], "docs/letter.txt"))
	assert.FileExists(t, m.path("notes.org"))

	var ask struct {
		Verdict, Status string
		PlanID          string `json:"plan_id"`
	}
	structured("ask", &ask)
	assert.Equal(t, "ask", ask.Verdict)
	assert.Equal(t, "filed", ask.Status)
	require.Len(t, ask.PlanID, 36)
	plans, err := os.ReadFile(m.path("flightplans.org"))
	require.NoError(t, err)
	assert.Contains(t, string(plans), "* PLAN ")
	assert.Contains(t, string(plans), ask.PlanID)
	assert.NotContains(t, string(plans), "* APPROVED", "the agent's own attempt to approve was denied")
	assert.NoFileExists(t, m.path("out/count.txt"), "the plan did not run")

	var ls struct {
		Verdict, Status string
		Result          struct {
			OK     bool
			Output string
		}
	}
	structured("ls", &ls)
	assert.Equal(t, "allow", ls.Verdict)
	assert.Equal(t, "ran", ls.Status)
	assert.True(t, ls.Result.OK)
	assert.Contains(t, ls.Result.Output, "notes.org")
	assert.Contains(t, ls.Result.Output, "Makefile")

	var approve struct{ Verdict string }
	structured("approve", &approve)
	assert.Equal(t, "deny", approve.Verdict)

	bad := res.Calls["bad"]
	assert.True(t, bad.IsError)
	require.Len(t, bad.Content, 1)
	assert.Contains(t, bad.Content[0].Text, "denied by the validator, nothing ran: not a valid action")

	var list struct {
		Plans []struct{ ID, State string }
	}
	structured("plans", &list)
	require.Len(t, list.Plans, 1)
	assert.Equal(t, ask.PlanID, list.Plans[0].ID)
	assert.Equal(t, "PLAN", list.Plans[0].State)

	journal, err := os.ReadFile(m.path("journal.org"))
	require.NoError(t, err)
	j := string(journal)
	for _, want := range []string{
		"call memex_search", "call memex_context", `call node_read {"id":"diary"}: No node of the memex has the ID "diary".`,
		"call backlinks", "call plans_list", "proposal shell: deny", "proposal shell: ask", "plan Run `make count`", "result shell: exit status 0",
		":PLAN:        " + ask.PlanID,
	} {
		assert.Contains(t, j, want)
	}
	assert.GreaterOrEqual(t, strings.Count(j, ":SOURCE:      mcp"), 12, "every call is journalled with source mcp")
	assert.NotContains(t, j, "confidential")
}

// TestMCPServesTheBinaryOverStdio: the Go SDK's own client spawns `pp-lsp
// mcp` (the binary's stdio transport, with no node needed) and searches.
func TestMCPServesTheBinaryOverStdio(t *testing.T) {
	m := mcpEnv(t)
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: m.ppLspCommand(t, "mcp", "--root", m.root)}, nil)
	require.NoError(t, err)
	defer cs.Close()
	tools, err := cs.ListTools(ctx, nil)
	require.NoError(t, err)
	assert.Len(t, tools.Tools, 6)
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "memex_search", Arguments: map[string]any{"query": "Lighthouse"}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	assert.Contains(t, res.Content[0].(*sdk.TextContent).Text, `"id":"proj"`)
	res, err = cs.CallTool(ctx, &sdk.CallToolParams{Name: "node_read", Arguments: map[string]any{"id": "diary"}})
	require.NoError(t, err)
	assert.True(t, res.IsError)
}

// TestMCPRunsAPlanTheHumanApproved: a plan an agent's proposal filed runs
// once a human approves it in flightplans.org, saved by any editor: `pp-lsp
// mcp` reads the roots again (--rescan) and picks it up; the agent sees it
// DONE in plans_list.
func TestMCPRunsAPlanTheHumanApproved(t *testing.T) {
	testenv.NeedCommand(t, "make")
	m := mcpEnv(t)
	ctx := context.Background()
	client := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, nil)
	cs, err := client.Connect(ctx, &sdk.CommandTransport{Command: m.ppLspCommand(t, "mcp", "--root", m.root, "--rescan", "1")}, nil)
	require.NoError(t, err)
	defer cs.Close()
	res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "propose_action", Arguments: map[string]any{
		"action": map[string]any{"tool": "shell", "args": map[string]any{"cmd": "make count", "cwd": "."}, "explanation": "count"}}})
	require.NoError(t, err)
	require.False(t, res.IsError)
	var filed struct {
		PlanID string `json:"plan_id"`
	}
	b, _ := json.Marshal(res.StructuredContent)
	require.NoError(t, json.Unmarshal(b, &filed))
	require.NotEmpty(t, filed.PlanID)
	assert.NoFileExists(t, m.path("out/count.txt"))

	m.approveInFile(t)
	state := func() string {
		res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "plans_list", Arguments: map[string]any{}})
		if err != nil || res.IsError {
			return ""
		}
		var list struct{ Plans []struct{ ID, State string } }
		b, _ := json.Marshal(res.StructuredContent)
		if json.Unmarshal(b, &list) != nil || len(list.Plans) != 1 || list.Plans[0].ID != filed.PlanID {
			return ""
		}
		return list.Plans[0].State
	}
	require.Eventually(t, func() bool { return state() == "DONE" }, time.Minute, 200*time.Millisecond, "the approved plan ran")
	out, err := os.ReadFile(m.path("out/count.txt"))
	require.NoError(t, err)
	assert.Equal(t, "ran\n", string(out), "it ran exactly once")
}

// TestMCPJournalAfterAStopAndAKill: the reads of `pp-lsp mcp` are
// journalled before they are answered and fsynced a moment later
// (journal.AppendDeferred). After the client closes stdin (a clean stop)
// doctor finds the journal whole; after the server is killed (SIGKILL)
// once its answers are out, too: every answered call's entry is there,
// chained and recorded in the head.
func TestMCPJournalAfterAStopAndAKill(t *testing.T) {
	m := mcpEnv(t)
	ctx := context.Background()
	serve := func(t *testing.T, calls int) (*sdk.ClientSession, *exec.Cmd) {
		cmd := m.ppLspCommand(t, "mcp", "--root", m.root)
		cs, err := sdk.NewClient(&sdk.Implementation{Name: "go-test", Version: "1"}, nil).Connect(ctx, &sdk.CommandTransport{Command: cmd}, nil)
		require.NoError(t, err)
		for i := range calls {
			res, err := cs.CallTool(ctx, &sdk.CallToolParams{Name: "memex_search", Arguments: map[string]any{"query": fmt.Sprint("Garden ", i)}})
			require.NoError(t, err)
			require.False(t, res.IsError)
		}
		return cs, cmd
	}
	doctor := func(t *testing.T, entries int) {
		t.Helper()
		code, out, _ := m.run(t, "doctor", "--root", m.root)
		assert.Contains(t, out, fmt.Sprintf("ok    journal %s: %d entries, hash chain verified up to the recorded head", m.path(journal.FileName), entries), "code %d:\n%s", code, out)
	}

	cs, _ := serve(t, 5)
	require.NoError(t, cs.Close(), "stdin closed: the server stops")
	doctor(t, 6) // its start and five calls

	cs, cmd := serve(t, 5)
	require.NoError(t, cmd.Process.Kill())
	cs.Close()
	b, err := os.ReadFile(m.path(journal.FileName))
	require.NoError(t, err)
	assert.Equal(t, 10, strings.Count(string(b), `call memex_search {"query":"Garden `), "every answered call")
	doctor(t, 12)
}
