package main

import (
	"bytes"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestControlFreeShowsEveryControl: every control character but the line
// feed and the tab is shown, not passed on, however the text is cut into
// writes (a UTF-8 sequence or a CRLF across two); text is kept byte for
// byte.
func TestControlFreeShowsEveryControl(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"plain text, é, 日本\n\tindented\n", "plain text, é, 日本\n\tindented\n"},
		{"a\x1b]52;c;eA==\x07b", "a^[]52;c;eA==^Gb"},
		{"line\r\nnext\r\n", "line\nnext\n"},
		{"over\rwrite\x00\x7f", "over^Mwrite^@<U+007F>"},
		{"c1 \u009b2J, \u0085 and \u202eevil\u2066", "c1 <U+009B>2J, <U+0085> and <U+202E>evil<U+2066>"},
		{"bad \xff byte, a Latin-1 CSI \x9b2J", "bad <FF> byte, a Latin-1 CSI <9B>2J"},
	} {
		for cut := 0; cut <= len(tc.in); cut++ {
			var out bytes.Buffer
			w := &controlFree{w: &out}
			for _, part := range []string{tc.in[:cut], tc.in[cut:]} {
				n, err := w.Write([]byte(part))
				require.NoError(t, err)
				require.Equal(t, len(part), n)
			}
			require.NoError(t, w.Flush())
			assert.Equal(t, tc.want, out.String(), "%q cut at %d", tc.in, cut)
		}
	}
	var out bytes.Buffer
	w := &controlFree{w: &out}
	w.Write([]byte("ends in \r"))
	w.Write([]byte("\xe6\x97"))
	require.NoError(t, w.Flush())
	assert.Equal(t, "ends in ^M<E6><97>", out.String(), "what waited is shown at the end")
}
