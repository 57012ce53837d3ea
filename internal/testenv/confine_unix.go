//go:build unix

package testenv

import (
	"io/fs"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"
)

// nobody is the user a confined command runs as.
const nobody = 65534

// Unprivileged makes cmd, which runs in its folder cmd.Dir (one of the
// test's temporary folders), unable to change what the machine owns: when
// the test runs as root, cmd runs as the user nobody, and its folder, with
// everything in it, is given to nobody (and the folders above it, up to
// the test's own, opened: OpenToOthers). For a command the test did not
// write itself — a fuzzer's input run for real — which, as root, could
// otherwise change anything: the mode of /tmp, say. Not as root, the
// command runs as the user, who cannot change the machine's folders
// either.
func Unprivileged(t testing.TB, cmd *exec.Cmd) {
	t.Helper()
	if os.Geteuid() != 0 {
		return
	}
	if cmd.Dir == "" {
		t.Fatal("Unprivileged: the command has no folder of its own (cmd.Dir)")
	}
	OpenToOthers(t, cmd.Dir)
	err := filepath.WalkDir(cmd.Dir, func(p string, _ fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		return os.Lchown(p, nobody, nobody)
	})
	if err != nil {
		t.Fatal(err)
	}
	if cmd.SysProcAttr == nil {
		cmd.SysProcAttr = &syscall.SysProcAttr{}
	}
	cmd.SysProcAttr.Credential = &syscall.Credential{Uid: nobody, Gid: nobody}
}
