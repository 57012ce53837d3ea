package seal

import (
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/regfile"
	"pp-lsp/internal/testenv"
)

func TestLoadOrCreateMakesOneKeyOnce(t *testing.T) {
	dir := filepath.Join(t.TempDir(), "data")
	_, err := Load(dir)
	require.ErrorIs(t, err, fs.ErrNotExist)

	// Processes starting at once end up with the same key.
	keys := make([]*Key, 8)
	var wg sync.WaitGroup
	for i := range keys {
		wg.Go(func() {
			k, err := LoadOrCreate(dir)
			assert.NoError(t, err)
			keys[i] = k
		})
	}
	wg.Wait()
	for _, k := range keys[1:] {
		require.NotNil(t, k)
		assert.Equal(t, keys[0].b, k.b)
	}
	fi, err := os.Stat(Path(dir))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())
	assert.EqualValues(t, Size, fi.Size())
	di, err := os.Stat(dir)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), di.Mode().Perm())
	ents, err := os.ReadDir(dir)
	require.NoError(t, err)
	assert.Len(t, ents, 1, "no temp file is left behind")

	again, err := Load(dir)
	require.NoError(t, err)
	assert.Equal(t, keys[0].b, again.b)
	assert.NotContains(t, again.String(), "\x00")
}

func TestRefusedKeys(t *testing.T) {
	for _, tc := range []struct {
		name, want string
		make       func(t *testing.T, dir string)
		is         error // wrapped by the error, when not nil
	}{
		{"readable by others", "has mode 0644", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(Path(dir), make([]byte, Size), 0o644))
		}, nil},
		{"the wrong size", "holds 31 bytes", func(t *testing.T, dir string) {
			require.NoError(t, os.WriteFile(Path(dir), make([]byte, Size-1), 0o600))
		}, nil},
		{"a symlink", "is a symlink", func(t *testing.T, dir string) {
			other := filepath.Join(t.TempDir(), "k")
			require.NoError(t, os.WriteFile(other, make([]byte, Size), 0o600))
			require.NoError(t, os.Symlink(other, Path(dir)))
		}, regfile.ErrSymlink},
		{"a folder", "is not a regular file (it is a folder, not a regular file)", func(t *testing.T, dir string) {
			require.NoError(t, os.Mkdir(Path(dir), 0o700))
		}, regfile.ErrNotRegular},
		// A FIFO is refused at once: opened to be read, it would wait for
		// a writer, and with it the server's start and every CLI command.
		{"a FIFO", "is not a regular file (it is a FIFO (a named pipe), not a regular file)", func(t *testing.T, dir string) {
			testenv.MakeFIFO(t, Path(dir))
		}, regfile.ErrNotRegular},
	} {
		t.Run(tc.name, func(t *testing.T) {
			dir := t.TempDir()
			tc.make(t, dir)
			err := testenv.Promptly(t, Path(dir), func() error { _, err := Load(dir); return err })
			assert.ErrorContains(t, err, tc.want)
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
			err = testenv.Promptly(t, Path(dir), func() error { _, err := LoadOrCreate(dir); return err })
			assert.ErrorContains(t, err, tc.want, "a bad key is never replaced silently")
			if tc.is != nil {
				assert.ErrorIs(t, err, tc.is)
			}
		})
	}
}

func TestSeals(t *testing.T) {
	k, err := LoadOrCreate(t.TempDir())
	require.NoError(t, err)
	other, err := LoadOrCreate(t.TempDir())
	require.NoError(t, err)
	msg := []byte(`{"id":"x","action_hash":"sha256:00"}`)
	s := k.Sum("filing", msg)
	assert.Regexp(t, `^hmac-sha256:[0-9a-f]{64}$`, s)
	assert.True(t, k.Verify("filing", msg, s))
	for name, ok := range map[string]bool{
		"another purpose": k.Verify("head", msg, s),
		"other bytes":     k.Verify("filing", append(msg, ' '), s),
		"another key":     other.Verify("filing", msg, s),
		"no seal":         k.Verify("filing", msg, ""),
		"not hex":         k.Verify("filing", msg, "hmac-sha256:zz"),
		"a plain hash":    k.Verify("filing", msg, "sha256:"+s[len(prefix):]),
		"a nil key":       (*Key)(nil).Verify("filing", msg, s),
	} {
		assert.False(t, ok, name)
	}
}
