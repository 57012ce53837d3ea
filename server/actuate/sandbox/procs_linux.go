//go:build linux

package sandbox

import (
	"bufio"
	"bytes"
	"crypto/rand"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"strconv"
	"strings"
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
}

// findPidsCgroup looks for a folder in which this process can make pids
// cgroups: its own cgroup in a cgroup-v1 pids hierarchy, or, in cgroup
// v2, its own cgroup or the hierarchy's root when that delegates "pids".
func findPidsCgroup() *pidsCgroups { return findCgroup("pids") }

// findMemoryCgroup is findPidsCgroup for the memory controller: the bound
// on the memory of all a command's processes together.
func findMemoryCgroup() *pidsCgroups { return findCgroup("memory") }

// findCgroup looks for a folder in which this process can make cgroups
// with the controller.
func findCgroup(controller string) *pidsCgroups {
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
				if o == controller {
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
			if c == controller {
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
			if err == nil && bytes.Contains(append(append([]byte(" "), bytes.TrimSpace(ctl)...), ' '), []byte(" "+controller+" ")) && writable(dir) {
				return &pidsCgroups{parent: dir, v2: true}
			}
		}
	}
	return &pidsCgroups{}
}

func writable(dir string) bool { return syscall.Access(dir, 2 /* W_OK */) == nil }

// cgroupFile is one file of a cgroup to write, and what.
type cgroupFile struct {
	name, value string
	// optional: a file the kernel may not offer (swap accounting off).
	optional bool
}

// pidsFiles bound a pids cgroup to max tasks.
func pidsFiles(max int) []cgroupFile {
	return []cgroupFile{{name: "pids.max", value: strconv.Itoa(max)}}
}

// memoryFiles bound a memory cgroup to max bytes, swap included (a bound
// that swapping out lets pass is none).
func memoryFiles(v2 bool, max int64) []cgroupFile {
	n := strconv.FormatInt(max, 10)
	if v2 {
		return []cgroupFile{{name: "memory.max", value: n}, {name: "memory.swap.max", value: "0", optional: true}}
	}
	return []cgroupFile{{name: "memory.limit_in_bytes", value: n}, {name: "memory.memsw.limit_in_bytes", value: n, optional: true}}
}

// make creates a cgroup bounded by files, under a name no other sandbox
// of any process uses, or says why it could not.
func (c *pidsCgroups) make(files []cgroupFile) (string, error) {
	if c.parent == "" {
		return "", errors.New("there is no cgroup to make one in")
	}
	var dir string
	for range 8 {
		var b [8]byte
		rand.Read(b[:])
		dir = filepath.Join(c.parent, fmt.Sprintf("pp-lsp-sandbox-%d-%x", os.Getpid(), b))
		err := os.Mkdir(dir, 0o755)
		if err == nil {
			break
		}
		if !errors.Is(err, os.ErrExist) {
			return "", fmt.Errorf("making a pids cgroup: %w", err)
		}
		dir = ""
	}
	if dir == "" {
		return "", errors.New("making a pids cgroup: every name tried was taken")
	}
	if err := bound(dir, files); err != nil {
		os.Remove(dir)
		return "", err
	}
	return dir, nil
}

// bound writes the files of an existing cgroup.
func bound(dir string, files []cgroupFile) error {
	for _, f := range files {
		p := filepath.Join(dir, f.name)
		if _, err := os.Stat(p); err != nil && f.optional {
			continue
		}
		if err := os.WriteFile(p, []byte(f.value), 0); err != nil {
			return fmt.Errorf("bounding a cgroup (%s): %w", f.name, err)
		}
	}
	return nil
}

// remove kills whatever is left in the cgroup and removes it. What is
// left may still be forking: everything listed is stopped first, pass
// after pass, until a pass finds nothing running (a stopped process
// cannot fork), then killed.
func (c *pidsCgroups) remove(dir string) {
	if dir == "" {
		return
	}
	if c.v2 {
		os.WriteFile(filepath.Join(dir, "cgroup.kill"), []byte("1"), 0)
	}
	list := func() []int {
		b, _ := os.ReadFile(filepath.Join(dir, "cgroup.procs"))
		var pids []int
		for _, f := range strings.Fields(string(b)) {
			if pid, err := strconv.Atoi(f); err == nil && pid > 0 {
				pids = append(pids, pid)
			}
		}
		return pids
	}
	deadline := time.Now().Add(10 * time.Second)
	for time.Now().Before(deadline) {
		pids := list()
		if len(pids) == 0 && os.Remove(dir) == nil {
			return
		}
		stopped := map[int]bool{}
		for len(pids) > 0 && time.Now().Before(deadline) {
			fresh := 0
			for _, pid := range pids {
				if !stopped[pid] {
					syscall.Kill(pid, syscall.SIGSTOP)
					stopped[pid] = true
					fresh++
				}
			}
			if fresh == 0 {
				break
			}
			pids = list()
		}
		for pid := range stopped {
			syscall.Kill(pid, syscall.SIGKILL)
		}
		if err := os.Remove(dir); err == nil || errors.Is(err, os.ErrNotExist) {
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
