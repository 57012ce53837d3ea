package regfile_test

import (
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/plainerr"
	"pp-lsp/internal/regfile"
	"pp-lsp/internal/testenv"
)

func TestMain(m *testing.M) { testenv.Main(m) }

// TestOnlyARegularFileIsRead: a regular file is read, through a symlink
// only when follow; a FIFO is refused at once (never waited on for a
// writer), as are a device, a folder and a file over the limit, each
// worded as plainerr words any file error.
func TestOnlyARegularFileIsRead(t *testing.T) {
	dir := t.TempDir()
	plain := filepath.Join(dir, "plain.json")
	require.NoError(t, os.WriteFile(plain, []byte(`{"a": 1}`), 0o600))
	require.NoError(t, os.Symlink(plain, filepath.Join(dir, "link.json")))
	fifo := filepath.Join(dir, "fifo.json")
	testenv.MakeFIFO(t, fifo)
	require.NoError(t, os.Symlink(fifo, filepath.Join(dir, "link-to-fifo.json")))
	require.NoError(t, os.Mkdir(filepath.Join(dir, "folder"), 0o700))

	for _, tc := range []struct {
		name   string
		path   string
		follow bool
		limit  int64
		want   string
		err    error
		reason string
	}{
		{"a regular file", plain, false, 100, `{"a": 1}`, nil, ""},
		{"at its limit", plain, false, 8, `{"a": 1}`, nil, ""},
		{"over its limit", plain, false, 7, "", regfile.ErrTooLarge, "it holds more than 7 bytes"},
		{"a symlink followed", filepath.Join(dir, "link.json"), true, 100, `{"a": 1}`, nil, ""},
		{"a symlink not followed", filepath.Join(dir, "link.json"), false, 100, "", regfile.ErrSymlink, "it is a symlink"},
		{"a FIFO", fifo, false, 100, "", regfile.ErrNotRegular, "it is a FIFO (a named pipe), not a regular file"},
		{"a FIFO followed to", filepath.Join(dir, "link-to-fifo.json"), true, 100, "", regfile.ErrNotRegular, "it is a FIFO (a named pipe), not a regular file"},
		{"a device", os.DevNull, false, 100, "", regfile.ErrNotRegular, "it is a device, not a regular file"},
		{"a folder", filepath.Join(dir, "folder"), false, 100, "", regfile.ErrNotRegular, "it is a folder, not a regular file"},
		{"nothing", filepath.Join(dir, "absent.json"), false, 100, "", fs.ErrNotExist, "it does not exist"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			var b []byte
			err := testenv.Promptly(t, fifo, func() error {
				var err error
				b, _, err = regfile.Read(tc.path, tc.follow, tc.limit)
				return err
			})
			if tc.err == nil {
				require.NoError(t, err)
				assert.Equal(t, tc.want, string(b))
				return
			}
			require.ErrorIs(t, err, tc.err)
			assert.Nil(t, b)
			assert.Equal(t, tc.reason, plainerr.Reason(err), "worded for a person")
			assert.False(t, strings.Contains(err.Error(), "<nil>"))
		})
	}
}
