//go:build linux && !amd64 && !arm64

package sandbox

// No filter for this architecture (Status.Seccomp is false and
// Status.Gaps says what that leaves open).
const (
	seccompArch = 0
	seccompX32  = 0
)
