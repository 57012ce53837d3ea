package sandbox

import (
	"context"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"sync"
	"time"

	"pp-lsp/server/protect"
)

// Limits bound one command. Zero fields take the defaults.
type Limits struct {
	// CPU is the CPU time of each process (RLIMIT_CPU; default 60 s).
	CPU time.Duration
	// FileSize is the largest file a process may write (RLIMIT_FSIZE;
	// default 256 MiB).
	FileSize int64
	// Processes is how many tasks the command may have at once (a pids
	// cgroup, or RLIMIT_NPROC above the user's current count; default 256).
	Processes int
	// Memory is the data memory of each process (RLIMIT_DATA: heap and
	// private writable mappings, not the address space reserved and not
	// mapped files; default 1 GiB). bash, git, rg, python3, node, go vet
	// of a 50,000-line package, emacs and nvim all start and run in
	// 512 MiB (measured with prlimit --data).
	Memory int64
	// MemoryTotal bounds all the command's processes together, swap
	// included (a memory cgroup per command, where one can be made:
	// default 4 GiB). Where none can, RLIMIT_DATA per process is the only
	// bound (Describe says which).
	MemoryTotal int64
	// Disk is how much the command may take of the file systems of the
	// roots and its temporary folder, and NewFiles how many inodes: their
	// free blocks and inodes are read every diskPoll while it runs, and
	// it is stopped past either (defaults 1 GiB and 100,000). Anything
	// else writing to the same file systems meanwhile counts too.
	Disk     int64
	NewFiles int64
}

// The default limits.
const (
	DefaultCPU       = 60 * time.Second
	DefaultFileSize  = 256 << 20
	DefaultProcesses = 256
	DefaultMemory    = 1 << 30
	DefaultMemTotal  = 4 << 30
	DefaultDisk      = 1 << 30
	DefaultNewFiles  = 100_000
)

func (l Limits) withDefaults() Limits {
	if l.CPU <= 0 {
		l.CPU = DefaultCPU
	}
	if l.FileSize <= 0 {
		l.FileSize = DefaultFileSize
	}
	if l.Processes <= 0 {
		l.Processes = DefaultProcesses
	}
	if l.Memory <= 0 {
		l.Memory = DefaultMemory
	}
	if l.MemoryTotal <= 0 {
		l.MemoryTotal = DefaultMemTotal
	}
	if l.Disk <= 0 {
		l.Disk = DefaultDisk
	}
	if l.NewFiles <= 0 {
		l.NewFiles = DefaultNewFiles
	}
	return l
}

// Config is what a Sandbox is built from.
type Config struct {
	// Mode is the setting; "" is Required where the kernel has Landlock,
	// BestEffort where it has not.
	Mode Mode
	// Roots are the memex roots: what a command may read and write.
	Roots []string
	// Protected are the places no command may read or write (DESIGN §8):
	// flightplans.org and journal.org of every root, the data, config and
	// runtime folders. A protected file with another hard link is refused.
	Protected []string
	// Home is the user's home folder: its dot-entries are hidden when a
	// root holds it.
	Home string
	// Private lists the files under the roots that hold private notes: a
	// command may not read them (nor their editor backups). Called at each
	// run; nil is none.
	Private func() []string
	Limits  Limits
	// Getenv reads the variables a command inherits (PATH, the locale).
	Getenv func(string) string
	// Probe says what the kernel offers (nil: Probe). Tests inject one.
	Probe func() Status
	// Logger hears what degrades a run (nil: nowhere).
	Logger *slog.Logger
	// NoMountNamespace keeps commands out of a mount namespace of their
	// own even where the kernel offers one: every folder that holds a
	// protected name at any depth then gets no new entries (the fallback,
	// see mountns_linux.go). Tests use it.
	NoMountNamespace bool
}

// Sandbox runs commands confined.
type Sandbox struct {
	cfg    Config
	roots  []string // canonical
	mode   Mode
	status Status
	procs  processBound
	log    *slog.Logger

	// warm is a helper started ahead for the next command (see
	// helperSpec); closed stops starting them (Close).
	mu      sync.Mutex
	warm    *helperProc
	warming bool
	closed  bool

	// ns says whether helpers run in a mount namespace of their own, or
	// why not (asked of the kernel once, at the first need).
	ns func() nsStatus
}

// nsStatus is whether the helpers get a mount namespace (the protected
// names bound read-only), or why they do not.
type nsStatus struct {
	on     bool
	reason string
}

// ErrUnavailable is wrapped by the error of a command that was not run
// because the sandbox is required and the system cannot provide it.
var ErrUnavailable = errors.New("the sandbox is unavailable")

// New prepares a sandbox over the roots. A root that holds the system's
// folders is refused (unless the mode is Off): writes inside a root are
// allowed, and those must never be.
func New(cfg Config) (*Sandbox, error) {
	mode, err := ParseMode(string(cfg.Mode))
	if err != nil {
		return nil, err
	}
	probe := cfg.Probe
	if probe == nil {
		probe = Probe
	}
	st := probe()
	if mode == "" {
		mode = BestEffort
		if st.Available() {
			mode = Required
		}
	}
	cfg.Limits = cfg.Limits.withDefaults()
	if cfg.Getenv == nil {
		cfg.Getenv = func(string) string { return "" }
	}
	log := cfg.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	s := &Sandbox{cfg: cfg, mode: mode, status: st, log: log}
	s.ns = sync.OnceValue(func() nsStatus {
		switch {
		case cfg.NoMountNamespace:
			return nsStatus{reason: "turned off"}
		case !st.Available():
			return nsStatus{reason: "no Landlock"}
		}
		if why := probeMountNamespace(); why != "" {
			return nsStatus{reason: why}
		}
		return nsStatus{on: true}
	})
	for _, r := range cfg.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("sandbox: root %s: %w", r, err)
		}
		s.roots = append(s.roots, protect.Canonical(abs))
	}
	if mode != Off {
		if err := checkRoots(s.roots); err != nil {
			return nil, err
		}
	}
	s.procs = newProcessBound()
	return s, nil
}

// Mode is the mode in effect (the default resolved).
func (s *Sandbox) Mode() Mode { return s.mode }

// Close ends the helper started ahead for the next command: without it,
// that helper waits for as long as the program runs. Commands can still
// run after it, each starting its own helper then.
func (s *Sandbox) Close() {
	s.mu.Lock()
	s.closed = true
	h := s.warm
	s.warm = nil
	s.mu.Unlock()
	if h != nil {
		h.discard()
	}
}

// Status is what the kernel offers.
func (s *Sandbox) Status() Status { return s.status }

// Summary names the mode and what the kernel offers, for a title:
// "required, Landlock ABI 7".
func (s *Sandbox) Summary() string {
	if s.mode == Off {
		return string(Off)
	}
	return fmt.Sprintf("%s, %s", s.mode, s.status)
}

// Describe says in one line how commands run: for the journal at every
// start and for `pp-lsp doctor`.
func (s *Sandbox) Describe() string {
	switch {
	case s.mode == Off:
		return "off: shell and eval commands run unconfined (the environment is still scrubbed and the wall time still holds)"
	case !s.status.Available() && s.mode == Required:
		return fmt.Sprintf("required, but there is %s: shell and eval actions do not run", s.status)
	case !s.status.Available() && runtime.GOOS != "linux":
		return fmt.Sprintf("best-effort, %s: shell and eval commands run unconfined (the environment is still scrubbed and the wall time still holds)", s.status)
	case !s.status.Available():
		return fmt.Sprintf("best-effort, %s: shell and eval commands run with their limits%s, but not confined to the roots", s.status, s.seccompClause())
	}
	return fmt.Sprintf("%s: %s confines shell and eval commands to the roots%s; %s; %s%s",
		s.mode, s.status, s.seccompClause(), s.nsClause(), s.procs.describe(), s.status.describeGaps())
}

// nsClause says how the protected names in the roots (.git, .envrc…)
// are kept unwritable.
func (s *Sandbox) nsClause() string {
	ns := s.ns()
	if ns.on {
		return "protected names (.git, .envrc…) bound read-only in a mount namespace of the command's own, so the folders that hold them take new entries"
	}
	return "no mount namespace (" + ns.reason + "): a folder holding a protected name (.git, .envrc…) at any depth takes no new entries"
}

func (s *Sandbox) seccompClause() string {
	if s.status.Seccomp {
		return ", a seccomp filter stops every socket"
	}
	return ""
}

// unavailable is the one sentence a refused command gets.
func (s *Sandbox) unavailable() error {
	return fmt.Errorf("%w: shell and eval actions run only confined (sandbox = required), and here there is %s; set sandbox to best-effort to run them unconfined", ErrUnavailable, s.status)
}

// Command is one process to run.
type Command struct {
	// Argv is the program and its arguments; the program is looked up on
	// the command's own PATH. An argument that starts with TempDir has
	// that replaced by the command's temporary folder.
	Argv []string
	// Dir is the working folder (inside a root).
	Dir            string
	Stdin          io.Reader
	Stdout, Stderr io.Writer
	// Files are written into the temporary folder before the start (name
	// → content; names are plain file names).
	Files map[string][]byte
}

// helperWait is how long a command (or its helper) has to end after it
// was asked to, before it is killed; and how long output is still read
// after it ended.
const helperWait = 2 * time.Second

// TempDir stands for the command's temporary folder in Command.Argv.
const TempDir = "{tmp}"

// Run runs the command to its end, or until ctx ends (then it and
// everything it started are killed, and the error wraps ctx's). A
// non-zero exit is not an error: it is the status returned (128+N for a
// command killed by signal N, -1 when the helper itself was killed).
func (s *Sandbox) Run(ctx context.Context, c Command) (int, error) {
	if len(c.Argv) == 0 {
		return -1, errors.New("sandbox: no command to run")
	}
	if s.mode == Required && !s.status.Available() {
		return -1, s.unavailable()
	}
	tmp, err := os.MkdirTemp("", "pp-lsp-action-")
	if err != nil {
		return -1, fmt.Errorf("sandbox: making the temporary folder: %w", err)
	}
	defer removeTemp(tmp)
	for name, data := range c.Files {
		if name != filepath.Base(name) || name == "." || name == ".." {
			return -1, fmt.Errorf("sandbox: the temporary file name %q is not a plain name", name)
		}
		if err := os.WriteFile(filepath.Join(tmp, name), data, 0o600); err != nil {
			return -1, fmt.Errorf("sandbox: writing %s: %w", name, err)
		}
	}
	argv := make([]string, len(c.Argv))
	for i, a := range c.Argv {
		if rest, ok := strings.CutPrefix(a, TempDir); ok {
			a = tmp + rest
		}
		argv[i] = a
	}
	if s.mode == Off {
		return runDirect(ctx, c, argv, env(s.cfg.Getenv, tmp, c.Dir, func(string) bool { return false }))
	}
	env := env(s.cfg.Getenv, tmp, c.Dir, s.unreachable)
	if !wired.Load() {
		if s.mode == Required {
			return -1, fmt.Errorf("%w: this program cannot start the sandbox helper (its main does not call sandbox.Main)", ErrUnavailable)
		}
		s.log.Warn("the sandbox helper is not wired into this program: the command runs unconfined")
		return runDirect(ctx, c, argv, env)
	}
	return s.runHelper(ctx, c, argv, env, tmp)
}

// unreachable reports whether a confined command cannot run programs from
// dir: it lies neither in the system's folders nor in a root.
func (s *Sandbox) unreachable(dir string) bool {
	c := protect.Canonical(dir)
	for _, r := range append(slices.Clone(systemReads), s.roots...) {
		if within(dir, r) || within(c, r) {
			return false
		}
	}
	return true
}

// removeTemp removes a command's temporary folder, whatever modes the
// command left on what it made.
func removeTemp(dir string) {
	if os.RemoveAll(dir) == nil {
		return
	}
	filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if d != nil && d.IsDir() {
			os.Chmod(p, 0o700)
		}
		return nil
	})
	os.RemoveAll(dir)
}

// ErrDiskLimit is wrapped by the error of a command stopped for taking
// more of the disk, or more inodes, than its limits.
var ErrDiskLimit = errors.New("the command took more of the disk than the sandbox allows")
