package testenv

import (
	"os"
	"os/exec"
	"testing"
)

// Main runs a package's tests — os.Exit(m.Run()) — after giving each hook
// the chance to take the process over: a test binary is also re-executed
// as the sandbox's helper (sandbox.Main) and as the child processes its
// tests start (Child), and such a run ends in its hook, running no test.
//
//	func TestMain(m *testing.M) { testenv.Main(m, sandbox.Main, testenv.Child("holder", hold)) }
func Main(m *testing.M, hooks ...func()) {
	for _, h := range hooks {
		h()
	}
	if name := os.Getenv(childEnv); name != "" {
		// Started as a child no hook runs: never run the tests, which
		// could start it again.
		os.Stderr.WriteString("testenv: this test binary has no child called " + name + " (Main's hooks)\n")
		os.Exit(2)
	}
	os.Exit(m.Run())
}

// childEnv names the child a test binary runs as (see ChildCommand).
const childEnv = "PPLSP_TEST_CHILD"

// Child is a hook for Main: when this test binary was started by
// ChildCommand(t, name, args…), it runs child with those args and exits
// with its status. The variable that says so is gone from the child's
// environment before it runs, so nothing the child starts inherits it.
func Child(name string, child func(args []string) int) func() {
	return func() {
		if os.Getenv(childEnv) != name {
			return
		}
		os.Unsetenv(childEnv)
		os.Exit(child(os.Args[1:]))
	}
}

// ChildCommand is the command that starts this test binary as the child
// called name (see Child) with args, in the environment env (nil: the
// test's own).
func ChildCommand(t testing.TB, name string, env []string, args ...string) *exec.Cmd {
	t.Helper()
	exe, err := os.Executable()
	if err != nil {
		t.Fatalf("the test binary: %v", err)
	}
	if env == nil {
		env = os.Environ()
	}
	cmd := exec.Command(exe, args...)
	cmd.Env = append(append([]string(nil), env...), childEnv+"="+name)
	return cmd
}
