//go:build !race

package sandbox

// helperEnv is the helper's own environment: none (the command's comes
// in its spec).
func helperEnv() []string { return []string{} }
