package lsp

import (
	"bytes"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"

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
