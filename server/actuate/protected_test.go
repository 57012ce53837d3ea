package actuate

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
)

// protectedWorld is a root with the server's own files, and the data,
// config and runtime folders beside it, each holding something an action
// must never reach.
type protectedWorld struct {
	fx                            *fixture
	data, config, runtime, synced string
	snapshot                      map[string]string // protected file → its bytes
}

func newProtectedWorld(t *testing.T, files map[string]string) *protectedWorld {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	w := &protectedWorld{data: filepath.Join(base, "data"), config: filepath.Join(base, "config", "passepartout"),
		runtime: filepath.Join(base, "run", "passepartout"), synced: filepath.Join(base, "Sync")}
	outside := map[string]string{
		filepath.Join(w.data, "key"): "0123456789abcdef0123456789abcdef", filepath.Join(w.data, "plans", "x"): "{}",
		filepath.Join(w.config, "config.json"): `{"gates":{}}`, filepath.Join(w.config, "vault.org"): "* vault\n:PROPERTIES:\n:ID: cfgnode\n:END:\nsecret\n",
		filepath.Join(w.runtime, "token"): "bridge-token", filepath.Join(w.synced, "plans.org"): "* PLAN synced\n",
	}
	for p, text := range outside {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o700))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o600))
	}
	w.fx = newFixture(t, files, func(c *Config) { c.Protected = []string{w.data, w.config, w.runtime} })
	w.snapshot = map[string]string{}
	for p, text := range outside {
		w.snapshot[p] = text
	}
	for _, n := range ProtectedNames {
		p := filepath.Join(w.fx.root, n)
		if b, err := os.ReadFile(p); err == nil {
			w.snapshot[p] = string(b)
		}
	}
	return w
}

// unchanged checks that no protected file changed and nothing new appeared
// in the data directory.
func (w *protectedWorld) unchanged(t *testing.T) {
	t.Helper()
	for p, text := range w.snapshot {
		b, err := os.ReadFile(p)
		require.NoError(t, err, p)
		assert.Equal(t, text, string(b), p)
	}
	ents, err := os.ReadDir(w.data)
	require.NoError(t, err)
	assert.Len(t, ents, 2, "nothing new in the data directory")
}

func TestFileActionsRefuseProtectedPlacesByAnySpelling(t *testing.T) {
	w := newProtectedWorld(t, map[string]string{"notes/a.org": "* a\n", "flightplans.org": "* PLAN mine\n", "journal.org": "#+TITLE: Audit Journal\n"})
	root := w.fx.root
	link := func(old, new string, hard bool) {
		if hard {
			require.NoError(t, os.Link(old, filepath.Join(root, new)))
		} else {
			require.NoError(t, os.Symlink(old, filepath.Join(root, new)))
		}
	}
	link(filepath.Join(root, "flightplans.org"), "notes/plans-link.org", false)
	link(filepath.Join(root, "journal.org"), "notes/journal-copy.org", true)
	link(filepath.Join(w.data, "key"), "notes/key.txt", true)
	link(w.data, "notes/data", false)
	link(filepath.Join(w.runtime, "token"), "notes/token", false)
	link(w.config, "notes/cfg", false)

	for _, p := range []string{
		"FLIGHTPLANS.ORG", "Journal.Org", "notes/../journal.org", "notes/plans-link.org", "notes/journal-copy.org",
		"notes/key.txt", "notes/data/key", "notes/data/plans/x", "notes/data/new-file", "notes/token", "notes/cfg/config.json",
		filepath.Join(w.data, "key"), filepath.Join(w.config, "config.json"), filepath.Join(w.runtime, "token"),
		filepath.Join(w.data, "..", "data", "key"),
	} {
		t.Run(p, func(t *testing.T) {
			read := gates.Build(gates.FileReadArgs{Path: p}, "t")
			res, err := run(t, w.fx, read, approve(read))
			assert.ErrorContains(t, err, "no action may read or write", "file_read %s", p)
			assert.Empty(t, res.Output)
			_, err = run(t, w.fx, gates.Build(gates.FileWriteArgs{Path: p, Content: "owned\n"}, "t"), nil)
			assert.Error(t, err, "file_write %s", p)
		})
	}
	w.unchanged(t)

	// memory_edit of a node in a hard link to a file of the config folder.
	require.NoError(t, os.Link(filepath.Join(w.config, "vault.org"), filepath.Join(root, "notes", "vault.org")))
	_, err := w.fx.mx.ReloadFiles(t.Context(), filepath.Join(root, "notes", "vault.org"))
	require.NoError(t, err)
	_, err = run(t, w.fx, gates.Build(gates.MemoryEditArgs{ID: "cfgnode", Content: "owned\n"}, "t"), nil)
	assert.ErrorContains(t, err, "only a human changes it")
	w.unchanged(t)

	// Controls: an ordinary note is still read and written.
	res, err := run(t, w.fx, gates.Build(gates.FileReadArgs{Path: "notes/a.org"}, "t"), nil)
	require.NoError(t, err)
	assert.Equal(t, "* a\n", res.Output)
	_, err = run(t, w.fx, gates.Build(gates.FileWriteArgs{Path: "notes/b.org", Content: "* b\n"}, "t"), nil)
	require.NoError(t, err)
	assert.FileExists(t, filepath.Join(root, "notes/b.org"))
}

func TestASymlinkedFlightPlansFileIsNeverWritten(t *testing.T) {
	for _, inside := range []bool{false, true} {
		name := "into a synced folder outside the roots"
		if inside {
			name = "into a folder inside the root"
		}
		t.Run(name, func(t *testing.T) {
			w := newProtectedWorld(t, map[string]string{"notes/a.org": "* a\n"})
			target := filepath.Join(w.synced, "plans.org")
			if inside {
				target = filepath.Join(w.fx.root, "Sync", "plans.org")
				require.NoError(t, os.MkdirAll(filepath.Dir(target), 0o755))
				require.NoError(t, os.WriteFile(target, []byte("* PLAN synced\n"), 0o644))
				w.snapshot[target] = "* PLAN synced\n"
			}
			require.NoError(t, os.Symlink(target, filepath.Join(w.fx.root, "flightplans.org")))
			paths := []string{"flightplans.org", "FlightPlans.org", target}
			if inside {
				paths = append(paths, "Sync/plans.org", "sync/PLANS.org", "notes/../Sync/plans.org")
			}
			for _, p := range paths {
				_, err := run(t, w.fx, gates.Build(gates.FileWriteArgs{Path: p, Content: "* APPROVED injected\n"}, "t"), nil)
				assert.Error(t, err, p)
			}
			w.unchanged(t)
		})
	}
}

// A symlink swapped into the path between the check and the write does not
// move the write onto a protected file: the folder actually opened is
// checked.
func TestAFolderSwappedForASymlinkAfterTheCheck(t *testing.T) {
	w := newProtectedWorld(t, map[string]string{"notes/sub/a.org": "* a\n", "flightplans.org": "* PLAN mine\n"})
	tg, err := w.fx.act.paths.writable("notes/sub/flightplans.org")
	require.NoError(t, err, "an ordinary file of that name in a subfolder")
	sub := filepath.Join(w.fx.root, "notes", "sub")
	require.NoError(t, os.RemoveAll(sub))
	require.NoError(t, os.Symlink("..", sub))
	_, _, err = w.fx.act.paths.openFolder(tg)
	assert.ErrorContains(t, err, "is flightplans.org")
	w.unchanged(t)
}
