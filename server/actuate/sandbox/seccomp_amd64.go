//go:build linux && amd64

package sandbox

import "golang.org/x/sys/unix"

const (
	seccompArch = unix.AUDIT_ARCH_X86_64
	// seccompX32 is the x32 ABI's bit in the call number: such calls
	// bypass the amd64 numbers, so they are refused whole.
	seccompX32 = 0x40000000
)
