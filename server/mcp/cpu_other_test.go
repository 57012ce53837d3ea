//go:build !unix

package mcp

import "time"

// processCPU is the CPU time the process has used: not known here.
func processCPU() time.Duration { return 0 }
