package journal

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"github.com/google/uuid"

	"pp-lsp/server/internal/flock"
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
	now     func() time.Time
}

// Open returns the journal at path (absolute; the file is made at the first
// append). Its head is recorded under dataDir ("" records none, and Verify
// can then only check the links between entries).
func Open(path, dataDir string) *Journal {
	return &Journal{path: path, dataDir: dataDir, now: time.Now}
}

// Path is the journal file.
func (j *Journal) Path() string { return j.path }

// head is the record of a journal's last entry, kept in the data directory.
type head struct {
	Path     string `json:"path"`
	Entries  int    `json:"entries"`
	LastHash string `json:"last_hash"`
}

// headPath is where the head of the journal at path is recorded.
func headPath(dataDir, path string) string {
	sum := sha256.Sum256([]byte(path))
	return filepath.Join(dataDir, "journal", "heads", hex.EncodeToString(sum[:8])+".json")
}

// HashOf is the chain's hash of some bytes: "sha256:" and the hex digest.
func HashOf(b []byte) string {
	sum := sha256.Sum256(b)
	return "sha256:" + hex.EncodeToString(sum[:])
}

// Append writes e as the journal's next entry and returns its ID.
func (j *Journal) Append(ctx context.Context, e Entry) (string, error) {
	if e.Time.IsZero() {
		e.Time = j.now()
	}
	lk, err := flock.AcquireFile(ctx, j.path, os.O_RDWR|os.O_APPEND|os.O_CREATE, 0o644)
	if err != nil {
		return "", fmt.Errorf("journal: %w", err)
	}
	defer lk.Release()
	f := lk.File()
	fi, err := f.Stat()
	if err != nil {
		return "", fmt.Errorf("journal %s: %w", j.path, err)
	}
	var prefix []byte
	last, entries, err := j.lastEntry(f, fi.Size())
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
	id := uuid.NewString()
	data := append(prefix, render(e, id, HashOf(last))...)
	if _, err := f.Write(data); err != nil {
		return "", fmt.Errorf("journal %s: appending: %w", j.path, err)
	}
	if err := f.Sync(); err != nil {
		return "", fmt.Errorf("journal %s: fsync: %w", j.path, err)
	}
	if j.dataDir != "" {
		h := head{Path: j.path, Entries: entries + 1, LastHash: HashOf(data[len(prefix):])}
		b, _ := json.Marshal(h)
		hp := headPath(j.dataDir, j.path)
		if err := os.MkdirAll(filepath.Dir(hp), 0o700); err != nil {
			return id, fmt.Errorf("journal: recording its head: %w", err)
		}
		if err := workspace.WriteFile(hp, append(b, '\n'), 0o600); err != nil {
			return id, fmt.Errorf("journal: recording its head: %w", err)
		}
	}
	return id, nil
}

// lastEntry returns the bytes of the file's last entry (or its whole
// header when it has none), reading backwards from the end only as far as
// that entry's start, and how many entries the file holds: taken from the
// head record when it names this very entry, counted otherwise.
func (j *Journal) lastEntry(f *os.File, size int64) ([]byte, int, error) {
	if size == 0 {
		return nil, 0, nil
	}
	const chunk = 64 << 10
	var tail []byte
	pos := size
	for {
		step := min(int64(chunk), pos)
		pos -= step
		buf := make([]byte, step, int64(len(tail))+step)
		if _, err := f.ReadAt(buf, pos); err != nil && !errors.Is(err, io.EOF) {
			return nil, 0, err
		}
		tail = append(buf, tail...)
		if i := lastEntryStart(tail, pos == 0); i >= 0 {
			last := tail[i:]
			if n, ok := j.headCount(last); ok {
				return last, n, nil
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

// headCount returns the entry count the head record holds, when it names
// last as the final entry.
func (j *Journal) headCount(last []byte) (int, bool) {
	if j.dataDir == "" {
		return 0, false
	}
	b, err := os.ReadFile(headPath(j.dataDir, j.path))
	if err != nil {
		return 0, false
	}
	var h head
	if json.Unmarshal(b, &h) != nil || h.Path != j.path || h.LastHash != HashOf(last) {
		return 0, false
	}
	return h.Entries, true
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
}

// OK reports whether the chain holds and the head, if recorded, matches.
func (r Report) OK() bool { return r.Broken == nil && r.Head != HeadMismatch }

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
	// HeadUnknown: no head is recorded (no data directory, or another one).
	HeadUnknown HeadStatus = iota
	// HeadOK: the recorded last entry is in the file, unchanged.
	HeadOK
	// HeadMismatch: the recorded last entry was changed or removed.
	HeadMismatch
)

// Verify recomputes the chain of the journal at path and, when dataDir holds
// its head, compares the entry the head names. A missing journal is an
// empty, valid one. The error is for a journal that cannot be read.
func Verify(ctx context.Context, path, dataDir string) (Report, error) {
	rep := Report{Path: path}
	data, err := os.ReadFile(path)
	if errors.Is(err, fs.ErrNotExist) {
		data = nil
	} else if err != nil {
		return rep, fmt.Errorf("journal: %w", err)
	}
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
			b := &Break{Entry: i + 1, Line: lines[i], Title: firstLine(e)}
			b.ID, _ = property(e, "ID")
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
	hb, err := os.ReadFile(headPath(dataDir, path))
	if err != nil {
		return rep, nil
	}
	var h head
	if json.Unmarshal(hb, &h) != nil || h.Path != path || h.Entries < 1 {
		return rep, nil
	}
	rep.HeadEntries = h.Entries
	switch {
	case h.Entries > len(entries):
		rep.Head = HeadMismatch
		if rep.Broken == nil {
			rep.Broken = &Break{Entry: len(entries), Reason: fmt.Sprintf("the journal holds %d entries but %d were written: entries were removed from its end", len(entries), h.Entries)}
			if len(entries) > 0 {
				rep.Broken.Line, rep.Broken.Title = lines[len(entries)-1], firstLine(entries[len(entries)-1])
			}
		}
	case HashOf(entries[h.Entries-1]) != h.LastHash:
		rep.Head = HeadMismatch
		if rep.Broken == nil {
			e := entries[h.Entries-1]
			rep.Broken = &Break{Entry: h.Entries, Line: lines[h.Entries-1], Title: firstLine(e),
				Reason: "it is not the entry that was written (its hash differs from the head recorded in the data directory): it was changed"}
			rep.Broken.ID, _ = property(e, "ID")
		}
	default:
		rep.Head = HeadOK
	}
	return rep, nil
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
