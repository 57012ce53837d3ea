//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync/atomic"
	"syscall"
	"time"
)

// pidsCgroups makes one pids cgroup per command under a parent folder the
// server may write: the only bound on processes that holds for root (the
// kernel exempts uid 0 from RLIMIT_NPROC), and the one sweep that finds a
// process however it detached.
type pidsCgroups struct {
	parent string // "" when there is none
	v2     bool
	seq    atomic.Uint64
}

// findPidsCgroup looks for a folder in which this process can make pids
// cgroups: its own cgroup in a cgroup-v1 pids hierarchy, or, in cgroup
// v2, its own cgroup or the hierarchy's root when that delegates "pids".
func findPidsCgroup() *pidsCgroups {
	mounts, err := os.ReadFile("/proc/self/mountinfo")
	if err != nil {
		return &pidsCgroups{}
	}
	own, err := os.ReadFile("/proc/self/cgroup")
	if err != nil {
		return &pidsCgroups{}
	}
	var v1Mount, v2Mount string
	for _, line := range strings.Split(string(mounts), "\n") {
		// id parent maj:min root mountpoint opts ... - fstype source superopts
		pre, post, ok := strings.Cut(line, " - ")
		if !ok {
			continue
		}
		f, g := strings.Fields(pre), strings.Fields(post)
		if len(f) < 5 || len(g) < 3 {
			continue
		}
		switch g[0] {
		case "cgroup":
			for _, o := range strings.Split(g[2], ",") {
				if o == "pids" {
					v1Mount = f[4]
				}
			}
		case "cgroup2":
			v2Mount = f[4]
		}
	}
	var v1Path, v2Path string
	for _, line := range strings.Split(string(own), "\n") {
		parts := strings.SplitN(line, ":", 3)
		if len(parts) != 3 {
			continue
		}
		if parts[0] == "0" && parts[1] == "" {
			v2Path = parts[2]
		}
		for _, c := range strings.Split(parts[1], ",") {
			if c == "pids" {
				v1Path = parts[2]
			}
		}
	}
	if v1Mount != "" && v1Path != "" {
		if dir := filepath.Join(v1Mount, v1Path); writable(dir) {
			return &pidsCgroups{parent: dir}
		}
	}
	if v2Mount != "" {
		for _, dir := range []string{filepath.Join(v2Mount, v2Path), v2Mount} {
			ctl, err := os.ReadFile(filepath.Join(dir, "cgroup.subtree_control"))
			if err == nil && bytes.Contains(append(append([]byte(" "), bytes.TrimSpace(ctl)...), ' '), []byte(" pids ")) && writable(dir) {
				return &pidsCgroups{parent: dir, v2: true}
			}
		}
	}
	return &pidsCgroups{}
}

func writable(dir string) bool { return syscall.Access(dir, 2 /* W_OK */) == nil }

// make creates a cgroup allowing max tasks, or says why it could not.
func (c *pidsCgroups) make(max int) (string, error) {
	if c.parent == "" {
		return "", errors.New("no pids cgroup")
	}
	dir := filepath.Join(c.parent, fmt.Sprintf("pp-lsp-sandbox-%d-%d", os.Getpid(), c.seq.Add(1)))
	if err := os.Mkdir(dir, 0o755); err != nil {
		return "", err
	}
	if err := os.WriteFile(filepath.Join(dir, "pids.max"), []byte(strconv.Itoa(max)), 0); err != nil {
		os.Remove(dir)
		return "", err
	}
	return dir, nil
}

// remove kills whatever is left in the cgroup and removes it.
func (c *pidsCgroups) remove(dir string) {
	if dir == "" {
		return
	}
	if c.v2 {
		os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	}
	deadline := time.Now().Add(2 * time.Second)
	for {
		procs, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		pids := strings.Fields(string(procs))
		for _, p := range pids {
			if pid, err := strconv.Atoi(p); err == nil && pid > 0 {
				syscall.Kill(pid, syscall.SIGKILL)
			}
		}
		if err := os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) || time.Now().After(deadline) {
			return
		}
		time.Sleep(5 * time.Millisecond)
	}
}

// userTasks counts the tasks (threads) of uid, as RLIMIT_NPROC counts
// them: a limit is set that many plus the command's own allowance.
func userTasks(uid int) int {
	d, err := os.Open("/proc")
	if err != nil {
		return 0
	}
	names, _ := d.Readdirnames(-1)
	d.Close()
	n := 0
	for _, name := range names {
		if name[0] < '0' || name[0] > '9' {
			continue
		}
		f, err := os.Open("/proc/" + name + "/status")
		if err != nil {
			continue
		}
		var owner, threads int = -1, 0
		sc := bufio.NewScanner(f)
		for sc.Scan() {
			line := sc.Text()
			if v, ok := strings.CutPrefix(line, "Uid:"); ok {
				if fs := strings.Fields(v); len(fs) > 0 {
					owner, _ = strconv.Atoi(fs[0])
				}
			} else if v, ok := strings.CutPrefix(line, "Threads:"); ok {
				threads, _ = strconv.Atoi(strings.TrimSpace(v))
				break
			}
		}
		f.Close()
		if owner == uid {
			n += threads
		}
	}
	return n
}
