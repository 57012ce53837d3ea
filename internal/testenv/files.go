package testenv

import (
	"os"
	"path/filepath"
	"strings"
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

// OpenToOthers lets other local users reach dir, as they can a home
// folder: dir and each folder above it are made 0755 up to the test's own
// temporary folder (the one t.TempDir's folders are made in), and no
// further. A dir outside that folder fails the test: a test that opened
// the folders above its own by walking up with filepath.Dir would change
// the machine's, /tmp first of all.
func OpenToOthers(t testing.TB, dir string) {
	t.Helper()
	top, err := filepath.EvalSymlinks(filepath.Dir(t.TempDir()))
	if err != nil {
		t.Fatal(err)
	}
	real, err := filepath.EvalSymlinks(dir)
	if err != nil {
		t.Fatal(err)
	}
	rel, err := filepath.Rel(top, real)
	if err != nil || rel == ".." || strings.HasPrefix(rel, ".."+string(filepath.Separator)) || filepath.IsAbs(rel) {
		t.Fatalf("OpenToOthers(%s): not within the test's temporary folder %s", dir, top)
	}
	for p := real; ; p = filepath.Dir(p) {
		if err := os.Chmod(p, 0o755); err != nil {
			t.Fatal(err)
		}
		if p == top {
			return
		}
	}
}
