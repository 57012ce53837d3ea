//go:build race

package testenv

// Race reports whether the race detector is built in: its runtime's own
// memory (the shadow it maps) counts against a process's resource limits.
const Race = true
