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

// threadRules are the calls that signal one thread, and which of their
// arguments names it: the filter refuses them aimed at the helper's
// confined thread (see installSeccomp).
var threadRules = []struct {
	nr  uintptr
	arg uint32
}{
	{unix.SYS_TKILL, 0},             // tkill(tid, sig)
	{unix.SYS_TGKILL, 1},            // tgkill(tgid, tid, sig)
	{unix.SYS_RT_TGSIGQUEUEINFO, 1}, // rt_tgsigqueueinfo(tgid, tid, sig, info)
	{unix.SYS_PIDFD_OPEN, 0},        // pidfd_open(tid, PIDFD_THREAD), then pidfd_send_signal
}

// seccompProgram assembles the filter: a system call of another
// architecture (i386's socketcall, x32) kills the process; a listed call
// fails with its errno, and a thread rule's call aimed at the thread tid
// with EPERM; everything else is allowed.
func seccompProgram(tid uint32) ([]unix.SockFilter, error) {
	const (
		offNr   = 0 // struct seccomp_data
		offArch = 4
		// offArgs is args[0]; each is 8 bytes, and its low half (a pid_t,
		// as the kernel reads it) comes first on the little-endian amd64
		// and arm64, the architectures with a filter.
		offArgs = 16
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
	for _, r := range threadRules {
		prog = append(prog,
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: uint32(r.nr), SkipFalse: 3},
			bpf.LoadAbsolute{Off: offArgs + 8*r.arg, Size: 4},
			bpf.JumpIf{Cond: bpf.JumpEqual, Val: tid, SkipFalse: 1},
			bpf.RetConstant{Val: unix.SECCOMP_RET_ERRNO | uint32(syscall.EPERM)},
			bpf.LoadAbsolute{Off: offNr, Size: 4})
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
// must be set on it already); the children it starts inherit it. The
// calling thread is the helper's one confined thread: signals scoped by
// Landlock reach it — and a SIGKILL to one thread ends the helper, whose
// sweep then never comes — but no other of the helper's (the process as
// a whole is signalled through its leader, which is not confined: see
// offLeader), so the filter refuses the calls that aim at it alone.
func installSeccomp() error {
	if seccompArch == 0 {
		return nil
	}
	filter, err := seccompProgram(uint32(unix.Gettid()))
	if err != nil {
		return err
	}
	prog := unix.SockFprog{Len: uint16(len(filter)), Filter: &filter[0]}
	if err := unix.Prctl(unix.PR_SET_SECCOMP, unix.SECCOMP_MODE_FILTER, uintptr(unsafe.Pointer(&prog)), 0, 0); err != nil {
		return fmt.Errorf("loading the seccomp filter: %w", err)
	}
	return nil
}
