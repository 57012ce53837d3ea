package lsp

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/orgast"
)

// TestUTF16ColumnAsOrgast: a folded edit's column is counted in its line
// as orgast counts it in the file — astral characters two units, a column
// inside a surrogate pair at the character's start, past the end at the
// end.
func TestUTF16ColumnAsOrgast(t *testing.T) {
	for _, line := range []string{"", "plain ascii", "é and ü", "a😀b😀c", "日本語のテキスト", "* TODO 😀 [[id:x][ü]]"} {
		f := orgast.Parse([]byte("first\n" + line + "\nlast\n"))
		start := f.Lines.LineRange(1).Start
		for col := range 24 {
			assert.Equal(t, f.Lines.OffsetUTF16(1, col)-start, utf16Column([]byte(line), col), "%q column %d", line, col)
		}
	}
}

// TestPendingLingers: only a burst (two edits or more) to a large buffer
// waits for the rest of the burst, and never past lingerMax.
func TestPendingLingers(t *testing.T) {
	now := time.Now()
	large := orgast.Parse(bytes.Repeat([]byte("* Heading\nbody\n"), lingerBytes/15+1))
	small := orgast.Parse([]byte("* Heading\nbody\n"))
	for _, tc := range []struct {
		name  string
		base  *orgast.File
		edits int
		age   time.Duration
		want  bool
	}{
		{"a burst to a large buffer", large, 40, 10 * time.Millisecond, true},
		{"one edit", large, 1, 0, false},
		{"a small buffer", small, 40, 0, false},
		{"waited long enough", large, 40, lingerMax, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := &pendingText{base: tc.base, edits: tc.edits, since: now.Add(-tc.age)}
			assert.Equal(t, tc.want, p.lingers(now))
		})
	}
}

// TestPendingTextIsFresh checks that the text a flush hands over to the
// memex (SetBufferOwned, no copy) is a slice of its own: it never shares
// memory with the text the memex held before, so neither can change the
// other.
func TestPendingTextIsFresh(t *testing.T) {
	const src = "* One\nbody one\n* Two\nbody two\n"
	for _, tc := range []struct {
		name  string
		lines map[int][]byte
		want  string
	}{
		{"no line changed", nil, src},
		{"one line", map[int][]byte{1: []byte("body 1")}, "* One\nbody 1\n* Two\nbody two\n"},
		{"first and last", map[int][]byte{0: []byte("* Uno"), 3: []byte("body dos")}, "* Uno\nbody one\n* Two\nbody dos\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			base := orgast.Parse([]byte(src))
			p := &pendingText{base: base, lines: tc.lines}
			got := p.text()
			require.Equal(t, tc.want, string(got))
			for i := range got {
				got[i] = 'x'
			}
			assert.Equal(t, src, string(base.Src), "the flushed text shares nothing with the held one")
		})
	}
}
