package sandbox

import (
	"fmt"
	"strings"
)

// Status is what the kernel offers the sandbox.
type Status struct {
	// ABI is the Landlock ABI version (0: no Landlock).
	ABI int
	// Reason says why there is no Landlock when ABI is 0.
	Reason string
	// Seccomp reports that the network filter exists for this
	// architecture (linux/amd64 and linux/arm64).
	Seccomp bool
}

// Available reports whether commands can be confined by Landlock.
func (s Status) Available() bool { return s.ABI > 0 }

// String names the ABI found, or why there is none.
func (s Status) String() string {
	if s.ABI == 0 {
		return "no Landlock: " + s.Reason
	}
	return fmt.Sprintf("Landlock ABI %d", s.ABI)
}

// Gaps lists, in one clause each, what this kernel cannot stop that a
// newer one would (DESIGN §12 asks for all of it).
func (s Status) Gaps() []string {
	if s.ABI == 0 {
		return []string{"nothing confines files, network or signals"}
	}
	var g []string
	if s.ABI < 3 {
		g = append(g, "truncate(2) is not restricted (ABI < 3): a command can empty a file it can name, a protected one included")
	}
	if s.ABI < 4 && !s.Seccomp {
		g = append(g, "TCP connections are not stopped (ABI < 4, no seccomp filter for this architecture)")
	}
	if !s.Seccomp {
		g = append(g, "UDP and UNIX sockets are not stopped (no seccomp filter for this architecture)")
	}
	if s.ABI < 5 {
		g = append(g, "ioctl on the few reachable devices is not restricted (ABI < 5)")
	}
	if s.ABI < 6 {
		g = append(g, "signals to processes outside the sandbox are not stopped, and a process that leaves its process group outlives the action unless a pids cgroup holds it (ABI < 6)")
	}
	return g
}

// describeGaps joins Gaps for one line.
func (s Status) describeGaps() string {
	if g := s.Gaps(); len(g) > 0 {
		return "; not enforced here: " + strings.Join(g, "; ")
	}
	return ""
}
