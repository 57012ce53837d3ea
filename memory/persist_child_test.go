package memory

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// envStoreChild makes the test binary a child that keeps changing the
// memex and saving its store until it is killed: "ROOT|DATADIR".
const envStoreChild = "PP_MEMORY_STORE_CHILD"

// storeChild adds one headline per round to a buffer, waits for its
// vector, and saves, printing "saving N" before and "saved N" after each
// save (N the number of vectors written), until the parent kills it.
func storeChild(arg string) int {
	root, dataDir, ok := strings.Cut(arg, "|")
	if !ok {
		fmt.Fprintln(os.Stderr, "want ROOT|DATADIR")
		return 2
	}
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
