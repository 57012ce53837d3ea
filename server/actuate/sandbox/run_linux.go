//go:build linux

package sandbox

import (
	"context"
	"encoding/binary"
	"encoding/json"
	"errors"
	"fmt"
	"os"
	"os/exec"
	"runtime"
	"strings"
	"sync"
	"syscall"
	"time"

	"golang.org/x/sys/unix"
)

// processBound is how the number of a command's processes is held.
type processBound struct {
	cgroups *pidsCgroups
	uid     int
	// memory is where a memory cgroup per command is made (its parent
	// "": none to use — then each process's RLIMIT_DATA is the only
	// bound). Where it is the pids cgroups' own cgroup-v2 folder, the one
	// cgroup per command bounds both (sameDir).
	memory  *pidsCgroups
	sameDir bool
}

func newProcessBound() processBound {
	p := processBound{cgroups: findPidsCgroup(), uid: os.Getuid(), memory: findMemoryCgroup()}
	p.sameDir = p.memory.parent != "" && p.memory.v2 && p.cgroups.v2 && p.memory.parent == p.cgroups.parent
	if p.memory.v2 && p.cgroups.v2 && p.cgroups.parent != "" && !p.sameDir {
		// A process is in one cgroup of a v2 hierarchy: the pids one wins.
		p.memory = &pidsCgroups{}
	}
	return p
}

func (p processBound) describe() string {
	mem := "memory bounded per process only (RLIMIT_DATA; no memory cgroup to use)"
	if p.memory.parent != "" {
		mem = "memory bounded in total by a memory cgroup"
	}
	switch {
	case p.cgroups.parent != "":
		return "processes bounded by a pids cgroup, " + mem
	case p.uid != 0:
		return "processes bounded by RLIMIT_NPROC, " + mem
	}
	return "the process count is not bounded (running as root, with no pids cgroup to use), " + mem
}

// helperProc is a started helper waiting for its command.
type helperProc struct {
	cmd    *exec.Cmd
	conn   int    // our end of its socket
	cgroup string // its pids cgroup ("": none)
	procs  *pidsCgroups
	// memCgroup is its memory cgroup when that is another folder ("":
	// none, or the pids cgroup bounds memory too).
	memCgroup string
	memory    *pidsCgroups
	// nproc is the RLIMIT_NPROC its command gets where there is no
	// cgroup (0: none), counted when it was started, off the action's path.
	nproc uint64
	// ns: it runs in a mount namespace of its own (nsAttr).
	ns bool
}

// spawnHelper starts a helper: this very program again (/proc/self/exe,
// even if its file was replaced since), with HelperArg, and its own pids
// cgroup when there is one to make.
func (s *Sandbox) spawnHelper() (*helperProc, error) {
	fds, err := unix.Socketpair(unix.AF_UNIX, unix.SOCK_STREAM|unix.SOCK_CLOEXEC, 0)
	if err != nil {
		return nil, fmt.Errorf("the sandbox helper's socket: %w", err)
	}
	theirs := os.NewFile(uintptr(fds[1]), "sandbox-control")
	defer theirs.Close()
	h := &helperProc{conn: fds[0], procs: s.procs.cgroups, memory: s.procs.memory}
	args := []string{HelperArg}
	lim := s.cfg.Limits
	if s.procs.cgroups.parent != "" {
		// The one bound on processes root has: no cgroup, no command.
		files := pidsFiles(lim.Processes)
		if s.procs.sameDir {
			files = append(files, memoryFiles(true, lim.MemoryTotal)...)
		}
		cg, err := s.procs.cgroups.make(files)
		if err != nil {
			unix.Close(fds[0])
			return nil, fmt.Errorf("the sandbox cannot bound the command's processes: %w", err)
		}
		h.cgroup = cg
		args = append(args, cg)
	}
	if s.procs.memory.parent != "" && !s.procs.sameDir {
		// A memory cgroup found is used, or no command runs.
		cg, err := s.procs.memory.make(memoryFiles(s.procs.memory.v2, lim.MemoryTotal))
		if err != nil {
			unix.Close(fds[0])
			h.procs.remove(h.cgroup)
			return nil, fmt.Errorf("the sandbox cannot bound the command's memory: %w", err)
		}
		h.memCgroup = cg
		args = append(args, cg)
	}
	if s.procs.cgroups.parent == "" && s.procs.uid != 0 {
		// Without a pids cgroup, RLIMIT_NPROC above what the user runs
		// now (it never binds root, which has no other bound then).
		h.nproc = uint64(userTasks(s.procs.uid) + s.cfg.Limits.Processes)
		if s.ns().on {
			// In its own user namespace the helper's tasks are counted
			// apart from the user's others (RLIMIT_NPROC counts per
			// namespace): the limit is the command's alone.
			h.nproc = uint64(s.cfg.Limits.Processes)
		}
	}
	h.cmd = exec.Command("/proc/self/exe", args...)
	h.cmd.Args[0] = "pp-lsp-sandbox"
	h.cmd.Env, h.cmd.Dir = helperEnv(), "/"
	h.cmd.ExtraFiles = []*os.File{theirs}
	h.cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
	if s.ns().on {
		h.cmd.SysProcAttr, h.ns = nsAttr(), true
	}
	if err := h.cmd.Start(); err != nil {
		unix.Close(fds[0])
		h.procs.remove(h.cgroup)
		h.memory.remove(h.memCgroup)
		return nil, fmt.Errorf("the sandbox helper could not start: %w", err)
	}
	return h, nil
}

// discard ends a helper that will get no command.
func (h *helperProc) discard() {
	unix.Close(h.conn)
	h.wait()
}

// wait waits for the helper to end, then kills what is left in its
// cgroup and removes it.
func (h *helperProc) wait() {
	h.cmd.Wait()
	h.procs.remove(h.cgroup)
	h.memory.remove(h.memCgroup)
}

// takeHelper returns the helper started ahead, or a new one, and starts
// the next one ahead.
func (s *Sandbox) takeHelper() (*helperProc, error) {
	s.mu.Lock()
	h := s.warm
	s.warm = nil
	start := !s.warming && !s.closed
	s.warming = s.warming || start
	s.mu.Unlock()
	if start {
		go s.prewarm()
	}
	if h != nil {
		return h, nil
	}
	return s.spawnHelper()
}

// prewarm starts a helper for the next command, unless one waits already;
// one at a time, however fast commands come.
func (s *Sandbox) prewarm() {
	h, err := s.spawnHelper()
	s.mu.Lock()
	s.warming = false
	if err == nil && s.warm == nil && !s.closed {
		s.warm, h = h, nil
	}
	s.mu.Unlock()
	if h != nil {
		h.discard()
	}
}

// runHelper runs the command through a helper.
func (s *Sandbox) runHelper(ctx context.Context, c Command, argv, env []string, tmp string) (int, error) {
	lim := s.cfg.Limits
	spec := helperSpec{
		Argv: argv, Env: env, Dir: c.Dir, Seccomp: s.status.Seccomp,
		CPUSeconds: uint64((lim.CPU + time.Second - 1) / time.Second), FileSize: uint64(lim.FileSize),
		Data: uint64(lim.Memory),
	}
	// The walk for the protected names also watches every folder it
	// passes for new ones while the command runs.
	nw := newNamedWatch()
	named, err := namedPlaces(s.roots, nw.add)
	if err != nil {
		nw.stop()
		return -1, fmt.Errorf("the sandbox could not be prepared: %w", err)
	}
	var watched []string
	watchOnce := sync.OnceFunc(func() { watched = nw.stop() })
	defer watchOnce()
	if nw == nil || nw.full {
		s.log.Warn("the sandbox cannot watch every folder of the roots (inotify): a protected name a command makes stays until it has ended")
	}
	var pass []*os.File
	if s.status.Available() {
		var landlockNamed []namedPlace
		if s.ns().on {
			spec.Mounts, landlockNamed = planMounts(named)
			if spec.ServerNS, err = os.Readlink("/proc/self/ns/mnt"); err != nil {
				return -1, fmt.Errorf("the sandbox could not be prepared: %w", err)
			}
		} else {
			landlockNamed = named
		}
		rs, err := s.ruleset(tmp, landlockNamed)
		if err != nil {
			return -1, fmt.Errorf("the sandbox could not be prepared: %w", err)
		}
		f := rs.file()
		defer f.Close()
		pass = append(pass, f)
		spec.Landlock, spec.Sweep = true, s.status.ABI >= 6
	}
	std, err := newStdio(c)
	if err != nil {
		return -1, err
	}
	defer std.close()
	pass = append([]*os.File{std.child[0], std.child[1], std.child[2]}, pass...)

	h, err := s.takeHelper()
	if err != nil {
		return -1, err
	}
	spec.NProc = h.nproc
	if len(spec.Mounts) > 0 && !h.ns {
		h.discard()
		return -1, errors.New("the sandbox could not be prepared: its helper has no mount namespace")
	}
	if err := h.send(spec, pass); err != nil {
		// The helper started ahead may have died meanwhile: one more try
		// with a fresh one.
		h.discard()
		if h, err = s.spawnHelper(); err != nil {
			return -1, err
		}
		spec.NProc = h.nproc
		if len(spec.Mounts) > 0 && !h.ns {
			h.discard()
			return -1, errors.New("the sandbox could not be prepared: its helper has no mount namespace")
		}
		if err := h.send(spec, pass); err != nil {
			h.discard()
			return -1, err
		}
	}
	std.started()
	nw.start()
	ctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	watch := newDiskWatch(append([]string{tmp}, s.roots...), lim.Disk, lim.NewFiles)
	stopped := make(chan struct{})
	go watch.run(stopped, cancel)
	go func() {
		select {
		case <-ctx.Done():
			h.cmd.Process.Signal(syscall.SIGTERM)
			select {
			case <-stopped:
			case <-time.After(helperWait):
				h.cmd.Process.Kill()
			}
		case <-stopped:
		}
	}()
	msg := h.answer()
	h.wait()
	close(stopped)
	std.wait(helperWait)
	code := h.cmd.ProcessState.ExitCode()
	// Everything the command started is gone (the helper's sweep, the
	// cgroup): a protected name it made anew is moved aside.
	watchOnce()
	moved, merr := newNamed(s.roots, named)
	moved = append(watched, moved...)
	if merr == nil && len(moved) > 0 {
		merr = fmt.Errorf("the command made %s, which runs code or steers tools when the user next works there; the sandbox moved it aside", strings.Join(moved, ", "))
	}
	if ctx.Err() != nil {
		return code, errors.Join(fmt.Errorf("the command was stopped: %w", context.Cause(ctx)), merr)
	}
	if !strings.HasPrefix(msg, "ok ") {
		why := strings.TrimPrefix(msg, "error ")
		if why == "" {
			why = fmt.Sprintf("the helper ended with status %d before starting it", code)
		}
		return -1, errors.Join(fmt.Errorf("the sandbox could not start the command: %s", why), merr)
	}
	if merr != nil {
		return code, merr
	}
	return code, nil
}

// send gives the helper its command.
func (h *helperProc) send(spec helperSpec, files []*os.File) error {
	js, err := json.Marshal(spec)
	if err != nil {
		return fmt.Errorf("sandbox: %w", err)
	}
	msg := binary.BigEndian.AppendUint32(make([]byte, 0, 4+len(js)), uint32(len(js)))
	msg = append(msg, js...)
	fds := make([]int, len(files))
	for i, f := range files {
		fds[i] = int(f.Fd())
	}
	first := min(len(msg), 32<<10)
	if err := unix.Sendmsg(h.conn, msg[:first], unix.UnixRights(fds...), nil, unix.MSG_NOSIGNAL); err != nil {
		return fmt.Errorf("giving the sandbox helper its command: %w", err)
	}
	for rest := msg[first:]; len(rest) > 0; {
		n, err := unix.SendmsgN(h.conn, rest, nil, nil, unix.MSG_NOSIGNAL)
		if err != nil {
			return fmt.Errorf("giving the sandbox helper its command: %w", err)
		}
		rest = rest[n:]
	}
	runtime.KeepAlive(files)
	return nil
}

// answer reads the helper's answer ("ok PID" or "error …") to its end.
func (h *helperProc) answer() string {
	defer unix.Close(h.conn)
	var out []byte
	buf := make([]byte, 512)
	for len(out) < 4096 {
		n, err := unix.Read(h.conn, buf)
		if n <= 0 || err != nil {
			break
		}
		out = append(out, buf[:n]...)
	}
	return string(out)
}

// maxMounts bounds the entries a run binds (each is a mount of the
// namespace, and the kernel's fs.mount-max, 100,000 by default, bounds a
// namespace's); past it the rest are left to Landlock, as without one.
const maxMounts = 10_000

// planMounts splits the protected entries found in the roots: those the
// helper binds read-only onto themselves in its mount namespace (a folder,
// or a regular file with one link), and those left to Landlock alone —
// a symlink, or a file with another hard link (a mount keeps only the
// path it covers unwritable; Landlock's rules also refuse the other names
// it meets, as without a namespace).
func planMounts(named []namedPlace) ([]mountEntry, []namedPlace) {
	var mounts []mountEntry
	var rest []namedPlace
	for _, n := range named {
		var st unix.Stat_t
		if err := unix.Lstat(n.path, &st); err == nil {
			t := st.Mode & unix.S_IFMT
			if len(mounts) < maxMounts && (t == unix.S_IFDIR || (t == unix.S_IFREG && st.Nlink == 1)) {
				mounts = append(mounts, mountEntry{Path: n.path, Dev: uint64(st.Dev), Ino: st.Ino})
				continue
			}
		}
		rest = append(rest, n)
	}
	return mounts, rest
}

// ruleset builds the Landlock rules of one run (see the package doc).
func (s *Sandbox) ruleset(tmp string, named []namedPlace) (*ruleset, error) {
	protected := s.cfg.Protected
	for _, p := range protected {
		if err := singleLink(p); err != nil {
			return nil, err
		}
	}
	hideWrite := append(append([]string(nil), protected...), dotEntries(s.cfg.Home, s.roots)...)
	for _, n := range named {
		hideWrite = append(hideWrite, n.hide...)
	}
	hideRead := append(append([]string(nil), protected...), dotEntries(s.cfg.Home, s.roots)...)
	if s.cfg.Private != nil {
		for _, p := range s.cfg.Private() {
			hideRead = append(hideRead, privateVariants(p)...)
		}
	}
	rs, err := newRuleset(s.status.ABI)
	if err != nil {
		return nil, err
	}
	ok := false
	defer func() {
		if !ok {
			syscall.Close(rs.fd)
		}
	}()
	for _, p := range systemReads {
		if err := rs.addPath(p, rightsReadDir|rightsReadFile); err != nil {
			return nil, err
		}
	}
	for _, pattern := range etcReads {
		matches, _ := globEtc(pattern)
		for _, p := range matches {
			if err := rs.addPath(p, rightsReadDir|rightsReadFile); err != nil {
				return nil, err
			}
		}
	}
	for _, p := range devices {
		if err := rs.addPath(p, rightsReadFile|rightsWriteFile); err != nil {
			return nil, err
		}
	}
	if err := rs.addPath(tmp, rightsReadDir|rightsReadFile|rightsWriteDir); err != nil {
		return nil, err
	}
	hr, hw := newHidden(hideRead), newHidden(hideWrite)
	for _, r := range s.roots {
		if err := rs.grantRoot(r, hr, hw); err != nil {
			return nil, err
		}
	}
	ok = true
	return rs, nil
}

// singleLink refuses a protected file with another hard link: Landlock
// follows the path used, and the other name may lie where writing is
// allowed.
func singleLink(p string) error {
	fi, err := os.Lstat(p)
	if err != nil {
		return nil
	}
	if st, ok := fi.Sys().(*syscall.Stat_t); ok && fi.Mode().IsRegular() && st.Nlink > 1 {
		return fmt.Errorf("%s has %d hard links, and the sandbox cannot keep the other names unwritable (remove the extra links)", p, st.Nlink)
	}
	return nil
}
