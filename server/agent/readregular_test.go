package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pp-lsp/internal/testenv"
)

// TestReadRegularReadsOnlyTheFileItself: what a command's checkpoint and a
// failed pass's rollback read of a file is that file's own bytes — a
// symlink put in its place is not followed, a FIFO is not waited on (the
// caller holds actMu), a file over the bound is not read.
func TestReadRegularReadsOnlyTheFileItself(t *testing.T) {
	dir := t.TempDir()
	outside := filepath.Join(t.TempDir(), "secret.txt")
	require.NoError(t, os.WriteFile(outside, []byte("OUTSIDE"), 0o600))
	require.NoError(t, os.WriteFile(filepath.Join(dir, "plain.org"), []byte("* note\n"), 0o644))
	require.NoError(t, os.Symlink(outside, filepath.Join(dir, "link.org")))
	testenv.MakeFIFO(t, filepath.Join(dir, "fifo.org"))
	for _, tc := range []struct {
		name  string
		limit int64
		want  string
		fails bool
	}{
		{"plain.org", -1, "* note\n", false},
		{"plain.org", 7, "* note\n", false},
		{"plain.org", 6, "", true},
		{"link.org", -1, "", true},
		{"fifo.org", -1, "", true},
		{"absent.org", -1, "", true},
	} {
		b, err := readRegular(filepath.Join(dir, tc.name), tc.limit)
		if tc.fails {
			assert.Error(t, err, tc.name)
			assert.NotContains(t, string(b), "OUTSIDE", tc.name)
			continue
		}
		require.NoError(t, err, tc.name)
		assert.Equal(t, tc.want, string(b), tc.name)
	}
	c, ok := readCapped(filepath.Join(dir, "absent.org"))
	assert.True(t, ok, "an absent file is captured")
	assert.False(t, c.existed, "as absent")
}
