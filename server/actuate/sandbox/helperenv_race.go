//go:build race

package sandbox

// helperEnv is the helper's own environment (the command's comes in its
// spec). A program built with the race detector sleeps a second at exit
// so that late reports can flush (GORACE's atexit_sleep_ms, 1000 by
// default); the helper has nothing left running when it exits, so it is
// told not to wait, or every confined command of a -race test would take
// a second longer.
func helperEnv() []string { return []string{"GORACE=atexit_sleep_ms=0"} }
