// Package flock holds advisory file locks that exclude other processes as
// well as other goroutines: the Flight Plan lock and the journal's append
// lock.
//
// Invariant: a held Lock excludes every other Lock on the same file, in this
// process (each Lock opens its own descriptor, and flock(2) locks belong to
// the open file description) and in every other process on the machine that
// takes it the same way; the kernel drops it when the holder dies, so a
// crashed process never leaves a file locked.
package flock

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"time"
)

// Lock is a held exclusive lock on one file.
type Lock struct {
	f *os.File
}

// pollInterval is how often Acquire retries a lock someone else holds.
// Blocking in flock(2) could not be cancelled; polling can.
const pollInterval = 10 * time.Millisecond

// Acquire takes the exclusive lock on path, creating the file (mode 0600)
// and its folder (0700) if needed. It waits while another holder has it,
// until ctx ends.
func Acquire(ctx context.Context, path string) (*Lock, error) {
	return AcquireFile(ctx, path, os.O_RDWR|os.O_CREATE, 0o600)
}

// AcquireFile is Acquire on a file opened with the given flags and mode:
// the journal locks the very file it appends to (O_APPEND), so that the
// lock and the write share one descriptor.
func AcquireFile(ctx context.Context, path string, flags int, mode os.FileMode) (*Lock, error) {
	if err := os.MkdirAll(filepath.Dir(path), 0o700); err != nil {
		return nil, fmt.Errorf("making the folder of lock %s: %w", path, err)
	}
	f, err := os.OpenFile(path, flags, mode)
	if err != nil {
		return nil, fmt.Errorf("opening lock %s: %w", path, err)
	}
	for {
		ok, err := tryLock(f)
		if err != nil {
			f.Close()
			return nil, fmt.Errorf("locking %s: %w", path, err)
		}
		if ok {
			return &Lock{f: f}, nil
		}
		t := time.NewTimer(pollInterval)
		select {
		case <-ctx.Done():
			t.Stop()
			f.Close()
			return nil, fmt.Errorf("waiting for the lock on %s: %w", path, ctx.Err())
		case <-t.C:
		}
	}
}

// File is the locked file's descriptor (to read or append under the lock).
func (l *Lock) File() *os.File { return l.f }

// Release drops the lock and closes the file. Releasing twice is harmless.
func (l *Lock) Release() error {
	if l == nil || l.f == nil {
		return nil
	}
	err := unlock(l.f)
	cerr := l.f.Close()
	l.f = nil
	return errors.Join(err, cerr)
}
