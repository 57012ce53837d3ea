package testenv

import (
	"fmt"
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
	before, _ := os.Stat(os.TempDir())
	code := m.Run()
	if err := sharedTempUnchanged(before); err != nil {
		os.Stderr.WriteString("testenv: " + err.Error() + "\n")
		code = 1
	}
	os.Exit(code)
}

// sharedTempUnchanged reports, after the tests ran, a change of the mode
// of the machine's temporary folder (/tmp) since before them (as found
// then): no test may change anything outside its own temporary folders,
// and one that did (a chmod walking up from t.TempDir) would leave /tmp
// 1755 for every other user and process.
func sharedTempUnchanged(before os.FileInfo) error {
	if before == nil {
		return nil
	}
	after, err := os.Stat(os.TempDir())
	if err != nil {
		return fmt.Errorf("the temporary folder %s is gone after the tests: %w", os.TempDir(), err)
	}
	if after.Mode() != before.Mode() {
		return fmt.Errorf("the mode of the temporary folder %s changed while the tests ran, from %v to %v: a test changed something outside its own folders", os.TempDir(), before.Mode(), after.Mode())
	}
	return nil
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
