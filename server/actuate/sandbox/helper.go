package sandbox

import (
	"os"
	"sync/atomic"
)

// HelperArg is the hidden first argument that makes the program the
// sandbox's helper.
const HelperArg = "__pp-lsp-sandbox"

// wired records that this program's main called Main, so that it can be
// its own helper. It is a fact about the binary, not a setting: without
// it, re-executing a program (a test binary above all) with HelperArg
// would run that program again instead of the helper.
var wired atomic.Bool

// Main makes the program the sandbox's helper when it was started as one
// (it never returns then), and otherwise records that the program can be.
// Call it first thing in main, and in TestMain of a package whose tests
// run confined commands.
func Main() {
	if len(os.Args) == 5 && os.Args[1] == HelperArg && os.Args[2] == nsProbeArg {
		os.Exit(nsProbeMain(os.Args[3], os.Args[4]))
	}
	if len(os.Args) >= 2 && len(os.Args) <= 4 && os.Args[1] == HelperArg {
		os.Exit(helperMain(os.Args[2:]))
	}
	wired.Store(true)
}

// The helper is started ahead of need and waits on descriptor 3, a UNIX
// stream socket, for one command: a 4-byte big-endian length, then the
// helperSpec as JSON; the first bytes carry (SCM_RIGHTS) the command's
// standard input, output and error, and the Landlock ruleset when there
// is one. It answers "ok PID" once the command started, or "error …",
// and closes the socket. Starting it ahead keeps its start-up (the Go
// runtime and every package's initialisation) off the action's path, and
// so does its joining its pids cgroup, named by its third argument, as
// soon as it starts (a process's first entry into a fresh cgroup waits for
// the kernel for some 20 ms); a memory cgroup in another hierarchy (cgroup
// v1) is its fourth.
type helperSpec struct {
	Argv []string `json:"argv"`
	Env  []string `json:"env"`
	Dir  string   `json:"dir"`
	// Landlock says a Landlock ruleset follows the standard descriptors.
	Landlock bool `json:"landlock"`
	// Sweep says signals are scoped to the sandbox (Landlock ABI ≥ 6):
	// kill(-1) at the end reaches every process the command left, and
	// only those.
	Sweep bool `json:"sweep"`
	// CPUSeconds, FileSize and NProc are resource limits (0: none).
	CPUSeconds uint64 `json:"cpu,omitempty"`
	FileSize   uint64 `json:"fsize,omitempty"`
	NProc      uint64 `json:"nproc,omitempty"`
	// Data is RLIMIT_DATA (0: none).
	Data uint64 `json:"data,omitempty"`
	// Seccomp loads the socket, io_uring and keyring filter.
	Seccomp bool `json:"seccomp"`
	// Mounts are the protected entries the helper, started in its own
	// mount namespace, binds onto themselves before Landlock (see
	// mountns_linux.go); none where it was not.
	Mounts []mountEntry `json:"mounts,omitempty"`
	// ServerNS names the server's mount namespace (/proc/self/ns/mnt):
	// the helper binds nothing unless its own is another.
	ServerNS string `json:"serverns,omitempty"`
}

// mountEntry is one protected entry the helper binds read-only onto
// itself (mountns_linux.go).
type mountEntry struct {
	Path string `json:"path"`
	// Dev and Ino are its identity when the server walked the roots: the
	// helper binds it only if the path still leads there, through no
	// symlink.
	Dev uint64 `json:"dev"`
	Ino uint64 `json:"ino"`
}

// nsProbeArg is the helper's argument that makes it only try a mount
// namespace (probeMountNamespace).
const nsProbeArg = "probe-mount-namespace"

const (
	// controlFD is the helper's end of the socket.
	controlFD = 3
	// maxSpec bounds the spec the helper reads.
	maxSpec = 16 << 20
	// exitSetup is the helper's exit status when it could not start the
	// command (its reason went to the socket).
	exitSetup = 125
)
