//go:build linux

package sandbox

import (
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"os/signal"
	"path/filepath"
	"runtime"
	"strconv"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
	"golang.org/x/sys/unix"
)

// helperMain waits for its command, confines itself and runs the command
// as its child, then waits for it, sweeps what it left and exits with its
// status.
//
// Every restriction is made on one locked OS thread, not the process's
// leader (offLeader), which keeps it to the end: Landlock, seccomp,
// no_new_privs and the capabilities are per thread, and the command is
// forked from it, so it inherits them all. The helper's other threads only
// run the Go runtime.
func helperMain(cgroups []string) int {
	return offLeader(func() int { return confinedMain(cgroups) })
}

// offLeader runs f on a locked OS thread that is not the thread group's
// leader, and returns what it returned. Landlock's scoped signals judge
// the thread a signal is aimed at, and a signal to the process (kill,
// kill(-1), a process group) is aimed at its leader: the leader stays
// unconfined, so the command, in the confined thread's domain, cannot
// kill its helper that way and outlive its sweep (the seccomp filter
// refuses the calls that aim at the confined thread alone).
func offLeader(f func() int) int {
	done := make(chan int)
	go func() {
		runtime.LockOSThread()
		if unix.Gettid() == unix.Getpid() {
			// This goroutine keeps the leader while another thread runs f.
			done <- offLeader(f)
			return
		}
		done <- f()
	}()
	return <-done
}

// confinedMain is helperMain on its own thread.
func confinedMain(cgroups []string) int {
	closeInherited()
	// Asked to stop, the helper sweeps the command's processes first.
	stop := make(chan os.Signal, 1)
	signal.Notify(stop, syscall.SIGTERM, syscall.SIGINT, syscall.SIGHUP)
	var joinErr error
	for _, cg := range cgroups {
		if err := joinCgroup(cg); err != nil {
			joinErr = errors.Join(joinErr, fmt.Errorf("joining the cgroup %s: %w", cg, err))
		}
	}
	spec, files, err := receiveSpec(controlFD)
	if err == nil {
		err = joinErr
	}
	if errors.Is(err, errNoCommand) && joinErr == nil {
		// The server ended while this helper waited: leave the cgroups
		// and remove them, as the server would have.
		for _, cg := range cgroups {
			if joinCgroup(filepath.Dir(cg)) == nil {
				os.Remove(cg)
			}
		}
	}
	if err != nil {
		if !errors.Is(err, errNoCommand) {
			reply("error " + err.Error())
		}
		return exitSetup
	}
	fail := func(err error) int {
		reply("error " + err.Error())
		return exitSetup
	}
	if len(spec.Mounts) > 0 {
		if err := bindEntries(spec.Mounts, spec.ServerNS); err != nil {
			return fail(err)
		}
	}
	ruleset := -1
	if spec.Landlock {
		ruleset = int(files[3].Fd())
	}
	if err := confine(spec, ruleset); err != nil {
		return fail(err)
	}
	if ruleset >= 0 {
		files[3].Close()
	}
	// The command's name is looked up on its own PATH.
	path, err := lookPath(spec.Argv[0], spec.Env)
	if err != nil {
		return fail(err)
	}
	cmd := exec.Command(path, spec.Argv[1:]...)
	cmd.Args[0] = spec.Argv[0]
	cmd.Dir, cmd.Env = spec.Dir, spec.Env
	cmd.Stdin, cmd.Stdout, cmd.Stderr = files[0], files[1], files[2]
	// Its own process group (swept when signals are not scoped), and
	// killed with the helper.
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true, Pdeathsig: syscall.SIGKILL}
	if err := cmd.Start(); err != nil {
		return fail(fmt.Errorf("%s could not start: %w", filepath.Base(spec.Argv[0]), unwrapExec(err)))
	}
	for _, f := range files[:3] {
		f.Close()
	}
	reply(fmt.Sprintf("ok %d", cmd.Process.Pid))
	done := make(chan error, 1)
	go func() { done <- cmd.Wait() }()
	select {
	case <-done:
		sweep(spec, cmd.Process.Pid)
	case <-stop:
		sweep(spec, cmd.Process.Pid)
		<-done
	}
	if cmd.ProcessState == nil {
		return exitSetup
	}
	return exitStatus(cmd.ProcessState)
}

// closeInherited marks every descriptor from controlFD on close-on-exec:
// one the server inherited without that flag (from the editor that
// started it, a shell's exec 3>file) passes through every exec, and
// Landlock governs only what is opened after it — a command would write,
// read or connect through it wherever it leads. The command gets only its
// three standard descriptors.
func closeInherited() {
	if unix.CloseRange(controlFD, ^uint(0), unix.CLOSE_RANGE_CLOEXEC) == nil {
		return
	}
	// Before Linux 5.11: each open descriptor, as /proc lists them.
	names, _ := readNames("/proc/self/fd")
	for _, n := range names {
		if fd, err := strconv.Atoi(n); err == nil && fd >= controlFD {
			syscall.CloseOnExec(fd)
		}
	}
}

// joinCgroup moves this process into the cgroup folder dir. It only ever
// writes an existing cgroup.procs (whatever the argument names, it
// creates no file).
func joinCgroup(dir string) error {
	f, err := os.OpenFile(filepath.Join(dir, "cgroup.procs"), os.O_WRONLY, 0)
	if err != nil {
		return err
	}
	_, err = f.WriteString("0")
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	return err
}

// errNoCommand is the server closing the socket without sending a
// command (it ended while this helper waited).
var errNoCommand = errors.New("no command came")

// receiveSpec reads the command from the socket: the descriptors and the
// spec.
func receiveSpec(fd int) (helperSpec, []*os.File, error) {
	var spec helperSpec
	buf := make([]byte, 64<<10)
	oob := make([]byte, unix.CmsgSpace(4*4))
	n, oobn, _, _, err := unix.Recvmsg(fd, buf, oob, unix.MSG_CMSG_CLOEXEC)
	if err != nil {
		return spec, nil, fmt.Errorf("reading the command: %w", err)
	}
	if n == 0 {
		return spec, nil, errNoCommand
	}
	var files []*os.File
	msgs, err := unix.ParseSocketControlMessage(oob[:oobn])
	if err != nil {
		return spec, nil, fmt.Errorf("reading the command's descriptors: %w", err)
	}
	for i := range msgs {
		fds, err := unix.ParseUnixRights(&msgs[i])
		if err != nil {
			return spec, nil, fmt.Errorf("reading the command's descriptors: %w", err)
		}
		for _, d := range fds {
			files = append(files, os.NewFile(uintptr(d), fmt.Sprintf("fd%d", d)))
		}
	}
	data := buf[:n]
	if len(data) < 4 {
		return spec, nil, errors.New("the command's length is cut off")
	}
	size := int(binary.BigEndian.Uint32(data))
	if size > maxSpec {
		return spec, nil, fmt.Errorf("the command is %d bytes, more than %d", size, maxSpec)
	}
	data = data[4:]
	for len(data) < size {
		more := make([]byte, min(size-len(data), 1<<20))
		k, err := unix.Read(fd, more)
		if err != nil || k == 0 {
			return spec, nil, fmt.Errorf("the command is cut off after %d of %d bytes", len(data), size)
		}
		data = append(data, more[:k]...)
	}
	if err := json.Unmarshal(data[:size], &spec); err != nil || len(spec.Argv) == 0 {
		return spec, nil, fmt.Errorf("the command does not parse: %v", err)
	}
	want := 3
	if spec.Landlock {
		want = 4
	}
	if len(files) != want {
		return spec, nil, fmt.Errorf("%d descriptors came with the command, not %d", len(files), want)
	}
	return spec, files, nil
}

// reply answers the server on the socket and closes it.
func reply(msg string) {
	unix.Write(controlFD, []byte(msg))
	unix.Close(controlFD)
}

// confine applies the spec's restrictions to the calling thread (and the
// process's resource limits), in the order each needs: the limits while
// capabilities still allow them, then no_new_privs, the capabilities,
// Landlock and seccomp.
func confine(spec helperSpec, ruleset int) error {
	limit := func(res int, n uint64, slack uint64) error {
		if n == 0 {
			return nil
		}
		var cur unix.Rlimit
		if err := unix.Getrlimit(res, &cur); err != nil {
			return err
		}
		l := unix.Rlimit{Cur: min(n, cur.Max), Max: min(n+slack, cur.Max)}
		return unix.Setrlimit(res, &l)
	}
	if err := errors.Join(
		limit(unix.RLIMIT_CPU, spec.CPUSeconds, 2), // SIGXCPU at the soft limit, SIGKILL 2 s later
		limit(unix.RLIMIT_FSIZE, spec.FileSize, 0),
		limit(unix.RLIMIT_NPROC, spec.NProc, 0),
		limit(unix.RLIMIT_DATA, spec.Data, 0),
		unix.Setrlimit(unix.RLIMIT_CORE, &unix.Rlimit{}), // no core file lands in a root
	); err != nil {
		return fmt.Errorf("setting the resource limits: %w", err)
	}
	if err := unix.Prctl(unix.PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); err != nil {
		return fmt.Errorf("setting no_new_privs: %w", err)
	}
	// The helper's other threads are not confined (Landlock, seccomp and
	// the capabilities are per thread), and the command is its child, in
	// its Landlock domain: a process that is not dumpable can be traced
	// (ptrace, process_vm_writev, /proc/PID/mem) only with CAP_SYS_PTRACE,
	// which the command lacks, so it cannot reach into the helper's
	// memory to run code on them. What the command executes is dumpable
	// again (execve resets it): debugging its own children still works.
	if err := unix.Prctl(unix.PR_SET_DUMPABLE, 0, 0, 0, 0); err != nil {
		return fmt.Errorf("making the helper undumpable: %w", err)
	}
	if err := dropCapabilities(); err != nil {
		return err
	}
	if ruleset >= 0 {
		if err := llsys.LandlockRestrictSelf(ruleset, 0); err != nil {
			return fmt.Errorf("enforcing the Landlock ruleset: %w", err)
		}
	}
	if spec.Seccomp {
		if err := installSeccomp(); err != nil {
			return err
		}
	}
	return nil
}

// sweep kills what the command left running. With scoped signals, kill(-1)
// from this thread reaches exactly the processes of this sandbox — those
// that left the group with setsid included; otherwise the command's
// process group.
func sweep(spec helperSpec, pid int) {
	if spec.Landlock && spec.Sweep {
		unix.Kill(-1, syscall.SIGKILL)
		return
	}
	unix.Kill(-pid, syscall.SIGKILL)
}

// unwrapExec drops os/exec's repetition of the program name.
func unwrapExec(err error) error {
	var pe *os.PathError
	if errors.As(err, &pe) {
		return pe.Err
	}
	var ee *exec.Error
	if errors.As(err, &ee) {
		return ee.Err
	}
	return err
}
