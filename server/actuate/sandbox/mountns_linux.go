//go:build linux

package sandbox

import (
	"errors"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"syscall"

	"golang.org/x/sys/unix"
)

// Landlock only grants, and a right on a folder holds for everything
// below it: a folder that holds a protected entry at any depth (a
// repository's top with its .git) can get no right to make entries. Where
// the kernel allows it, the helper therefore runs in its own mount
// namespace (and user namespace, when it is not root), and before Landlock
// binds every protected entry of the roots onto itself read-only (a .git
// folder whole: git's own writes need its top, which the fallback never
// lets a command make entries in either), so that the folders above them can be granted the ordinary write rights:
// a write into a protected entry fails with EROFS, and its removal or
// rename with EBUSY (a mount point), in the kernel. A Landlock-confined
// process can change no mount, and the command has no capability.

// nsAttr is how a helper is started in its own mount namespace: as root
// that namespace alone; otherwise in a user namespace too, mapping the
// user to itself (files keep their owner, and the command is not "root"
// there), with setgroups denied, and CAP_SYS_ADMIN over that namespace
// kept through the helper's execve as an ambient capability (a user that
// is not root there loses every capability at execve otherwise) — for
// the mounts alone: confine drops it, ambient and all, before Landlock.
func nsAttr() *syscall.SysProcAttr {
	attr := &syscall.SysProcAttr{Setpgid: true, Cloneflags: syscall.CLONE_NEWNS}
	if uid := os.Geteuid(); uid != 0 {
		gid := os.Getegid()
		attr.Cloneflags |= syscall.CLONE_NEWUSER
		attr.UidMappings = []syscall.SysProcIDMap{{ContainerID: uid, HostID: uid, Size: 1}}
		attr.GidMappings = []syscall.SysProcIDMap{{ContainerID: gid, HostID: gid, Size: 1}}
		attr.GidMappingsEnableSetgroups = false
		attr.AmbientCaps = []uintptr{unix.CAP_SYS_ADMIN}
	}
	return attr
}

// probeMountNamespace starts the helper in a namespace (nsAttr) to bind a
// fresh folder read-only onto itself and see a write in it refused; it
// returns "" when that works, else why not. Ubuntu's AppArmor, a sysctl
// or a container's seccomp profile may refuse any step.
func probeMountNamespace() string {
	if !wired.Load() {
		return "this program cannot start the sandbox's helper"
	}
	dir, err := os.MkdirTemp("", "pp-lsp-mountns-")
	if err != nil {
		return "no temporary folder to try it in: " + err.Error()
	}
	defer os.RemoveAll(dir)
	server, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil {
		return "this program's mount namespace is unknown: " + err.Error()
	}
	cmd := exec.Command("/proc/self/exe", HelperArg, nsProbeArg, dir, server)
	cmd.Args[0] = "pp-lsp-sandbox"
	cmd.Env, cmd.Dir = helperEnv(), "/"
	cmd.SysProcAttr = nsAttr()
	out, err := cmd.CombinedOutput()
	if err != nil {
		if len(out) > 0 {
			return string(trimLine(out))
		}
		return "the kernel refused the namespace: " + unwrapExec(err).Error()
	}
	return ""
}

func trimLine(b []byte) []byte {
	for len(b) > 0 && (b[len(b)-1] == '\n' || b[len(b)-1] == ' ') {
		b = b[:len(b)-1]
	}
	return b
}

// nsProbeMain is the helper started by probeMountNamespace.
func nsProbeMain(dir, serverNS string) int {
	var st unix.Stat_t
	if err := unix.Lstat(dir, &st); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitSetup
	}
	if err := bindEntries([]mountEntry{{Path: dir, Dev: uint64(st.Dev), Ino: st.Ino}}, serverNS); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return exitSetup
	}
	err := os.WriteFile(filepath.Join(dir, "x"), nil, 0o600)
	if !errors.Is(err, unix.EROFS) {
		fmt.Fprintf(os.Stderr, "a write below a read-only bind mount was not refused (%v)\n", err)
		return exitSetup
	}
	return 0
}

// bindEntries makes every mount of this (new) namespace private, then
// binds each entry onto itself read-only, parents first.
// Each path is opened through no symlink (openat2), after the mounts
// made before it, and must still be the file the server found.
func bindEntries(entries []mountEntry, serverNS string) error {
	// Never in the server's own namespace: a helper started without one
	// would change the system's mounts.
	own, err := os.Readlink("/proc/self/ns/mnt")
	if err != nil || serverNS == "" || own == serverNS {
		return errors.New("the sandbox's helper is not in a mount namespace of its own")
	}
	if err := unix.Mount("", "/", "", unix.MS_REC|unix.MS_PRIVATE, ""); err != nil {
		return fmt.Errorf("making the sandbox's mounts private: %w", err)
	}
	entries = slices.Clone(entries)
	slices.SortFunc(entries, func(a, b mountEntry) int {
		if a.Path < b.Path {
			return -1
		}
		if a.Path > b.Path {
			return 1
		}
		return 0
	})
	for _, e := range entries {
		if err := bindEntry(e); err != nil {
			return fmt.Errorf("keeping %s unwritable: %w", e.Path, err)
		}
	}
	return nil
}

// openEntry opens path with O_PATH through no symlink and checks it is
// the entry e names (a folder or a regular file).
func openEntry(e mountEntry) (int, error) {
	fd, err := unix.Openat2(unix.AT_FDCWD, e.Path, &unix.OpenHow{
		Flags:   unix.O_PATH | unix.O_NOFOLLOW | unix.O_CLOEXEC,
		Resolve: unix.RESOLVE_NO_SYMLINKS | unix.RESOLVE_NO_MAGICLINKS,
	})
	if err != nil {
		return -1, err
	}
	var st unix.Stat_t
	if err := unix.Fstat(fd, &st); err != nil {
		unix.Close(fd)
		return -1, err
	}
	t := st.Mode & unix.S_IFMT
	if uint64(st.Dev) != e.Dev || st.Ino != e.Ino || (t != unix.S_IFDIR && t != unix.S_IFREG) {
		unix.Close(fd)
		return -1, errors.New("it was replaced since the roots were walked")
	}
	return fd, nil
}

// bindEntry binds one entry onto itself through its descriptor (the
// mount lands on the very file checked, whatever is renamed meanwhile),
// then remounts the new mount read-only, nosuid and nodev, keeping the
// flags the mount it came from holds (a user namespace may not clear
// them).
func bindEntry(e mountEntry) error {
	fd, err := openEntry(e)
	if err != nil {
		return err
	}
	p := "/proc/self/fd/" + strconv.Itoa(fd)
	err = unix.Mount(p, p, "", unix.MS_BIND, "")
	unix.Close(fd)
	if err != nil {
		return fmt.Errorf("binding it: %w", err)
	}
	// The path now leads to the new mount.
	fd, err = openEntry(e)
	if err != nil {
		return err
	}
	defer unix.Close(fd)
	var sf unix.Statfs_t
	if err := unix.Fstatfs(fd, &sf); err != nil {
		return err
	}
	keep := uintptr(unix.MS_NOEXEC | unix.MS_NOATIME | unix.MS_NODIRATIME | unix.MS_RELATIME)
	flags := uintptr(sf.Flags)&keep | unix.MS_REMOUNT | unix.MS_BIND | unix.MS_RDONLY | unix.MS_NOSUID | unix.MS_NODEV
	if sf.Flags&(unix.ST_NOATIME|unix.ST_RELATIME) == 0 {
		flags |= unix.MS_STRICTATIME
	}
	p = "/proc/self/fd/" + strconv.Itoa(fd)
	if err := unix.Mount("", p, "", flags, ""); err != nil {
		return fmt.Errorf("making it read-only: %w", err)
	}
	return nil
}
