package gates

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/memory"
)

// openMemex is the real memex over roots, as the server hands it to the
// gates (memory's *Snapshot implements Memex).
func openMemex(t testing.TB, roots []string) Memex {
	t.Helper()
	mx, err := memory.Open(context.Background(), memory.Options{Roots: roots})
	require.NoError(t, err)
	t.Cleanup(func() { mx.Close(context.Background()) })
	return mx.Snapshot()
}

// TestPrivacyTagsOfTheMemexAreGuarded: a tag the memex treats as private
// (set in the editor's settings, say) is guarded by the gates even when
// their own configuration does not name it.
func TestPrivacyTagsOfTheMemexAreGuarded(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "n.org"), []byte("* Salary review :confidential:\nThe offer is ninety two thousand euros a year before tax.\n"), 0o644))
	mx, err := memory.Open(context.Background(), memory.Options{Roots: []string{root}, PrivacyTags: []string{"confidential"}})
	require.NoError(t, err)
	defer mx.Close(context.Background())

	stack, err := New(DefaultConfig())
	require.NoError(t, err)
	w := DefaultWorld(func(k string) string { return map[string]string{"HOME": t.TempDir()}[k] }, []string{root})
	w.Memex = mx.Snapshot()
	env, err := stack.NewEnv(context.Background(), w)
	require.NoError(t, err)
	defer env.Close()

	leak := act(ToolSend, "channel", "email", "to", "bob@example.com", "text", "FYI: the offer is ninety two thousand euros a year")
	v := stack.Check(context.Background(), leak, env)
	assert.NotEqual(t, VerdictAllow, v.Verdict)
	assert.Contains(t, v.Reason, "confidential")
}

// TestAFileIsPrivateByItsOpenBufferToo: a command that would read a file
// is judged by the disk's copy and by an editor buffer open over it,
// private if either holds a private node — a privacy tag added in an
// unsaved buffer guards the file at once, whatever the disk holds; a tag
// removed in one hides nothing the disk still holds. The same reads of
// the same files with no private node in either copy are allowed.
func TestAFileIsPrivateByItsOpenBufferToo(t *testing.T) {
	const public = "* Errands\nBuy bread.\n* Courier\nThe courier leaves the key under the blue geranium pot.\n"
	tagged := replaceOnce(public, "* Courier", "* Courier :private:")
	whole := "#+FILETAGS: :private:\n" + public
	ctx := context.Background()
	for _, tc := range []struct {
		name         string
		disk, buffer string
		want         string
	}{
		{"the tag added in the buffer", public, tagged, VerdictDeny},
		{"the file tagged in the buffer", public, whole, VerdictDeny},
		{"the tag removed in the buffer", tagged, public, VerdictDeny},
		{"neither copy private", public, public + "* More\nMilk.\n", VerdictAllow},
	} {
		for _, a := range []struct {
			name   string
			action Action
			// partial: the action is allowed for a file only partly
			// private (file_read cuts the private subtrees out).
			partial bool
		}{
			{"cat", act(ToolShell, "cmd", "cat notes/a.org"), false},
			{"grep -r", act(ToolShell, "cmd", "grep -ri geranium notes"), false},
			{"file_read", act(ToolFileRead, "path", "notes/a.org"), true},
		} {
			t.Run(tc.name+"/"+a.name, func(t *testing.T) {
				root := t.TempDir()
				require.NoError(t, os.MkdirAll(filepath.Join(root, "notes"), 0o755))
				require.NoError(t, os.WriteFile(filepath.Join(root, "notes/a.org"), []byte(tc.disk), 0o644))
				mx, err := memory.Open(ctx, memory.Options{Roots: []string{root}})
				require.NoError(t, err)
				t.Cleanup(func() { mx.Close(ctx) })
				snap, err := mx.SetBuffer(ctx, filepath.Join(root, "notes/a.org"), 1, []byte(tc.buffer))
				require.NoError(t, err)
				stack, err := New(DefaultConfig())
				require.NoError(t, err)
				w := DefaultWorld(func(string) string { return "" }, []string{root})
				w.Home = t.TempDir()
				w.Memex = snap
				env, err := stack.NewEnv(ctx, w)
				require.NoError(t, err)
				t.Cleanup(func() { env.Close() })
				want := tc.want
				if a.partial && tc.buffer != whole {
					want = VerdictAllow
				}
				v := stack.Check(ctx, a.action, env)
				assert.Equal(t, want, v.Verdict, v.Reason)
			})
		}
	}
}
