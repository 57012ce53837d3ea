package actuate

import (
	"context"
	"errors"
	"fmt"
	"hash/maphash"
	"io"
	"io/fs"
	"os"
	"strings"
	"sync"
	"time"

	"pp-lsp/server/protect"
	"pp-lsp/server/workspace"
)

// The guard around a command looks at the protected files (journal.org,
// flightplans.org) before and after it, in bounded memory whatever their
// size — journal.org grows for as long as the memex is used:
//
//   - a file is known by its identity (device, inode, size, modification
//     and change times); one whose identity did not change is unchanged,
//     provided its change time was already in the past, by more than the
//     file system's timestamp grain, when it was first looked at (a write
//     within the same grain could leave every field as it was). Nothing a
//     process can do sets a file's change time back (utimes and touch set
//     the modification time, and the change time to now), so a same-size
//     rewrite with its modification time put back is still seen;
//   - otherwise its bytes are read as a stream and hashed, the hash carried
//     on from the last look when the file only grew since (an append
//     between commands reads the entry, not the journal). The hash is
//     hash/maphash, seeded at random by each process: collision-resistant
//     against whoever does not know the seed (a command cannot make a
//     change that hashes as the text it replaced), and about ten times as
//     fast as SHA-256, which matters when the file must be read;
//   - flightplans.org's bytes are kept too (up to maxKeep), for the exact
//     restore.

// maxKeep bounds the bytes of flightplans.org the guard keeps to put back.
const maxKeep = 16 << 20

// tsGrain is the timestamp grain assumed of any file system (FAT's is
// two seconds; ext4's and tmpfs's the kernel's coarse clock tick).
const tsGrain = 2 * time.Second

// fileID is what a stat says of a file.
type fileID struct {
	dev, ino     uint64
	size         int64
	mtime, ctime int64 // nanoseconds; ctime 0 when the system does not say
}

func idOf(fi fs.FileInfo) fileID {
	id := fileID{size: fi.Size(), mtime: fi.ModTime().UnixNano()}
	sysID(fi, &id)
	return id
}

// look is a protected file as the guard saw it.
type look struct {
	exists bool
	id     fileID
	// settled: its change time was past by more than the grain when it
	// was looked at, so a later write shows in its identity.
	settled bool
	sum     uint64
	// data is its bytes when kept (flightplans.org).
	data []byte
	kept bool
}

// hashed is the hash of a file as last read, to carry on from.
type hashed struct {
	id      fileID
	settled bool
	state   *maphash.Hash // after id.size bytes; never written to
}

// lookCache keeps the hashes of the protected files between commands.
type lookCache struct {
	seed   maphash.Seed
	mu     sync.Mutex
	hashes map[string]hashed
	// grain is tsGrain; tests shorten it.
	grain time.Duration
}

func (c *lookCache) isSettled(id fileID, at time.Time) bool {
	grain := c.grain
	if grain == 0 {
		grain = tsGrain
	}
	return id.ctime != 0 && at.UnixNano()-id.ctime > int64(grain)
}

// open opens p and says what its stat says (the file is nil when there is
// none). A symlink or anything but a regular file cannot be looked at: a
// FIFO a command left in its place would otherwise hold the guard, and
// actMu with it, until someone writes to it.
func (c *lookCache) open(p string) (*os.File, look, error) {
	at := time.Now()
	f, err := protect.OpenNoFollow(p)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, look{}, nil
	}
	if err != nil {
		return nil, look{}, err
	}
	fi, err := f.Stat()
	if err == nil && !fi.Mode().IsRegular() {
		err = fmt.Errorf("%s is not a regular file", p)
	}
	if err != nil {
		f.Close()
		return nil, look{}, err
	}
	l := look{exists: true, id: idOf(fi)}
	l.settled = c.isSettled(l.id, at)
	return f, l, nil
}

// lookAt looks at p before a command: its identity, its hash (carried on
// from the last look when it only grew), its bytes when keep.
func (c *lookCache) lookAt(p string, keep bool) (look, error) {
	f, l, err := c.open(p)
	if f == nil || err != nil {
		return l, err
	}
	defer f.Close()
	if keep && l.id.size <= maxKeep {
		b, err := io.ReadAll(io.LimitReader(f, maxKeep+1))
		if err != nil {
			return look{}, err
		}
		if int64(len(b)) != l.id.size {
			// It changed as it was read: the next look reads it again.
			l.settled = false
		}
		l.data, l.kept, l.sum = b, true, maphash.Bytes(c.seed, b)
		return l, nil
	}
	c.mu.Lock()
	prev, ok := c.hashes[p]
	c.mu.Unlock()
	h := c.newHash()
	from := int64(0)
	switch {
	case ok && prev.id == l.id && prev.settled:
		// As hashed, and settled then: not read again.
		h, from = prev.clone(), l.id.size
	case ok && prev.id.dev == l.id.dev && prev.id.ino == l.id.ino && l.id.size > prev.id.size:
		// It grew: only what was appended is read. (What another
		// process changed before the end between two commands is no
		// command's; it shows as the command's only if the file also
		// changed while the command ran, and the journal's chain tells
		// the truth of it.)
		h, from = prev.clone(), prev.id.size
	}
	if _, err := f.Seek(from, io.SeekStart); err != nil {
		return look{}, err
	}
	if err := hashN(h, f, l.id.size-from); err != nil {
		return look{}, err
	}
	c.keep(p, l.id, l.settled, h)
	l.sum = h.Sum64()
	return l, nil
}

// newHash is a hash with the process's seed.
func (c *lookCache) newHash() *maphash.Hash {
	h := &maphash.Hash{}
	h.SetSeed(c.seed)
	return h
}

// clone is a hash to carry on from the one kept.
func (h hashed) clone() *maphash.Hash {
	cl, _ := h.state.Clone() // a maphash.Hash clones without fail
	return cl.(*maphash.Hash)
}

// keep remembers h, the hash of p after id.size bytes.
func (c *lookCache) keep(p string, id fileID, settled bool, h *maphash.Hash) {
	cl, err := h.Clone()
	if err != nil {
		return
	}
	state := cl.(*maphash.Hash)
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.hashes == nil {
		c.hashes = map[string]hashed{}
	}
	c.hashes[p] = hashed{id: id, settled: settled, state: state}
}

// hashN hashes the next n bytes of f, and fails when there are fewer.
func hashN(h *maphash.Hash, f *os.File, n int64) error {
	if n <= 0 {
		return nil
	}
	buf := make([]byte, 64<<10)
	got, err := io.CopyBuffer(h, io.LimitReader(f, n), buf)
	if err == nil && got != n {
		err = io.ErrUnexpectedEOF
	}
	return err
}

// after is what became of a file looked at as was: its look now and
// whether its first was.id.size bytes are still was's (prefix).
type after struct {
	now    look
	prefix bool
}

// lookAgain looks at p after a command, reading it only when its identity
// does not prove it unchanged.
func (c *lookCache) lookAgain(p string, was look) (after, error) {
	f, now, err := c.open(p)
	if f == nil || err != nil {
		return after{}, err
	}
	defer f.Close()
	if was.exists && was.settled && now.id == was.id {
		now.sum = was.sum
		return after{now: now, prefix: true}, nil
	}
	h := c.newHash()
	prefix := false
	if was.exists && now.id.size >= was.id.size {
		if err := hashN(h, f, was.id.size); err != nil {
			return after{}, err
		}
		prefix = h.Sum64() == was.sum
		if prefix {
			err = hashN(h, f, now.id.size-was.id.size)
		} else if _, err = f.Seek(0, io.SeekStart); err == nil {
			// A hash carries on only over what it already holds.
			h.Reset()
			err = hashN(h, f, now.id.size)
		}
	} else {
		err = hashN(h, f, now.id.size)
	}
	if err != nil {
		return after{}, err
	}
	if !was.kept {
		c.keep(p, now.id, now.settled, h)
	}
	now.sum = h.Sum64()
	return after{now: now, prefix: prefix}, nil
}

// guarded runs a process-starting action and checks afterwards that it did
// not touch the protected files. A changed flightplans.org is put back as
// it was — with the server's own changes made meanwhile (OwnWrites) —
// unless a human approved this very action: nothing the agent runs on its
// own approves a plan. A changed journal is only reported — undoing an
// append could remove an entry another process wrote, and the chain and
// its recorded head already expose any forgery.
func (a *Actuators) guarded(ctx context.Context, req Request, act Actuator) (Result, error) {
	// The looks at the files are taken with no own change of them under
	// way; those made while the command runs are watched (OwnWrites).
	own := a.cfg.Own
	before := map[string]look{}
	var w *ownWatch
	var lookErr error
	own.Locked(func() {
		var kept []string
		for _, p := range a.paths.protectedPaths() {
			l, err := a.looks.lookAt(p, isPlans(p))
			lookErr = errors.Join(lookErr, err)
			before[p] = l
			if isPlans(p) {
				kept = append(kept, p)
			}
		}
		w = own.watch(kept...)
	})
	defer own.unwatch(w)
	if lookErr != nil {
		return Result{}, fmt.Errorf("%s: the protected files cannot be looked at before it runs: %w", req.Action.Tool, lookErr)
	}
	res, err := act.Run(ctx, req)
	own.Locked(func() {
		for p, was := range before {
			changed, now, aerr := a.changed(p, was)
			if aerr == nil && !changed {
				continue
			}
			putBack, restore := was.data, was.kept
			if aerr == nil && (was.kept || !was.exists) {
				// The server's own changes made meanwhile (a plan filed,
				// the first one making the file) are what the file should
				// hold.
				if last, stepped := w.follow(protect.Canonical(p), was.data); stepped {
					if now.exists && maphash.Bytes(a.looks.seed, last) == now.sum {
						continue
					}
					putBack, restore = last, true
				}
			}
			msg := fmt.Sprintf("the %s touched %s", req.Action.Tool, p)
			if aerr != nil {
				msg = fmt.Sprintf("the %s may have touched %s (it cannot be looked at: %v)", req.Action.Tool, p, aerr)
			}
			switch {
			case !isPlans(p):
				msg += "; `pp-lsp doctor` checks the journal's chain"
			case req.Approval != nil:
			case !was.exists && !restore:
				os.Remove(p)
				msg += "; it was removed again"
			case restore:
				err2 := writeBack(p, putBack)
				msg += "; it was put back as it was"
				if err2 != nil {
					msg += fmt.Sprintf(" — but that failed: %v", err2)
				}
			default:
				msg += fmt.Sprintf("; it is larger than %d bytes and cannot be put back", maxKeep)
			}
			if isPlans(p) && req.Approval == nil {
				msg += " (Flight Plans change only by a human's hand; approve again if the change was yours)"
			}
			res.Warnings = append(res.Warnings, msg)
			res.OK = false
			a.log.ErrorContext(ctx, "an action touched a protected file", "tool", req.Action.Tool, "file", p)
		}
	})
	return res, err
}

// isPlans reports whether p is a root's flightplans.org.
func isPlans(p string) bool { return strings.HasSuffix(p, "flightplans.org") }

// changed says whether p changed since was by anything but this process's
// journal appends (ownAppends), with the file's look now.
func (a *Actuators) changed(p string, was look) (bool, look, error) {
	for try := 0; ; try++ {
		af, err := a.looks.lookAgain(p, was)
		if err != nil {
			return true, look{}, err
		}
		now := af.now
		switch {
		case !now.exists || !was.exists:
			return now.exists != was.exists, now, nil
		case now.sum == was.sum && now.id.size == was.id.size:
			return false, now, nil
		case !a.ownJournal(p) || !af.prefix || now.id.dev != was.id.dev || now.id.ino != was.id.ino:
			return true, now, nil
		}
		// It grew from was, in place: by this process's appends only when
		// it ends where the last of them ended. Written is stored after
		// the append's write: a size that matches it, read after, is the
		// file as it then was. An append in flight is waited out (a few
		// tries); one that never settles counts as the command's.
		if now.id.size == a.cfg.Journal.Written() {
			return false, now, nil
		}
		if try == 4 {
			return true, now, nil
		}
		time.Sleep(2 * time.Millisecond)
	}
}

// ownJournal reports whether p is the journal this process appends to.
func (a *Actuators) ownJournal(p string) bool {
	return a.cfg.Journal != nil && a.cfg.Journal.Path() == p
}

// writeBack restores a protected file's bytes, atomically.
func writeBack(p string, data []byte) error {
	return workspace.WriteFile(p, data, 0o644)
}
