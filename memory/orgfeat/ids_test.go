package orgfeat

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/orgast"
)

func TestAddID(t *testing.T) {
	const id = "11111111-2222-3333-4444-555555555555"
	tests := []struct {
		name string
		src  string
		node int // headline index, -1 for the file
		want string
		ok   bool
	}{
		{"a headline without a drawer", "* A\nBody.\n", 0, "* A\n:PROPERTIES:\n:ID:       " + id + "\n:END:\nBody.\n", true},
		{"after the planning line, indented like it", "* A\n  SCHEDULED: <2026-01-01 Thu>\n  Body.\n", 0,
			"* A\n  SCHEDULED: <2026-01-01 Thu>\n  :PROPERTIES:\n  :ID:       " + id + "\n  :END:\n  Body.\n", true},
		{"into an existing drawer", "* A\n:PROPERTIES:\n:EFFORT: 1d\n:END:\n", 0, "* A\n:PROPERTIES:\n:ID:       " + id + "\n:EFFORT: 1d\n:END:\n", true},
		{"the last line without a line end", "* A", 0, "* A\n:PROPERTIES:\n:ID:       " + id + "\n:END:", true},
		{"a child headline", "* A\n** B\n", 1, "* A\n** B\n:PROPERTIES:\n:ID:       " + id + "\n:END:\n", true},
		{"CR LF lines", "* A\r\nBody.\r\n", 0, "* A\r\n:PROPERTIES:\r\n:ID:       " + id + "\r\n:END:\r\nBody.\r\n", true},
		{"the file", "#+title: T\n* A\n", -1, ":PROPERTIES:\n:ID:       " + id + "\n:END:\n#+title: T\n* A\n", true},
		{"the file's drawer", ":PROPERTIES:\n:X: y\n:END:\n#+title: T\n", -1, ":PROPERTIES:\n:ID:       " + id + "\n:X: y\n:END:\n#+title: T\n", true},
		{"after a lone CR, which a file of LF lines reads as a character", "* \x00\r", 0, "* \x00\r\n:PROPERTIES:\n:ID:       " + id + "\n:END:", true},
		{"an ID already", "* A\n:PROPERTIES:\n:ID: x\n:END:\n", 0, "", false},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			org := orgast.Parse([]byte(tt.src))
			ins, ok := AddID(org, tt.node, id)
			require.Equal(t, tt.ok, ok)
			if !ok {
				return
			}
			got := tt.src[:ins.Start] + ins.Text + tt.src[ins.End:]
			assert.Equal(t, tt.want, got)
			// Org reads the ID where it was put.
			after := orgast.Parse([]byte(got))
			if tt.node < 0 {
				v, _ := after.ID()
				assert.Equal(t, id, v)
			} else {
				v, _ := after.Headlines[tt.node].Drawer.Get("ID")
				assert.Equal(t, id, v)
			}
		})
	}
}
