package gates

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestDefaultWorldFindsPPLSPsOwnFolders: the gates guard the folders the
// server really uses, as memory.DataDir and server/bridge.TokenPath find
// them: a relative PASSEPARTOUT_DATA_DIR made absolute, the token under
// $XDG_RUNTIME_DIR, else $XDG_CACHE_HOME, else ~/.cache.
func TestDefaultWorldFindsPPLSPsOwnFolders(t *testing.T) {
	wd, err := os.Getwd()
	require.NoError(t, err)
	get := func(m map[string]string) func(string) string { return func(k string) string { return m[k] } }

	w := DefaultWorld(get(map[string]string{"HOME": "/home/u", "PASSEPARTOUT_DATA_DIR": " data ", "XDG_RUNTIME_DIR": "/run/user/7"}), nil)
	assert.Equal(t, filepath.Join(wd, "data"), w.DataDir)
	assert.Equal(t, "/run/user/7/passepartout", w.RuntimeDir)
	assert.Equal(t, "/home/u/.config/passepartout", w.ConfigDir)

	w = DefaultWorld(get(map[string]string{"HOME": "/home/u", "XDG_CACHE_HOME": "/c"}), nil)
	assert.Equal(t, "/c/passepartout", w.RuntimeDir)
	assert.Equal(t, "/home/u/.local/share/passepartout", w.DataDir)

	w = DefaultWorld(get(map[string]string{"HOME": "/home/u", "XDG_RUNTIME_DIR": "relative"}), nil)
	assert.Equal(t, "/home/u/.cache/passepartout", w.RuntimeDir)
}

// TestOwnFoldersByAnySpelling: pp-lsp's folders behind a symlink, a
// configuration file given by a relative name, a hard link of the key
// inside a root: each is refused however it is reached.
func TestOwnFoldersByAnySpelling(t *testing.T) {
	root, home := t.TempDir(), t.TempDir()
	real := filepath.Join(home, "elsewhere")
	require.NoError(t, os.MkdirAll(filepath.Join(real, "passepartout"), 0o700))
	require.NoError(t, os.Symlink(real, filepath.Join(home, ".config")))
	require.NoError(t, os.WriteFile(filepath.Join(real, "passepartout", "config.json"), []byte("{}"), 0o600))
	data := filepath.Join(home, "data")
	require.NoError(t, os.MkdirAll(data, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(data, "key"), []byte("k"), 0o600))
	require.NoError(t, os.Link(filepath.Join(data, "key"), filepath.Join(root, "innocent.txt")))
	cfg := filepath.Join(root, "my-gates.json")
	require.NoError(t, os.WriteFile(cfg, []byte("{}"), 0o600))
	wd, err := os.Getwd()
	require.NoError(t, err)
	relCfg, err := filepath.Rel(wd, cfg)
	require.NoError(t, err)

	stack, err := New(DefaultConfig())
	require.NoError(t, err)
	w := DefaultWorld(func(k string) string {
		return map[string]string{"HOME": home, "PASSEPARTOUT_DATA_DIR": data}[k]
	}, []string{root})
	w.ConfigFile = relCfg
	env, err := stack.NewEnv(context.Background(), w)
	require.NoError(t, err)
	defer env.Close()

	for _, a := range []Action{
		act(ToolFileRead, "path", filepath.Join(real, "passepartout", "config.json")),
		act(ToolFileWrite, "path", filepath.Join(real, "passepartout", "config.json"), "content", "{}"),
		sh("cat " + filepath.Join(real, "passepartout", "config.json")),
		act(ToolFileWrite, "path", "my-gates.json", "content", `{"default":"allow"}`),
		sh("echo '{}' > my-gates.json"),
		act(ToolFileRead, "path", "innocent.txt"),
		sh("cat innocent.txt"),
	} {
		v := stack.Check(context.Background(), a, env)
		assert.Equal(t, VerdictDeny, v.Verdict, "%s: %s: %s", a.CanonicalJSON(), v.Gate, v.Reason)
	}
}
