//go:build unix

package protect

import (
	"os"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pp-lsp/internal/testenv"
)

// TestAFIFOIsRefusedNotWaitedOn: a named pipe where flightplans.org or
// journal.org should be is refused at once — opened to be read, it would
// wait for a writer for ever, and with it every filing, approval and
// state written.
func TestAFIFOIsRefusedNotWaitedOn(t *testing.T) {
	w := newWorld(t)
	p := w.root + "/flightplans.org"
	require.NoError(t, os.RemoveAll(p))
	testenv.MakeFIFO(t, p)
	done := make(chan error, 1)
	go func() {
		_, _, err := ReadOwnFile(p)
		done <- err
	}()
	select {
	case err := <-done:
		assert.ErrorIs(t, err, ErrNotOwn)
		assert.ErrorContains(t, err, "not a regular file")
	case <-time.After(10 * time.Second):
		// Let the read go: a writer's open ends its wait.
		if f, err := os.OpenFile(p, os.O_WRONLY, 0); err == nil {
			f.Close()
		}
		t.Fatal("reading a FIFO named flightplans.org waited for a writer")
	}
}
