package orgtime

import (
	"fmt"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

type repeatCase struct {
	now   string // "2026-11-26 10:00", UTC
	stamp string
}

var fixedCases = []repeatCase{
	{"2026-11-26 10:00", "<2026-11-20 Fri 09:00 +1d>"},
	{"2026-11-26 10:00", "<2026-11-20 Fri 09:00 ++1d>"},
	{"2026-11-26 08:00", "<2026-11-20 Fri 09:00 ++1d>"},
	{"2026-11-26 10:00", "<2026-11-20 Fri 09:00 .+1d>"},
	{"2026-11-26 10:00", "<2026-01-31 Sat +1m>"},
	{"2026-11-26 10:00", "<2026-01-31 Sat ++1m>"},
	{"2026-11-26 10:00", "<2026-11-20 Fri 09:00-10:30 ++1w -2d>"},
	{"2026-11-26 10:00", "<2026-11-20 Fri 23:30 +2h>"},
	{"2026-11-26 10:00", "<2026-11-26 Thu 05:30 ++2h>"},
	{"2026-11-26 10:17", "<2026-11-20 Fri 23:30 .+3h>"},
	{"2024-03-01 00:00", "<2024-02-29 Thu +1y>"},
	{"2026-11-26 10:00", "<2026-11-26 Thu ++1d>"},
	{"2026-11-26 10:00", "<2026-11-20 Fri .+2d/3d>"},
	{"2026-11-26 10:00", "<2026-11-20 +1w>"},
	{"2026-11-26 10:00", "<2026-12-20 Sun 9:05 .+1m>"},
}

// randomCases are timestamps near now, each needing fewer than 10 shifts
// (Org asks the user beyond that).
func randomCases(n int) []repeatCase {
	r := rand.New(rand.NewPCG(20, 26))
	var out []repeatCase
	for len(out) < n {
		base := time.Date(2020+r.IntN(10), time.Month(1+r.IntN(12)), 1+r.IntN(31), r.IntN(24), r.IntN(60), 0, 0, time.UTC)
		kind := []string{"+", "++", ".+"}[r.IntN(3)]
		unit := "hdwmy"[r.IntN(5)]
		hasTime := unit == 'h' || r.IntN(2) == 0
		k := 1 + r.IntN(3)
		s := Stamp{Wall: base, HasTime: hasTime, Repeater: kind, N: k, Unit: unit, tail: fmt.Sprintf(" %s%d%c", kind, k, unit)}
		if !hasTime {
			s.Wall = time.Date(base.Year(), base.Month(), base.Day(), 0, 0, 0, 0, time.UTC)
		}
		// now: somewhere between the stamp minus a little and 8 intervals on.
		far := s
		nn, uu := k, unit
		if uu == 'w' {
			nn, uu = nn*7, 'd'
		}
		for range 8 {
			far = far.shift(nn, uu)
		}
		span := far.Wall.Sub(s.Wall) + 48*time.Hour
		now := s.Wall.Add(-24*time.Hour + time.Duration(r.Int64N(int64(span)))).Truncate(time.Minute)
		out = append(out, repeatCase{now.Format("2006-01-02 15:04"), s.String()})
	}
	return out
}

// TestRepeatAsOrgDoes marks an entry scheduled at each timestamp DONE in
// Emacs 28's Org 9.5, with the clock set, and compares the timestamp
// Org wrote with Repeat's.
func TestRepeatAsOrgDoes(t *testing.T) {
	emacs := testenv.NeedCommand(t, "emacs")
	cases := append(append([]repeatCase(nil), fixedCases...), randomCases(300)...)
	var in strings.Builder
	for _, c := range cases {
		fmt.Fprintf(&in, "%s\t%s\n", c.now, c.stamp)
	}
	file := filepath.Join(t.TempDir(), "cases.txt")
	require.NoError(t, os.WriteFile(file, []byte(in.String()), 0o644))
	cmd := exec.Command(emacs, "--batch", "-Q", "-l", filepath.Join("testdata", "repeat.el"), file)
	cmd.Env = append(os.Environ(), "TZ=UTC", "LANG=C", "LC_ALL=C")
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	require.NoError(t, err, "%s", stderr.String())
	lines := strings.Split(strings.TrimSpace(string(out)), "\n")
	require.Len(t, lines, len(cases))
	for i, c := range cases {
		now, err := time.Parse("2006-01-02 15:04", c.now)
		require.NoError(t, err)
		s, err := Parse(c.stamp)
		require.NoError(t, err, c.stamp)
		got, err := s.Repeat(now, time.UTC)
		require.NoError(t, err, c.stamp)
		assert.Equal(t, lines[i], got.String(), "%s at %s", c.stamp, c.now)
	}
}

func TestParse(t *testing.T) {
	s, err := Parse("<2026-11-20 Fri 09:00-10:30 .+2d/3d -1d>")
	require.NoError(t, err)
	assert.Equal(t, ".+", s.Repeater)
	assert.Equal(t, 2, s.N)
	assert.Equal(t, byte('d'), s.Unit)
	assert.True(t, s.HasEnd)
	assert.Equal(t, "<2026-11-20 Fri 09:00-10:30 .+2d/3d -1d>", s.String())
	for _, bad := range []string{"", "[2026-11-20 Fri]", "<%%(diary-float t 4 2)>", "<2026-13-01 Mon>", "<2026-11-20 Fri 25:00>", "<tomorrow>"} {
		_, err := Parse(bad)
		assert.Error(t, err, bad)
	}
	_, err = Stamp{}.Repeat(time.Now(), time.UTC)
	assert.ErrorIs(t, err, ErrNoRepeater)
	h, err := Parse("<2026-11-20 Fri +1h>")
	require.NoError(t, err)
	_, err = h.Repeat(time.Now(), time.UTC)
	assert.ErrorContains(t, err, "no hour has been set")
}

func TestDue(t *testing.T) {
	s, err := Parse("<2026-11-20 Fri 09:00 +1d>")
	require.NoError(t, err)
	assert.False(t, s.Due(time.Date(2026, 11, 20, 8, 59, 0, 0, time.UTC), time.UTC))
	assert.True(t, s.Due(time.Date(2026, 11, 20, 9, 0, 0, 0, time.UTC), time.UTC))
	berlin, err := time.LoadLocation("Europe/Berlin")
	require.NoError(t, err)
	assert.True(t, s.Due(time.Date(2026, 11, 20, 8, 0, 0, 0, time.UTC), berlin), "09:00 in Berlin is 08:00 UTC")
}
