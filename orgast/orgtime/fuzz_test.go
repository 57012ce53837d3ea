package orgtime

import (
	"testing"
	"time"
)

// FuzzParse: any text parses or is refused without panic; what parses
// prints back to text that parses to the same stamp, and repeats without
// panic.
func FuzzParse(f *testing.F) {
	for _, c := range fixedCases {
		f.Add(c.stamp)
	}
	f.Add("<2026-02-31 Tue 99:99 ++0h>")
	f.Add("<0000-01-01 +99999999999y>")
	f.Fuzz(func(t *testing.T, raw string) {
		s, err := Parse(raw)
		if err != nil {
			return
		}
		again, err := Parse(s.String())
		if err != nil {
			t.Fatalf("%q printed as %q, which does not parse: %v", raw, s.String(), err)
		}
		if again.String() != s.String() {
			t.Fatalf("%q: %q then %q", raw, s.String(), again.String())
		}
		if s.N > 1000 {
			return // Repeat's loop is bounded, but a fuzzer need not wait
		}
		_, _ = s.Repeat(time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC), time.UTC)
	})
}
