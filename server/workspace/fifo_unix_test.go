//go:build unix

package workspace

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/regfile"
	"pp-lsp/internal/testenv"
)

// TestAFIFOIsRefusedAtOnce: a FIFO put where a file was (a chat file, a
// skill's file) is refused at once with a plain error, by Read and by
// Write's look at the disk — a plain open waited for a writer for ever —
// and a folder, a device likewise; a regular file still reads.
func TestAFIFOIsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "chat.org")
	testenv.MakeFIFO(t, fifo)
	note := filepath.Join(dir, "note.org")
	require.NoError(t, os.WriteFile(note, []byte("* a\n"), 0o600))

	for _, tc := range []struct {
		name string
		at   string
		call func() error
	}{
		{"Read", fifo, func() error { _, err := Files{}.Read(fifo); return err }},
		{"ReadChecked", fifo, func() error {
			_, err := Files{}.ReadChecked(fifo, func(*os.File) error { return nil })
			return err
		}},
		{"Read of a folder", fifo, func() error { _, err := Files{}.Read(dir); return err }},
		{"Read of a device", fifo, func() error { _, err := Files{}.Read(os.DevNull); return err }},
		{"Write over a FIFO swapped in", note, func() error {
			cur, err := Files{}.Read(note)
			if err != nil || !cur.Exists {
				return fmt.Errorf("the note did not read: %v", err)
			}
			if err := os.Remove(note); err != nil {
				return err
			}
			if err := syscall.Mkfifo(note, 0o600); err != nil {
				return err
			}
			_, err = Files{}.Write(context.Background(), cur, []Change{{Start: 0, End: 0, NewText: "x"}}, Meta{})
			return err
		}},
	} {
		t.Run(tc.name, func(t *testing.T) {
			err := testenv.Promptly(t, tc.at, tc.call)
			require.Error(t, err)
			assert.ErrorIs(t, err, regfile.ErrNotRegular)
			assert.Regexp(t, `(FIFO|folder|device)`, err.Error())
		})
	}
	cur, err := Files{}.Read(filepath.Join(dir, "x.org"))
	require.NoError(t, err)
	assert.False(t, cur.Exists, "a missing file is no error")
}
