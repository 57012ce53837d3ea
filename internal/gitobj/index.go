// Package gitobj reads a git repository's index and objects, loose or
// packed, without running git: what the gates need to tell what git
// diff with no revision prints of the index (the staged version of every
// file the working tree has changed since, the lines it no longer has),
// which may hold a private part since cut from a public note, or a
// private note since deleted. The formats are gitformat-index(5) and
// gitformat-pack(5), and loose objects are zlib of "TYPE SIZE\0CONTENT"
// (git-hash-object(1)).
//
// It never writes, never blocks on a special file, and bounds every read
// (MaxBytes); what it cannot read for sure (an object in another store
// or missing from a partial clone, a split or sparse index, a SHA-256
// repository) is an error wrapping ErrUnknown, or a reason in place of a
// blob's bytes: the caller then asks a human.
package gitobj

import (
	"bytes"
	"compress/zlib"
	"crypto/sha1"
	"encoding/binary"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"syscall"
)

// Staged is one file of the index whose staged version git diff
// would print: Data is that version, nil when it cannot be read.
type Staged struct {
	Path string
	Data []byte
	Why  string // why Data is nil
}

// MaxBytes bounds the bytes read of one file or object.
const MaxBytes = 64 << 20

// ErrUnknown is a repository, index or pack this package does not read
// for sure.
var ErrUnknown = errors.New("a repository pp-lsp does not read for sure")

// maxIndexEntries bounds the files of an index read; a larger index is
// not read, and the diff asks.
const maxIndexEntries = 200_000

// dirs returns the git directory of the work tree at top (following
// a .git file, as worktrees and submodules have) and the common
// directory holding its objects (a worktree's commondir).
func dirs(top string) (gitDir, common string, err error) {
	dot := filepath.Join(top, ".git")
	fi, err := os.Lstat(dot)
	if err != nil {
		return "", "", err
	}
	gitDir = dot
	if fi.Mode().IsRegular() {
		b, err := readBounded(dot, 4096)
		if err != nil {
			return "", "", err
		}
		rest, ok := strings.CutPrefix(strings.TrimSpace(string(b)), "gitdir: ")
		if !ok {
			return "", "", fmt.Errorf("%s: %w", dot, ErrUnknown)
		}
		if !filepath.IsAbs(rest) {
			rest = filepath.Join(top, rest)
		}
		gitDir = rest
	}
	common = gitDir
	if b, err := readBounded(filepath.Join(gitDir, "commondir"), 4096); err == nil {
		c := strings.TrimSpace(string(b))
		if !filepath.IsAbs(c) {
			c = filepath.Join(gitDir, c)
		}
		common = c
	}
	return gitDir, common, nil
}

// StagedVersions returns the files of the work tree at top whose
// staged version git diff would print: those the working tree has
// changed or deleted since they were staged, with their staged bytes
// where an object it reads holds them (loose or packed). A file in a merge conflict is shown
// from its stages, and one is returned for each. An index it cannot read
// for sure is an error. Only the files want accepts are looked at (nil:
// every file).
func StagedVersions(top string, want func(path string) bool) ([]Staged, error) {
	gitDir, common, err := dirs(top)
	if err != nil {
		return nil, err
	}
	if cfg, err := readBounded(filepath.Join(common, "config"), 1<<20); err == nil && bytes.Contains(bytes.ToLower(cfg), []byte("objectformat")) {
		return nil, fmt.Errorf("a repository with another object format: %w", ErrUnknown)
	}
	indexPath := filepath.Join(gitDir, "index")
	ist, err := os.Stat(indexPath)
	if err != nil {
		if errors.Is(err, fs.ErrNotExist) {
			return nil, nil // nothing staged yet
		}
		return nil, err
	}
	data, err := readBounded(indexPath, MaxBytes)
	if err != nil {
		return nil, err
	}
	entries, err := parseIndex(data)
	if err != nil {
		return nil, err
	}
	var out []Staged
	objects := &objectStore{gitDir: common}
	defer objects.close()
	for _, e := range entries {
		switch {
		case want != nil && !want(e.path):
			continue
		case e.stage != 0:
			out = append(out, Staged{Path: e.path, Why: "in a merge conflict"})
			continue
		case e.skipWorktree || e.intentToAdd || e.mode&0o170000 != 0o100000:
			continue // not diffed, shown whole from the working tree, a symbolic link's target, or a submodule's commit
		}
		if !fileChanged(filepath.Join(top, filepath.FromSlash(e.path)), e, ist) {
			continue
		}
		sf := Staged{Path: e.path}
		sf.Data, sf.Why = objects.blob(e.oid)
		out = append(out, sf)
	}
	return out, nil
}

// indexEntry is what StagedVersions needs of one index entry.
type indexEntry struct {
	path            string
	mode            uint32
	size            uint32
	mtimeS, mtimeNS uint32
	oid             [20]byte
	stage           int
	skipWorktree    bool
	intentToAdd     bool // git add -N: diffed as a new file, all from the working tree
}

// parseIndex reads an index file of version 2, 3 or 4
// (gitformat-index(5)). A split index (link) or a sparse one (sdir) is
// not read.
func parseIndex(data []byte) ([]indexEntry, error) {
	if len(data) < 12+20 || string(data[:4]) != "DIRC" {
		return nil, fmt.Errorf("no index signature: %w", ErrUnknown)
	}
	version := binary.BigEndian.Uint32(data[4:])
	count := binary.BigEndian.Uint32(data[8:])
	if version < 2 || version > 4 || count > maxIndexEntries {
		return nil, fmt.Errorf("index version %d of %d entries: %w", version, count, ErrUnknown)
	}
	body := data[:len(data)-20] // the trailing checksum
	off := 12
	entries := make([]indexEntry, 0, count)
	prev := ""
	for range count {
		if off+62 > len(body) {
			return nil, fmt.Errorf("a truncated index: %w", ErrUnknown)
		}
		b := body[off:]
		e := indexEntry{
			mtimeS: binary.BigEndian.Uint32(b[8:]), mtimeNS: binary.BigEndian.Uint32(b[12:]),
			mode: binary.BigEndian.Uint32(b[24:]), size: binary.BigEndian.Uint32(b[36:]),
		}
		copy(e.oid[:], b[40:60])
		flags := binary.BigEndian.Uint16(b[60:])
		e.stage = int(flags>>12) & 3
		n := 62
		if flags&0x4000 != 0 {
			if version < 3 || len(b) < 64 {
				return nil, fmt.Errorf("extended flags in index version %d: %w", version, ErrUnknown)
			}
			ext := binary.BigEndian.Uint16(b[62:])
			e.skipWorktree, e.intentToAdd = ext&0x4000 != 0, ext&0x2000 != 0
			n = 64
		}
		if version == 4 {
			strip, k := indexVarint(b[n:])
			if k == 0 || strip > uint64(len(prev)) {
				return nil, fmt.Errorf("a bad path in the index: %w", ErrUnknown)
			}
			end := bytes.IndexByte(b[n+k:], 0)
			if end < 0 {
				return nil, fmt.Errorf("a truncated index: %w", ErrUnknown)
			}
			e.path = prev[:len(prev)-int(strip)] + string(b[n+k:n+k+end])
			off += n + k + end + 1
		} else {
			end := bytes.IndexByte(b[n:], 0)
			if end < 0 {
				return nil, fmt.Errorf("a truncated index: %w", ErrUnknown)
			}
			e.path = string(b[n : n+end])
			off += (n + end + 8) &^ 7
		}
		prev = e.path
		entries = append(entries, e)
	}
	for off+8 <= len(body) {
		sig := string(body[off : off+4])
		size := int(binary.BigEndian.Uint32(body[off+4:]))
		if sig == "link" || sig == "sdir" {
			return nil, fmt.Errorf("a split or sparse index: %w", ErrUnknown)
		}
		if size < 0 || off+8+size > len(body) {
			break
		}
		off += 8 + size
	}
	return entries, nil
}

// indexVarint reads the offset varint of index version 4 (varint.c):
// the value and the bytes it took, 0 when it runs off the end.
func indexVarint(b []byte) (uint64, int) {
	if len(b) == 0 {
		return 0, 0
	}
	c := b[0]
	v := uint64(c & 127)
	i := 1
	for c&128 != 0 {
		if i >= len(b) || v > 1<<50 {
			return 0, 0
		}
		c = b[i]
		i++
		v = (v+1)<<7 | uint64(c&127)
	}
	return v, i
}

// fileChanged says whether the working tree's file differs from its
// staged version, as git diff decides: unchanged when its size and
// modification time are those recorded and it was not modified in the
// index's own second (racy git), or when its bytes hash to the staged
// blob.
func fileChanged(abs string, e indexEntry, index fs.FileInfo) bool {
	st, err := os.Lstat(abs)
	if err != nil || !st.Mode().IsRegular() {
		return true // deleted, or no longer a file: the diff shows the staged version removed
	}
	mt, it := st.ModTime(), index.ModTime()
	if uint32(st.Size()) == e.size && uint32(mt.Unix()) == e.mtimeS && uint32(mt.Nanosecond()) == e.mtimeNS &&
		(e.mtimeS < uint32(it.Unix()) || e.mtimeS == uint32(it.Unix()) && e.mtimeNS < uint32(it.Nanosecond())) {
		return false
	}
	if st.Size() > MaxBytes {
		return true
	}
	data, err := readBounded(abs, MaxBytes)
	if err != nil {
		return true
	}
	h := sha1.New()
	h.Write([]byte("blob " + strconv.Itoa(len(data)) + "\x00"))
	h.Write(data)
	return !bytes.Equal(h.Sum(nil), e.oid[:])
}

// readBlob reads a blob of a git directory (see objectStore.blob).
func readBlob(gitDir string, oid [20]byte) ([]byte, string) {
	s := &objectStore{gitDir: gitDir}
	defer s.close()
	return s.blob(oid)
}

// blob reads a blob of the git directory: loose, or from a pack
// (packedBlob); when neither holds it (another object store, a partial
// clone) or it cannot be read for sure, it returns why instead.
func (s *objectStore) blob(oid [20]byte) ([]byte, string) {
	name := hex.EncodeToString(oid[:])
	f, _, err := openRegular(filepath.Join(s.gitDir, "objects", name[:2], name[2:]))
	if err != nil {
		return s.packedBlob(oid)
	}
	defer f.Close()
	zr, err := zlib.NewReader(io.LimitReader(f, MaxBytes))
	if err != nil {
		return nil, "its staged version cannot be read"
	}
	defer zr.Close()
	data, err := io.ReadAll(io.LimitReader(zr, MaxBytes+64))
	if err != nil {
		return nil, "its staged version cannot be read"
	}
	head, body, ok := bytes.Cut(data, []byte{0})
	size, err := strconv.Atoi(strings.TrimPrefix(string(head), "blob "))
	if !ok || !bytes.HasPrefix(head, []byte("blob ")) || err != nil || size != len(body) {
		return nil, "its staged version is too large or not a blob"
	}
	return body, ""
}

// openRegular opens a regular file for reading, never blocking on a
// FIFO or a device put in its place, and returns its size.
func openRegular(p string) (*os.File, int64, error) {
	f, err := os.OpenFile(p, os.O_RDONLY|syscall.O_NONBLOCK, 0)
	if err != nil {
		return nil, 0, err
	}
	fi, err := f.Stat()
	if err != nil || !fi.Mode().IsRegular() {
		f.Close()
		return nil, 0, fmt.Errorf("%s is not a regular file: %w", p, ErrUnknown)
	}
	return f, fi.Size(), nil
}

// readBounded reads a regular file of at most limit bytes.
func readBounded(p string, limit int64) ([]byte, error) {
	f, size, err := openRegular(p)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	if size > limit {
		return nil, fmt.Errorf("%s is larger than %d bytes: %w", p, limit, ErrUnknown)
	}
	return io.ReadAll(io.LimitReader(f, limit))
}

// IsBranch says whether name, given to git as a revision in the work
// tree at top, names a branch — which git holds only commits in
// (update-ref refuses any other object). git takes the first of
// $GIT_DIR/NAME, refs/NAME, refs/tags/NAME, refs/heads/NAME that exists
// (gitrevisions(7)), so main, heads/main and refs/heads/main all name
// the branch main when nothing before it does. A branch that is a
// symbolic ref (to a tag, which may name a blob) is none. A name of
// unusual characters, or one that could be an object's abbreviated name,
// is not taken as a branch.
func IsBranch(top, name string) bool {
	if !plainRefName(name) {
		return false
	}
	gitDir, common, err := dirs(top)
	if err != nil {
		return false
	}
	packed, err := readBounded(filepath.Join(common, "packed-refs"), MaxBytes)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false
	}
	// A ref is looked for in the git directory and the common one, which
	// are one folder but in a worktree: looked at once.
	refDirs := []string{gitDir}
	if common != gitDir {
		refDirs = append(refDirs, common)
	}
	for _, ref := range []string{name, "refs/" + name, "refs/tags/" + name, "refs/heads/" + name} {
		// An error other than its absence is not surely a branch: git
		// might find it.
		loose := false
		for _, d := range refDirs {
			fi, err := os.Lstat(filepath.Join(d, filepath.FromSlash(ref)))
			switch {
			case err == nil && fi.Mode().IsRegular():
				loose = true
			case err == nil || !errors.Is(err, os.ErrNotExist):
				return false // a folder, a symlink, or unreadable: not surely a branch
			}
		}
		inPack := bytes.Contains(packed, []byte(" "+ref+"\n"))
		if !loose && !inPack {
			continue
		}
		if !strings.HasPrefix(ref, "refs/heads/") {
			return false
		}
		if loose {
			for _, d := range refDirs {
				b, err := readBounded(filepath.Join(d, filepath.FromSlash(ref)), 128)
				if err != nil {
					continue
				}
				if !objectIDLine(b) {
					return false // a symbolic ref: "ref: refs/tags/…"
				}
				if !isCommit(common, string(bytes.TrimSuffix(b, []byte("\n")))) {
					return false
				}
			}
			return true
		}
		return packedCommit(common, packed, ref)
	}
	return false
}

// HeadIsCommit says whether HEAD, in the work tree at top, surely names
// a commit or nothing yet (a branch not born): HEAD's file written by
// hand may name a blob, which git show with no revision prints.
func HeadIsCommit(top string) bool {
	gitDir, common, err := dirs(top)
	if err != nil {
		return false
	}
	b, err := readBounded(filepath.Join(gitDir, "HEAD"), 512)
	if err != nil {
		return false
	}
	if objectIDLine(b) {
		return isCommit(common, string(bytes.TrimSuffix(b, []byte("\n"))))
	}
	ref, ok := bytes.CutPrefix(bytes.TrimSuffix(b, []byte("\n")), []byte("ref: "))
	if !ok || !bytes.HasPrefix(ref, []byte("refs/heads/")) || !plainRefName(string(ref)) {
		return false
	}
	packed, err := readBounded(filepath.Join(common, "packed-refs"), MaxBytes)
	if err != nil && !errors.Is(err, os.ErrNotExist) {
		return false
	}
	loose, err := readBounded(filepath.Join(common, filepath.FromSlash(string(ref))), 128)
	switch {
	case err == nil:
		return objectIDLine(loose) && isCommit(common, string(bytes.TrimSuffix(loose, []byte("\n"))))
	case !errors.Is(err, os.ErrNotExist):
		return false
	case bytes.Contains(packed, []byte(" "+string(ref)+"\n")):
		return packedCommit(common, packed, string(ref))
	}
	return true // not born: git show prints nothing
}

// ReflogIsCommit says whether a reflog entry REF@{N} (N a number; REF
// HEAD, a plain ref name, or none for HEAD's branch), in the work tree
// at top, surely names a commit: every reflog git may take for REF holds
// one as its entry N. A reflog written by hand may name a blob, which git
// show prints.
func ReflogIsCommit(top, word string) bool {
	ref, n, ok := strings.Cut(word, "@{")
	num, isNum := strings.CutSuffix(n, "}")
	if !ok || !isNum || num == "" || len(num) > 6 || strings.Trim(num, "0123456789") != "" {
		return false
	}
	back, _ := strconv.Atoi(num)
	gitDir, common, err := dirs(top)
	if err != nil {
		return false
	}
	var logs []string
	switch {
	case ref == "":
		b, err := readBounded(filepath.Join(gitDir, "HEAD"), 512)
		branch, on := bytes.CutPrefix(bytes.TrimSuffix(b, []byte("\n")), []byte("ref: "))
		if err != nil || !on || !plainRefName(string(branch)) {
			return false
		}
		logs = []string{filepath.Join(common, "logs", filepath.FromSlash(string(branch)))}
	case ref == "HEAD" || ref == "@":
		logs = []string{filepath.Join(gitDir, "logs", "HEAD")}
	case plainRefName(ref):
		for _, r := range []string{ref, "refs/" + ref, "refs/tags/" + ref, "refs/heads/" + ref, "refs/remotes/" + ref, "refs/remotes/" + ref + "/HEAD"} {
			logs = append(logs, filepath.Join(common, "logs", filepath.FromSlash(r)))
		}
	default:
		return false
	}
	found := false
	for _, p := range logs {
		data, err := readBounded(p, MaxBytes)
		if errors.Is(err, os.ErrNotExist) {
			continue
		}
		if err != nil {
			return false
		}
		lines := bytes.Split(bytes.TrimSuffix(data, []byte("\n")), []byte("\n"))
		if back >= len(lines) {
			continue
		}
		fields := bytes.Fields(lines[len(lines)-1-back])
		if len(fields) < 2 || !objectIDLine(fields[1]) || !isCommit(common, string(fields[1])) {
			return false
		}
		found = true
	}
	return found
}

// packedCommit says whether the line of packed-refs naming ref names a
// commit.
func packedCommit(common string, packed []byte, ref string) bool {
	for line := range bytes.Lines(packed) {
		id, name, ok := bytes.Cut(bytes.TrimSuffix(line, []byte("\n")), []byte(" "))
		if ok && string(name) == ref {
			return objectIDLine(id) && isCommit(common, string(id))
		}
	}
	return false
}

// isCommit says whether the object named id (hexadecimal) is surely a
// commit, loose or packed — a branch's file written by hand may name a
// blob or a tag, which git show prints ('git show --stat evil' printed a
// private note's blob), though git's own update-ref refuses to.
func isCommit(common, id string) bool {
	raw, err := hex.DecodeString(id)
	if err != nil || len(raw) != 20 {
		return false // SHA-256 objects are not read here
	}
	var oid [20]byte
	copy(oid[:], raw)
	s := &objectStore{gitDir: common}
	defer s.close()
	f, _, err := openRegular(filepath.Join(common, "objects", id[:2], id[2:]))
	if err != nil {
		return s.packedType(oid) == packCommit
	}
	defer f.Close()
	zr, err := zlib.NewReader(io.LimitReader(f, MaxBytes))
	if err != nil {
		return false
	}
	defer zr.Close()
	head := make([]byte, len("commit "))
	_, err = io.ReadFull(zr, head)
	return err == nil && string(head) == "commit "
}

// objectIDLine says whether a loose ref holds an object name (40 or 64
// hexadecimal digits and a newline), not "ref: …".
func objectIDLine(b []byte) bool {
	b = bytes.TrimSuffix(b, []byte("\n"))
	if len(b) != 40 && len(b) != 64 {
		return false
	}
	for _, c := range b {
		if !(c >= '0' && c <= '9' || c >= 'a' && c <= 'f') {
			return false
		}
	}
	return true
}

// plainRefName says whether a name is one IsBranch judges: letters,
// digits, ".", "_", "-" and "/" between components, and not all
// hexadecimal digits (an object's abbreviated name).
func plainRefName(name string) bool {
	if name == "" || len(name) > 200 || strings.Contains(name, "..") || strings.Contains(name, "//") ||
		strings.HasSuffix(name, ".lock") || strings.HasSuffix(name, "/") {
		return false
	}
	hex := true
	for i, c := range []byte(name) {
		switch {
		case c >= 'a' && c <= 'f' || c >= '0' && c <= '9':
		case c >= 'A' && c <= 'Z' || c >= 'g' && c <= 'z' || c == '_':
			hex = false
		case (c == '.' || c == '-' || c == '/') && i > 0:
			hex = false
		default:
			return false
		}
	}
	return !hex
}
