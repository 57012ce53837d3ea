package agent

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestSandboxLimitsFromTheConfiguration: each sandbox limit of the
// "agent" section reaches the sandbox's configuration; a negative one is
// refused.
func TestSandboxLimitsFromTheConfiguration(t *testing.T) {
	c, err := ParseConfig([]byte(`{"sandbox_max_memory_bytes": 536870912, "sandbox_max_disk_bytes": 1048576, "sandbox_max_new_files": 10, "sandbox_max_processes": 7}`))
	require.NoError(t, err)
	lim := c.sandboxConfig().Limits
	assert.Equal(t, int64(512<<20), lim.Memory)
	assert.Equal(t, int64(1<<20), lim.Disk)
	assert.Equal(t, int64(10), lim.NewFiles)
	assert.Equal(t, 7, lim.Processes)
	_, err = ParseConfig([]byte(`{"sandbox_max_new_files": -1}`))
	assert.ErrorContains(t, err, "the sandbox limits must be positive")
}
