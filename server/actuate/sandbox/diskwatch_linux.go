package sandbox

import (
	"fmt"
	"time"

	"golang.org/x/sys/unix"
)

// diskPoll is how often a running command's use of the disk is read at
// most and at least: at the longest while its use grows slowly, at the
// shortest as it nears a limit fast (see nextPoll).
const (
	diskPoll    = 100 * time.Millisecond
	diskPollMin = 5 * time.Millisecond
)

// diskWatch reads the free blocks and inodes of the file systems a command
// may write (each once, by its id) while it runs. Landlock bounds where a
// command writes and RLIMIT_FSIZE each file, but nothing how many files it
// makes: without this, a loop of files each below the size limit fills the
// disk within the wall time. What it cannot tell apart: another process's
// writes to the same file systems meanwhile count as the command's, and
// the command may overshoot by what it writes until the next reading — one
// diskPollMin at the rate it writes, when it writes fast.
type diskWatch struct {
	paths        []string
	start        []unix.Statfs_t
	bytes, files int64
}

func newDiskWatch(paths []string, bytes, files int64) *diskWatch {
	w := &diskWatch{bytes: bytes, files: files}
	seen := map[unix.Fsid]bool{}
	for _, p := range paths {
		var st unix.Statfs_t
		if unix.Statfs(p, &st) != nil || seen[st.Fsid] && st.Fsid != (unix.Fsid{}) {
			continue
		}
		seen[st.Fsid] = true
		w.paths = append(w.paths, p)
		w.start = append(w.start, st)
	}
	return w
}

// used is what the command took since the start: bytes and inodes.
func (w *diskWatch) used() (bytes, files int64) {
	for i, p := range w.paths {
		var st unix.Statfs_t
		if unix.Statfs(p, &st) != nil {
			continue
		}
		s := w.start[i]
		bytes += (int64(s.Bfree) - int64(st.Bfree)) * int64(st.Bsize)
		if s.Files > 0 { // a file system without an inode count (btrfs) reports none
			files += int64(s.Ffree) - int64(st.Ffree)
		}
	}
	return bytes, files
}

// run reads the use every diskPoll until stopped closes, and cancels the
// command past a limit.
func (w *diskWatch) run(stopped <-chan struct{}, cancel func(error)) {
	t := time.NewTimer(diskPollMin)
	defer t.Stop()
	var lastB, lastF int64
	last := time.Now()
	for {
		select {
		case <-stopped:
			return
		case <-t.C:
		}
		b, f := w.used()
		now := time.Now()
		t.Reset(min(nextPoll(b-lastB, w.bytes-b, now.Sub(last)), nextPoll(f-lastF, w.files-f, now.Sub(last))))
		lastB, lastF, last = b, f, now
		switch {
		case b > w.bytes:
			cancel(fmt.Errorf("%w: %d MiB written to the disk, more than its %d MiB", ErrDiskLimit, b>>20, w.bytes>>20))
			return
		case f > w.files:
			cancel(fmt.Errorf("%w: %d files made, more than its %d", ErrDiskLimit, f, w.files))
			return
		}
	}
}

// nextPoll is how long to wait before the next reading when grew was
// taken in the last took, and left remains before the limit: half the
// time the same pace takes to reach it, within diskPollMin and diskPoll.
func nextPoll(grew, left int64, took time.Duration) time.Duration {
	if grew <= 0 || took <= 0 {
		return diskPoll
	}
	if left <= 0 {
		return diskPollMin
	}
	reach := time.Duration(float64(took) * float64(left) / float64(grew) / 2)
	return min(max(reach, diskPollMin), diskPoll)
}
