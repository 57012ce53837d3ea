package lsp

import (
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
)

// TestBudgetFollowsTheSettledHeap checks the soft limit: a small heap
// gets a fixed headroom; a large one three times the least live heap of
// the last settleWindow, so that a burst's transient versions do not
// raise it, yet never less than the live heap plus the headroom.
func TestBudgetFollowsTheSettledHeap(t *testing.T) {
	const mb = 1 << 20
	t0 := time.Unix(1_000_000, 0)
	for _, tc := range []struct {
		name    string
		samples []heapSample // earlier collections
		at      time.Duration
		live    int64
		want    int64
	}{
		{"small heap", nil, 0, 30 * mb, 54 * mb},
		{"large heap alone", nil, 0, 200 * mb, 600 * mb},
		{"the floor", nil, 0, 80 * mb, minBudget},
		{"a burst does not raise it", []heapSample{{t0, 120 * mb}}, time.Second, 300 * mb, 360 * mb},
		{"never under live plus headroom", []heapSample{{t0, 70 * mb}}, time.Second, 400 * mb, 424 * mb},
		{"a heap that stays raises it", []heapSample{{t0, 120 * mb}, {t0.Add(20 * time.Second), 300 * mb}}, 40 * time.Second, 300 * mb, 900 * mb},
	} {
		t.Run(tc.name, func(t *testing.T) {
			h := settledHeap{samples: tc.samples}
			at := t0.Add(tc.at)
			assert.Equal(t, tc.want, budgetFor(tc.live, h.add(at, tc.live)))
		})
	}
}
