package testenv

import (
	"os"
	"path/filepath"
	"testing"
)

// WriteTree writes files (slash-separated paths relative to dir, and
// their text) below dir, making folders as needed.
func WriteTree(t testing.TB, dir string, files map[string]string) {
	t.Helper()
	for rel, text := range files {
		p := filepath.Join(dir, filepath.FromSlash(rel))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			t.Fatal(err)
		}
		if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}
