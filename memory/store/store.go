// Package store writes and reads the memex's own files (vectors, per-file
// hashes) so that a crash at any moment — kill -9 in the middle of a
// write included — leaves either the old file or the new one, never a
// torn one, and so that a damaged or foreign file is recognised before
// anything trusts its content.
//
// Invariant: Write publishes a file only by rename(2) of a complete,
// fsynced temporary file in the same folder, then fsyncs the folder; Open
// returns a payload only after its magic, kind, version, length and
// SHA-256 checksum all match, so a reader never sees a partial or altered
// payload. Any bytes whatsoever given to Open yield an error or a
// verified payload — never a panic and never unbounded memory.
//
// Layout of a store file:
//
//	"PPMEMEX\x00"  8 bytes magic
//	kind          4 bytes ("VECS", "FILE"…)
//	version       4 bytes, little-endian uint32
//	payload       any bytes
//	length        8 bytes, little-endian uint64: the payload's length
//	checksum      32 bytes: SHA-256 of everything before it
package store

import (
	"bufio"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"hash"
	"io"
	"os"
	"path/filepath"
	"time"
)

// Magic starts every store file.
const Magic = "PPMEMEX\x00"

const (
	headerLen  = 16
	trailerLen = 8 + sha256.Size
)

// Errors Open wraps, so callers can tell "rebuild it" from "try later".
var (
	// ErrCorrupt: the file is truncated, or its checksum does not match.
	ErrCorrupt = errors.New("store file is corrupt")
	// ErrForeign: the file is not a store file of this kind.
	ErrForeign = errors.New("store file is not one of ours")
	// ErrVersion: the file is ours but of a version this build cannot read.
	ErrVersion = errors.New("store file has an unknown version")
)

// Kind names what a store file holds: exactly four bytes ("VECS").
type Kind string

// Write atomically replaces path with a store file of kind and version
// whose payload write produces. Until Write returns, readers see the old
// file (or none); if the process dies at any point, they still do. A
// failed write leaves no temporary file behind.
func Write(path string, kind Kind, version uint32, write func(w io.Writer) error) (err error) {
	if len(kind) != 4 {
		return fmt.Errorf("writing %s: store kind %q is not four bytes", path, kind)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("store folder %s: %w", dir, err)
	}
	removeStaleTemps(path)
	tmp, err := os.CreateTemp(dir, filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	sum := sha256.New()
	bw := bufio.NewWriterSize(tmp, 1<<20)
	cw := &countWriter{w: io.MultiWriter(bw, sum)}
	var hdr [headerLen]byte
	copy(hdr[:8], Magic)
	copy(hdr[8:12], kind)
	binary.LittleEndian.PutUint32(hdr[12:], version)
	if _, err := cw.Write(hdr[:]); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	start := cw.n
	if err := write(cw); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	var tr [trailerLen]byte
	binary.LittleEndian.PutUint64(tr[:8], uint64(cw.n-start))
	sum.Write(tr[:8])
	copy(tr[8:], sum.Sum(nil))
	if _, err := bw.Write(tr[:]); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := bw.Flush(); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	return syncDir(dir)
}

// WriteFileAtomic replaces path with data the same way, without the store
// envelope: for the user's own files (a rollback restoring an Org file).
// An existing file's permission bits are kept; a new file gets perm.
func WriteFileAtomic(path string, data []byte, perm os.FileMode) (err error) {
	dir := filepath.Dir(path)
	if fi, err := os.Stat(path); err == nil {
		perm = fi.Mode().Perm()
	}
	tmp, err := os.CreateTemp(dir, "."+filepath.Base(path)+".pp-tmp-*")
	if err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	defer func() {
		if err != nil {
			tmp.Close()
			os.Remove(tmp.Name())
		}
	}()
	if _, err := tmp.Write(data); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Chmod(perm); err != nil {
		return fmt.Errorf("writing %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		return fmt.Errorf("syncing %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("closing %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("replacing %s: %w", path, err)
	}
	return syncDir(dir)
}

// syncDir makes a rename durable.
func syncDir(dir string) error {
	d, err := os.Open(dir)
	if err != nil {
		return fmt.Errorf("syncing folder %s: %w", dir, err)
	}
	defer d.Close()
	if err := d.Sync(); err != nil {
		return fmt.Errorf("syncing folder %s: %w", dir, err)
	}
	return nil
}

// staleAfter is how old a temporary file must be before another writer
// removes it: older than any write takes, so never one in progress.
const staleAfter = 10 * time.Minute

// removeStaleTemps deletes temporary files a killed writer left.
func removeStaleTemps(path string) {
	matches, _ := filepath.Glob(path + ".tmp-*")
	for _, m := range matches {
		if fi, err := os.Stat(m); err == nil && time.Since(fi.ModTime()) > staleAfter {
			os.Remove(m)
		}
	}
}

type countWriter struct {
	w io.Writer
	n int64
}

func (c *countWriter) Write(p []byte) (int, error) {
	n, err := c.w.Write(p)
	c.n += int64(n)
	return n, err
}

// File is a verified store file, open for reading its payload.
type File struct {
	f       *os.File
	Version uint32
	// Payload reads the payload: only what the checksum covers.
	Payload *io.SectionReader
}

// Close closes the file.
func (f *File) Close() error { return f.f.Close() }

// Open opens path, checks that it is a complete, unaltered store file of
// kind with a version accepted by okVersion, and returns it. A missing
// file is an error satisfying errors.Is(err, fs.ErrNotExist).
func Open(path string, kind Kind, okVersion func(uint32) bool) (*File, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	sf, err := verify(f, path, kind, okVersion)
	if err != nil {
		f.Close()
		return nil, err
	}
	return sf, nil
}

func verify(f *os.File, path string, kind Kind, okVersion func(uint32) bool) (*File, error) {
	fi, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	size := fi.Size()
	if !fi.Mode().IsRegular() {
		return nil, fmt.Errorf("%s: %w (not a regular file)", path, ErrForeign)
	}
	var hdr [headerLen]byte
	if _, err := io.ReadFull(f, hdr[:]); err != nil {
		if size < int64(len(Magic)) || string(hdr[:len(Magic)]) == Magic {
			return nil, fmt.Errorf("%s: %w (%d bytes, shorter than a header)", path, ErrCorrupt, size)
		}
		return nil, fmt.Errorf("%s: %w", path, ErrForeign)
	}
	if string(hdr[:8]) != Magic || Kind(hdr[8:12]) != kind {
		if string(hdr[:8]) == Magic {
			return nil, fmt.Errorf("%s: %w (kind %q, want %q)", path, ErrForeign, hdr[8:12], kind)
		}
		return nil, fmt.Errorf("%s: %w", path, ErrForeign)
	}
	version := binary.LittleEndian.Uint32(hdr[12:])
	if okVersion != nil && !okVersion(version) {
		return nil, fmt.Errorf("%s: %w (%d)", path, ErrVersion, version)
	}
	if size < headerLen+trailerLen {
		return nil, fmt.Errorf("%s: %w (truncated)", path, ErrCorrupt)
	}
	var tr [trailerLen]byte
	if _, err := f.ReadAt(tr[:], size-trailerLen); err != nil {
		return nil, fmt.Errorf("%s: %w (%v)", path, ErrCorrupt, err)
	}
	plen := binary.LittleEndian.Uint64(tr[:8])
	if plen != uint64(size-headerLen-trailerLen) {
		return nil, fmt.Errorf("%s: %w (length %d does not match the file's size %d)", path, ErrCorrupt, plen, size)
	}
	sum := sha256.New()
	if _, err := io.Copy(sum, io.NewSectionReader(f, 0, size-sha256.Size)); err != nil {
		return nil, fmt.Errorf("reading %s: %w", path, err)
	}
	if !equalSum(sum, tr[8:]) {
		return nil, fmt.Errorf("%s: %w (checksum mismatch)", path, ErrCorrupt)
	}
	return &File{f: f, Version: version, Payload: io.NewSectionReader(f, headerLen, int64(plen))}, nil
}

func equalSum(h hash.Hash, want []byte) bool {
	got := h.Sum(nil)
	return string(got) == string(want)
}

// SetAside renames a damaged store file out of the way (to path plus
// ".corrupt"), so the next Write starts afresh and the old bytes remain
// for whoever wants to look. It reports the new name.
func SetAside(path string) (string, error) {
	aside := path + ".corrupt"
	if err := os.Rename(path, aside); err != nil {
		return "", fmt.Errorf("setting %s aside: %w", path, err)
	}
	return aside, nil
}

// IsDamaged reports whether err says the file should be rebuilt.
func IsDamaged(err error) bool {
	return errors.Is(err, ErrCorrupt) || errors.Is(err, ErrForeign) || errors.Is(err, ErrVersion)
}

// Chunks: a payload made of length-prefixed parts, each at most
// MaxChunk bytes, so a reader never allocates more than that at once.

// MaxChunk bounds one chunk.
const MaxChunk = 256 << 20

// WriteChunk writes one length-prefixed chunk.
func WriteChunk(w io.Writer, b []byte) error {
	if len(b) > MaxChunk {
		return fmt.Errorf("a store chunk of %d bytes exceeds %d", len(b), MaxChunk)
	}
	var n [4]byte
	binary.LittleEndian.PutUint32(n[:], uint32(len(b)))
	if _, err := w.Write(n[:]); err != nil {
		return err
	}
	_, err := w.Write(b)
	return err
}

// Chunks reads the chunks of a payload in order.
type Chunks struct {
	r   *io.SectionReader
	off int64
}

// NewChunks reads the chunks of payload.
func NewChunks(payload *io.SectionReader) *Chunks { return &Chunks{r: payload} }

// Next returns the next chunk, or io.EOF after the last one. A chunk
// claiming more bytes than remain is ErrCorrupt (never a large allocation).
func (c *Chunks) Next() ([]byte, error) {
	remaining := c.r.Size() - c.off
	if remaining == 0 {
		return nil, io.EOF
	}
	var n [4]byte
	if _, err := c.r.ReadAt(n[:], c.off); err != nil {
		return nil, fmt.Errorf("%w (chunk header: %v)", ErrCorrupt, err)
	}
	size := int64(binary.LittleEndian.Uint32(n[:]))
	if size > MaxChunk || size > remaining-4 {
		return nil, fmt.Errorf("%w (a chunk of %d bytes where %d remain)", ErrCorrupt, size, remaining-4)
	}
	b := make([]byte, size)
	if _, err := c.r.ReadAt(b, c.off+4); err != nil && !(errors.Is(err, io.EOF) && int64(len(b)) == size) {
		return nil, fmt.Errorf("%w (chunk: %v)", ErrCorrupt, err)
	}
	c.off += 4 + size
	return b, nil
}
