package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// storeChild keeps changing the memex at ROOT and saving its store in
// DATADIR until it is killed (args ROOT DATADIR): it adds one headline per
// round to a buffer, waits for its vector, and saves, printing "saving N"
// before and "saved N" after each save (N the number of vectors written).
func storeChild(args []string) int {
	if len(args) != 2 {
		fmt.Fprintln(os.Stderr, "want ROOT DATADIR")
		return 2
	}
	root, dataDir := args[0], args[1]
	ctx := context.Background()
	m, err := Open(ctx, Options{Roots: []string{root}, DataDir: dataDir, Embed: true})
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	path := filepath.Join(root, "growing.org")
	var text strings.Builder
	for k := 0; ; k++ {
		fmt.Fprintf(&text, "* Round %d of the child\nIts own text, number %d, so that it has its own vector.\n", k, k)
		if _, err := m.SetBuffer(ctx, path, int32(k), []byte(text.String())); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		if err := m.WaitEmbedded(ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		// Save drops vectors no node uses any more before writing; do it
		// first so that N is the count the save writes.
		m.store.gc(m.Snapshot())
		m.store.mu.Lock()
		n := len(m.store.vecs)
		m.store.mu.Unlock()
		fmt.Printf("saving %d\n", n)
		if err := m.Save(ctx); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
		fmt.Printf("saved %d\n", n)
	}
}
