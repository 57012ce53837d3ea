package flightplan

import (
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

	"pp-lsp/gates"
	"pp-lsp/server/internal/flock"
	"pp-lsp/server/seal"
	"pp-lsp/server/workspace"
)

// Store keeps what must outlive the file in the data directory, where the
// agent cannot write (the gates and the actuators refuse it, the sandbox
// does not grant it): the sealed filing record that makes a plan the
// server's own (dataDir/plans/<id>), the verdict a plan was filed with (its
// gate trace, for hover and diagnostics), the run record that claims a
// plan's one execution, and the result.
type Store struct {
	dir     string
	filings string
	key     *seal.Key
}

// OpenStore returns the store of dataDir, sealing with key (nil: no plan
// is ever filed or found filed).
func OpenStore(dataDir string, key *seal.Key) *Store {
	return &Store{dir: filepath.Join(dataDir, "flightplans"), filings: filepath.Join(dataDir, "plans"), key: key}
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
	// Private marks a plan filed by a pass of a private conversation
	// (one only a local model may hear): its action may quote the
	// conversation, so what names it — its journal entries, its title in
	// a list for another agent — is private too.
	Private bool `json:"private,omitempty"`
	// Narrowed says that Skills and Narrowing were recorded at filing:
	// the keys of the skills that applied to the pass that filed the plan,
	// and the rules they (and a scheduled run) added to the gates then.
	// Gated again, the plan is narrowed by those rules and by the same
	// skills' rules as they are now. A record without them (made before
	// they were kept) is narrowed by every skill's rules.
	Narrowed  bool              `json:"narrowed,omitempty"`
	Skills    []string          `json:"skills,omitempty"`
	Narrowing []gates.Narrowing `json:"narrowing,omitempty"`
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

// Load returns the record of plan id; ok is false when there is none (or
// no store).
func (s *Store) Load(id string) (Record, bool, error) {
	if s == nil {
		return Record{ID: id}, false, nil
	}
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

// FilingRecord is the sealed record written when the server files a plan
// (and again when it files an edited plan afresh): the one proof that the
// action in a plan's block is one the gates saw and the server filed.
type FilingRecord struct {
	ID         string    `json:"id"`
	ActionHash string    `json:"action_hash"`
	Gate       string    `json:"gate"`
	Filed      time.Time `json:"filed"`
	// StaleApproval is the hash of the plan's subtree as flightplans.org
	// held it on disk, APPROVED, when the plan was filed afresh after an
	// edit: that approval was given to the edited block before the gates
	// saw it, so it does not count (see Plan.Text).
	StaleApproval string `json:"stale_approval,omitempty"`
	// Before names the text (actuate.HashOf) the target file of a
	// file_write or memory_edit held when its diff was made: the diff the
	// human approves is the change only while the file holds that text.
	Before string `json:"before,omitempty"`
	Seal   string `json:"seal"`
}

// filingPurpose is the purpose filing records are sealed for.
const filingPurpose = "pp-lsp filing record v1"

func (r FilingRecord) sealed() []byte {
	r.Seal = ""
	b, _ := json.Marshal(r)
	return b
}

// ErrNoKey is returned when the store has no key to seal or check with.
var ErrNoKey = errors.New("the install key is not available")

func (s *Store) filingPath(id string) (string, error) {
	if !ValidID(id) {
		return "", fmt.Errorf("the plan ID %q is not a UUID", id)
	}
	return filepath.Join(s.filings, id), nil
}

// SaveFiling seals r and writes it atomically, replacing the plan's
// earlier filing record if it has one.
func (s *Store) SaveFiling(r FilingRecord) error {
	if s.key == nil {
		return fmt.Errorf("filing plan %s: %w", r.ID, ErrNoKey)
	}
	p, err := s.filingPath(r.ID)
	if err != nil {
		return err
	}
	if err := os.MkdirAll(s.filings, 0o700); err != nil {
		return fmt.Errorf("filing plan %s: %w", r.ID, err)
	}
	r.Seal = s.key.Sum(filingPurpose, r.sealed())
	b, err := json.MarshalIndent(r, "", "  ")
	if err != nil {
		return fmt.Errorf("filing plan %s: %w", r.ID, err)
	}
	return workspace.WriteFile(p, append(b, '\n'), 0o600)
}

// maxFiling bounds a filing record as read.
const maxFiling = 64 << 10

// Filing returns the filing record of plan id when it exists and its seal
// verifies for this very ID; otherwise an error saying why the plan is
// foreign.
func (s *Store) Filing(id string) (FilingRecord, error) {
	if s == nil || s.key == nil {
		return FilingRecord{}, ErrNoKey
	}
	p, err := s.filingPath(id)
	if err != nil {
		return FilingRecord{}, err
	}
	f, err := os.Open(p)
	if errors.Is(err, fs.ErrNotExist) {
		return FilingRecord{}, errors.New("there is no filing record of it in the data directory")
	}
	if err != nil {
		return FilingRecord{}, fmt.Errorf("its filing record cannot be read: %w", err)
	}
	defer f.Close()
	b, err := io.ReadAll(io.LimitReader(f, maxFiling))
	if err != nil {
		return FilingRecord{}, fmt.Errorf("its filing record cannot be read: %w", err)
	}
	var r FilingRecord
	if err := json.Unmarshal(b, &r); err != nil {
		return FilingRecord{}, fmt.Errorf("its filing record is damaged: %w", err)
	}
	switch {
	case !s.key.Verify(filingPurpose, r.sealed(), r.Seal):
		return FilingRecord{}, errors.New("its filing record's seal does not verify: pp-lsp did not write it")
	case r.ID != id:
		return FilingRecord{}, fmt.Errorf("its filing record is plan %s's, not its own", r.ID)
	}
	return r, nil
}

// revisionPurpose is the purpose a plan's revision is keyed for.
const revisionPurpose = "pp-lsp plan revision v1"

// Revision names, for a plan filed with a diff (r.Before set), this very
// filing: its ID, action, the text its diff was made from and when it was
// filed, keyed with the install key ("hmac-sha256:" and 64 hex digits).
// The server writes it as the plan's :REVISION: with the diff, and an
// approval that carries it runs only while the filing record is this one:
// a plan filed afresh when its target file changed keeps its action hash
// but not its revision. It is keyed, not a plain hash, because it is
// written into flightplans.org, which a model may read: a hash of the
// target's text would let one confirm a guess of a private file's
// content. "" for a plan filed without a diff, or without a key.
func (s *Store) Revision(r FilingRecord) string {
	if s == nil || s.key == nil || r.Before == "" {
		return ""
	}
	return s.key.Sum(revisionPurpose, []byte(r.ID+"\n"+r.ActionHash+"\n"+r.Before+"\n"+r.Filed.UTC().Format(time.RFC3339Nano)))
}

// Standing is how a plan read from flightplans.org stands against its
// filing record.
type Standing struct {
	Record FilingRecord
	// Foreign says why the plan has no valid filing record ("" when it has
	// one): such a plan never runs.
	Foreign string
	// Edited reports that the block is not the action filed: its
	// canonical hash is not the record's (whatever :ACTION_HASH: says).
	Edited bool
}

// Standing checks p against its filing record.
func (s *Store) Standing(p *Plan) Standing {
	if !ValidID(p.ID) {
		return Standing{Foreign: fmt.Sprintf("its :ID: %q is not a UUID", p.ID)}
	}
	r, err := s.Filing(p.ID)
	if err != nil {
		return Standing{Foreign: err.Error()}
	}
	return Standing{Record: r, Edited: p.Action == nil || p.Action.Hash() != r.ActionHash}
}
