package plist

import (
	"errors"
	"testing"
)

// fuzzLimits keep fuzz inputs cheap while still reaching every limit.
func fuzzLimits() Limits {
	return Limits{MaxBytes: 1 << 16, MaxDepth: 32, MaxElements: 4096, MaxString: 1 << 14, MaxAtom: 512}
}

func addFuzzSeeds(f *testing.F) {
	for _, c := range readValueCases() {
		f.Add([]byte(c.in))
	}
	for _, c := range readErrorCases() {
		f.Add([]byte(c.in))
	}
}

// FuzzRead: no input panics or hangs; an error names an offset inside the
// input; a value read prints, and the print reads back.
func FuzzRead(f *testing.F) {
	addFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ReadWith(data, fuzzLimits())
		if err != nil {
			var se *SyntaxError
			if !errors.As(err, &se) {
				t.Fatalf("error of type %T: %v", err, err)
			}
			if se.Offset < 0 || se.Offset > len(data) {
				t.Fatalf("offset %d outside the %d-byte input: %v", se.Offset, len(data), err)
			}
			return
		}
		if _, err := Marshal(v); err != nil {
			t.Fatalf("%q read as %#v, which does not print: %v", data, v, err)
		}
	})
}

// FuzzRoundTrip: read → print → read gives the same value, and printing is a
// fixpoint (the second print is the first, byte for byte).
func FuzzRoundTrip(f *testing.F) {
	addFuzzSeeds(f)
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := ReadWith(data, fuzzLimits())
		if err != nil {
			return
		}
		text, err := Marshal(v)
		if err != nil {
			t.Fatalf("%q read as %#v, which does not print: %v", data, v, err)
		}
		// A print may be longer than its source (escapes), so it is read
		// with room to spare.
		lim := fuzzLimits()
		lim.MaxBytes, lim.MaxString, lim.MaxAtom = 1<<20, 1<<20, 1<<12
		back, err := ReadWith(text, lim)
		if err != nil {
			t.Fatalf("%q read as %#v, printed as %q, which does not read: %v", data, v, text, err)
		}
		if !equalValue(v, back) {
			t.Fatalf("%q read as %#v, printed as %q, read back as %#v", data, v, text, back)
		}
		again, err := Marshal(back)
		if err != nil || string(again) != string(text) {
			t.Fatalf("printing is not a fixpoint: %q then %q (%v)", text, again, err)
		}
	})
}
