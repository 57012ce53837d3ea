package orgast

import (
	"math/rand/v2"
	"testing"
	"unicode/utf16"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestLineIndexPositions(t *testing.T) {
	tests := []struct {
		name             string
		src              string
		off              int
		line, col, col16 int
	}{
		{"start", "ab\ncd", 0, 0, 0, 0},
		{"second line", "ab\ncd", 4, 1, 1, 1},
		{"end of text", "ab\ncd", 5, 1, 2, 2},
		{"two-byte", "é\nx", 2, 0, 2, 1},
		{"three-byte", "中x", 3, 0, 3, 1},
		{"astral counts two units", "😀x", 4, 0, 4, 2},
		{"inside a character snaps back", "😀x", 2, 0, 0, 0},
		{"invalid byte counts one", "\xffx", 1, 0, 1, 1},
		{"dos: the CR belongs to the line end", "ab\r\ncd", 2, 0, 2, 2},
		{"dos: offset on the CR", "ab\r\ncd", 3, 0, 2, 2},
		{"dos: next line", "ab\r\ncd", 5, 1, 1, 1},
		{"unix: a CR is a character", "a\rb\nc", 2, 0, 2, 2},
		{"mac", "ab\rcd", 4, 1, 1, 1},
		{"bom is invisible", "\xef\xbb\xbfab", 4, 0, 1, 1},
		{"inside the bom", "\xef\xbb\xbfab", 1, 0, 0, 0},
		{"latin-1: one unit per byte", "caf\xe9 \xe9t\xe9", 7, 0, 7, 7},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			li := Parse([]byte(tt.src)).Lines
			line, col, col16 := li.Position(tt.off)
			assert.Equal(t, []int{tt.line, tt.col, tt.col16}, []int{line, col, col16})
		})
	}
}

func TestLineIndexOffsets(t *testing.T) {
	li := Parse([]byte("a😀b\r\n中\r\n")).Lines
	assert.Equal(t, 3, li.LineCount())
	assert.Equal(t, 0, li.OffsetUTF16(0, 0))
	assert.Equal(t, 1, li.OffsetUTF16(0, 1))
	assert.Equal(t, 1, li.OffsetUTF16(0, 2), "inside the surrogate pair: the character's start")
	assert.Equal(t, 5, li.OffsetUTF16(0, 3))
	assert.Equal(t, 6, li.OffsetUTF16(0, 99), "past the end: the end of the line, before CR LF")
	assert.Equal(t, 8, li.OffsetUTF16(1, 0))
	assert.Equal(t, 11, li.OffsetUTF16(1, 1))
	assert.Equal(t, 13, li.OffsetUTF16(2, 0))
	assert.Equal(t, 13, li.OffsetUTF16(7, 0), "a line past the last: the end of the text")
	assert.Equal(t, 1, li.OffsetByte(0, 2), "a byte column inside a character snaps back")
	assert.Equal(t, Range{8, 11}, li.LineRange(1))
}

// TestLineIndexRoundTrip maps every offset of random texts (ASCII,
// accents, CJK, astral characters, invalid bytes, CR LF) to a position and
// back, and checks the UTF-16 column against a direct count.
func TestLineIndexRoundTrip(t *testing.T) {
	pieces := []string{"a", "b", " ", "é", "中", "😀", "\xff", "\xe2\x82", "\n", "\r\n", "\t"}
	r := rand.New(rand.NewPCG(3, 4))
	for n := 0; n < 300; n++ {
		var b []byte
		for i := r.IntN(60); i > 0; i-- {
			b = append(b, pieces[r.IntN(len(pieces))]...)
		}
		f := Parse(b)
		li := f.Lines
		for off := 0; off <= len(b); off++ {
			line, col, col16 := li.Position(off)
			lr := li.LineRange(line)
			require.GreaterOrEqual(t, off, lr.Start-3, "offset %d of %q", off, b)
			back := li.OffsetUTF16(line, col16)
			require.Equal(t, lr.Start+col, back, "offset %d of %q: line %d col %d utf16 %d", off, b, line, col, col16)
			if f.enc == encUTF8 {
				require.Equal(t, utf16Len(b[lr.Start:lr.Start+col]), col16, "offset %d of %q", off, b)
			}
		}
	}
}

// utf16Len counts UTF-16 units the way an editor that decodes the text
// with replacement characters would.
func utf16Len(b []byte) int {
	n := 0
	for len(b) > 0 {
		r, size := utf8.DecodeRune(b)
		if r == utf8.RuneError && size <= 1 {
			n++
		} else {
			n += len(utf16.Encode([]rune{r}))
		}
		b = b[size:]
	}
	return n
}

// TestConcurrentReaders reads one File from many goroutines: the lazily
// built tables (tiles, UTF-16 runs) must be safe to build on first use.
func TestConcurrentReaders(t *testing.T) {
	f := Parse([]byte("* A\nété 😀\n** B\nx\n* C\n"))
	done := make(chan [2]int)
	for i := 0; i < 8; i++ {
		go func(off int) {
			_, _, col16 := f.Lines.Position(off)
			done <- [2]int{f.NodeAt(off), col16}
		}(i * 3)
	}
	for i := 0; i < 8; i++ {
		<-done
	}
	assert.Equal(t, 1, f.NodeAt(17))
	_, _, col16 := f.Lines.Position(14) // after é t é, a space and 😀
	assert.Equal(t, 6, col16)
}

// TestLineStartsWidths checks that the 4-byte line starts and the 8-byte
// ones a text over 4 GiB gets answer alike (no test makes such a text: the
// wide form is made directly).
func TestLineStartsWidths(t *testing.T) {
	offs := []int{0, 3, 4, 10, 11, 40, 1 << 20}
	narrow := makeLineStarts(1<<21, len(offs))
	wide := lineStarts{wide: make([]int, 0, len(offs))}
	require.NotNil(t, narrow.narrow)
	require.Nil(t, narrow.wide)
	for _, o := range offs {
		narrow.add(o)
		wide.add(o)
	}
	require.Equal(t, len(offs), narrow.len())
	require.Equal(t, len(offs), wide.len())
	for i, o := range offs {
		assert.Equal(t, o, narrow.at(i))
		assert.Equal(t, o, wide.at(i))
	}
	for _, tt := range []struct{ off, want int }{
		{-5, 0}, {0, 0}, {1, 1}, {4, 2}, {5, 3}, {11, 4}, {12, 5}, {1 << 20, 6}, {1<<20 + 1, 7}, {1 << 40, 7},
	} {
		assert.Equal(t, tt.want, narrow.search(tt.off), "narrow search(%d)", tt.off)
		assert.Equal(t, tt.want, wide.search(tt.off), "wide search(%d)", tt.off)
	}
	assert.NotNil(t, makeLineStarts(1<<33, 1).wide, "a text over 4 GiB gets 8-byte starts")
}
