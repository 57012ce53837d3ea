//go:build unix

package seal

import (
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"syscall"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestAGroupWithAnotherMemberIsOthers: a file or folder its group may
// write is written by others unless that group's one member is this user —
// a user-private group (umask 002) — as Debian's OpenSSH judges a
// group-writable authorized_keys. Being the user's primary group is not
// enough: another user may have it as theirs, or be listed in it. What the
// account files cannot tell is taken as others. Real files with real
// modes, judged against account files written for the case.
func TestAGroupWithAnotherMemberIsOthers(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "config.json")
	require.NoError(t, os.WriteFile(p, []byte("{}"), 0o600))
	fi, err := os.Stat(p)
	require.NoError(t, err)
	gid := fileGID(t, fi)
	const uid = 4242
	me := fmt.Sprintf("ada:x:%d:%d:Ada:/home/ada:/bin/sh\n", uid, gid)
	for _, tc := range []struct {
		name          string
		mode          os.FileMode
		passwd, group string
		others        bool
	}{
		{"its own private group", 0o664, me, fmt.Sprintf("ada:x:%d:\n", gid), false},
		{"its own group, listed as its member too", 0o664, me, fmt.Sprintf("ada:x:%d:ada\n", gid), false},
		{"a group it is the one listed member of", 0o664,
			fmt.Sprintf("ada:x:%d:7:Ada:/home/ada:/bin/sh\n", uid), fmt.Sprintf("writers:x:%d:ada\n", gid), false},
		{"not group-writable", 0o644, me + fmt.Sprintf("bob:x:4243:%d::/home/bob:/bin/sh\n", gid), fmt.Sprintf("ada:x:%d:bob\n", gid), false},
		{"its primary group, another user's primary group too", 0o664,
			me + fmt.Sprintf("bob:x:4243:%d::/home/bob:/bin/sh\n", gid), fmt.Sprintf("ada:x:%d:\n", gid), true},
		{"its primary group, another user listed in it", 0o664, me, fmt.Sprintf("ada:x:%d:ada,bob\n", gid), true},
		{"a group only another user is in", 0o664,
			fmt.Sprintf("ada:x:%d:7::/home/ada:/bin/sh\n", uid), fmt.Sprintf("staff:x:%d:bob\n", gid), true},
		{"a group the files do not list", 0o664, me, "other:x:1:\n", true},
		{"a group with no member at all", 0o664,
			fmt.Sprintf("ada:x:%d:7::/home/ada:/bin/sh\n", uid), fmt.Sprintf("empty:x:%d:\n", gid), true},
		{"entries kept elsewhere (NIS)", 0o664, me + "+::::::\n", fmt.Sprintf("ada:x:%d:\n", gid), true},
		{"writable by all", 0o666, me, fmt.Sprintf("ada:x:%d:\n", gid), true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			require.NoError(t, os.Chmod(p, tc.mode))
			fi, err := os.Stat(p)
			require.NoError(t, err)
			files := accountFiles{passwd: filepath.Join(t.TempDir(), "passwd"), group: filepath.Join(t.TempDir(), "group")}
			require.NoError(t, os.WriteFile(files.passwd, []byte(tc.passwd), 0o644))
			require.NoError(t, os.WriteFile(files.group, []byte(tc.group), 0o644))
			assert.Equal(t, tc.others, writableByOthers(fi, files, uid))
		})
	}
	t.Run("account files that cannot be read", func(t *testing.T) {
		require.NoError(t, os.Chmod(p, 0o664))
		fi, err := os.Stat(p)
		require.NoError(t, err)
		assert.True(t, writableByOthers(fi, accountFiles{passwd: filepath.Join(dir, "none"), group: filepath.Join(dir, "none")}, uid))
	})
}

// TestThePrimaryGroupIsNotEnough: a process whose primary group is
// nogroup — the group of nobody and of every daemon that runs as it —
// does not take a file nogroup may write for its own: other users can
// write it. (The rule before took any group-writable file of the user's
// primary group as safe.) The real account files of the machine, a child
// process with that primary group.
func TestThePrimaryGroupIsNotEnough(t *testing.T) {
	if os.Geteuid() != 0 {
		t.Skip("a process with another primary group needs root")
	}
	const nogroup = 65534
	p := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(p, []byte("{}"), 0o600))
	require.NoError(t, os.Chown(p, 0, nogroup))
	require.NoError(t, os.Chmod(p, 0o664))
	cmd := testenv.ChildCommand(t, "writable", nil, p)
	cmd.SysProcAttr = &syscall.SysProcAttr{Credential: &syscall.Credential{Uid: 0, Gid: nogroup, Groups: []uint32{}}}
	err := cmd.Run()
	var exit *exec.ExitError
	require.ErrorAs(t, err, &exit, "the child says the file is writable by others (exit 1)")
	assert.Equal(t, 1, exit.ExitCode())
}
