package mcp

import (
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestNoSecretReachesAnotherAgent: the tools that hand memex text to
// another agent — memex_context, node_read, memex_search's titles,
// backlinks' context, and an action's output through propose_action — give
// it the secrets the gates' rules find as marks, and the words around them
// (and text that only looks like a secret) as written.
func TestNoSecretReachesAnotherAgent(t *testing.T) {
	const (
		awsKey = "AKIAZ5R2WQ7PLM3XK4TV"
		token  = "ghp_Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX0cV"
		twins  = "The AKIA prefix names AWS keys; build 3f2a9c1 passed."
	)
	files := map[string]string{
		"ops.org": "#+TITLE: Ops\n* Deploy with " + token + "\n:PROPERTIES:\n:ID: deploy\n:END:\n" +
			"The deploy key is " + awsKey + " here.\n" + twins + "\n" +
			"* Runbook\n:PROPERTIES:\n:ID: runbook\n:END:\nSee [[id:deploy][the deploy, key " + awsKey + "]] first.\n",
		"out/keys.txt": "key " + awsKey + " end.\n" + twins + "\n",
	}
	// A headline without an :ID: is known by a key made of its title.
	files["ops.org"] += "* Rotate " + token + " soon\nweekly\n"
	a, root, _ := openAgent(t, files)
	f := start(t, a, nil)
	f.root = root
	calls := []struct {
		tool string
		args map[string]any
		kept []string
	}{
		{"memex_context", map[string]any{"file": "ops.org", "line": 6}, []string{"The deploy key is [secret aws-access-key] here.", twins, "* Deploy with [secret github-token]"}},
		{"node_read", map[string]any{"id": "deploy"}, []string{"The deploy key is [secret aws-access-key] here.", twins, `"title":"Deploy with [secret github-token]"`}},
		{"memex_search", map[string]any{"query": "Deploy with", "k": 3}, []string{`"title":"Deploy with [secret github-token]"`}},
		{"memex_search", map[string]any{"query": "Rotate soon", "k": 3}, []string{`"title":"Rotate [secret github-token] soon"`, `::*Rotate [secret github-token] soon"`}},
		{"backlinks", map[string]any{"id": "deploy"}, []string{"the deploy, key [secret aws-access-key]"}},
		{"propose_action", map[string]any{"action": map[string]any{"tool": "file_read", "args": map[string]any{"path": "out/keys.txt"}, "explanation": "the test asks"}},
			[]string{"key [secret aws-access-key] end.", twins}},
	}
	for _, c := range calls {
		t.Run(c.tool+" "+fmt.Sprint(c.args), func(t *testing.T) {
			res := f.call(t, c.tool, c.args)
			out := text(res)
			require.False(t, res.IsError, out)
			for _, s := range []string{awsKey, token} {
				assert.NotContains(t, out, s)
			}
			for _, k := range c.kept {
				assert.Contains(t, out, k)
			}
		})
	}
}

// TestNoSecretReachesAnotherAgentThroughAnyResult: every tool result
// passes the agent's redactor on its way out (Server.redacted), so a
// secret reaches no client by a way the tools do not redact themselves —
// a Flight Plan's title in plans_list (another agent's proposal, or the
// human's edit), an action's summary, an error sentence; the benign twin
// of each comes back as it was.
func TestNoSecretReachesAnotherAgentThroughAnyResult(t *testing.T) {
	const token = "ghp_Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX0cV"
	a, root, _ := openAgent(t, map[string]string{"ops.org": "* Ops\n:PROPERTIES:\n:ID: ops\n:END:\nbody\n"})
	f := start(t, a, nil)
	f.root = root
	for _, url := range []string{"https://example.com/a", "https://example.com/b"} {
		r := ok[ProposeResult](t, f, "propose_action", map[string]any{"action": map[string]any{"tool": "http",
			"args": map[string]any{"method": "GET", "url": url}, "explanation": "fetch the page"}})
		require.Equal(t, "ask", r.Verdict, r.Reason)
	}
	// The human writes the key into the first plan's headline.
	plans := filepath.Join(root, "flightplans.org")
	b, err := os.ReadFile(plans)
	require.NoError(t, err)
	edited := strings.Replace(string(b), "* PLAN HTTP GET `https://example.com/a`", "* PLAN HTTP GET `https://example.com/a` with "+token, 1)
	require.NotEqual(t, string(b), edited)
	require.NoError(t, os.WriteFile(plans, []byte(edited), 0o600))
	require.NoError(t, a.Refresh(t.Context()))

	cases := []struct {
		name, tool string
		args       map[string]any
		kept       []string
	}{
		{"a plan's title", "plans_list", map[string]any{}, []string{"HTTP GET `https://example.com/a` with [secret github-token]", "HTTP GET `https://example.com/b`"}},
		{"an action's summary", "propose_action", map[string]any{"action": map[string]any{"tool": "file_read",
			"args": map[string]any{"path": "out/" + token + ".txt"}, "explanation": "read it"}}, []string{"file_read [secret github-token]: no such file"}},
		{"an error sentence", "node_read", map[string]any{"id": token}, []string{"[secret github-token]"}},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			res := f.call(t, c.tool, c.args)
			out := text(res)
			assert.NotContains(t, out, token)
			sc, err := json.Marshal(res.StructuredContent)
			require.NoError(t, err)
			assert.NotContains(t, string(sc), token, "the structured content too")
			for _, k := range c.kept {
				assert.Contains(t, out, k)
			}
		})
	}
}
