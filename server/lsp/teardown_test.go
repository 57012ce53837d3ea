package lsp

import (
	"context"
	"encoding/json"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
)

// TestNothingIsWrittenAfterTheServerStopped: a question still being
// answered when the editor shuts the server down (the model slow to
// answer) is cancelled and waited for, so that once the server has
// answered shutdown — it has saved the memex and closed the agent and its
// journal — nothing of it writes into the data directory or the memex any
// more: the journal, the conversation, the store all stay as they were
// then, while the editor takes its time to send exit, and after. (The
// handler used to run on past shutdown and write its turn later; a test's
// temporary folder then failed to be removed.)
func TestNothingIsWrittenAfterTheServerStopped(t *testing.T) {
	dir := t.TempDir()
	root := filepath.Join(dir, "memex")
	data := filepath.Join(dir, "data")
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.org"), []byte("* A\nSome words.\n"), 0o644))
	replay := filepath.Join(dir, "replay.jsonl")
	require.NoError(t, os.WriteFile(replay, []byte(`{"match":{},"repeat":true,"reply":{"text":"a slow answer","pace_ms":1000}}`+"\n"), 0o644))
	env := map[string]string{"HOME": dir, "PASSEPARTOUT_DATA_DIR": data, "XDG_CONFIG_HOME": filepath.Join(dir, "config"),
		"PASSEPARTOUT_PROVIDERS": "replay:" + replay, "HEARTBEAT_INTERVAL": "3600"}
	c := newTestClient(t, Options{Getenv: func(k string) string { return env[k] }, WorkDir: root})
	c.initialize(root, clientFull, nil)
	a := filepath.Join(root, "a.org")
	c.open(a)

	// The question is sent and left running; the editor then shuts down.
	asked := make(chan struct{})
	go func() {
		defer close(asked)
		_ = protocol.Call(context.Background(), c.conn, protocol.MethodWorkspaceExecuteCommand,
			map[string]any{"command": CommandAsk, "arguments": []any{map[string]any{"text": "hello", "uri": "file://" + a, "position": map[string]int{"line": 0, "character": 0}}}}, nil)
	}()
	require.Eventually(t, func() bool { // the model has been asked: the answer is under way
		for _, n := range c.notesOf(protocol.MethodProgress) {
			var p struct {
				Value progressValue `json:"value"`
			}
			if json.Unmarshal(n.params, &p) == nil && p.Value.Kind == "begin" && p.Value.Title == "Passepartout" {
				return true
			}
		}
		return false
	}, 10*time.Second, 5*time.Millisecond)
	c.mustCall(protocol.MethodShutdown, nil, nil)
	stopped := tree(t, dir)
	select {
	case <-asked:
	default:
		t.Error("the question was still being answered after shutdown was")
	}

	// Longer than the answer would have taken, before exit and after.
	time.Sleep(2 * time.Second)
	assert.Equal(t, stopped, tree(t, dir), "written after shutdown was answered")
	require.NoError(t, c.shutdownExit())
	time.Sleep(time.Second)
	assert.Equal(t, stopped, tree(t, dir), "written after the server exited")
	<-asked
}

// tree lists every file under dir with its size and modification time.
func tree(t *testing.T, dir string) []string {
	t.Helper()
	var out []string
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		if !d.IsDir() {
			out = append(out, fmt.Sprintf("%s %d %s", p, fi.Size(), fi.ModTime().Format(time.RFC3339Nano)))
		}
		return nil
	}))
	sort.Strings(out)
	return out
}
