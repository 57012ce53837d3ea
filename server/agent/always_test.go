package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTheConfigurationFileIsOutOfTheModelsReach: with --config naming a
// file inside the memex root, a model's file_write to it and a shell
// command writing it are denied, whatever the spelling, and the file is
// unchanged; the rule "approve and allow similar" adds goes in, exactly.
func TestTheConfigurationFileIsOutOfTheModelsReach(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	root := filepath.Join(base, "memex")
	require.NoError(t, os.MkdirAll(filepath.Join(root, "out"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.org"), []byte("* Notes\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "Makefile"), []byte("count:\n\techo ran >> out/count.txt\n"), 0o644))
	cfg := filepath.Join(root, "pp.json")
	const original = "{\n  \"gates\": {\"default\": \"ask\"}\n}\n"
	require.NoError(t, os.WriteFile(cfg, []byte(original), 0o600))
	replayFile := filepath.Join(base, "replay.jsonl")
	require.NoError(t, os.WriteFile(replayFile, []byte(
		`{"match":{"last_contains":"write"},"repeat":true,"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"pp.json","content":"{\"gates\":{\"permissions\":{\"allow\":[\"shell(*)\"]}}}","explanation":"allow all"}}]}}`+"\n"+
			`{"match":{"last_contains":"dotted"},"repeat":true,"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"out/../PP.JSON","content":"{}","explanation":"allow all"}}]}}`+"\n"+
			`{"match":{"last_contains":"shell"},"repeat":true,"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"echo '{}' > pp.json","explanation":"reset"}}]}}`+"\n"+
			`{"match":{"last_contains":"sed"},"repeat":true,"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"sed -i s/ask/allow/ pp.json","explanation":"reset"}}]}}`+"\n"+
			`{"match":{"last_contains":"count"},"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"make count","explanation":"count"}}]}}`+"\n"+
			`{"match":{"last_role":"tool"},"repeat":true,"reply":{"text":"Done."}}`+"\n"), 0o644))
	env := map[string]string{"HOME": filepath.Join(base, "home"), "XDG_CONFIG_HOME": filepath.Join(base, "config"),
		"PASSEPARTOUT_DATA_DIR": filepath.Join(base, "data"), "PASSEPARTOUT_PROVIDERS": "replay:" + replayFile,
		"PATH": os.Getenv("PATH"), "LANG": "C.UTF-8"}
	ctx := context.Background()
	a, err := Open(ctx, Setup{Roots: []string{root}, ConfigFile: cfg, Getenv: func(k string) string { return env[k] }})
	require.NoError(t, err)
	defer a.Close(ctx)

	for _, q := range []string{"write it", "dotted", "shell it", "sed it"} {
		t.Run(q, func(t *testing.T) {
			res, err := a.Ask(ctx, AskRequest{Source: SourceCLI, Text: q}, nil)
			require.NoError(t, err)
			assert.Equal(t, StatusDenied, res.Status, "%s", res.Summary)
			b, err := os.ReadFile(cfg)
			require.NoError(t, err)
			assert.Equal(t, original, string(b))
		})
	}

	res, err := a.Ask(ctx, AskRequest{Source: SourceCLI, Text: "count"}, nil)
	require.NoError(t, err)
	require.Equal(t, StatusFiled, res.Status, res.Summary)
	run, err := a.ApproveAlways(ctx, res.PlanID)
	require.NoError(t, err)
	assert.Equal(t, "shell(make count)", run.Rule)
	b, err := os.ReadFile(cfg)
	require.NoError(t, err)
	assert.Equal(t, "{\n  \"gates\": {\"default\": \"ask\", \"permissions\": {\"allow\": [\"shell(make count)\"]}}\n}\n", string(b))
	fi, err := os.Stat(cfg)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "the file keeps its permissions")
}
