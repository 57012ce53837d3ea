package sandbox

import (
	"fmt"
	"os"
	"path/filepath"
	"testing"
)

// BenchmarkNamedPlacesWatched is BenchmarkNamedPlaces's first walk with
// every folder watched (inotify) for the run, over 1,000 folders of 10
// files: what the watch adds to a run's start.
func BenchmarkNamedPlacesWatched(b *testing.B) {
	root := b.TempDir()
	for d := range 1000 {
		dir := filepath.Join(root, fmt.Sprintf("d%d", d))
		if err := os.MkdirAll(dir, 0o755); err != nil {
			b.Fatal(err)
		}
		for f := range 10 {
			if err := os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.org", f)), nil, 0o644); err != nil {
				b.Fatal(err)
			}
		}
	}
	for _, watched := range []bool{false, true} {
		b.Run(fmt.Sprintf("watched=%v", watched), func(b *testing.B) {
			for b.Loop() {
				var nw *namedWatch
				if watched {
					nw = newNamedWatch()
				}
				if _, err := namedPlaces([]string{root}, nw.add); err != nil {
					b.Fatal(err)
				}
				nw.stop()
			}
		})
	}
}
