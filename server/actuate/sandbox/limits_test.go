package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/actuate/sandbox"
)

// TestMemoryAndDiskLimits: a process's data memory is bounded
// (RLIMIT_DATA), and a command that makes more files, or writes more of
// the disk, than its limits is stopped while it runs — though each file
// stays below the file size limit. The same commands within the limits
// run to their end. (The disk is shared: what other processes write
// meanwhile counts, so the limits here leave room for a busy machine.)
func TestMemoryAndDiskLimits(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	require.NoError(t, os.MkdirAll(filepath.Join(w.root, "notes", "fill"), 0o755))
	count := func() int {
		ents, err := os.ReadDir(filepath.Join(w.root, "notes", "fill"))
		require.NoError(t, err)
		return len(ents)
	}
	clear := func() {
		require.NoError(t, os.RemoveAll(filepath.Join(w.root, "notes", "fill")))
		require.NoError(t, os.MkdirAll(filepath.Join(w.root, "notes", "fill"), 0o755))
	}

	t.Run("memory", func(t *testing.T) {
		if testenv.Race {
			// The helper is this test binary: built with -race, the
			// detector's own mappings count against the RLIMIT_DATA it
			// sets on itself before starting the command, and it dies
			// (status 66). pp-lsp is never built so; .ci/test runs this
			// test again without -race.
			t.Skip("RLIMIT_DATA on a helper built with -race: run without -race (.ci/test does)")
		}
		testenv.NeedCommand(t, "python3")
		sb := w.sandbox(t, func(c *sandbox.Config) { c.Limits.Memory = 256 << 20 })
		code, out, err := sh(t, sb, w.root, `python3 -c "b = bytearray(1 << 30); print(len(b))"`)
		require.NoError(t, err)
		assert.NotEqual(t, 0, code, out)
		assert.Contains(t, out, "MemoryError")
		code, out, err = sh(t, sb, w.root, `python3 -c "b = bytearray(64 << 20); print(len(b))"`)
		require.NoError(t, err)
		assert.Equal(t, 0, code, out)
	})

	t.Run("memory of all the processes together", func(t *testing.T) {
		if testenv.Race {
			t.Skip("RLIMIT_DATA on a helper built with -race: run without -race (.ci/test does)")
		}
		testenv.NeedCommand(t, "python3")
		sb := w.sandbox(t, func(c *sandbox.Config) { c.Limits.Memory, c.Limits.MemoryTotal = 512<<20, 512<<20 })
		if strings.Contains(sb.Describe(), "no memory cgroup") {
			t.Skip(sb.Describe())
		}
		// Each process holds 200 MiB (every byte written), below its own
		// RLIMIT_DATA; four of them pass the total.
		hold := func(n, mib int) string {
			return fmt.Sprintf(`for i in $(seq 1 %d); do python3 -c "import time; b = b'x' * (%d << 20); time.sleep(1); open('notes/fill/done%%d' %% $i, 'w')" & done; wait`, n, mib)
		}
		clear()
		_, out, err := sh(t, sb, w.root, hold(4, 200))
		require.NoError(t, err)
		assert.Less(t, count(), 4, "all four held their 200 MiB to the end: %s", out)
		clear()
		code, out, err := sh(t, sb, w.root, hold(2, 100))
		require.NoError(t, err)
		assert.Equal(t, 0, code, out)
		assert.Equal(t, 2, count(), out)
	})

	t.Run("many small files", func(t *testing.T) {
		clear()
		sb := w.sandbox(t, func(c *sandbox.Config) { c.Limits.NewFiles = 5000 })
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, err := sb.Run(ctx, sandbox.Command{Argv: []string{"/bin/bash", "-c", "cd notes/fill && for i in $(seq 1 200000); do : > f$i; done"}, Dir: w.root})
		require.ErrorIs(t, err, sandbox.ErrDiskLimit)
		assert.Less(t, count(), 50_000, "stopped near its limit, not at the loop's end")
		clear()
		code, out, err := sh(t, sb, w.root, "cd notes/fill && for i in $(seq 1 500); do : > f$i; done")
		require.NoError(t, err)
		assert.Equal(t, 0, code, out)
		assert.Equal(t, 500, count())
	})

	t.Run("many files each below the size limit", func(t *testing.T) {
		clear()
		sb := w.sandbox(t, func(c *sandbox.Config) { c.Limits.FileSize, c.Limits.Disk = 4<<20, 256<<20 })
		ctx, cancel := context.WithTimeout(context.Background(), 60*time.Second)
		defer cancel()
		_, err := sb.Run(ctx, sandbox.Command{Argv: []string{"/bin/bash", "-c", "cd notes/fill && for i in $(seq 1 1000); do head -c 4M /dev/urandom > b$i; done"}, Dir: w.root})
		require.ErrorIs(t, err, sandbox.ErrDiskLimit)
		assert.Less(t, count(), 400, "stopped near 256 MiB, not at 4 GB")
		clear()
		code, out, err := sh(t, sb, w.root, "cd notes/fill && for i in $(seq 1 4); do head -c 4M /dev/urandom > b$i; done")
		require.NoError(t, err)
		assert.Equal(t, 0, code, out)
		assert.Equal(t, 4, count())
	})
}
