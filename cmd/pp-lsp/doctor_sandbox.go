package main

import (
	"context"
	"fmt"
)

// checkSandbox reports the confinement shell and eval actions get (DESIGN
// §12): the Landlock ABI the kernel offers, or that it has none.
//
// This is the place of the sandbox's own status: when server/actuate's
// Landlock sandbox is wired in, this check reports what it reports (the
// ABI it uses, the `sandbox` setting in force, and whether shell and eval
// run confined), and the kernel probe below gives way to it.
func checkSandbox(_ context.Context, d *doctorEnv) []checkLine {
	abi, err := d.landlock()
	if err != nil {
		return []checkLine{warn("sandbox", "Landlock is unavailable here: "+err.Error(),
			"shell and eval actions cannot be confined on this kernel (Linux 5.13 or later, with landlock in the lsm= boot parameter, has it)")}
	}
	return []checkLine{ok("sandbox", "%s", fmt.Sprintf("the kernel offers Landlock ABI %d", abi))}
}
