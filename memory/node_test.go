package memory

import (
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestBody checks a node's own text, as Body and AppendBody give it:
// without the headline line, planning, property drawer and children; for
// the file node without the file-level drawer and keyword lines.
func TestBody(t *testing.T) {
	src := ":PROPERTIES:\n:ID: f\n:END:\n#+title: T\nintro\n#+filetags: :x:\nmore\n" +
		"* A\nSCHEDULED: <2024-01-01 Mon>\n:PROPERTIES:\n:ID: a\n:END:\nbody a\n** A1\nbody a1\n* B :tag:\n* C\n\nlast\n"
	f := buildFile("/m/t.org", 0, "t.org", []byte(src), newPrivacySet(nil, ""))
	tests := []struct {
		node int32
		want string
	}{
		{0, "intro\nmore\n"},
		{1, "body a\n"},
		{2, "body a1\n"},
		{3, ""},
		{4, "\nlast\n"},
	}
	for _, tt := range tests {
		n := Node{f, tt.node}
		assert.Equal(t, tt.want, n.Body(), "node %d (%s)", tt.node, n.Title())
		assert.Equal(t, "prefix:"+tt.want, string(n.AppendBody([]byte("prefix:"))), "node %d appended", tt.node)
		assert.Equal(t, tt.want, string(n.AppendBody(nil)), "node %d into nil", tt.node)
	}
}
