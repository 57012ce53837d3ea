package agent

import (
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestAConfigurationFileThatIsNoRegularFileIsRefusedAtOnce: a FIFO or a
// device where the configuration file should be (planted, or a mistake)
// is refused with a sentence saying what it is — never waited on, which
// would hang the server's start and every CLI command; a symlink to a
// regular file (dotfiles) is still read.
func TestAConfigurationFileThatIsNoRegularFileIsRefusedAtOnce(t *testing.T) {
	dir := t.TempDir()
	fifo := filepath.Join(dir, "config.json")
	testenv.MakeFIFO(t, fifo)
	real := filepath.Join(dir, "dotfiles", "config.json")
	require.NoError(t, os.MkdirAll(filepath.Dir(real), 0o700))
	require.NoError(t, os.WriteFile(real, []byte(`{"agent": {"heartbeat_interval": 30}}`), 0o600))
	link := filepath.Join(dir, "linked.json")
	require.NoError(t, os.Symlink(real, link))

	for _, tc := range []struct {
		name, path, want string
	}{
		{"a FIFO", fifo, "cannot read the configuration file " + fifo + ": it is a FIFO (a named pipe), not a regular file"},
		{"a device", os.DevNull, "cannot read the configuration file " + os.DevNull + ": it is a device, not a regular file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			for _, optional := range []bool{true, false} {
				err := testenv.Promptly(t, fifo, func() error {
					_, err := ReadConfigFile(tc.path, optional)
					return err
				})
				assert.EqualError(t, err, tc.want)
			}
		})
	}
	s, err := ReadConfigFile(link, false)
	require.NoError(t, err)
	assert.JSONEq(t, `{"heartbeat_interval": 30}`, string(s.Agent))
}
