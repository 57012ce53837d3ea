package host

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// fakeFront is a front end that serves until ctx ends or it is released,
// recording what happened to it.
type fakeFront struct {
	name    string
	release chan error
	events  *events
	serve   func(ctx context.Context) // runs first, when set
}

func (f fakeFront) Name() string { return f.name }
func (f fakeFront) Serve(ctx context.Context) error {
	if f.serve != nil {
		f.serve(ctx)
	}
	select {
	case err := <-f.release:
		f.events.add(f.name + " returned")
		return err
	case <-ctx.Done():
		f.events.add(f.name + " stopped")
		return nil
	}
}

type events struct {
	mu   sync.Mutex
	list []string
}

func (e *events) add(s string) {
	e.mu.Lock()
	defer e.mu.Unlock()
	e.list = append(e.list, s)
}

func (e *events) get() []string {
	e.mu.Lock()
	defer e.mu.Unlock()
	return append([]string(nil), e.list...)
}

func TestTheFirstFrontEndLeads(t *testing.T) {
	ev := &events{}
	var logs testenv.SyncBuffer
	h := New(slog.New(slog.NewTextHandler(&logs, nil)))
	h.Up(nil, errors.New("no agent in this test"), func(context.Context) error { ev.add("closed"); return nil })
	lead := fakeFront{name: "lead", release: make(chan error), events: ev}
	broken := fakeFront{name: "broken", release: make(chan error, 1), events: ev}
	broken.release <- errors.New("the port went away")
	other := fakeFront{name: "other", release: make(chan error), events: ev}
	done := make(chan error)
	go func() { done <- h.Run(context.Background(), lead, broken, other) }()

	require.Eventually(t, func() bool { return len(ev.get()) == 1 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, []string{"broken returned"}, ev.get(), "one that stops early stops alone")
	// The front end records its return before the host sees it and logs.
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "broken stopped; the others go on") }, 5*time.Second, time.Millisecond)
	assert.Contains(t, logs.String(), "the port went away")

	lead.release <- errors.New("the editor left")
	assert.EqualError(t, <-done, "the editor left", "Run returns the leader's error")
	assert.Equal(t, []string{"broken returned", "lead returned", "other stopped", "closed"}, ev.get(),
		"the others stop before the agent is closed")
}

// TestTheLeaderClosesWhileItServes: the language server closes the host at
// shutdown, before its editor says exit: the others stop and the agent is
// closed then, once.
func TestTheLeaderClosesWhileItServes(t *testing.T) {
	ev := &events{}
	h := New(nil)
	closes := 0
	h.Up(nil, errors.New("none"), func(context.Context) error { closes++; ev.add("closed"); return nil })
	lead := fakeFront{name: "lead", release: make(chan error), events: ev, serve: func(ctx context.Context) {
		assert.NoError(t, h.Close(ctx))
		ev.add("lead closed the host")
	}}
	other := fakeFront{name: "other", release: make(chan error), events: ev}
	done := make(chan error)
	go func() { done <- h.Run(context.Background(), lead, other) }()
	require.Eventually(t, func() bool { return len(ev.get()) == 3 }, 5*time.Second, time.Millisecond)
	assert.Equal(t, []string{"other stopped", "closed", "lead closed the host"}, ev.get())
	lead.release <- nil
	assert.NoError(t, <-done)
	assert.Equal(t, 1, closes)
	_, err := h.Agent(context.Background())
	assert.ErrorIs(t, err, ErrClosed)
}

func TestAgentWaitsUntilUp(t *testing.T) {
	h := New(nil)
	_, err := h.Ready()
	assert.ErrorIs(t, err, ErrNotUp)
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Millisecond)
	defer cancel()
	_, err = h.Agent(ctx)
	assert.ErrorIs(t, err, context.DeadlineExceeded)

	got := make(chan error)
	go func() {
		_, err := h.Agent(context.Background())
		got <- err
	}()
	h.Up(nil, errors.New("the configuration is broken"), nil)
	assert.EqualError(t, <-got, "the agent is not running: the configuration is broken")
	_, err = h.Ready()
	assert.EqualError(t, err, "the agent is not running: the configuration is broken")

	// Only the first Up counts; what a later one brings is released at once.
	released := false
	h.Up(nil, nil, func(context.Context) error { released = true; return nil })
	assert.True(t, released)
	_, err = h.Agent(context.Background())
	assert.EqualError(t, err, "the agent is not running: the configuration is broken")
}

// TestClosedBeforeUp: a host closed before its agent came up wakes whoever
// waits, and releases an agent that comes up late.
func TestClosedBeforeUp(t *testing.T) {
	h := New(nil)
	got := make(chan error)
	go func() {
		_, err := h.Agent(context.Background())
		got <- err
	}()
	require.NoError(t, h.Close(context.Background()))
	assert.ErrorIs(t, <-got, ErrClosed)
	released := false
	h.Up(nil, nil, func(context.Context) error { released = true; return nil })
	assert.True(t, released)
	assert.ErrorIs(t, h.Run(context.Background(), fakeFront{name: "late"}), ErrClosed)
}

// TestAPanicBesideTheLeaderStopsOnlyItself: a front end that panics is
// stopped and logged; the one leading goes on and ends the run as usual.
func TestAPanicBesideTheLeaderStopsOnlyItself(t *testing.T) {
	ev := &events{}
	var logs testenv.SyncBuffer
	h := New(slog.New(slog.NewTextHandler(&logs, nil)))
	lead := fakeFront{name: "lead", release: make(chan error), events: ev}
	crash := fakeFront{name: "crash", events: ev, serve: func(context.Context) { panic("a bug") }}
	done := make(chan error)
	go func() { done <- h.Run(context.Background(), lead, crash) }()
	require.Eventually(t, func() bool { return strings.Contains(logs.String(), "crash panicked") }, 5*time.Second, time.Millisecond)
	assert.Contains(t, logs.String(), "a bug")
	lead.release <- nil
	assert.NoError(t, <-done)
	assert.Equal(t, []string{"lead returned"}, ev.get())
}

// TestNotRunningSaysWhyWithoutSecrets: the reason every client is given
// for an agent that is not running is one bounded line, with no provider
// URL's credentials, and errors.Is still finds the cause.
func TestNotRunningSaysWhyWithoutSecrets(t *testing.T) {
	cause := errors.New("the provider https://bob:hunter2hunter2@llm.example/v1 answered 401:\nunauthorized\n" + strings.Repeat("x", 2000))
	h := New(nil)
	h.Up(nil, fmt.Errorf("opening the agent: %w", cause), nil)
	_, err := h.Agent(t.Context())
	require.Error(t, err)
	assert.True(t, strings.HasPrefix(err.Error(), "the agent is not running: opening the agent: the provider https://bob:"), err.Error())
	assert.NotContains(t, err.Error(), "hunter2")
	assert.NotContains(t, err.Error(), "\n")
	assert.LessOrEqual(t, len(err.Error()), 600)
	assert.ErrorIs(t, err, cause)
	h.Close(t.Context())
}
