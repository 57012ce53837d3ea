// Package testenv holds what tests across packages share about their
// surroundings: where the shared corpus is, which external programs they
// need, and the rule that under CI=true nothing that a fresh machine is
// meant to have is ever skipped.
package testenv

import (
	"os"
	"os/exec"
	"path/filepath"
	"testing"
)

// InCI reports whether the tests run under CI (CI=true), where missing
// prerequisites are failures, not skips.
func InCI() bool { return os.Getenv("CI") == "true" }

// ModuleRoot returns the directory holding go.mod, found upwards from the
// test's working directory (its package directory).
func ModuleRoot(t testing.TB) string {
	t.Helper()
	dir, err := os.Getwd()
	if err != nil {
		t.Fatalf("working directory: %v", err)
	}
	for {
		if _, err := os.Stat(filepath.Join(dir, "go.mod")); err == nil {
			return dir
		}
		parent := filepath.Dir(dir)
		if parent == dir {
			t.Fatalf("no go.mod above the test's directory")
		}
		dir = parent
	}
}

// SharedDir returns ../shared beside the checkout (the corpora, seeds and
// tools). A user's clone has none: there the test is skipped with a message;
// under CI=true its absence fails the test.
func SharedDir(t testing.TB) string {
	t.Helper()
	dir := filepath.Join(ModuleRoot(t), "..", "shared")
	if _, err := os.Stat(filepath.Join(dir, "corpus")); err != nil {
		missing(t, "the shared corpus ("+dir+") is not here; it ships beside the checkout in CI")
	}
	return dir
}

// NeedCommand returns the path of an external program the test drives (emacs,
// nvim). Missing, it skips the test, or fails it under CI=true.
func NeedCommand(t testing.TB, name string) string {
	t.Helper()
	path, err := exec.LookPath(name)
	if err != nil {
		missing(t, name+" is not installed (make test installs it with apt-get where it can)")
	}
	return path
}

func missing(t testing.TB, why string) {
	t.Helper()
	if InCI() {
		t.Fatalf("CI=true: %s", why)
	}
	t.Skip(why)
}

// Long tests. `make test` passes -short: every test runs, but a property
// test takes fewer random steps and a sweep stops at a smaller size, and a
// test that only means something whole (a figure measured over the whole
// corpus, Emacs run over every character) is skipped, saying why. `make
// test-long`, which CI runs after `make test`, runs exactly those tests
// again without -short (the Makefile's LONG_TESTS lists them; a test here
// keeps the list true). So each runs whole once in CI, and `make test`
// stays within minutes.

// Scale is long, or short under -short: the steps of a property test, the
// rounds of a stress test.
func Scale(long, short int) int {
	if testing.Short() {
		return short
	}
	return long
}

// SkipShort skips a test that only means something whole under -short,
// naming why it is long.
func SkipShort(t testing.TB, why string) {
	t.Helper()
	if testing.Short() {
		t.Skip("long (" + why + "): make test-long runs it")
	}
}
