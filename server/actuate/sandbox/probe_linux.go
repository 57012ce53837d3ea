//go:build linux

package sandbox

import (
	"errors"
	"syscall"

	llsys "github.com/landlock-lsm/go-landlock/landlock/syscall"
)

// Probe asks the kernel which Landlock ABI it offers.
func Probe() Status {
	st := Status{Seccomp: seccompArch != 0}
	v, err := llsys.LandlockGetABIVersion()
	switch {
	case errors.Is(err, syscall.ENOSYS):
		st.Reason = "the kernel has no Landlock (it needs Linux 5.13 or later built with CONFIG_SECURITY_LANDLOCK)"
		return st
	case errors.Is(err, syscall.EOPNOTSUPP):
		st.Reason = "Landlock is built into the kernel but not enabled at boot (add landlock to the lsm= kernel parameter)"
		return st
	case err != nil:
		st.Reason = "asking the kernel for its Landlock ABI failed: " + err.Error()
		return st
	case v < 1:
		st.Reason = "the kernel reports no Landlock ABI"
		return st
	}
	if v >= 6 {
		// ABI 6's signal scoping had a bug fixed by erratum 2 (as
		// go-landlock does, count an unfixed kernel as ABI 5).
		if e, err := llsys.LandlockGetErrata(); err != nil || e&0x2 == 0 {
			v = 5
		}
	}
	st.ABI = v
	return st
}
