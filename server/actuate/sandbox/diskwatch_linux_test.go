package sandbox

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestNextPoll: the disk is read at the longest every diskPoll while a
// command's use grows slowly or not at all, and sooner as it nears a limit
// fast — half the time its pace takes to reach it, never below
// diskPollMin.
func TestNextPoll(t *testing.T) {
	for _, tc := range []struct {
		name       string
		grew, left int64
		took, want time.Duration
	}{
		{"nothing written", 0, 1 << 30, 100 * time.Millisecond, diskPoll},
		{"space freed", -1 << 20, 1 << 30, 100 * time.Millisecond, diskPoll},
		{"slow, far from the limit", 1 << 20, 1 << 30, 100 * time.Millisecond, diskPoll},
		{"reaches it in 80 ms at this pace", 10 << 20, 40 << 20, 20 * time.Millisecond, 40 * time.Millisecond},
		{"reaches it in 4 ms at this pace", 50 << 20, 10 << 20, 20 * time.Millisecond, diskPollMin},
		{"past it", 1, -1, 5 * time.Millisecond, diskPollMin},
	} {
		t.Run(tc.name, func(t *testing.T) {
			assert.Equal(t, tc.want, nextPoll(tc.grew, tc.left, tc.took))
		})
	}
}
