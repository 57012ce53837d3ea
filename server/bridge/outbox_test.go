package bridge

import (
	"context"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestOutboxBoundsAndBackpressure(t *testing.T) {
	o := newOutbox(10)
	ctx := context.Background()
	require.NoError(t, o.push(ctx, make([]byte, 25)), "one frame larger than the bound fits an empty queue")

	blocked := make(chan error, 1)
	go func() { blocked <- o.push(ctx, make([]byte, 5)) }()
	select {
	case err := <-blocked:
		t.Fatalf("push into a full queue returned %v instead of waiting", err)
	case <-time.After(50 * time.Millisecond):
	}
	frames, done := o.take()
	assert.False(t, done)
	assert.Len(t, frames, 1)
	require.NoError(t, <-blocked, "taking frames makes room")

	// A waiting push gives up with its context.
	frames, _ = o.take() // the 5 bytes
	require.Len(t, frames, 1)
	require.NoError(t, o.push(ctx, make([]byte, 6)))
	cctx, cancel := context.WithCancel(ctx)
	go func() { time.Sleep(20 * time.Millisecond); cancel() }()
	assert.ErrorIs(t, o.push(cctx, make([]byte, 6)), context.Canceled)

	// pushLast goes past the bound, then the outbox drains and is done.
	o.pushLast([]byte("last"))
	assert.ErrorIs(t, o.push(ctx, []byte("x")), errClosed)
	frames, done = o.take()
	assert.False(t, done)
	require.Len(t, frames, 2)
	assert.Equal(t, "last", string(frames[1]))
	_, done = o.take()
	assert.True(t, done)
}

func TestOutboxDropReleasesWaiters(t *testing.T) {
	o := newOutbox(4)
	require.NoError(t, o.push(context.Background(), make([]byte, 4)))
	waiting := make(chan error, 1)
	go func() { waiting <- o.push(context.Background(), make([]byte, 4)) }()
	time.Sleep(20 * time.Millisecond)
	o.drop()
	assert.ErrorIs(t, <-waiting, errClosed)
	frames, done := o.take()
	assert.Empty(t, frames)
	assert.True(t, done)
	o.pushLast([]byte("ignored after drop"))
	_, done = o.take()
	assert.True(t, done)
}

func TestSplitChunk(t *testing.T) {
	assert.Equal(t, []string{"short"}, splitChunk("short"))
	long := ""
	for len(long) < 3*maxChunk {
		long += "é€😀"
	}
	parts := splitChunk(long)
	joined := ""
	for _, p := range parts {
		assert.LessOrEqual(t, len(p), maxChunk)
		joined += p
	}
	assert.Equal(t, long, joined)
}
