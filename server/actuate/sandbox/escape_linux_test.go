package sandbox_test

import (
	"context"
	"os"
	"path/filepath"
	"strconv"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/actuate/sandbox"
)

// TestADescriptorTheServerInheritedDoesNotReachTheCommand: a descriptor
// the server got from whatever started it without close-on-exec (an
// editor's leak, a shell's exec 3>file) passes through every exec, and
// Landlock judges only what is opened after it: the command must not get
// it, or it writes wherever that descriptor leads.
func TestADescriptorTheServerInheritedDoesNotReachTheCommand(t *testing.T) {
	needLandlock(t)
	w := newWorld(t)
	target := filepath.Join(w.outside, "readme.txt")
	// Opened before the sandbox starts its first helper, as one the
	// server inherited would be.
	fd, err := syscall.Open(target, syscall.O_WRONLY|syscall.O_APPEND, 0)
	require.NoError(t, err)
	t.Cleanup(func() { syscall.Close(fd) })
	sb := w.sandbox(t)
	t.Cleanup(sb.Close)
	for range 2 { // the first helper, then one started ahead
		code, out, err := sh(t, sb, w.root, "echo pwned >&"+strconv.Itoa(fd))
		require.NoError(t, err)
		assert.NotEqual(t, 0, code, out)
	}
	text, err := os.ReadFile(target)
	require.NoError(t, err)
	assert.Equal(t, "outside the roots\n", string(text))
}

// TestTheCommandCannotTraceItsHelper: the helper, the command's parent,
// shares the command's Landlock domain on the thread that started it,
// but its other threads are not confined; a command that could trace it
// (ptrace, process_vm_writev) would run code outside the sandbox. It
// cannot attach, nor read its memory.
func TestTheCommandCannotTraceItsHelper(t *testing.T) {
	needLandlock(t)
	testenv.NeedCommand(t, "python3")
	w := newWorld(t)
	sb := w.sandbox(t)
	t.Cleanup(sb.Close)
	// PTRACE_SEIZE does not stop the helper; process_vm_readv reads one
	// page of its stack area. Each success leaves a file.
	script := `
import ctypes, os
libc = ctypes.CDLL(None, use_errno=True)
ppid = os.getppid()
if libc.ptrace(0x4206, ppid, 0, 0) == 0:
    open("notes/traced", "w").write("attached")
    libc.ptrace(17, ppid, 0, 0)
class iovec(ctypes.Structure):
    _fields_ = [("base", ctypes.c_void_p), ("len", ctypes.c_size_t)]
buf = ctypes.create_string_buffer(8)
local = iovec(ctypes.cast(buf, ctypes.c_void_p), 8)
# any mapped address of the helper: Go's text starts near 0x400000
remote = iovec(0x401000, 8)
libc.process_vm_readv.restype = ctypes.c_ssize_t
if libc.process_vm_readv(ppid, ctypes.byref(local), 1, ctypes.byref(remote), 1, 0) > 0:
    open("notes/read", "w").write("read")
`
	ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
	defer cancel()
	code, err := sb.Run(ctx, sandbox.Command{Argv: []string{"python3", "-c", script}, Dir: w.root})
	require.NoError(t, err)
	assert.Equal(t, 0, code)
	assert.NoFileExists(t, filepath.Join(w.root, "notes", "traced"))
	assert.NoFileExists(t, filepath.Join(w.root, "notes", "read"))
}

// TestTheCommandCannotKillItsHelper: a command that kills its helper ends
// the one process that sweeps what it left running (where no pids cgroup
// holds the command, the usual desktop case): whatever it detached then
// outlives the run. Neither a signal to the process (kill, kill(-1)) nor
// one to each of its threads (tkill, tgkill) reaches it; the command runs
// on and its status is returned.
func TestTheCommandCannotKillItsHelper(t *testing.T) {
	needLandlock(t)
	testenv.NeedCommand(t, "python3")
	w := newWorld(t)
	sb := w.sandbox(t)
	t.Cleanup(sb.Close)
	late := filepath.Join(w.root, "notes", "late")
	for _, tc := range []struct{ name, cmd string }{
		{"kill", "kill -9 $PPID; kill -9 -- -1; sleep 0.2; echo on > notes/alive; exit 3"},
		{"kill, what it detached outliving the run", "setsid sh -c 'sleep 1; touch " + late + "' & sleep 0.1; kill -9 $PPID; echo on > notes/alive; exit 3"},
		{"tkill and tgkill on every thread", `exec python3 -c '
import ctypes, os, platform, time
libc = ctypes.CDLL(None, use_errno=True)
tkill, tgkill = {"x86_64": (200, 234), "aarch64": (130, 131)}[platform.machine()]
ppid = os.getppid()
for tid in range(ppid, ppid + 200):
    if tid == os.getpid():
        continue
    libc.syscall(tkill, tid, 9)
    libc.syscall(tgkill, ppid, tid, 9)
time.sleep(0.2)
open("notes/alive", "w").write("on")
os._exit(3)
'`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			os.Remove(filepath.Join(w.root, "notes", "alive"))
			ctx, cancel := context.WithTimeout(context.Background(), 30*time.Second)
			defer cancel()
			code, err := sb.Run(ctx, sandbox.Command{Argv: []string{"/bin/bash", "-c", tc.cmd}, Dir: w.root})
			require.NoError(t, err)
			assert.Equal(t, 3, code, "the helper ended before the command")
			assert.FileExists(t, filepath.Join(w.root, "notes", "alive"))
		})
	}
	time.Sleep(1500 * time.Millisecond)
	assert.NoFileExists(t, late, "what the command detached outlived the run")
}
