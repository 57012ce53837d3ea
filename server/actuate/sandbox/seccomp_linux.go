//go:build linux

package sandbox

import (
	"fmt"
	"syscall"
	"unsafe"

	"golang.org/x/net/bpf"
	"golang.org/x/sys/unix"
)

// seccompRule is one system call the filter refuses, and why.
type seccompRule struct {
	nr    uintptr
	errno syscall.Errno
	why   string
}

// seccompRules are the calls a confined command may not make: Landlock
// (before ABI 9/10) does not see UDP, UNIX sockets or io_uring, nor ever
// the kernel keyring. The numbers are this architecture's (x/sys/unix).
var seccompRules = []seccompRule{
	// socket(7): no socket of any family — bash's /dev/udp, a pathname
	// UNIX socket (D-Bus, systemd --user, docker.sock), netlink. A
	// socketpair(2) reaches nothing outside and stays allowed.
	{unix.SYS_SOCKET, syscall.EACCES, "sockets reach beyond the sandbox"},
	// io_uring(7) opens and connects sockets without socket(2)
	// (IORING_OP_SOCKET, IORING_OP_CONNECT).
	{unix.SYS_IO_URING_SETUP, syscall.ENOSYS, "io_uring bypasses the socket rule"},
	{unix.SYS_IO_URING_ENTER, syscall.ENOSYS, "io_uring bypasses the socket rule"},
	{unix.SYS_IO_URING_REGISTER, syscall.ENOSYS, "io_uring bypasses the socket rule"},
	// keyrings(7): the session keyring a command inherits may hold the
	// user's secrets.
	{unix.SYS_KEYCTL, syscall.EPERM, "the kernel keyring holds secrets"},
	{unix.SYS_ADD_KEY, syscall.EPERM, "the kernel keyring holds secrets"},
	{unix.SYS_REQUEST_KEY, syscall.EPERM, "the kernel keyring holds secrets"},
}

// seccompProgram assembles the filter: a system call of another
// architecture (i386's socketcall, x32) kills the process; a listed call
// fails with its errno; everything else is allowed.
func seccompProgram() ([]unix.SockFilter, error) {
	const (
		offNr   = 0 // struct seccomp_data
		offArch = 4
	)
	prog := []bpf.Instruction{
		bpf.LoadAbsolute{Off: offArch, Size: 4},
		bpf.JumpIf{Cond: bpf.JumpEqual, Val: seccompArch, SkipTrue: 1},
		bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS},
		bpf.LoadAbsolute{Off: offNr, Size: 4},
	}
	if seccompX32 != 0 {
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpGreaterOrEqual, Val: seccompX32, SkipFalse: 1},
			bpf.RetConstant{Val: unix.SECCOMP_RET_KILL_PROCESS})
	}
	for _, r := range seccompRules {
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(r.nr), SkipFalse: 1},
			bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(r.errno)})
	}
	prog = append(prog, bpf.RetConstant{Val: unix.SECCOMP_RET_ALLOW})
	raw, err := bpf.Assemble(prog)
	if err != nil {
		return nil, fmt.Errorf("assembling the seccomp filter: %w", err)
	}
	out := make([]unix.SockFilter, len(raw))
	for i, r := range raw {
		out[i] = unix.SockFilter{Code: r.Op, Jt: r.Jt, Jf: r.Jf, K: r.K}
	}
	return out, nil
}

// installSeccomp loads the filter on the calling thread (no_new_privs
// must be set on it already); the children it starts inherit it.
func installSeccomp() error {
	if seccompArch == 0 {
		return nil
	}
	filter, err := seccompProgram()
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("loading the seccomp filter: %w", err)
	}
	return nil
}
