package journal

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"sync"
	"sync/atomic"
	"time"

	"github.com/google/uuid"

	"pp-lsp/server/internal/flock"
	"pp-lsp/server/protect"
	"pp-lsp/server/seal"
	"pp-lsp/server/workspace"
)

// FileName is the journal's name, beside flightplans.org in the first root.
const FileName = "journal.org"

// Header is what a new journal starts with; the first entry's :PREV_HASH:
// is its hash (or that of whatever header the file has).
const Header = "#+TITLE: Audit Journal\n" +
	"#+STARTUP: overview\n" +
	"# Written by pp-lsp only, appended, never rewritten. Each entry's :PREV_HASH: is the\n" +
	"# SHA-256 of the entry before it (of this header for the first); `pp-lsp doctor` checks the chain.\n"

// Journal appends to one journal file. It is safe for concurrent use, also
// by several processes at once.
type Journal struct {
	path    string
	dataDir string
	key     *seal.Key
	now     func() time.Time
	// syncDelay bounds how long an entry AppendDeferred wrote waits for
	// its fsync.
	syncDelay time.Duration

	// written is the file's size just after this Journal's last append.
	written atomic.Int64

	// mu guards what follows: the deferred entries not yet fsynced.
	mu sync.Mutex
	// pending reports entries (and heads) written but not yet fsynced;
	// timer is the sync due for them, syncErr the last one's failure.
	pending bool
	timer   *time.Timer
	syncErr error
}

// SyncDelay is the longest an entry written by AppendDeferred waits before
// it and its head are fsynced (an Append, Sync or Close syncs sooner).
const SyncDelay = 250 * time.Millisecond

// Open returns the journal at path (absolute; the file is made at the first
// append). Its head is recorded under dataDir, sealed with key ("" records
// none, and Verify can then only check the links between entries).
func Open(path, dataDir string, key *seal.Key) *Journal {
	return &Journal{path: path, dataDir: dataDir, key: key, now: time.Now, syncDelay: SyncDelay}
}

// Path is the journal file.
func (j *Journal) Path() string { return j.path }

// Written is the journal file's size just after this Journal's last
// append (0 before its first): while the file has that size, it ends with
// this process's own entry. What anyone else appended before that entry
// is caught by the append itself (the recorded head no longer matches: an
// anomaly, which doctor reports).
func (j *Journal) Written() int64 { return j.written.Load() }

// head is the record of a journal's last entry, kept in the data directory
// and sealed with the install's key.
type head struct {
	Path     string `json:"path"`
	Entries  int    `json:"entries"`
	LastHash string `json:"last_hash"`
	// Anomalies are what appends found wrong before they wrote; every
	// later head carries them on (at most maxAnomalies, the first ones).
	Anomalies []Anomaly `json:"anomalies,omitempty"`
	// Next is the hash of the entry an append is about to write, in the
	// head it records just before writing it (the head that records the
	// entry has none): an entry right after the head with this hash is
	// pp-lsp's, written by an append that stopped (killed) before it could
	// record it.
	Next string `json:"next,omitempty"`
	Seal string `json:"seal,omitempty"`
}

// Anomaly is something an append found wrong with the journal before it
// wrote its entry: entries after the recorded head, which pp-lsp did not
// write (or wrote and died before recording them), or the recorded last
// entry changed or gone. Once found it stays in the head, so that the
// appends after it cannot make it disappear.
type Anomaly struct {
	// Entry is the 1-based number of the first entry concerned; Count how
	// many unrecorded entries followed the head (0 for a changed entry).
	Entry int `json:"entry"`
	Count int `json:"count,omitempty"`
	// Hash is that entry's hash as found.
	Hash string `json:"hash,omitempty"`
	// Found is when the append found it; What says what it was.
	Found time.Time `json:"found"`
	What  string    `json:"what"`
}

// maxAnomalies bounds the anomalies a head carries.
const maxAnomalies = 64

// headPurpose is the purpose a head is sealed for.
const headPurpose = "pp-lsp journal head v1"

// sealed is h's bytes as sealed: its JSON without the seal.
func (h head) sealed() []byte {
	h.Seal = ""
	b, _ := json.Marshal(h)
	return b
}

// headPath is where the head of the journal at path is recorded.
func headPath(dataDir, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(dataDir, "journal", "heads", hex.EncodeToString(sum[:8])+".json")
}

// headState is what reading a head found.
type headState uint8

const (
	headNone     headState = iota // no head recorded for this journal
	headValid                     // a head whose seal verifies
	headUnsealed                  // a head without a seal (an older pp-lsp wrote it)
	headForged                    // a head whose seal does not verify
)

// readHead reads the head of the journal at path under dataDir, checking
// its seal with key (nil: a seal cannot verify).
func readHead(dataDir, path string, key *seal.Key) (head, headState) {
	b, err := os.ReadFile(headPath(dataDir, path))
	if err != nil {
		return head{}, headNone
	}
	var h head
	if json.Unmarshal(b, &h) != nil || h.Path != path {
		return head{}, headForged
	}
	switch {
	case h.Seal == "":
		return h, headUnsealed
	case !key.Verify(headPurpose, h.sealed(), h.Seal):
		return h, headForged
	}
	return h, headValid
}

// HashOf is the chain's hash of some bytes: "sha256:" and the hex digest.
func HashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Append writes e as the journal's next entry and returns its ID, durably:
// the entry and its head are fsynced before it returns (and so is every
// entry AppendDeferred wrote before it). It refuses a journal.org that is
// a symlink or has another hard link, and, with a data directory, works
// only with the install's key: an entry whose head cannot be recorded is
// not written.
func (j *Journal) Append(ctx context.Context, e Entry) (string, error) {
	return j.append(ctx, e, true)
}

// AppendDeferred writes e as the journal's next entry, chained and with its
// head recorded, as Append does, but leaves the fsyncs for later: the
// entry and its head are written (write(2) of the entry, one pwrite(2) of
// the head over the recorded one: every process, and every later append or
// Verify, sees them at once, and they survive the writer's being killed)
// and fsynced within SyncDelay, or by the next
// Append, Sync or Close, whichever comes first. Only what changes nothing
// may be written so (a client's read of the memex): an operating-system
// crash or power loss within that delay may lose such entries, and then
// Verify reports the head and the file disagreeing as it would a
// truncation (see the package doc).
func (j *Journal) AppendDeferred(ctx context.Context, e Entry) (string, error) {
	return j.append(ctx, e, false)
}

// Sync fsyncs what AppendDeferred wrote and has not been synced yet: the
// journal file, then its head and the head's folder. It takes no lock
// (appends go on meanwhile; an fsync covers whatever the file holds).
func (j *Journal) Sync() error {
	j.mu.Lock()
	if j.timer != nil {
		j.timer.Stop()
		j.timer = nil
	}
	if !j.pending {
		err := j.syncErr
		j.syncErr = nil
		j.mu.Unlock()
		return err
	}
	j.pending = false
	j.mu.Unlock()
	err := j.syncFiles()
	j.mu.Lock()
	defer j.mu.Unlock()
	if err != nil {
		j.pending = true // the next Append or Sync tries again
	}
	err = errors.Join(j.syncErr, err)
	j.syncErr = nil
	return err
}

// Close syncs what AppendDeferred left unsynced; the journal stays usable.
func (j *Journal) Close() error { return j.Sync() }

// syncFiles fsyncs the journal file, then its head file and the head's
// folder.
func (j *Journal) syncFiles() error {
	if err := fsyncPath(j.path, protect.NoFollow); err != nil {
		return fmt.Errorf("journal %s: fsync: %w", j.path, err)
	}
	if j.dataDir == "" {
		return nil
	}
	hp := headPath(j.dataDir, j.path)
	if err := fsyncPath(hp, protect.NoFollow); err != nil {
		return fmt.Errorf("journal %s: fsync of its head: %w", j.path, err)
	}
	if err := fsyncPath(filepath.Dir(hp), 0); err != nil {
		return fmt.Errorf("journal %s: fsync of its head's folder: %w", j.path, err)
	}
	return nil
}

// fsyncPath opens p read-only (with flags) and fsyncs it.
func fsyncPath(p string, flags int) error {
	f, err := os.OpenFile(p, os.O_RDONLY|flags, 0)
	if err != nil {
		return err
	}
	defer f.Close()
	return f.Sync()
}

// deferred notes an entry written without fsync, and schedules its sync
// unless one is due already. Called with the journal's flock held.
func (j *Journal) deferred() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.pending = true
	if j.timer == nil {
		j.timer = time.AfterFunc(j.syncDelay, func() {
			if err := j.Sync(); err != nil {
				j.mu.Lock()
				j.syncErr = err // Close and the next Sync report it
				j.mu.Unlock()
			}
		})
	}
}

// synced notes that a durable append synced everything before it. Called
// with the journal's flock held, so no deferred entry came in between.
func (j *Journal) synced() {
	j.mu.Lock()
	defer j.mu.Unlock()
	j.pending = false
	if j.timer != nil {
		j.timer.Stop()
		j.timer = nil
	}
}

// append is Append (durable) and AppendDeferred (not).
func (j *Journal) append(ctx context.Context, e Entry, durable bool) (string, error) {
	if e.Time.IsZero() {
		e.Time = j.now()
	}
	if j.dataDir != "" && j.key == nil {
		return "", fmt.Errorf("journal %s: no key to seal its head with", j.path)
	}
	if err := protect.OwnFile(j.path); err != nil {
		return "", fmt.Errorf("journal: %w", err)
	}
	lk, err := flock.AcquireFile(ctx, j.path, os.O_RDWR|os.O_APPEND|os.O_CREATE|protect.NoFollow, 0o644)
	if err != nil {
		if err2 := protect.OwnFile(j.path); err2 != nil {
			return "", fmt.Errorf("journal: %w", err2)
		}
		return "", fmt.Errorf("journal: %w", err)
	}
	defer lk.Release()
	f := lk.File()
	if err := protect.CheckOpenOwn(f, j.path); err != nil {
		return "", fmt.Errorf("journal: %w", err)
	}
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("journal %s: %w", j.path, err)
	}
	h, hs := head{}, headNone
	if j.dataDir != "" {
		h, hs = readHead(j.dataDir, j.path, j.key)
	}
	var prefix []byte
	last, entries, err := j.lastEntry(f, fi.Size(), h, hs)
	if err != nil {
		return "", fmt.Errorf("journal %s: %w", j.path, err)
	}
	if fi.Size() == 0 {
		prefix = []byte(Header)
		last = prefix
	} else if last[len(last)-1] != '\n' {
		// A file cut in the middle of a line: the newline that separates
		// the new entry belongs to the one before, as Verify splits it.
		prefix = []byte("\n")
		last = append(last, '\n')
	}
	next := head{Path: j.path}
	if hs == headValid || hs == headForged {
		next.Anomalies = h.Anomalies
		if a, found := j.anomaly(f, fi.Size(), h, hs, last, entries); found && len(next.Anomalies) < maxAnomalies {
			next.Anomalies = append(next.Anomalies, a)
		}
	}
	id := uuid.NewString()
	data := append(prefix, render(e, id, HashOf(last))...)
	if j.dataDir != "" && hs == headValid && prefix == nil && h.Entries == entries && h.LastHash == HashOf(last) {
		// The head first names the entry about to be written (Next), so
		// that an append killed before recording it leaves an entry Verify
		// knows for pp-lsp's, not one someone else appended.
		pre := next
		pre.Entries, pre.LastHash, pre.Next = h.Entries, h.LastHash, HashOf(data)
		pre.Seal = j.key.Sum(headPurpose, pre.sealed())
		b, _ := json.Marshal(pre)
		if err := writeHead(headPath(j.dataDir, j.path), append(b, '\n'), false); err != nil {
			return "", fmt.Errorf("journal: recording its head: %w", err)
		}
	}
	if _, err := f.Write(data); err != nil {
		return "", fmt.Errorf("journal %s: appending: %w", j.path, err)
	}
	j.written.Store(fi.Size() + int64(len(data))) // O_APPEND under the lock: it went at the end
	if durable {
		if err := f.Sync(); err != nil {
			return "", fmt.Errorf("journal %s: fsync: %w", j.path, err)
		}
	}
	if j.dataDir != "" {
		next.Entries, next.LastHash = entries+1, HashOf(data[len(prefix):])
		next.Seal = j.key.Sum(headPurpose, next.sealed())
		b, _ := json.Marshal(next)
		hp := headPath(j.dataDir, j.path)
		if err := os.MkdirAll(filepath.Dir(hp), 0o700); err != nil {
			return id, fmt.Errorf("journal: recording its head: %w", err)
		}
		if err := writeHead(hp, append(b, '\n'), durable); err != nil {
			return id, fmt.Errorf("journal: recording its head: %w", err)
		}
	}
	if durable {
		j.synced()
	} else {
		j.deferred()
	}
	return id, nil
}

// writeHead records data as the head hp. Durably, it replaces the file
// atomically (workspace.WriteFile: a temp file fsynced, renamed, the folder
// fsynced). For a deferred entry it overwrites the head in place, with one
// pwrite(2) of the whole record, padded with spaces to the file's length
// (a JSON value may be followed by spaces), and no fsync (Sync does it
// later): every reader of a head holds the journal's lock, as the writer
// does, and a killed process cannot leave half of one write(2). A head not
// yet recorded, or not a regular file of one link, is replaced as the
// durable path replaces it, without the fsyncs.
func writeHead(hp string, data []byte, durable bool) error {
	if durable {
		return workspace.WriteFile(hp, data, 0o600)
	}
	f, err := os.OpenFile(hp, os.O_WRONLY|protect.NoFollow, 0)
	if errors.Is(err, fs.ErrNotExist) {
		return newHead(hp, data)
	}
	if err != nil {
		return err
	}
	if protect.CheckOpenOwn(f, hp) != nil {
		// Not a regular file of one link: another name (a hard link)
		// would be written through. The head is replaced instead, which
		// leaves whatever it was linked to alone.
		f.Close()
		return newHead(hp, data)
	}
	fi, err := f.Stat()
	if err != nil {
		f.Close()
		return err
	}
	if pad := int(fi.Size()) - len(data); pad > 0 {
		data = append(append(data[:len(data)-1:len(data)-1], bytes.Repeat([]byte{' '}, pad)...), '\n')
	}
	if _, err := f.WriteAt(data, 0); err != nil {
		f.Close()
		return err
	}
	return f.Close()
}

// newHead makes the head record hp, not there yet, with data: written to
// a temp file and renamed into place, without fsync.
func newHead(hp string, data []byte) (err error) {
	root, err := os.OpenRoot(filepath.Dir(hp))
	if err != nil {
		return err
	}
	defer root.Close()
	var rnd [6]byte
	if _, err := rand.Read(rnd[:]); err != nil {
		return err
	}
	name := filepath.Base(hp)
	tmp := "." + name + ".pp-" + hex.EncodeToString(rnd[:]) + ".tmp"
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if err != nil {
		return err
	}
	defer func() {
		if err != nil {
			root.Remove(tmp)
		}
	}()
	if _, err = f.Write(data); err != nil {
		f.Close()
		return err
	}
	if err = f.Close(); err != nil {
		return err
	}
	return root.Rename(tmp, name)
}

// anomaly compares the journal, before an append, with its recorded head h
// (whose last entry, as the append found it, is last, the entry count
// entries): entries after the head, a head entry changed or gone, a head
// whose seal does not verify. It reads the whole file only when the head
// does not name the last entry.
func (j *Journal) anomaly(f *os.File, size int64, h head, hs headState, last []byte, entries int) (Anomaly, bool) {
	now := j.now()
	if hs == headForged {
		return Anomaly{Entry: entries, Found: now, What: "the head record in the data directory did not carry a valid seal: it was written by something other than pp-lsp"}, true
	}
	if h.Entries == entries && h.LastHash == HashOf(last) {
		return Anomaly{}, false
	}
	data := make([]byte, size)
	if _, err := f.ReadAt(data, 0); err != nil && !errors.Is(err, io.EOF) {
		return Anomaly{Entry: h.Entries, Found: now, What: "the journal could not be read back to compare it with its recorded head: " + err.Error()}, true
	}
	_, ents, _ := split(data)
	rec := recordedEntries(h, ents)
	switch {
	case rec == len(ents) && rec > h.Entries:
		return Anomaly{}, false // pp-lsp's own entry, which an append killed could not record
	case h.Entries >= 1 && h.Entries <= len(ents) && HashOf(ents[h.Entries-1]) == h.LastHash && len(ents) > rec:
		return Anomaly{Entry: rec + 1, Count: len(ents) - rec, Hash: HashOf(ents[rec]), Found: now,
			What: fmt.Sprintf("%d unrecorded entries followed the recorded head (entry %d)", len(ents)-rec, rec)}, true
	case h.Entries > len(ents):
		return Anomaly{Entry: len(ents), Found: now,
			What: fmt.Sprintf("the journal held %d entries but %d were recorded: entries were removed from its end", len(ents), h.Entries)}, true
	case h.Entries >= 1:
		return Anomaly{Entry: h.Entries, Hash: HashOf(ents[h.Entries-1]), Found: now,
			What: fmt.Sprintf("entry %d was not the entry pp-lsp recorded as the head: it was changed", h.Entries)}, true
	}
	return Anomaly{}, false
}

// recordedEntries is how many of ents head h records: its count, and one
// more when the entry after it is the one h names as Next (an append that
// wrote it and was killed before recording it) and h's own entry is there.
func recordedEntries(h head, ents [][]byte) int {
	if h.Next != "" && h.Entries >= 1 && h.Entries < len(ents) && HashOf(ents[h.Entries-1]) == h.LastHash && HashOf(ents[h.Entries]) == h.Next {
		return h.Entries + 1
	}
	return h.Entries
}

// lastEntry returns the bytes of the file's last entry (or its whole
// header when it has none), reading backwards from the end only as far as
// that entry's start, and how many entries the file holds: taken from the
// head record when it is valid and names this very entry, counted
// otherwise.
func (j *Journal) lastEntry(f *os.File, size int64, h head, hs headState) ([]byte, int, error) {
	if size == 0 {
		return nil, 0, nil
	}
	// An entry is a few hundred bytes: the first read takes 4 KiB, and
	// each further one 16 times more, up to 1 MiB.
	chunk := int64(4 << 10)
	var tail []byte
	pos := size
	for {
		step := min(chunk, pos)
		chunk = min(chunk*16, 1<<20)
		pos -= step
		buf := make([]byte, step, int64(len(tail))+step)
		if _, err := f.ReadAt(buf, pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		tail = append(buf, tail...)
		if i := lastEntryStart(tail, pos == 0); i >= 0 {
			last := tail[i:]
			if hs == headValid && h.Entries >= 1 && h.LastHash == HashOf(last) {
				return last, h.Entries, nil
			}
			n, err := countEntries(f, size)
			return last, n, err
		}
		if pos == 0 {
			return tail, 0, nil
		}
	}
}

// lastEntryStart is the offset of the last "* " at a line start in b, or -1.
// Offset 0 counts only when b starts the file.
func lastEntryStart(b []byte, atFileStart bool) int {
	for i := len(b) - 2; i >= 0; i-- {
		if b[i] == '*' && b[i+1] == ' ' && (i > 0 && b[i-1] == '\n' || i == 0 && atFileStart) {
			return i
		}
	}
	return -1
}

// countEntries counts the entry starts ("* " at a line start), in one pass
// of large reads.
func countEntries(f *os.File, size int64) (int, error) {
	const chunk = 256 << 10
	buf := make([]byte, chunk)
	n := 0
	prev, prevPrev := byte('\n'), byte(0)
	for off := int64(0); off < size; {
		m, err := f.ReadAt(buf, off)
		if m == 0 && err != nil {
			return 0, err
		}
		for _, c := range buf[:m] {
			if c == ' ' && prev == '*' && prevPrev == '\n' {
				n++
			}
			prevPrev, prev = prev, c
		}
		off += int64(m)
	}
	return n, nil
}

// split cuts a journal's bytes into its header and entries, as the package
// doc defines them, with the 1-based line of each entry's start.
func split(data []byte) (header []byte, entries [][]byte, lines []int) {
	starts := []int{}
	line, lineOf := 1, []int{}
	for i := 0; i < len(data); i++ {
		if (i == 0 || data[i-1] == '\n') && i+1 < len(data) && data[i] == '*' && data[i+1] == ' ' {
			starts = append(starts, i)
			lineOf = append(lineOf, line)
		}
		if data[i] == '\n' {
			line++
		}
	}
	if len(starts) == 0 {
		return data, nil, nil
	}
	header = data[:starts[0]]
	for k, s := range starts {
		end := len(data)
		if k+1 < len(starts) {
			end = starts[k+1]
		}
		entries = append(entries, data[s:end])
	}
	return header, entries, lineOf
}

// Report is what Verify found.
type Report struct {
	Path string
	// Entries is the number of entries in the file.
	Entries int
	// Broken is the first entry that does not match, nil when the chain holds.
	Broken *Break
	// Head says how the file compares with the head recorded in the data
	// directory.
	Head HeadStatus
	// HeadEntries is the number of entries the head record counts.
	HeadEntries int
	// HeadProblem says what is wrong with the head record itself (no seal,
	// a seal that does not verify, a key that cannot be read), if anything.
	HeadProblem string
	// Unrecorded is the number of entries after the recorded head, and
	// FirstUnrecorded the first of them: entries pp-lsp did not write (or
	// wrote and died before recording).
	Unrecorded      int
	FirstUnrecorded *Break
	// Anomalies are what earlier appends found (see Anomaly).
	Anomalies []Anomaly
	// Interrupted reports that the last entry was written by an append
	// that was killed before it recorded the entry in the head (the head
	// named it as the one coming): pp-lsp's, counted in HeadEntries; the
	// next append records it.
	Interrupted bool
}

// OK reports whether the chain holds, the head (if recorded) matches and
// nothing unrecorded was ever found.
func (r Report) OK() bool {
	return r.Broken == nil && r.Head != HeadMismatch && r.Unrecorded == 0 && len(r.Anomalies) == 0
}

// Break names the first entry that does not match.
type Break struct {
	// Entry is its 1-based number, Line its first line in the file.
	Entry, Line int
	// Title is its headline as written; ID its :ID:, if it has one.
	Title, ID string
	// Reason says what does not match, in one sentence.
	Reason string
}

// HeadStatus is how a journal compares with its recorded head.
type HeadStatus uint8

// The head statuses.
const (
	// HeadUnknown: no head is recorded (no data directory, or another one),
	// or it has no seal (an older pp-lsp wrote it: HeadProblem says so).
	HeadUnknown HeadStatus = iota
	// HeadOK: the recorded last entry is in the file, unchanged.
	HeadOK
	// HeadMismatch: the recorded last entry was changed or removed, or the
	// head record's seal does not verify.
	HeadMismatch
)

// Verify recomputes the chain of the journal at path and, when dataDir holds
// its head, checks the head's seal with the install's key and compares the
// entry the head names; entries after it are unrecorded. A missing journal
// is an empty, valid one. The error is for a journal that cannot be read
// or that pp-lsp refuses to use (a symlink, another hard link). It reads
// under the journal's lock, so an append is never seen half done.
func Verify(ctx context.Context, path, dataDir string) (Report, error) {
	rep := Report{Path: path}
	if err := protect.OwnFile(path); err != nil {
		return rep, fmt.Errorf("journal: %w", err)
	}
	var data []byte
	if _, err := os.Lstat(path); errors.Is(err, fs.ErrNotExist) {
		return verifyData(ctx, rep, nil, dataDir)
	}
	lk, err := flock.AcquireFile(ctx, path, os.O_RDONLY|protect.NoFollow, 0)
	switch {
	case err == nil:
		defer lk.Release()
		if err := protect.CheckOpenOwn(lk.File(), path); err != nil {
			return rep, fmt.Errorf("journal: %w", err)
		}
		if data, err = readAll(lk.File()); err != nil {
			return rep, fmt.Errorf("journal: %w", err)
		}
	case errors.Is(err, fs.ErrNotExist):
	default:
		return rep, fmt.Errorf("journal: %w", err)
	}
	return verifyData(ctx, rep, data, dataDir)
}

// verifyData is Verify on the journal's bytes, read under its lock.
func verifyData(ctx context.Context, rep Report, data []byte, dataDir string) (Report, error) {
	path := rep.Path
	header, entries, lines := split(data)
	rep.Entries = len(entries)
	prev := header
	for i, e := range entries {
		if i%1024 == 0 && ctx.Err() != nil {
			return rep, ctx.Err()
		}
		got, ok := property(e, "PREV_HASH")
		want := HashOf(prev)
		if !ok || got != want {
			b := entryBreak(entries, lines, i+1)
			switch {
			case !ok:
				b.Reason = "it has no :PREV_HASH: property"
			case i == 0:
				b.Reason = fmt.Sprintf(":PREV_HASH: is %s but the header before it hashes to %s: the header or this entry was changed", got, want)
			default:
				b.Reason = fmt.Sprintf(":PREV_HASH: is %s but entry %d (line %d) hashes to %s: that entry or this one was changed, or an entry was inserted or removed between them", got, i, lines[i-1], want)
			}
			rep.Broken = b
			break
		}
		prev = e
	}
	if dataDir == "" {
		return rep, nil
	}
	key, kerr := seal.Load(dataDir)
	h, hs := readHead(dataDir, path, key)
	switch hs {
	case headNone:
		return rep, nil
	case headUnsealed:
		rep.HeadProblem = "the head record carries no seal (an older pp-lsp wrote it); the next entry records a sealed one"
		return rep, nil
	case headForged:
		rep.Head = HeadMismatch
		rep.HeadProblem = "the head record in the data directory does not carry a valid seal: it was not written by pp-lsp with this install's key"
		if kerr != nil {
			rep.HeadProblem = "the head record's seal cannot be checked: " + kerr.Error()
		}
		return rep, nil
	}
	rep.HeadEntries = h.Entries
	rep.Anomalies = h.Anomalies
	if h.Entries < 1 {
		return rep, nil
	}
	switch {
	case h.Entries > len(entries):
		rep.Head = HeadMismatch
		if rep.Broken == nil {
			rep.Broken = &Break{Entry: len(entries)}
			if len(entries) > 0 {
				rep.Broken = entryBreak(entries, lines, len(entries))
			}
			rep.Broken.Reason = fmt.Sprintf("the journal holds %d entries but %d were written: entries were removed from its end", len(entries), h.Entries)
		}
	case HashOf(entries[h.Entries-1]) != h.LastHash:
		rep.Head = HeadMismatch
		if rep.Broken == nil {
			rep.Broken = entryBreak(entries, lines, h.Entries)
			rep.Broken.Reason = "it is not the entry that was written (its hash differs from the head recorded in the data directory): it was changed"
		}
	default:
		rep.Head = HeadOK
	}
	rec := h.Entries
	if rep.Head == HeadOK {
		if rec = recordedEntries(h, entries); rec > h.Entries {
			rep.HeadEntries, rep.Interrupted = rec, true
		}
	}
	if n := len(entries) - rec; n > 0 {
		rep.Unrecorded = n
		rep.FirstUnrecorded = entryBreak(entries, lines, rec+1)
		rep.FirstUnrecorded.Reason = fmt.Sprintf("it follows the head recorded in the data directory (entry %d): pp-lsp did not record it", rec)
		if n > 1 {
			rep.FirstUnrecorded.Reason = fmt.Sprintf("it and the %d entries after it follow the head recorded in the data directory (entry %d): pp-lsp did not record them", n-1, rec)
		}
	}
	return rep, nil
}

// readAll reads f whole, in one allocation of its size.
func readAll(f *os.File) ([]byte, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, err
	}
	data := make([]byte, fi.Size())
	n, err := io.ReadFull(f, data)
	if errors.Is(err, io.ErrUnexpectedEOF) {
		err = nil // it shrank meanwhile: what was there is what there is
	}
	return data[:n], err
}

// entryBreak names entry n (1-based) of entries.
func entryBreak(entries [][]byte, lines []int, n int) *Break {
	e := entries[n-1]
	b := &Break{Entry: n, Line: lines[n-1], Title: firstLine(e)}
	b.ID, _ = property(e, "ID")
	return b
}

// Known lists the journals whose heads dataDir records (for doctor).
func Known(dataDir string) []string {
	dir := filepath.Join(dataDir, "journal", "heads")
	ents, err := os.ReadDir(dir)
	if err != nil {
		return nil
	}
	var out []string
	for _, de := range ents {
		b, err := os.ReadFile(filepath.Join(dir, de.Name()))
		if err != nil {
			continue
		}
		var h head
		if json.Unmarshal(b, &h) == nil && h.Path != "" {
			out = append(out, h.Path)
		}
	}
	return out
}

// property returns the value of the first ":KEY: value" line of an entry.
func property(entry []byte, key string) (string, bool) {
	pre := []byte(":" + key + ":")
	for _, l := range bytes.Split(entry, []byte("\n")) {
		if bytes.HasPrefix(l, pre) {
			return string(bytes.TrimSpace(l[len(pre):])), true
		}
	}
	return "", false
}

func firstLine(b []byte) string {
	if i := bytes.IndexByte(b, '\n'); i >= 0 {
		b = b[:i]
	}
	return string(b)
}
