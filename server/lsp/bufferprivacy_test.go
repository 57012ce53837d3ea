package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/providers/providertest"
)

// TestAnUnsavedBufferNeverMakesAPrivateNotePublic: a note open in the
// editor is private if either its buffer or the disk's copy holds a
// private node. The user removes a privacy tag in the buffer without
// saving (didOpen, then didChange), or adds one: either way nothing of
// the note reaches the model — not in the question's context, asked with
// the cursor in the note (the view reads the buffer: before, a tag removed
// there showed the body the disk holds as private), not through the
// command it proposes to read the file (cat, which the user's permissions
// allow of any other file: the gates judge both copies).
func TestAnUnsavedBufferNeverMakesAPrivateNotePublic(t *testing.T) {
	const secret = "The courier leaves the key under the blue geranium pot."
	const public = "* Errands\nBuy bread for the weekend.\n* Courier\n" + secret + "\n"
	const tagged = "* Errands\nBuy bread for the weekend.\n* Courier :private:\n" + secret + "\n"
	for _, tc := range []struct {
		name     string
		disk     string
		old, new string // the didChange: old becomes new
	}{
		{"the tag removed in the buffer", tagged, "* Courier :private:", "* Courier"},
		{"the tag added in the buffer", public, "* Courier", "* Courier :private:"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			root := filepath.Join(dir, "memex")
			note := filepath.Join(root, "notes", "a.org")
			require.NoError(t, os.MkdirAll(filepath.Dir(note), 0o755))
			require.NoError(t, os.WriteFile(note, []byte(tc.disk), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(root, "notes", "b.org"), []byte("* Weekend plans\nHike to the lake.\n"), 0o644))
			cfg := filepath.Join(dir, "xdg-config", "passepartout", "config.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(cfg), 0o755))
			require.NoError(t, os.WriteFile(cfg, []byte(`{"gates": {"permissions": {"allow": ["shell(cat *)"]}}}`), 0o644))

			// The model proposes to read the note, then answers.
			proposal := providertest.OllamaFrames(providertest.Answer{Model: "m", Calls: []providertest.Call{{
				Name: "shell", Args: `{"cmd":"cat notes/a.org","cwd":".","explanation":"read the note to answer"}`}}})
			replies := []providertest.Reply{{Frames: proposal}}
			for range 4 {
				replies = append(replies, providertest.Reply{Frames: providertest.OllamaFrames(providertest.Answer{Model: "m", Text: []string{"Done."}})})
			}
			model := providertest.NewServer(t, replies...)
			env := map[string]string{
				"HOME": dir, "XDG_CONFIG_HOME": filepath.Join(dir, "xdg-config"), "XDG_DATA_HOME": filepath.Join(dir, "xdg-data"),
				"XDG_RUNTIME_DIR": filepath.Join(dir, "run"), "PASSEPARTOUT_DATA_DIR": filepath.Join(dir, "data"),
				"PATH": os.Getenv("PATH"), "HEARTBEAT_INTERVAL": "3600",
				"PASSEPARTOUT_PROVIDERS": "ollama:m@" + model.URL,
			}
			c := newTestClient(t, Options{Getenv: func(k string) string { return env[k] }, WorkDir: root})
			c.initialize(root, clientFull, nil)
			c.open(note)
			i := strings.Index(tc.disk, tc.old)
			require.GreaterOrEqual(t, i, 0)
			c.edit(note, i, i+len(tc.old), tc.new)
			text, _ := c.text(note)
			require.Contains(t, text, tc.new)

			var res askResult
			c.mustCall(protocol.MethodWorkspaceExecuteCommand, map[string]any{"command": CommandAsk, "arguments": []any{map[string]any{
				"text": "Where does the courier leave things?", "uri": uri.File(note), "position": protocol.Position{Line: 3, Character: 3}}}}, &res)
			t.Logf("outcome %s, %s: %s by %s; said %q", res.Outcome, res.Tool, res.Verdict, res.Gate, res.Text)
			reqs := model.Requests()
			for _, r := range reqs {
				t.Logf("%s %s %d bytes", r.Method, r.Path, len(r.Body))
			}
			require.NotEmpty(t, reqs, "the model was asked")
			asked := false
			for _, r := range reqs {
				body := string(r.Body)
				assert.NotContains(t, body, "geranium", "the private note reached the model")
				asked = asked || strings.Contains(body, "Weekend plans")
			}
			assert.True(t, asked, "the model saw the public note beside it")
			disk, err := os.ReadFile(note)
			require.NoError(t, err)
			assert.Equal(t, tc.disk, string(disk), "the disk's copy is as it was")
		})
	}
}
