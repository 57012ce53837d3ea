// Package checkpoint keeps what undo needs (DESIGN §8 rev. 2): for every
// pass or plan run that changed files, a checkpoint holding each changed
// file's bytes before and after, in the data directory
// ($PASSEPARTOUT_DATA_DIR/checkpoints, 0700, each checkpoint a 0600 file
// sealed with the install key), bounded by a size cap with the oldest
// checkpoints dropped first.
//
// The data directory is a protected place: no action reads or writes it,
// so the bytes kept here (private notes among them) never reach a model,
// and nothing a model can write can make a checkpoint: one whose seal does
// not verify is never restored.
package checkpoint

import (
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"github.com/google/uuid"

	"pp-lsp/server/seal"
	"pp-lsp/server/workspace"
)

// DefaultCap bounds the bytes all checkpoints hold together.
const DefaultCap = 64 << 20

// MaxFile is the largest file a checkpoint keeps, and MaxCheckpoint the
// most bytes one keeps: a larger change is not recorded (and cannot be
// undone).
const (
	MaxFile       = 16 << 20
	MaxCheckpoint = 64 << 20
)

// File is one file a change touched.
type File struct {
	// Path is absolute and canonical.
	Path string `json:"path"`
	// Existed and Before are the file before the change; Exists and After
	// after it.
	Existed bool   `json:"existed"`
	Before  []byte `json:"before,omitempty"`
	Exists  bool   `json:"exists"`
	After   []byte `json:"after,omitempty"`
}

// Checkpoint is what one change did to files.
type Checkpoint struct {
	ID   string    `json:"id"`
	Time time.Time `json:"time"`
	// Title says what made the change (the action's, or "undo of …").
	Title string `json:"title"`
	// PlanID is the Flight Plan whose run made it ("" for a pass).
	PlanID string `json:"plan_id,omitempty"`
	// Undoes is the checkpoint this change undid ("" for an action's).
	Undoes string `json:"undoes,omitempty"`
	// Private marks a change a pass of a private conversation made: its
	// title may quote the conversation, so what names it is private too.
	Private bool   `json:"private,omitempty"`
	Files   []File `json:"files"`
	Seal    string `json:"seal"`
}

// Size is the bytes the checkpoint keeps.
func (c Checkpoint) Size() int {
	n := 0
	for _, f := range c.Files {
		n += len(f.Before) + len(f.After)
	}
	return n
}

// Paths are the files it touched.
func (c Checkpoint) Paths() []string {
	out := make([]string, len(c.Files))
	for i, f := range c.Files {
		out[i] = f.Path
	}
	return out
}

const purpose = "pp-lsp checkpoint v1"

func (c Checkpoint) sealed() []byte {
	c.Seal = ""
	b, _ := json.Marshal(c)
	return b
}

// Store is the checkpoints of one data directory.
type Store struct {
	dir string
	key *seal.Key
	cap int
	now func() time.Time
}

// Open returns the store of dataDir, sealing with key; capBytes bounds it
// (0: DefaultCap).
func Open(dataDir string, key *seal.Key, capBytes int, now func() time.Time) *Store {
	if capBytes <= 0 {
		capBytes = DefaultCap
	}
	if now == nil {
		now = time.Now
	}
	return &Store{dir: filepath.Join(dataDir, "checkpoints"), key: key, cap: capBytes, now: now}
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// ErrNotFound is wrapped by Load's error for an ID no checkpoint has, and
// ErrBadID for one that is no checkpoint's ID at all.
var (
	ErrNotFound = errors.New("no such change")
	ErrBadID    = errors.New("not a change's ID")
)

// Save records files (those whose bytes did not change are left out; none
// left: nothing is recorded and "" returned) and drops the oldest
// checkpoints until the store is within its cap again (never the one just
// made). It returns the new checkpoint's ID.
func (s *Store) Save(c Checkpoint) (string, error) {
	if s.key == nil {
		return "", errors.New("recording a checkpoint: the install key is not available")
	}
	var files []File
	for _, f := range c.Files {
		if f.Existed == f.Exists && string(f.Before) == string(f.After) {
			continue
		}
		files = append(files, f)
	}
	if len(files) == 0 {
		return "", nil
	}
	c.Files = files
	if n := c.Size(); n > MaxCheckpoint {
		return "", fmt.Errorf("recording a checkpoint: the change is too large to keep (%d bytes, at most %d)", n, MaxCheckpoint)
	}
	c.ID = uuid.NewString()
	c.Time = s.now().UTC()
	c.Seal = s.key.Sum(purpose, c.sealed())
	b, err := json.Marshal(c)
	if err != nil {
		return "", fmt.Errorf("recording a checkpoint: %w", err)
	}
	if err := os.MkdirAll(s.dir, 0o700); err != nil {
		return "", fmt.Errorf("recording a checkpoint: %w", err)
	}
	// Named by time first, so that the folder lists oldest first.
	name := c.Time.Format("20060102T150405.000000000Z") + "-" + c.ID + ".json"
	if err := workspace.WriteFile(filepath.Join(s.dir, name), b, 0o600); err != nil {
		return "", fmt.Errorf("recording a checkpoint: %w", err)
	}
	s.trim(name)
	return c.ID, nil
}

// entries are the checkpoint files, oldest first.
func (s *Store) entries() ([]fs.DirEntry, error) {
	es, err := os.ReadDir(s.dir)
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("reading the checkpoints: %w", err)
	}
	es = slices.DeleteFunc(es, func(e fs.DirEntry) bool {
		return !e.Type().IsRegular() || !strings.HasSuffix(e.Name(), ".json") || strings.HasPrefix(e.Name(), ".")
	})
	slices.SortFunc(es, func(a, b fs.DirEntry) int { return strings.Compare(a.Name(), b.Name()) })
	return es, nil
}

// trim drops the oldest checkpoints while the store is over its cap,
// keeping keep.
func (s *Store) trim(keep string) {
	es, err := s.entries()
	if err != nil {
		return
	}
	total := int64(0)
	sizes := make([]int64, len(es))
	for i, e := range es {
		if fi, err := e.Info(); err == nil {
			sizes[i] = fi.Size()
			total += sizes[i]
		}
	}
	for i, e := range es {
		if total <= int64(s.cap) {
			return
		}
		if e.Name() == keep {
			continue
		}
		if os.Remove(filepath.Join(s.dir, e.Name())) == nil {
			total -= sizes[i]
		}
	}
}

// maxRecord bounds a checkpoint file as read (base64 makes 4 of 3 bytes).
const maxRecord = 4*MaxCheckpoint/3 + 1<<20

// read loads and verifies one checkpoint file.
func (s *Store) read(name string) (Checkpoint, error) {
	f, err := os.Open(filepath.Join(s.dir, name))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("reading the checkpoint %s: %w", name, err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxRecord))
	if err != nil {
		return Checkpoint{}, fmt.Errorf("reading the checkpoint %s: %w", name, err)
	}
	var c Checkpoint
	if err := json.Unmarshal(b, &c); err != nil {
		return Checkpoint{}, fmt.Errorf("the checkpoint %s is damaged: %w", name, err)
	}
	if s.key == nil || !s.key.Verify(purpose, c.sealed(), c.Seal) || !strings.HasSuffix(name, "-"+c.ID+".json") {
		return Checkpoint{}, fmt.Errorf("the checkpoint %s does not verify: pp-lsp did not write it", name)
	}
	return c, nil
}

// List returns the checkpoints, newest first; those that do not verify are
// left out.
func (s *Store) List() ([]Checkpoint, error) {
	es, err := s.entries()
	if err != nil {
		return nil, err
	}
	var out []Checkpoint
	for i := len(es) - 1; i >= 0; i-- {
		if c, err := s.read(es[i].Name()); err == nil {
			out = append(out, c)
		}
	}
	return out, nil
}

// Load returns the checkpoint with id, or the newest one for "".
func (s *Store) Load(id string) (Checkpoint, error) {
	if id != "" {
		if u, err := uuid.Parse(id); err != nil || u.String() != id {
			return Checkpoint{}, fmt.Errorf("%q is %w (a UUID; `pp-lsp undo --list` lists them)", id, ErrBadID)
		}
	}
	es, err := s.entries()
	if err != nil {
		return Checkpoint{}, err
	}
	for i := len(es) - 1; i >= 0; i-- {
		if id == "" || strings.HasSuffix(es[i].Name(), "-"+id+".json") {
			return s.read(es[i].Name())
		}
	}
	if id == "" {
		return Checkpoint{}, notFound("there is no change to undo")
	}
	return Checkpoint{}, notFound(fmt.Sprintf("no change has the ID %s (it may have been dropped to keep the checkpoints within their size)", id))
}

// notFound is an error that is ErrNotFound, worded on its own.
type notFound string

func (e notFound) Error() string        { return string(e) }
func (e notFound) Is(target error) bool { return target == ErrNotFound }
