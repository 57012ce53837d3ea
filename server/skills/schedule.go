package skills

import (
	"bytes"
	"errors"
	"fmt"
	"strings"
	"time"

	"pp-lsp/orgast"
	"pp-lsp/orgast/orgskill"
	"pp-lsp/orgast/orgtime"
	"pp-lsp/server/workspace"
)

// Due reports whether the skill's SCHEDULED: time has come at now (in
// loc). A skill without one, or with one that is not an active
// timestamp, is never due (the latter is a diagnostic).
func (k *Skill) Due(now time.Time, loc *time.Location) bool {
	if k.Scheduled == "" || !k.OK() {
		return false
	}
	s, err := orgtime.Parse(k.Scheduled)
	return err == nil && s.Due(now, loc)
}

// checkSchedule is the diagnostic of a SCHEDULED: that cannot be run.
func (k *Skill) checkSchedule() {
	if k.Scheduled == "" {
		return
	}
	s, err := orgtime.Parse(k.Scheduled)
	if err != nil {
		k.problem(SeverityError, k.ScheduledRange, "the SCHEDULED: of skill %q cannot be read: %v", k.Title, err)
		return
	}
	if s.Unit == 'h' && !s.HasTime {
		k.problem(SeverityError, k.ScheduledRange, "the SCHEDULED: of skill %q repeats by hours but names no time", k.Title)
	}
}

// ErrMoved is Advance's error when the file no longer holds the skill's
// SCHEDULED: timestamp as the snapshot read it.
var ErrMoved = errors.New("the skill's SCHEDULED: timestamp changed since it was read")

// Advance is the change to src (the skill's file as it is now) that moves
// the skill's SCHEDULED: past now as Org's repeaters do: repeated as
// org-auto-repeat-maybe repeats it, again while it would still be due (a
// missed run runs once), or removed when it has no repeater (as Org
// removes a SCHEDULED: without one from an entry it marks done). It
// finds the timestamp where the snapshot saw it, or else as the only
// skill headline of that title scheduled so.
func (k *Skill) Advance(src []byte, now time.Time, loc *time.Location) (workspace.Change, string, error) {
	r, planning, err := k.locate(src)
	if err != nil {
		return workspace.Change{}, "", err
	}
	s, err := orgtime.Parse(k.Scheduled)
	if err != nil {
		return workspace.Change{}, "", fmt.Errorf("the SCHEDULED: of skill %q: %w", k.Title, err)
	}
	if s.Repeater == "" {
		return unschedule(src, r, planning), "", nil
	}
	for i := 0; i == 0 || s.Due(now, loc); i++ {
		if i == 1000 {
			return workspace.Change{}, "", fmt.Errorf("the SCHEDULED: of skill %q stays due after 1000 repeats", k.Title)
		}
		if s, err = s.Repeat(now, loc); err != nil {
			return workspace.Change{}, "", fmt.Errorf("the SCHEDULED: of skill %q: %w", k.Title, err)
		}
	}
	next := s.String()
	return workspace.Change{Start: r.Start, End: r.End, NewText: next}, next, nil
}

// locate finds the timestamp in src: where the snapshot saw it, or by
// parsing src again.
func (k *Skill) locate(src []byte) (stamp, planning orgast.Range, err error) {
	r := k.ScheduledRange
	if r.End <= len(src) && r.Start < r.End && string(src[r.Start:r.End]) == k.Scheduled {
		f := orgast.Parse(src)
		for i := range f.Headlines {
			if h := &f.Headlines[i]; h.Planning().Scheduled.Range == r {
				return r, h.Planning().Range, nil
			}
		}
	}
	f := orgast.Parse(src)
	found := -1
	for i := range f.Headlines {
		h := &f.Headlines[i]
		if h.Title == k.Title && h.Planning().Scheduled.Raw == k.Scheduled && orgskill.Is(h) {
			if found >= 0 {
				return r, r, ErrMoved
			}
			found = i
		}
	}
	if found < 0 {
		return r, r, ErrMoved
	}
	h := &f.Headlines[found]
	return h.Planning().Scheduled.Range, h.Planning().Range, nil
}

// unschedule removes "SCHEDULED: <…>" from the planning line, and the line
// when nothing else is on it.
func unschedule(src []byte, stamp, planning orgast.Range) workspace.Change {
	kw := bytes.LastIndex(bytes.ToUpper(src[planning.Start:stamp.Start]), []byte("SCHEDULED:"))
	start := planning.Start + max(kw, 0)
	end := stamp.End
	for end < planning.End && (src[end] == ' ' || src[end] == '\t') {
		end++
	}
	rest := strings.TrimSpace(string(src[planning.Start:start]) + string(src[end:planning.End]))
	if rest == "" {
		end = planning.End
		if end < len(src) && src[end] == '\r' {
			end++
		}
		if end < len(src) && src[end] == '\n' {
			end++
		}
		return workspace.Change{Start: planning.Start, End: end}
	}
	return workspace.Change{Start: start, End: end}
}
