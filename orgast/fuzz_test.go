package orgast

import (
	"encoding/json"
	"testing"
)

// checkInvariants asserts what every outline of any bytes must satisfy.
func checkInvariants(t *testing.T, src []byte, f *File) {
	t.Helper()
	n := len(src)
	in := func(r Range) bool { return r == (Range{}) || 0 <= r.Start && r.Start <= r.End && r.End <= n }
	last := -1
	for i, h := range f.Headlines {
		if h.Line.Start <= last || !in(h.Line) || !in(h.TitleRange) || !in(h.Section) || h.End < h.Line.End || h.End > n {
			t.Fatalf("headline %d out of place: %+v (text of %d bytes)", i, h, n)
		}
		if h.Parent >= i || (h.Parent >= 0 && f.Headlines[h.Parent].End < h.End) {
			t.Fatalf("headline %d has a bad parent %d", i, h.Parent)
		}
		last = h.Line.Start
	}
	for _, l := range f.Links {
		if !in(l.Range) || l.Range.Start >= l.Range.End || !in(l.DescRange) || l.Node >= len(f.Headlines) {
			t.Fatalf("link out of place: %+v", l)
		}
	}
	for _, k := range f.Keywords {
		if !in(k.Range) || !in(k.ValueRange) {
			t.Fatalf("keyword out of place: %+v", k)
		}
	}
	prev := -1
	for _, b := range f.Blocks {
		r, l, c := b.Range, b.Line, b.Contents
		if !in(r) || !in(l) || !in(c) || r.Start <= prev || r.Start > l.Start || l.Start >= l.End || l.End >= c.Start ||
			c.Start > c.End || c.End >= r.End || b.Node >= len(f.Headlines) || b.Type == "unknown" {
			t.Fatalf("block out of place: %+v (text of %d bytes)", b, n)
		}
		prev = r.Start
	}
	prev = -1
	for _, m := range f.Names {
		if !in(m.Range) || !in(m.NameRange) || m.Range.Start <= prev || m.NameRange.Start < m.Range.Start ||
			m.NameRange.End > m.Range.End || string(src[m.NameRange.Start:m.NameRange.End]) != m.Name || m.Node >= len(f.Headlines) {
			t.Fatalf("named element out of place: %+v (text of %d bytes)", m, n)
		}
		prev = m.Range.Start
	}
	for _, p := range f.Problems {
		if !in(p.Range) {
			t.Fatalf("problem out of place: %+v", p)
		}
	}
	for _, off := range []int{0, n / 3, n / 2, n} {
		if node := f.NodeAt(off); node < -1 || node >= len(f.Headlines) {
			t.Fatalf("NodeAt(%d) = %d", off, node)
		}
	}
	var v any
	if err := json.Unmarshal(Outlines([]string{"f.org"}, []*File{f}), &v); err != nil {
		// Raw bytes are printed as Emacs prints them; the rest must be JSON.
		if f.enc == encUTF8 {
			t.Fatalf("the outline is no JSON: %v", err)
		}
	}
}

// FuzzParse feeds any bytes to Parse.
func FuzzParse(f *testing.F) {
	for _, s := range []string{"", "* A\n", "#+TODO: A | B\n* A x :t:\nSCHEDULED: <2020-01-01>\n:PROPERTIES:\n:ID: 1\n:END:\n[[x][y]]",
		"<<<r>>> r", "- a :: b\n  - c", "| a | b |", "*a\n b*", "\r\n\r", "\xef\xbb\xbf* x", "[fn::[[a]]]"} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, src []byte) {
		checkInvariants(t, src, Parse(src))
	})
}

// FuzzReparse edits any document anywhere and checks that Reparse equals
// Parse.
func FuzzReparse(f *testing.F) {
	f.Add([]byte("* A\ntext\n** B\n* C\n"), uint16(5), uint8(2), []byte("x\n* D"))
	f.Add([]byte("#+TODO: X\n* X a\n"), uint16(9), uint8(0), []byte("Y"))
	f.Add([]byte("* A\n<<t>>\n* B\n"), uint16(6), uint8(1), []byte("<<"))
	// Nested windows: an edit deep in a subtree, at the end of the file,
	// before blank lines that close a parent, and a "<<<" that is no
	// radio target (a fixed-width line) made one.
	f.Add([]byte("* A\n** B\ntext\n*** C\nmore\n\n** D\nx\n\n* E\n"), uint16(16), uint8(0), []byte("y"))
	f.Add([]byte("* A\n** B\ntext\n*** C\nmore\n\n\n"), uint16(20), uint8(0), []byte("y\n"))
	f.Add([]byte("* A\n** B\n: a <<<t>>>\n*** C\nt here\n"), uint16(13), uint8(2), []byte(""))
	f.Fuzz(func(t *testing.T, src []byte, at uint16, del uint8, ins []byte) {
		start := int(at) % (len(src) + 1)
		end := min(len(src), start+int(del))
		next := append(append(append([]byte{}, src[:start]...), ins...), src[end:]...)
		prev := Parse(src)
		got := Reparse(prev, next, Edit{Start: start, OldEnd: end, NewEnd: start + len(ins)})
		want := Parse(next)
		if a, b := snap(want), snap(got); !equalSnapshots(a, b) {
			t.Fatalf("Reparse differs from Parse for %q edited at %d-%d with %q", src, start, end, ins)
		}
	})
}

// FuzzLineIndex maps offsets of any text to positions and back.
func FuzzLineIndex(f *testing.F) {
	for _, s := range []string{"a\nb", "é😀\r\nx", "\xff\xfe\n", "a\rb", "\xef\xbb\xbfx\ny"} {
		f.Add([]byte(s), uint16(1))
	}
	f.Fuzz(func(t *testing.T, src []byte, at uint16) {
		li := newLineIndex(src, detectEOL(src), encUTF8, 0)
		off := int(at) % (len(src) + 1)
		line, col, col16 := li.Position(off)
		lr := li.LineRange(line)
		if col < 0 || lr.Start+col > lr.End || col16 < 0 || col16 > col {
			t.Fatalf("Position(%d) = %d, %d, %d for line %+v", off, line, col, col16, lr)
		}
		if back := li.OffsetUTF16(line, col16); back != lr.Start+col {
			t.Fatalf("OffsetUTF16(%d, %d) = %d, want %d", line, col16, back, lr.Start+col)
		}
		if back := li.OffsetByte(line, col); back != lr.Start+col {
			t.Fatalf("OffsetByte(%d, %d) = %d, want %d", line, col, back, lr.Start+col)
		}
	})
}
