//go:build unix

package orgsetup

import (
	"errors"
	"io/fs"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestReadFileJudgesWhatIsThere: a setup file is read whole when it is a
// regular file within the bound; one too large or a FIFO (no writer: a
// plain open would wait for ever) is ErrUnknown at once; a missing one is
// the open's error, which Follow takes as a file Org could not read.
func TestReadFileJudgesWhatIsThere(t *testing.T) {
	dir := t.TempDir()
	small := filepath.Join(dir, "small.org")
	require.NoError(t, os.WriteFile(small, []byte("#+FILETAGS: :private:\n"), 0o600))
	large := filepath.Join(dir, "large.org")
	require.NoError(t, os.WriteFile(large, make([]byte, 65), 0o600))
	fifo := filepath.Join(dir, "fifo.org")
	require.NoError(t, syscall.Mkfifo(fifo, 0o600))
	link := filepath.Join(dir, "link.org")
	require.NoError(t, os.Symlink(small, link))

	for _, tc := range []struct {
		name    string
		path    string
		want    string
		unknown bool
		missing bool
	}{
		{"regular", small, "#+FILETAGS: :private:\n", false, false},
		{"symlink followed", link, "#+FILETAGS: :private:\n", false, false},
		{"too large", large, "", true, false},
		{"fifo", fifo, "", true, false},
		{"missing", filepath.Join(dir, "none.org"), "", false, true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			data, err := ReadFile(tc.path, 64)
			_, unknown := errors.AsType[ErrUnknown](err)
			assert.Equal(t, tc.unknown, unknown, "%v", err)
			assert.Equal(t, tc.missing, errors.Is(err, fs.ErrNotExist), "%v", err)
			assert.Equal(t, tc.want, string(data))
		})
	}
}
