// Package orgtime reads an Org active timestamp's date, time and repeater,
// and advances it as Org 9.5's org-auto-repeat-maybe does when the entry
// is marked done: `+N` shifts once, `++N` shifts until the time is in the
// future, `.+N` shifts from now (units h, d, w, m, y). Arithmetic is on the
// wall clock, field by field, as Org's org-timestamp-change and Emacs's
// encode-time normalise it (January 31 plus a month is March 3).
package orgtime

import (
	"errors"
	"fmt"
	"regexp"
	"strconv"
	"time"
)

// Stamp is an active timestamp, as written: `<2026-11-20 Fri 09:00-10:30 +1d -2d>`.
type Stamp struct {
	// Wall is the date and start time as a wall-clock reading (in UTC:
	// the zone means nothing here).
	Wall time.Time
	// HasTime says a time of day is written; HasEnd that a range end is,
	// EndHour and EndMin that end.
	HasTime, HasEnd bool
	EndHour, EndMin int
	// Repeater is "+", "++" or ".+" ("" when none), N and Unit its
	// interval (Unit one of h d w m y).
	Repeater string
	N        int
	Unit     byte
	// tail is everything after the date, day name and time, verbatim
	// (repeater, warning period, habit interval).
	tail string
}

var (
	stampRe    = regexp.MustCompile(`^<(\d{4})-(\d{2})-(\d{2})(?: +[^\s\d>+.-][^\s>]*)?(?: +(\d{1,2}):(\d{2})(?:-(\d{1,2}):(\d{2}))?)?((?: +[^>]*)?)>$`)
	repeaterRe = regexp.MustCompile(`([.+])?(\+)([0-9]+)([hdwmy])`)
)

// Parse reads an active timestamp; a diary sexp, an inactive or a
// malformed one is an error.
func Parse(raw string) (Stamp, error) {
	m := stampRe.FindStringSubmatch(raw)
	if m == nil {
		return Stamp{}, fmt.Errorf("%q is not an active Org timestamp like <2026-11-20 Fri 09:00 +1d>", raw)
	}
	num := func(s string) int { n, _ := strconv.Atoi(s); return n }
	y, mo, d := num(m[1]), num(m[2]), num(m[3])
	if mo < 1 || mo > 12 || d < 1 || d > 31 {
		return Stamp{}, fmt.Errorf("%q has no such date", raw)
	}
	s := Stamp{tail: m[8]}
	h, mi := 0, 0
	if m[4] != "" {
		s.HasTime, h, mi = true, num(m[4]), num(m[5])
		if h > 23 || mi > 59 {
			return Stamp{}, fmt.Errorf("%q has no such time", raw)
		}
		if m[6] != "" {
			s.HasEnd, s.EndHour, s.EndMin = true, num(m[6]), num(m[7])
		}
	}
	s.Wall = time.Date(y, time.Month(mo), d, h, mi, 0, 0, time.UTC)
	if r := repeaterRe.FindStringSubmatch(s.tail); r != nil {
		s.Repeater = r[1] + r[2]
		s.N = num(r[3])
		s.Unit = r[4][0]
	}
	return s, nil
}

// String writes the timestamp as Org does: the date, its English day
// name, the time zero-padded, then the rest as it was written.
func (s Stamp) String() string {
	out := fmt.Sprintf("<%s %s", s.Wall.Format("2006-01-02"), s.Wall.Weekday().String()[:3])
	if s.HasTime {
		out += s.Wall.Format(" 15:04")
		if s.HasEnd {
			out += fmt.Sprintf("-%02d:%02d", s.EndHour, s.EndMin)
		}
	}
	return out + s.tail + ">"
}

// wallNow is now as a wall-clock reading in loc.
func wallNow(now time.Time, loc *time.Location) time.Time {
	n := now.In(loc)
	return time.Date(n.Year(), n.Month(), n.Day(), n.Hour(), n.Minute(), n.Second(), n.Nanosecond(), time.UTC)
}

// Due reports whether the timestamp's start has come at now in loc.
func (s Stamp) Due(now time.Time, loc *time.Location) bool {
	return !wallNow(now, loc).Before(s.Wall)
}

// ErrNoRepeater is Repeat's error for a timestamp without one.
var ErrNoRepeater = errors.New("the timestamp has no repeater")

// maxShifts bounds the shifts of `++` (Org asks the user after 10).
const maxShifts = 1 << 20

// Repeat is the timestamp advanced as org-auto-repeat-maybe advances a
// SCHEDULED one at now (in loc).
func (s Stamp) Repeat(now time.Time, loc *time.Location) (Stamp, error) {
	if s.Repeater == "" {
		return s, ErrNoRepeater
	}
	n, unit := s.N, s.Unit
	if unit == 'w' {
		n, unit = n*7, 'd'
	}
	if unit == 'h' && !s.HasTime {
		return s, fmt.Errorf("cannot repeat in %d hour(s) because no hour has been set", n)
	}
	wn := wallNow(now, loc)
	switch s.Repeater {
	case ".+":
		if unit == 'h' {
			// (floor (- (org-time-stamp-to-now ts t)) 60) minutes.
			secs := wn.Sub(s.Wall).Seconds()
			s = s.shift(int(floorDiv(secs, 60)), 'M')
		} else {
			today := time.Date(wn.Year(), wn.Month(), wn.Day(), 0, 0, 0, 0, time.UTC)
			day := time.Date(s.Wall.Year(), s.Wall.Month(), s.Wall.Day(), 0, 0, 0, 0, time.UTC)
			s = s.shift(int(today.Sub(day).Hours()/24), 'd')
		}
	case "++":
		for k := 0; k == 0 || !wn.Before(s.Wall); k++ {
			if k == maxShifts {
				return s, fmt.Errorf("%d repeater intervals were not enough to shift the date past now", k)
			}
			s = s.shift(n, unit)
		}
		s = s.shift(-n, unit)
	}
	return s.shift(n, unit), nil
}

func floorDiv(a, b float64) float64 {
	q := a / b
	if q < 0 && q != float64(int64(q)) {
		return float64(int64(q) - 1)
	}
	return float64(int64(q))
}

// shift is org-timestamp-change by n of unit (h d m y, or M for minutes):
// the field changed, the rest normalised by the calendar; a range's end
// moves with an hour or minute shift.
func (s Stamp) shift(n int, unit byte) Stamp {
	w := s.Wall
	y, mo, d, h, mi := w.Year(), w.Month(), w.Day(), w.Hour(), w.Minute()
	switch unit {
	case 'h':
		h += n
	case 'M':
		mi += n
	case 'd':
		d += n
	case 'm':
		mo += time.Month(n)
	case 'y':
		y += n
	}
	s.Wall = time.Date(y, mo, d, h, mi, 0, 0, time.UTC)
	if s.HasEnd && (unit == 'h' || unit == 'M') {
		delta := s.Wall.Sub(w)
		end := time.Date(2000, 1, 1, s.EndHour, s.EndMin, 0, 0, time.UTC).Add(delta)
		s.EndHour, s.EndMin = end.Hour(), end.Minute()
	}
	return s
}
