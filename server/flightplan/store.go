package flightplan

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"pp-lsp/gates"
	"pp-lsp/server/internal/flock"
	"pp-lsp/server/workspace"
)

// Store keeps what must outlive the file in the data directory, where the
// agent cannot write (the gates refuse pp-lsp's own files): the verdict a
// plan was filed with (its gate trace, for hover and diagnostics), the run
// record that claims a plan's one execution, and the result.
type Store struct {
	dir string
}

// OpenStore returns the store under dataDir/flightplans.
func OpenStore(dataDir string) *Store {
	return &Store{dir: filepath.Join(dataDir, "flightplans")}
}

// Dir is the store's folder.
func (s *Store) Dir() string { return s.dir }

// Lock takes the lock that serialises every change to the plans of the
// Flight Plans file at path, across processes.
func (s *Store) Lock(ctx context.Context, path string) (*flock.Lock, error) {
	sum := sha256.Sum256([]byte(path))
	return flock.Acquire(ctx, filepath.Join(s.dir, "locks", hex.EncodeToString(sum[:8])+".lock"))
}

// Record is a plan's durable record.
type Record struct {
	ID string `json:"id"`
	// File is the Flight Plans file the plan was filed in.
	File string `json:"file,omitempty"`
	// ActionHash is the hash of the action filed, or of the action run.
	ActionHash string `json:"action_hash"`
	// Verdict is the gates' verdict when the plan was filed (or gated
	// again after an edit), with its trace.
	Verdict *gates.Verdict `json:"verdict,omitempty"`
	Filed   time.Time      `json:"filed,omitzero"`
	// Started is when its run was claimed; Finished when it ended.
	Started  time.Time `json:"started,omitzero"`
	Finished time.Time `json:"finished,omitzero"`
	// State is the final state written (DONE, FAILED, REJECTED), once known.
	State State `json:"state,omitempty"`
	// Result is what the run did, in one line, and Output what it printed
	// (bounded).
	Result string `json:"result,omitempty"`
	Output string `json:"output,omitempty"`
}

// ErrAlreadyRan is returned by Claim for a plan whose run was claimed
// before.
var ErrAlreadyRan = errors.New("the plan has already run")

func (s *Store) path(id, ext string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("the plan ID %q is not a UUID", id)
	}
	return filepath.Join(s.dir, "records", id+ext), nil
}

// Load returns the record of plan id; ok is false when there is none.
func (s *Store) Load(id string) (Record, bool, error) {
	p, err := s.path(id, ".json")
	if err != nil {
		return Record{}, false, err
	}
	b, err := os.ReadFile(p)
	if errors.Is(err, fs.ErrNotExist) {
		return Record{ID: id}, false, nil
	}
	if err != nil {
		return Record{}, false, fmt.Errorf("reading the record of plan %s: %w", id, err)
	}
	var r Record
	if err := json.Unmarshal(b, &r); err != nil {
		return Record{}, false, fmt.Errorf("the record of plan %s is damaged: %w", id, err)
	}
	return r, true, nil
}

// Save writes r atomically.
func (s *Store) Save(r Record) error {
	p, err := s.path(r.ID, ".json")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("saving the record of plan %s: %w", r.ID, err)
	}
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("saving the record of plan %s: %w", r.ID, err)
	}
	return workspace.WriteFile(p, append(b, '\n'), 0o600)
}

// Claimed reports whether plan id's run was claimed.
func (s *Store) Claimed(id string) (bool, error) {
	p, err := s.path(id, ".run")
	if err != nil {
		return false, err
	}
	_, err = os.Lstat(p)
	switch {
	case err == nil:
		return true, nil
	case errors.Is(err, fs.ErrNotExist):
		return false, nil
	}
	return false, fmt.Errorf("checking the run record of plan %s: %w", id, err)
}

// Claim creates plan id's run record — exclusively, so that exactly one
// caller ever succeeds — and makes it durable before returning. A second
// claim gets ErrAlreadyRan. Nothing may run before Claim has returned nil.
func (s *Store) Claim(id, actionHash string, t time.Time) error {
	p, err := s.path(id, ".run")
	if err != nil {
		return err
	}
	if err := os.MkdirAll(filepath.Dir(p), 0o700); err != nil {
		return fmt.Errorf("claiming plan %s: %w", id, err)
	}
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return ErrAlreadyRan
	}
	if err != nil {
		return fmt.Errorf("claiming plan %s: %w", id, err)
	}
	_, werr := fmt.Fprintf(f, "%s %s %d\n", actionHash, t.UTC().Format(time.RFC3339Nano), os.Getpid())
	serr := f.Sync()
	cerr := f.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return fmt.Errorf("claiming plan %s: %w", id, err)
	}
	if d, err := os.Open(filepath.Dir(p)); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}
