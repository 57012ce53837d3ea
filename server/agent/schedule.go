package agent

import (
	"context"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"time"

	"pp-lsp/server/skills"
	"pp-lsp/server/workspace"
)

// SkillRun is what running one skill did.
type SkillRun struct {
	// Skill is the skill's title; Scheduled its SCHEDULED: before the run
	// and Next after ("" when it was removed or not changed).
	Skill, Scheduled, Next string
	// Ran is false when this due time had already run (another process,
	// or before a restart) and only the timestamp was moved on.
	Ran    bool
	Passes []Pass
	Err    error
}

// RunSchedules runs every skill whose SCHEDULED: time has come, each once
// per due time across processes and restarts (a record in the data dir,
// made with O_EXCL before the run), as a background pass; then moves its
// timestamp on as Org's repeaters do — the server writes it (atomically,
// or through the editor when the file is open), never the model. A run
// missed while the server was down runs once.
func (a *Agent) RunSchedules(ctx context.Context) []SkillRun {
	now := a.now()
	var out []SkillRun
	for _, k := range a.Skills().Usable() {
		if ctx.Err() != nil {
			break
		}
		if !k.Due(now, time.Local) {
			continue
		}
		run := SkillRun{Skill: k.Title, Scheduled: k.Scheduled}
		if a.provider == nil && needsModel(k) {
			a.log.WarnContext(ctx, "a scheduled skill is due but no model is configured: it waits", "skill", k.Title, "scheduled", k.Scheduled)
			continue
		}
		first, err := a.claim(k)
		if err != nil {
			run.Err = err
			out = append(out, run)
			continue
		}
		if first {
			run.Ran = true
			run.Passes, run.Err = a.runSkill(ctx, k)
		}
		if ctx.Err() != nil && run.Err != nil {
			out = append(out, run)
			break
		}
		next, err := a.advance(ctx, k, now)
		if errors.Is(err, skills.ErrMoved) {
			// Someone moved it first (another process sharing the data
			// dir, or the user): theirs stands.
			a.log.InfoContext(ctx, "a scheduled skill's timestamp had moved already", "skill", k.Title, "was", k.Scheduled)
			err = nil
		}
		run.Next = next
		run.Err = errors.Join(run.Err, err)
		if run.Err != nil {
			a.log.WarnContext(ctx, "a scheduled skill did not run cleanly", "skill", k.Title, "err", run.Err)
		}
		out = append(out, run)
	}
	return out
}

// RunSkill runs the skill named (ID or title) now, as its schedule would,
// without moving its timestamp.
func (a *Agent) RunSkill(ctx context.Context, name string) (SkillRun, error) {
	k, ok := a.Skills().Find(name)
	if !ok {
		return SkillRun{}, usage(fmt.Errorf("no skill has the ID or title %q", name))
	}
	if !k.OK() {
		return SkillRun{}, usage(fmt.Errorf("the skill %q is not used: %s", k.Title, k.Problem))
	}
	if a.provider == nil && needsModel(k) {
		return SkillRun{}, ErrNoProvider
	}
	run := SkillRun{Skill: k.Title, Scheduled: k.Scheduled, Ran: true}
	run.Passes, run.Err = a.runSkill(ctx, k)
	return run, nil
}

// runSkill is one background pass with k as its scheduled skill.
func (a *Agent) runSkill(ctx context.Context, k *skills.Skill) ([]Pass, error) {
	text := fmt.Sprintf("Run your skill %q now, as its rules above say.", k.Title)
	if k.Scheduled != "" {
		text = fmt.Sprintf("Run your skill %q now, as its rules above say: it is scheduled %s.", k.Title, k.Scheduled)
	}
	// No File: words a background pass says are journalled, never offered
	// into a note (nobody is there to accept them).
	sig := Signal{Source: SourceSchedule, Sensor: SensorSchedule, Skill: k.Key, Text: text}
	switch {
	case k.Is(skills.Gardener):
		sig, err := Perceive(sig, a.roots)
		if err != nil {
			return nil, err
		}
		return a.runGardener(ctx, k, sig)
	case k.Is(skills.Scribe):
		snap, err := a.fresh(ctx)
		if err != nil {
			return nil, err
		}
		t, err := a.scribeText(snap)
		if err != nil {
			return nil, err
		}
		sig.Text = t
	}
	return a.handle(ctx, sig, func(string) error { return nil })
}

// claim makes the record of this due time; false when it already exists.
func (a *Agent) claim(k *skills.Skill) (bool, error) {
	dir := filepath.Join(a.dataDir, "schedules")
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return false, fmt.Errorf("cannot record the run of skill %q: %w", k.Title, err)
	}
	sum := sha256.Sum256([]byte(k.Key + "\x00" + k.Title + "\x00" + k.Scheduled))
	p := filepath.Join(dir, hex.EncodeToString(sum[:16]))
	f, err := os.OpenFile(p, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o600)
	if errors.Is(err, fs.ErrExist) {
		return false, nil
	}
	if err != nil {
		return false, fmt.Errorf("cannot record the run of skill %q: %w", k.Title, err)
	}
	_, werr := fmt.Fprintf(f, "%s\t%s\t%s\n", a.now().UTC().Format(time.RFC3339), k.Scheduled, k.Key)
	return true, errors.Join(werr, f.Close())
}

// advance moves k's timestamp on in its file, as it is now (the buffer
// when open), and tells the memex.
func (a *Agent) advance(ctx context.Context, k *skills.Skill, now time.Time) (string, error) {
	defer a.locks.lock(k.File)()
	cur, err := a.files.Read(k.File)
	if err != nil {
		return "", err
	}
	if !cur.Exists {
		return "", fmt.Errorf("the file of skill %q is gone", k.Title)
	}
	change, next, err := k.Advance(cur.Text, now, time.Local)
	if err != nil {
		return "", err
	}
	label := fmt.Sprintf("pp-lsp: the next run of skill %q", k.Title)
	if _, err := a.writeOwn(ctx, cur, []workspace.Change{change}, workspace.Meta{Label: label}); err != nil {
		return "", fmt.Errorf("moving the schedule of skill %q on: %w", k.Title, err)
	}
	a.log.InfoContext(ctx, "a scheduled skill's timestamp moved on", "skill", k.Title, "from", k.Scheduled, "to", next)
	return next, nil
}
