package main

import (
	"errors"
	"syscall"
)

// landlockABI asks the kernel for its Landlock ABI version:
// landlock_create_ruleset(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION).
func landlockABI() (int, error) {
	const (
		sysLandlockCreateRuleset = 444 // the same number on every architecture
		createRulesetVersion     = 1 << 0
	)
	abi, _, errno := syscall.Syscall(sysLandlockCreateRuleset, 0, 0, createRulesetVersion)
	switch {
	case errno == syscall.ENOSYS:
		return 0, errors.New("this kernel was built without it")
	case errno == syscall.EOPNOTSUPP:
		return 0, errors.New("it is turned off at boot")
	case errno != 0:
		return 0, errno
	}
	return int(abi), nil
}
