package sandbox

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/sys/unix"
)

// TestTheHelperBindsOnlyTheEntryTheWalkFound: between the server's walk
// and the helper's mount, a folder on the way replaced by a symlink, or
// the entry replaced by another file or a symlink, is refused — never
// followed to bind something else.
func TestTheHelperBindsOnlyTheEntryTheWalkFound(t *testing.T) {
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	entry := func(p string) mountEntry {
		var st unix.Stat_t
		require.NoError(t, unix.Lstat(p, &st))
		return mountEntry{Path: p, Dev: uint64(st.Dev), Ino: st.Ino}
	}
	write := func(p, text string) {
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	for _, tc := range []struct {
		name string
		swap func(e mountEntry)
	}{
		{"a folder on the way replaced by a symlink to it", func(e mountEntry) {
			dir := filepath.Dir(filepath.Dir(e.Path))
			require.NoError(t, os.Rename(dir, dir+"-moved"))
			require.NoError(t, os.Symlink(dir+"-moved", dir))
		}},
		{"the entry replaced by another file", func(e mountEntry) {
			write(e.Path+".new", "export A=1\n")
			require.NoError(t, os.Rename(e.Path+".new", e.Path))
		}},
		{"the entry replaced by a symlink to itself", func(e mountEntry) {
			require.NoError(t, os.Rename(e.Path, e.Path+".real"))
			require.NoError(t, os.Symlink(e.Path+".real", e.Path))
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(base, tc.name, "proj", ".envrc")
			write(p, "export A=1\n")
			e := entry(p)
			fd, err := openEntry(e)
			require.NoError(t, err, "the entry as found")
			unix.Close(fd)
			tc.swap(e)
			fd, err = openEntry(e)
			if err == nil {
				unix.Close(fd)
			}
			assert.Error(t, err)
		})
	}
}
