package agent

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestWriteOutput(t *testing.T) {
	var long []string
	for i := range 25 {
		long = append(long, fmt.Sprintf("line %d", i))
	}
	tests := []struct {
		name, prefix, out, want string
	}{
		{"nothing", "", "", ""},
		{"only a newline", "", "\n", ""},
		{"two lines", "", "a.org\nb.org\n", "  │ a.org\n  │ b.org\n"},
		{"at depth", "[depth 1] ", "x", "[depth 1]   │ x\n"},
		{"long output is cut", "", strings.Join(long, "\n"), strings.Join(func() []string {
			var want []string
			for _, l := range long[:outputLines] {
				want = append(want, "  │ "+l)
			}
			return append(want, "  │ … 5 more lines")
		}(), "\n") + "\n"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var b strings.Builder
			writeOutput(&b, tt.prefix, tt.out)
			assert.Equal(t, tt.want, b.String())
		})
	}
}
