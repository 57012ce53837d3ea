package sandbox

import (
	"fmt"
	"strings"
)

// Mode says what happens where the kernel cannot confine a command.
type Mode string

const (
	// Required runs a command only confined: where Landlock is missing,
	// shell and eval actions do not run. The default where the kernel has
	// Landlock.
	Required Mode = "required"
	// BestEffort confines as far as the kernel allows and runs the
	// command anyway. The default where the kernel has no Landlock.
	BestEffort Mode = "best-effort"
	// Off runs commands unconfined (the environment is still scrubbed and
	// the wall time still holds).
	Off Mode = "off"
)

// EnvMode is the environment variable that sets the mode (DESIGN §11:
// it overrides the configuration file; the editor's setting overrides it).
const EnvMode = "PASSEPARTOUT_SANDBOX"

// rank orders the modes by strictness.
func (m Mode) rank() int {
	switch m {
	case Off:
		return 0
	case BestEffort:
		return 1
	}
	return 2
}

// Stricter returns the stricter of a and b (required > best-effort >
// off), "" standing for the default where the kernel offers st.
func Stricter(a, b Mode, st Status) Mode {
	def := BestEffort
	if st.Available() {
		def = Required
	}
	if a == "" {
		a = def
	}
	if b == "" {
		b = def
	}
	if a.rank() >= b.rank() {
		return a
	}
	return b
}

// ParseMode reads a mode as the configuration writes it; "" is the
// default (returned as "").
func ParseMode(s string) (Mode, error) {
	switch m := Mode(strings.ToLower(strings.TrimSpace(s))); m {
	case "", Required, BestEffort, Off:
		return m, nil
	case "best_effort", "besteffort":
		return BestEffort, nil
	}
	return "", fmt.Errorf("the sandbox setting %q is none of required, best-effort, off", s)
}
