package agent

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"maps"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"pp-lsp/gates"
	"pp-lsp/internal/regfile"
	"pp-lsp/memory"
	"pp-lsp/server/actuate"
	"pp-lsp/server/checkpoint"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
	"pp-lsp/server/protect"
	"pp-lsp/server/workspace"
)

// Undo (DESIGN §8 rev. 2): every pass and plan run that changed files
// records a checkpoint (server/checkpoint) — a file_write's and a
// memory_edit's file exactly as the actuator changed it; for a shell or
// eval command, the files the gates found it writes, read before and after
// the run, and every Org file of the memex it changed.
// Undo restores the files of the latest (or a named) change when each
// still holds exactly what that change wrote, refusing otherwise and naming
// the file; the undo is a change of its own, journalled and recorded, so
// that undoing it redoes the first.

// ErrUndoRefused is wrapped by Undo's error when a file is not what the
// change left: nothing was restored.
var ErrUndoRefused = errors.New("undo refused")

// maxCapture bounds the files of one shell command read for its checkpoint.
const maxCapture = 64

// captured is a file as it was before an action ran.
type captured struct {
	path    string
	existed bool
	text    []byte
}

// capture reads, before a shell command runs, the files the gates found it
// writes (actMu held). Files too large to keep are left out.
func (a *Agent) capture(ctx context.Context, action gates.Action) []captured {
	if action.Tool != gates.ToolShell {
		return nil
	}
	env, err := a.env(ctx, a.memex.Snapshot())
	if err != nil {
		return nil
	}
	defer env.Close()
	var out []captured
	for _, p := range gates.ShellWrites(ctx, action, env) {
		if len(out) == maxCapture {
			break
		}
		c, ok := readCapped(p)
		if ok {
			out = append(out, c)
		}
	}
	return out
}

// readCapped reads a regular file of at most checkpoint.MaxFile bytes; a
// file that is not there is captured as absent.
func readCapped(p string) (captured, bool) {
	b, err := readRegular(p, checkpoint.MaxFile)
	if errors.Is(err, os.ErrNotExist) {
		return captured{path: p}, true
	}
	if err != nil {
		return captured{}, false
	}
	return captured{path: p, existed: true, text: b}, true
}

// readRegular reads the regular file at p, of at most limit bytes (no
// bound when limit < 0), through internal/regfile. It is judged as
// opened — not through a final symlink, never waiting on a FIFO — so
// that neither, swapped in by
// another process, can put another file's text where p's belongs or hold
// the locks its caller holds.
func readRegular(p string, limit int64) ([]byte, error) {
	if limit >= 0 {
		b, _, err := regfile.Read(p, false, limit)
		return b, err
	}
	f, _, err := regfile.Open(p, false)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	return io.ReadAll(f)
}

// maxOrgScan bounds the memex whose Org files are read again around every
// command (BenchmarkCommandCheckpoint: about 11 ms for 1,000 notes on this
// loaded 2-core machine); in a larger one, a command's checkpoint holds
// only the files the gates found it writes.
const maxOrgScan = 20_000

// runsCommand reports whether the action runs a command, which may write
// files the gates cannot name (a make recipe, a script).
func runsCommand(action gates.Action) bool {
	return action.Tool == gates.ToolShell || action.Tool == gates.ToolEval
}

// scansOrg reports whether the Org files are read again around action.
func (a *Agent) scansOrg(action gates.Action) bool {
	return runsCommand(action) && a.memex.Snapshot().FileCount() <= maxOrgScan
}

// refreshFirst brings the memex up to the disk before a command runs
// (actMu held), so that the snapshot taken then holds every Org file as it
// is before the command: the "before" of what it changes (orgChanges), and
// what a rollback returns to.
func (a *Agent) refreshFirst(ctx context.Context, action gates.Action) {
	if !a.scansOrg(action) {
		return
	}
	if _, err := a.memex.Refresh(ctx); err != nil && ctx.Err() == nil {
		a.log.WarnContext(ctx, "the memex could not be read again before a command", "err", err)
	}
}

// orgChanges lists the Org files of the memex a command changed (actMu
// held): the memex read again after it ran, compared with the snapshot
// taken before it (refreshFirst). Files open in an editor (the memex holds
// the buffer, not the disk), flightplans.org and journal.org (never an
// action's) and the agent's own changes meanwhile are left out.
func (a *Agent) orgChanges(ctx context.Context, action gates.Action, before *memory.Snapshot) []checkpoint.File {
	if before == nil || !runsCommand(action) || before.FileCount() > maxOrgScan {
		return nil
	}
	after, err := a.memex.Refresh(context.WithoutCancel(ctx))
	if err != nil {
		a.log.WarnContext(ctx, "the memex could not be read again after a command: the Org files it changed cannot be undone", "err", err)
		return nil
	}
	// The agent's own changes since the action began (a conversation's
	// turn, a schedule moved on) are not the command's.
	own := a.own.ChangedSince(a.actMark)
	own[protect.Canonical(a.plansPath)], own[protect.Canonical(a.journal.Path())] = true, true
	paths := map[string]bool{}
	for _, s := range []*memory.Snapshot{before, after} {
		for n := range s.Files() {
			paths[n.Path()] = true
		}
	}
	var out []checkpoint.File
	for _, p := range slices.Sorted(maps.Keys(paths)) {
		if _, buf := before.BufferVersion(p); buf {
			continue
		}
		if _, buf := after.BufferVersion(p); buf {
			continue
		}
		b, inBefore := before.File(p)
		f, inAfter := after.File(p)
		if inBefore && inAfter && bytes.Equal(b.Text(), f.Text()) {
			continue
		}
		c := protect.Canonical(p)
		if own[c] {
			continue
		}
		f0 := checkpoint.File{Path: c, Existed: inBefore, Exists: inAfter}
		if inBefore {
			f0.Before = b.Text()
		}
		if inAfter {
			f0.After = f.Text()
		}
		if len(f0.Before) > checkpoint.MaxFile || len(f0.After) > checkpoint.MaxFile {
			continue
		}
		out = append(out, f0)
	}
	return out
}

// recordChange records what an action that ran changed (actMu held), from
// the actuator's edits, the files captured before it ran and the Org files
// it changed (orgChanges; a file also captured is taken from the capture,
// the disk's own bytes). A change that cannot be recorded is logged: it has
// already happened.
func (a *Agent) recordChange(ctx context.Context, action gates.Action, planID string, private bool, res actuate.Result, pre []captured, org []checkpoint.File) {
	var files []checkpoint.File
	seen := map[string]bool{}
	for _, e := range res.Edits {
		files = append(files, checkpoint.File{Path: e.Path, Existed: e.Existed, Before: e.Before, Exists: true, After: e.After})
	}
	for _, c := range pre {
		now, ok := readCapped(c.path)
		if !ok {
			continue
		}
		seen[c.path] = true
		files = append(files, checkpoint.File{Path: c.path, Existed: c.existed, Before: c.text, Exists: now.existed, After: now.text})
	}
	for _, f := range org {
		if !seen[f.Path] {
			files = append(files, f)
		}
	}
	if len(files) == 0 {
		return
	}
	id, err := a.checkpoints.Save(checkpoint.Checkpoint{Title: flightplan.TitleFor(action), PlanID: planID, Private: private, Files: files})
	if err != nil {
		a.log.WarnContext(ctx, "the change cannot be undone: its checkpoint was not recorded", "tool", action.Tool, "err", err)
		return
	}
	if id != "" {
		a.log.InfoContext(ctx, "checkpoint recorded", "change", id, "files", len(files))
	}
}

// ChangeInfo is one change undo can take back, as listed.
type ChangeInfo struct {
	ID    string    `json:"id"`
	Time  time.Time `json:"time"`
	Title string    `json:"title"`
	// PlanID is the plan whose run made it; Undoes the change it undid.
	PlanID string `json:"planId,omitempty"`
	Undoes string `json:"undoes,omitempty"`
	// Files are the files it changed, relative to their root.
	Files []string `json:"files"`
}

// Changes lists the changes undo can take back, newest first: this
// memex's (ofMemex), though memexes with other roots may share the data
// directory.
func (a *Agent) Changes(_ context.Context) ([]ChangeInfo, error) {
	list, err := a.changes()
	if err != nil {
		return nil, err
	}
	out := []ChangeInfo{}
	for _, c := range list {
		out = append(out, a.changeInfo(c))
	}
	return out, nil
}

// changes are the checkpoints of this memex, newest first.
func (a *Agent) changes() ([]checkpoint.Checkpoint, error) {
	list, err := a.checkpoints.List()
	if err != nil {
		return nil, err
	}
	roots := a.canonicalRoots()
	return slices.DeleteFunc(list, func(c checkpoint.Checkpoint) bool { return !ofRoots(c, roots) }), nil
}

// canonicalRoots are the memex's roots, canonical (protect.Canonical), as
// a checkpoint's paths are.
func (a *Agent) canonicalRoots() []string {
	roots := make([]string, len(a.roots))
	for i, r := range a.roots {
		roots[i] = protect.Canonical(r)
	}
	return roots
}

// ofMemex reports whether every file change c made lies under this
// memex's roots: a change another memex sharing the data directory made
// (other roots) is not this one's to list or undo.
func (a *Agent) ofMemex(c checkpoint.Checkpoint) bool { return ofRoots(c, a.canonicalRoots()) }

// ofRoots is ofMemex with the roots resolved once (canonicalRoots), not
// for every file of every checkpoint listed.
func ofRoots(c checkpoint.Checkpoint, roots []string) bool {
	if len(c.Files) == 0 {
		return false
	}
	for _, f := range c.Files {
		if !slices.ContainsFunc(roots, func(r string) bool { return within(r, f.Path) }) {
			return false
		}
	}
	return true
}

// within reports whether the canonical path c lies under the folder root.
func within(root, c string) bool {
	rel, err := filepath.Rel(root, c)
	return err == nil && rel != "." && rel != ".." && !strings.HasPrefix(rel, "../") && !filepath.IsAbs(rel)
}

func (a *Agent) changeInfo(c checkpoint.Checkpoint) ChangeInfo {
	info := ChangeInfo{ID: c.ID, Time: c.Time, Title: c.Title, PlanID: c.PlanID, Undoes: c.Undoes}
	for _, p := range c.Paths() {
		info.Files = append(info.Files, a.shortName(p))
	}
	return info
}

// undoWords says what taking back the change to files does to each, in
// words: a file the change made is removed, one it removed is made again,
// any other restored ("restored a.org; removed b.org, which it made";
// its redo: "restored a.org; made b.org again").
func undoWords(files []checkpoint.File, name func(string) string) string {
	var restored, removed, remade []string
	for _, f := range files {
		switch {
		case !f.Existed && f.Exists:
			removed = append(removed, name(f.Path))
		case f.Existed && !f.Exists:
			remade = append(remade, name(f.Path))
		default:
			restored = append(restored, name(f.Path))
		}
	}
	var parts []string
	if len(restored) > 0 {
		parts = append(parts, "restored "+strings.Join(restored, ", "))
	}
	if len(removed) > 0 {
		parts = append(parts, "removed "+strings.Join(removed, ", ")+", which it made")
	}
	if len(remade) > 0 {
		parts = append(parts, "made "+strings.Join(remade, ", ")+" again")
	}
	return strings.Join(parts, "; ")
}

// UndoResult is what an undo did.
type UndoResult struct {
	// Undone is the change taken back; Change is the undo's own (undo it
	// to redo the first).
	Undone ChangeInfo `json:"undone"`
	Change ChangeInfo `json:"change,omitzero"`
	// Summary says so in one line.
	Summary string `json:"summary"`
}

// Undo takes back the change with id (the latest for ""; for a plan's ID,
// the latest change its run made): every file it
// changed gets its bytes from before the change — through the editor when
// open, atomically on disk otherwise — but only when each still holds
// exactly what the change left; otherwise nothing is restored and the
// error (ErrUndoRefused) names the file that changed since. The undo is
// journalled first and recorded as a change of its own.
func (a *Agent) Undo(ctx context.Context, id string) (UndoResult, error) {
	// Another process sharing the data directory (the CLI beside the
	// language server) undoes under the same lock: never both at once, and
	// the latest change is the latest once the lock is held.
	lk, err := a.store.Lock(ctx, a.checkpoints.Dir())
	if err != nil {
		return UndoResult{}, err
	}
	defer lk.Release()
	var cp checkpoint.Checkpoint
	if id == "" {
		// The latest change of this memex, not of another sharing the
		// data directory.
		cp, err = a.latest()
	} else if cp, err = a.checkpoints.Load(id); err == nil && !a.ofMemex(cp) {
		return UndoResult{}, usage(fmt.Errorf("%w: %s is not a change of this memex: it changed files outside its roots (%s)", ErrUndoRefused, id, strings.Join(cp.Paths(), ", ")))
	}
	if id != "" && errors.Is(err, checkpoint.ErrNotFound) {
		// A plan's ID names the latest change its run made (the plans
		// list's undo key): undoing again redoes.
		if c, ok := a.latestOfPlan(id); ok {
			cp, err = c, nil
		} else if _, filed, _ := a.store.Load(id); filed {
			err = fmt.Errorf("plan %s changed no file that can be undone: %w", id, checkpoint.ErrNotFound)
		}
	}
	if err != nil {
		if errors.Is(err, checkpoint.ErrBadID) || id != "" && errors.Is(err, checkpoint.ErrNotFound) {
			return UndoResult{}, usage(err)
		}
		return UndoResult{}, err
	}
	a.actMu.Lock()
	defer a.actMu.Unlock()
	var paths []string
	for _, f := range cp.Files {
		paths = append(paths, f.Path)
	}
	defer a.locks.lock(paths...)()
	curs := make([]workspace.Current, len(cp.Files))
	for i, f := range cp.Files {
		name := a.shortName(f.Path)
		cur, err := a.acts.Current(f.Path)
		if err != nil {
			return UndoResult{}, fmt.Errorf("%w: %s cannot be restored: %v", ErrUndoRefused, name, err)
		}
		if cur.Exists != f.Exists || !bytes.Equal(cur.Text, f.After) {
			why := "it changed since"
			if !cur.Exists {
				why = "it was removed since"
			}
			return UndoResult{}, fmt.Errorf("%w: %s is not what %q left (%s); nothing was restored", ErrUndoRefused, name, cp.Title, why)
		}
		if !f.Existed && cur.Open {
			return UndoResult{}, fmt.Errorf("%w: %s is open in the editor and the change made it: close it, then undo again", ErrUndoRefused, name)
		}
		curs[i] = cur
	}
	title := undoTitle(cp.Title)
	undone := a.changeInfo(cp)
	if err := a.appendJournal(ctx, journal.Entry{Kind: journal.KindUndo, PlanID: cp.PlanID, Private: cp.Private,
		Title: fmt.Sprintf("%s: %s (change %s)", title, strings.Join(undone.Files, ", "), cp.ID)}); err != nil {
		return UndoResult{}, fmt.Errorf("nothing was restored: %w", err)
	}
	var done []checkpoint.File
	var failed error
	for i, f := range cp.Files {
		if err := a.acts.Restore(ctx, curs[i], f.Before, f.Existed, "Passepartout: "+title); err != nil {
			failed = fmt.Errorf("restoring %s: %w", a.shortName(f.Path), err)
			break
		}
		done = append(done, checkpoint.File{Path: f.Path, Existed: f.Exists, Before: f.After, Exists: f.Existed, After: f.Before})
	}
	res := UndoResult{Undone: undone}
	if len(done) > 0 {
		newID, err := a.checkpoints.Save(checkpoint.Checkpoint{Title: title, PlanID: cp.PlanID, Undoes: cp.ID, Private: cp.Private, Files: done})
		if err != nil {
			a.log.WarnContext(ctx, "the undo cannot itself be undone: its checkpoint was not recorded", "err", err)
		}
		if c, err := a.checkpoints.Load(newID); err == nil && newID != "" {
			res.Change = a.changeInfo(c)
		}
	}
	if failed != nil {
		a.appendJournal(ctx, journal.Entry{Kind: journal.KindResult, PlanID: cp.PlanID, Status: "FAILED", Private: cp.Private,
			Title: fmt.Sprintf("%s stopped: %v (%d of %d files restored)", title, failed, len(done), len(cp.Files))})
		return res, fmt.Errorf("%s stopped after %d of %d files: %w", title, len(done), len(cp.Files), failed)
	}
	res.Summary = title + ": " + undoWords(cp.Files, a.shortName)
	a.log.InfoContext(ctx, "change undone", "change", cp.ID, "files", len(done))
	return res, nil
}

// noChange is Undo's error when this memex has no change to undo; it is
// checkpoint.ErrNotFound.
type noChange struct{}

func (noChange) Error() string        { return "there is no change to undo in this memex" }
func (noChange) Is(target error) bool { return target == checkpoint.ErrNotFound }

// latest is this memex's latest change.
func (a *Agent) latest() (checkpoint.Checkpoint, error) {
	list, err := a.changes()
	switch {
	case err != nil:
		return checkpoint.Checkpoint{}, err
	case len(list) == 0:
		return checkpoint.Checkpoint{}, noChange{}
	}
	return list[0], nil
}

// latestOfPlan is the latest change of this memex the run of plan id
// made (or an undo of it made).
func (a *Agent) latestOfPlan(id string) (checkpoint.Checkpoint, bool) {
	list, err := a.changes()
	if err != nil {
		return checkpoint.Checkpoint{}, false
	}
	for _, c := range list {
		if c.PlanID == id {
			return c, true
		}
	}
	return checkpoint.Checkpoint{}, false
}

// undoTitle names the undo of a change titled t: undoing an undo redoes.
func undoTitle(t string) string {
	switch {
	case strings.HasPrefix(t, "undo of "):
		return "redo of " + strings.TrimPrefix(t, "undo of ")
	case strings.HasPrefix(t, "redo of "):
		return "undo of " + strings.TrimPrefix(t, "redo of ")
	}
	return "undo of " + t
}
