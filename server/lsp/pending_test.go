package lsp

import (
	"testing"

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
