//go:build unix

package seal

import (
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// nobody is the user another local process runs as in these tests.
const nobody = 65534

// asNobody runs argv as another user, when this test may (it runs as
// root); it returns false when it cannot.
func asNobody(t *testing.T, argv ...string) bool {
	t.Helper()
	if os.Geteuid() != 0 {
		return false
	}
	cmd := exec.Command(argv[0], argv[1:]...)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: nobody, Gid: nobody}}
	out, err := cmd.CombinedOutput()
	t.Logf("%v as nobody: %v %s", argv, err, out)
	return true
}

// TestTheDataDirIsPrivate: the data directory holds the install key, the
// plans' filing records, the journal's head and the checkpoints (the
// bytes of changed notes). Another local user may not remove or replace
// what is in it: a directory others can write is made the owner's alone,
// and one that is a symlink, belongs to another user, or lies in a folder
// others can write (without the sticky bit) is refused, with nothing
// written into it.
func TestTheDataDirIsPrivate(t *testing.T) {
	rm, err := exec.LookPath("rm")
	require.NoError(t, err)
	for _, tc := range []struct {
		name string
		// make returns the data dir to use.
		make func(t *testing.T, base string) string
		// refused: LoadOrCreate fails with this in its error; else it
		// succeeds and the dir ends up 0700.
		refused string
		root    bool // needs root (a second user)
	}{
		{"a new folder", func(t *testing.T, base string) string { return filepath.Join(base, "data") }, "", false},
		{"ours, 0755", func(t *testing.T, base string) string {
			d := filepath.Join(base, "data")
			require.NoError(t, os.Mkdir(d, 0o755))
			return d
		}, "", false},
		{"ours, writable by everyone", func(t *testing.T, base string) string {
			d := filepath.Join(base, "data")
			require.NoError(t, os.Mkdir(d, 0o777))
			require.NoError(t, os.Chmod(d, 0o777))
			return d
		}, "", false},
		// A shared folder, as /tmp is: made private, it would lock the
		// other users out of their files (TestASharedFolderIsNotTakenOver).
		{"ours, sticky and writable by everyone", func(t *testing.T, base string) string {
			d := filepath.Join(base, "data")
			require.NoError(t, os.Mkdir(d, 0o777))
			require.NoError(t, os.Chmod(d, os.ModeSticky|0o777))
			return d
		}, "shared with other users", false},
		{"a symlink of ours to a folder of ours", func(t *testing.T, base string) string {
			real := filepath.Join(base, "real")
			require.NoError(t, os.Mkdir(real, 0o755))
			d := filepath.Join(base, "data")
			require.NoError(t, os.Symlink(real, d))
			return d
		}, "", false},
		{"a symlink of ours to a folder in one everyone can write", func(t *testing.T, base string) string {
			open := filepath.Join(base, "open")
			require.NoError(t, os.Mkdir(open, 0o777))
			require.NoError(t, os.Chmod(open, 0o777))
			require.NoError(t, os.Mkdir(filepath.Join(open, "real"), 0o700))
			d := filepath.Join(base, "data")
			require.NoError(t, os.Symlink(filepath.Join(open, "real"), d))
			return d
		}, "can be written by other users", false},
		{"a symlink of another user's", func(t *testing.T, base string) string {
			real := filepath.Join(base, "real")
			require.NoError(t, os.Mkdir(real, 0o700))
			d := filepath.Join(base, "data")
			require.NoError(t, os.Symlink(real, d))
			require.NoError(t, os.Lchown(d, nobody, nobody))
			return d
		}, "symlink that belongs to another user", true},
		{"in a folder everyone can write", func(t *testing.T, base string) string {
			open := filepath.Join(base, "open")
			require.NoError(t, os.Mkdir(open, 0o777))
			require.NoError(t, os.Chmod(open, 0o777))
			return filepath.Join(open, "data")
		}, "can be written by other users", false},
		{"made by another user", func(t *testing.T, base string) string {
			d := filepath.Join(base, "data")
			require.NoError(t, os.Mkdir(d, 0o777))
			require.NoError(t, os.Chmod(d, 0o777))
			require.NoError(t, os.Chown(d, nobody, nobody))
			return d
		}, "belongs to another user", true},
		{"in a folder of another user's", func(t *testing.T, base string) string {
			theirs := filepath.Join(base, "theirs")
			require.NoError(t, os.Mkdir(theirs, 0o755))
			require.NoError(t, os.Chown(theirs, nobody, nobody))
			return filepath.Join(theirs, "data")
		}, "belongs to another user", true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.root && os.Geteuid() != 0 {
				t.Skip("a second user needs root")
			}
			base := t.TempDir()
			// Another user can reach it, as they could a home folder.
			testenv.OpenToOthers(t, base)
			dir := tc.make(t, base)
			_, err := LoadOrCreate(dir)
			if tc.refused != "" {
				require.Error(t, err)
				assert.Contains(t, err.Error(), tc.refused)
				assert.NoFileExists(t, Path(dir), "nothing is written into a refused folder")
				return
			}
			require.NoError(t, err)
			fi, err := os.Stat(dir)
			require.NoError(t, err)
			assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm()&^os.ModeSticky)
			assert.Zero(t, fi.Mode()&os.ModeSticky)
			// Another user's process cannot remove the key.
			if asNobody(t, rm, "-f", Path(dir)) {
				assert.FileExists(t, Path(dir), "another user removed the key")
			}
		})
	}
}

// TestASharedFolderIsNotTakenOver: a data directory set to a folder made
// for everyone's files — /tmp, or any folder with the sticky bit — is
// refused and left as it was: made 0700, it would lock the other users out
// of their files (run as root with PASSEPARTOUT_DATA_DIR=/tmp, the
// machine's /tmp became root's alone).
func TestASharedFolderIsNotTakenOver(t *testing.T) {
	shared := filepath.Join(t.TempDir(), "tmp")
	require.NoError(t, os.Mkdir(shared, 0o777))
	require.NoError(t, os.Chmod(shared, os.ModeSticky|0o777))
	_, err := LoadOrCreate(shared)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "shared with other users")
	assert.ErrorContains(t, CheckDir(shared), "sticky bit", "doctor says the same")
	fi, err := os.Stat(shared)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSticky|0o777, fi.Mode()&(os.ModeSticky|os.ModePerm), "the shared folder's mode changed")
	assert.NoFileExists(t, Path(shared))
	// A folder below it, made for the data, is ours as before.
	_, err = LoadOrCreate(filepath.Join(shared, "data"))
	assert.NoError(t, err)
}
