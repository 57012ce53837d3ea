package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkNamedPlaces: the walk each run makes twice (before, for the
// rules; after, for a protected name made anew), over a root of 10,000
// files in 100 folders.
func BenchmarkNamedPlaces(b *testing.B) {
	root := b.TempDir()
	for d := range 100 {
		dir := filepath.Join(root, fmt.Sprintf("d%d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 100 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.org", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	b.ResetTimer()
	for b.Loop() {
		if _, err := namedPlaces([]string{root}, nil); err != nil {
			b.Fatal(err)
		}
	}
}
