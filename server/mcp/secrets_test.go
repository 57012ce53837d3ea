package mcp

import (
	"fmt"
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
