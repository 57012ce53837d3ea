package bridge

import (
	"context"
	"errors"
	"sync"
)

// errClosed is returned by outbox.push once the connection is going away.
var errClosed = errors.New("the connection is closed")

// outbox is one connection's bounded queue of encoded frames, drained by its
// writer goroutine. It holds at most limit bytes (a single larger frame is
// let in when the queue is empty, so no frame can wedge it); push blocks while
// it is full. The bound applies per connection, so a client that stops
// reading only ever blocks its own requests: this is the backpressure policy.
type outbox struct {
	mu     sync.Mutex
	queue  [][]byte
	size   int
	limit  int
	state  outboxState
	wake   chan struct{} // capacity 1: there is work for the writer
	room   chan struct{} // closed (and replaced) when queued bytes are taken
	closed chan struct{} // closed when the state leaves open
}

type outboxState int

const (
	open     outboxState = iota
	draining             // no more pushes; the writer sends what is queued, then stops
	dropped              // no more pushes; what is queued is thrown away
)

func newOutbox(limit int) *outbox {
	return &outbox{limit: limit, wake: make(chan struct{}, 1), room: make(chan struct{}), closed: make(chan struct{})}
}

// push queues a frame, waiting for room while the queue is full. It gives up
// when ctx ends or the outbox closes.
func (o *outbox) push(ctx context.Context, f []byte) error {
	for {
		o.mu.Lock()
		if o.state != open {
			o.mu.Unlock()
			return errClosed
		}
		if o.size == 0 || o.size+len(f) <= o.limit {
			o.enqueue(f)
			o.mu.Unlock()
			return nil
		}
		room := o.room
		o.mu.Unlock()
		select {
		case <-room:
		case <-o.closed:
			return errClosed
		case <-ctx.Done():
			return ctx.Err()
		}
	}
}

// pushLast queues a final frame regardless of the bound (it is one frame
// more, at most once per connection) and closes the outbox for draining:
// the writer sends everything queued, this frame last, then stops.
func (o *outbox) pushLast(f []byte) {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.state != open {
		return
	}
	o.enqueue(f)
	o.setState(draining)
}

// enqueue adds f; o.mu is held.
func (o *outbox) enqueue(f []byte) {
	o.queue = append(o.queue, f)
	o.size += len(f)
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// drop closes the outbox and throws away what is queued.
func (o *outbox) drop() {
	o.mu.Lock()
	defer o.mu.Unlock()
	if o.state == dropped {
		return
	}
	o.queue, o.size = nil, 0
	o.setState(dropped)
}

// setState leaves the open state; o.mu is held.
func (o *outbox) setState(s outboxState) {
	if o.state == open {
		close(o.closed)
	}
	o.state = s
	select {
	case o.wake <- struct{}{}:
	default:
	}
}

// take waits for queued frames and returns them all, making their room
// available to push. done reports that the outbox is closed and empty: the
// writer stops.
func (o *outbox) take() (frames [][]byte, done bool) {
	for {
		o.mu.Lock()
		if len(o.queue) > 0 {
			frames = o.queue
			o.queue, o.size = nil, 0
			close(o.room)
			o.room = make(chan struct{})
			o.mu.Unlock()
			return frames, false
		}
		if o.state != open {
			o.mu.Unlock()
			return nil, true
		}
		o.mu.Unlock()
		<-o.wake
	}
}
