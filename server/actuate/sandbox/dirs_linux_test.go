package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestMoveAsideFollowsNoSymlink: the walk after a run moves aside, as the
// unconfined server, by paths it found; another command running meanwhile
// may have made a folder of such a path a symlink out of the roots. The
// file it leads to stays, and the move fails (the run says so).
func TestMoveAsideFollowsNoSymlink(t *testing.T) {
	base := t.TempDir()
	outside, root := filepath.Join(base, "outside"), filepath.Join(base, "root")
	require.NoError(t, os.MkdirAll(outside, 0o755))
	require.NoError(t, os.MkdirAll(root, 0o755))
	theirs := filepath.Join(outside, ".envrc")
	require.NoError(t, os.WriteFile(theirs, []byte("export MINE=1\n"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(root, "plain")))

	_, err := moveAside(filepath.Join(root, "plain", ".envrc"))
	assert.Error(t, err)
	assert.FileExists(t, theirs)
	assert.NoFileExists(t, theirs+".refused")

	// A path of real folders is moved aside as before.
	require.NoError(t, os.MkdirAll(filepath.Join(root, "real"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "real", ".envrc"), nil, 0o644))
	m, err := moveAside(filepath.Join(root, "real", ".envrc"))
	require.NoError(t, err)
	assert.Equal(t, filepath.Join(root, "real", ".envrc")+" (now .envrc.refused)", m)
	assert.FileExists(t, filepath.Join(root, "real", ".envrc.refused"))
}
