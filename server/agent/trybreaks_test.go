package agent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

func TestTryBreaksSeparateRetries(t *testing.T) {
	tests := []struct {
		name    string
		tries   [][]string
		refused bool // every try is refused
		want    string
	}{
		{"one try", [][]string{{"Hello", " there."}}, false, "Hello there."},
		{"retry after a sentence", [][]string{{"First."}, {"Second."}}, false, "First.\nSecond."},
		{"retry after a newline", [][]string{{"First.\n"}, {"Second."}}, false, "First.\nSecond."},
		{"a silent first try", [][]string{{}, {"Second."}}, false, "Second."},
		{"three tries", [][]string{{"a"}, {}, {"c"}}, false, "a\nc"},
		{"a retry saying it again", [][]string{{"Adding it."}, {"Adding ", "it.\n"}}, false, "Adding it."},
		{"refused retries", [][]string{{"Adding it."}, {"Adding it, then."}, {"Once more."}}, true, "Adding it."},
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
				assert.NoError(t, tb.settle(tt.refused))
			}
			assert.Equal(t, tt.want, got.String())
		})
	}
}
