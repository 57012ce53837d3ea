package agent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTryBreaksSeparateRetries(t *testing.T) {
	tests := []struct {
		name  string
		tries [][]string
		want  string
	}{
		{"one try", [][]string{{"Hello", " there."}}, "Hello there."},
		{"retry after a sentence", [][]string{{"First."}, {"Second."}}, "First.\nSecond."},
		{"retry after a newline", [][]string{{"First.\n"}, {"Second."}}, "First.\nSecond."},
		{"a silent first try", [][]string{{}, {"Second."}}, "Second."},
		{"three tries", [][]string{{"a"}, {}, {"c"}}, "a\nc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			var got strings.Builder
			tb := &tryBreaks{emit: func(s string) error { got.WriteString(s); return nil }}
			for _, try := range tt.tries {
				tb.newTry()
				for _, s := range try {
					assert.NoError(t, tb.write(s))
				}
			}
			assert.Equal(t, tt.want, got.String())
		})
	}
}
