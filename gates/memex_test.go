package gates

import (
	"context"
	"testing"

	"github.com/stretchr/testify/require"

	"pp-lsp/memory"
)

// openMemex is the real memex over roots, as the server hands it to the
// gates (memory's *Snapshot implements Memex).
func openMemex(t testing.TB, roots []string) Memex {
	t.Helper()
	mx, err := memory.Open(context.Background(), memory.Options{Roots: roots})
	require.NoError(t, err)
	t.Cleanup(func() { mx.Close(context.Background()) })
	return mx.Snapshot()
}
