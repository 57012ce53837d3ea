package testenv

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"runtime"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// fatalTB is a test whose Fatal ends the goroutine and is recorded.
type fatalTB struct {
	testing.TB
	failed string
}

func (f *fatalTB) Fatal(args ...any) { f.failed = fmt.Sprint(args...); runtime.Goexit() }
func (f *fatalTB) Fatalf(format string, args ...any) {
	f.failed = fmt.Sprintf(format, args...)
	runtime.Goexit()
}

func (f *fatalTB) run(fn func()) {
	done := make(chan struct{})
	go func() { defer close(done); fn() }()
	<-done
}

// TestOpenToOthersStopsAtTheTestsFolder: the folders from dir up to the
// test's own temporary folder are opened, the folder above it (/tmp) is
// left as it was, and a dir outside the test's folder is refused.
func TestOpenToOthersStopsAtTheTestsFolder(t *testing.T) {
	base := t.TempDir()
	top := filepath.Dir(base)
	above, err := os.Stat(filepath.Dir(top))
	require.NoError(t, err)
	dir := filepath.Join(base, "home", "memex")
	require.NoError(t, os.MkdirAll(dir, 0o700))

	OpenToOthers(t, dir)
	for _, p := range []string{dir, filepath.Dir(dir), base, top} {
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.Equal(t, os.FileMode(0o755), fi.Mode().Perm(), p)
	}
	after, err := os.Stat(filepath.Dir(top))
	require.NoError(t, err)
	assert.Equal(t, above.Mode(), after.Mode(), "the folder above the test's own changed")

	for _, outside := range []string{filepath.Dir(top), "/"} {
		before, err := os.Stat(outside)
		require.NoError(t, err)
		f := &fatalTB{TB: t}
		f.run(func() { OpenToOthers(f, outside) })
		assert.Contains(t, f.failed, "not within the test's temporary folder", outside)
		now, err := os.Stat(outside)
		require.NoError(t, err)
		assert.Equal(t, before.Mode(), now.Mode(), outside)
	}
}

// TestAChangedTempIsReported: Main's check after the tests names a change
// of the temporary folder's mode, here seen against a stat taken of a
// folder of another mode.
func TestAChangedTempIsReported(t *testing.T) {
	now, err := os.Stat(os.TempDir())
	require.NoError(t, err)
	assert.NoError(t, sharedTempUnchanged(now))
	assert.NoError(t, sharedTempUnchanged(nil), "a temporary folder not found before is not judged")
	other := filepath.Join(t.TempDir(), "other")
	require.NoError(t, os.Mkdir(other, 0o700))
	require.NoError(t, os.Chmod(other, 0o700))
	was, err := os.Stat(other)
	require.NoError(t, err)
	if was.Mode() == now.Mode() {
		t.Skip("the temporary folder is itself 0700")
	}
	assert.ErrorContains(t, sharedTempUnchanged(was), "changed while the tests ran")
}

// TestAnUnprivilegedCommandChangesNothingOfTheMachines: run as root, a
// command confined by Unprivileged cannot change the mode of a folder
// root owns outside its own (as a fuzzer's input could chmod /tmp), and
// still writes in its own folder.
func TestAnUnprivilegedCommandChangesNothingOfTheMachines(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("only root could change the machine's folders")
	}
	machines := filepath.Join(t.TempDir(), "shared")
	require.NoError(t, os.Mkdir(machines, 0o777))
	require.NoError(t, os.Chmod(machines, os.ModeSticky|0o777))
	dir := t.TempDir()
	cmd := exec.Command("sh", "-c", `chmod go-w "$1"; echo done > out.txt`, "sh", machines)
	cmd.Dir = dir
	Unprivileged(t, cmd)
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	fi, err := os.Stat(machines)
	require.NoError(t, err)
	assert.Equal(t, os.ModeSticky|0o777, fi.Mode()&(os.ModeSticky|os.ModePerm), "the command changed a folder root owns")
	b, err := os.ReadFile(filepath.Join(dir, "out.txt"))
	require.NoError(t, err)
	assert.Equal(t, "done\n", string(b), "the command writes in its own folder")
}
