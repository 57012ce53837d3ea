package providers

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"iter"
	"math/rand/v2"
	"strconv"
	"strings"
	"sync"
	"time"
)

// maxAnswer bounds the text and tool-call arguments of one answer; a server
// that streams without end is cut off here (and by the total timeout).
const maxAnswer = 64 << 20

// eventSource produces one answer's events. next returns io.EOF once the
// answer is complete; any other error ends it. close releases the source at
// once (the HTTP connection is closed); it may be called more than once and
// from any goroutine.
type eventSource interface {
	next() (Event, error)
	close()
}

// Stream is one answer arriving. Read it with Next (or Events) until io.EOF;
// Response is the sum of what has arrived. A Stream is read by one goroutine;
// Close may be called from any.
type Stream struct {
	src      eventSource
	start    time.Time
	resp     Response // all but Text, which grows in text
	text     strings.Builder
	size     int
	err      error
	sawFirst bool
	idPrefix string // for tool calls the API gave no id
}

func newStream(provider, model string, start time.Time, src eventSource) *Stream {
	return &Stream{src: src, start: start, resp: Response{Provider: provider, Model: model}}
}

// Next returns the next event. At the end of a complete answer it returns
// io.EOF; any other error means the answer is incomplete (Response holds
// what did arrive). After an error every call returns the same error.
func (s *Stream) Next() (Event, error) {
	if s.err != nil {
		return Event{}, s.err
	}
	ev, err := s.src.next()
	if err == nil {
		err = s.add(&ev)
	}
	if err != nil {
		if s.resp.Elapsed == 0 || !errors.Is(err, io.EOF) {
			s.resp.Elapsed = time.Since(s.start)
		}
		s.err = err
		s.src.close()
		return Event{}, err
	}
	return ev, nil
}

// Events ranges over the answer: each event with a nil error, then, if the
// answer did not complete, one final zero Event with the error.
func (s *Stream) Events() iter.Seq2[Event, error] {
	return func(yield func(Event, error) bool) {
		for {
			ev, err := s.Next()
			if errors.Is(err, io.EOF) {
				return
			}
			if err != nil {
				yield(Event{}, err)
				return
			}
			if !yield(ev, nil) {
				return
			}
		}
	}
}

// Response returns what has been assembled so far (the whole answer once
// Next has returned io.EOF).
func (s *Stream) Response() Response {
	r := s.resp
	r.Text = s.text.String()
	r.ToolCalls = append([]ToolCall(nil), s.resp.ToolCalls...)
	return r
}

// Collect reads the rest of the answer and returns it whole; on an error it
// returns what arrived and the error.
func (s *Stream) Collect() (Response, error) {
	for {
		if _, err := s.Next(); err != nil {
			if errors.Is(err, io.EOF) {
				return s.Response(), nil
			}
			return s.Response(), err
		}
	}
}

// Close ends the answer now: the connection is closed and a pending or later
// Next returns a KindCanceled error (unless the answer was already complete).
func (s *Stream) Close() error {
	s.src.close()
	return nil
}

// add folds ev into the response, giving a tool call without an id one.
func (s *Stream) add(ev *Event) error {
	if ev.isOutput() && !s.sawFirst {
		s.sawFirst = true
		s.resp.FirstOutput = time.Since(s.start)
	}
	switch ev.Kind {
	case EventText:
		s.size += len(ev.Text)
		s.text.WriteString(ev.Text)
	case EventToolCall:
		if ev.ToolCall.ID == "" {
			// Unique across the conversation, not only this answer: an API
			// that later sees the history (Anthropic) refuses repeated ids.
			if s.idPrefix == "" {
				s.idPrefix = fmt.Sprintf("call_%08x_", rand.Uint32())
			}
			ev.ToolCall.ID = s.idPrefix + strconv.Itoa(len(s.resp.ToolCalls))
		}
		s.size += len(ev.ToolCall.Arguments)
		s.resp.ToolCalls = append(s.resp.ToolCalls, ev.ToolCall)
	case EventUsage:
		s.resp.Usage = ev.Usage
	case EventStop:
		s.resp.StopReason, s.resp.RawStopReason = ev.Stop, ev.RawStop
		s.resp.Elapsed = time.Since(s.start)
	}
	if s.size > maxAnswer {
		return &Error{Provider: s.resp.Provider, Kind: KindProtocol, Message: fmt.Sprintf("the answer exceeds %d MiB", maxAnswer>>20)}
	}
	return nil
}

// normalizeArgs makes a model's tool-call arguments valid JSON (see
// ToolCall): an object or other JSON value is kept as sent, nothing becomes
// {}, and text that is not JSON becomes a JSON string.
func normalizeArgs(raw []byte) json.RawMessage {
	raw = bytes.TrimSpace(raw)
	if len(raw) == 0 {
		return json.RawMessage(`{}`)
	}
	if json.Valid(raw) {
		return json.RawMessage(bytes.Clone(raw))
	}
	quoted, _ := json.Marshal(string(raw))
	return quoted
}

// sliceSource hands out events already in hand (the replay provider's
// answers). It honours ctx between events, so that a paced replay stops when
// the caller cancels.
type sliceSource struct {
	ctx    context.Context
	events []Event
	pace   time.Duration
	closed chan struct{}
	once   sync.Once
}

func newSliceSource(ctx context.Context, events []Event, pace time.Duration) *sliceSource {
	return &sliceSource{ctx: ctx, events: events, pace: pace, closed: make(chan struct{})}
}

func (s *sliceSource) next() (Event, error) {
	if len(s.events) == 0 {
		return Event{}, io.EOF
	}
	var tick <-chan time.Time
	if s.pace > 0 {
		t := time.NewTimer(s.pace)
		defer t.Stop()
		tick = t.C
	}
	select {
	case <-s.closed:
		return Event{}, &Error{Kind: KindCanceled, Message: "the stream was closed"}
	case <-s.ctx.Done():
		return Event{}, &Error{Kind: KindCanceled, Message: "the request was cancelled", Err: context.Cause(s.ctx)}
	default:
	}
	if tick != nil {
		select {
		case <-tick:
		case <-s.closed:
			return Event{}, &Error{Kind: KindCanceled, Message: "the stream was closed"}
		case <-s.ctx.Done():
			return Event{}, &Error{Kind: KindCanceled, Message: "the request was cancelled", Err: context.Cause(s.ctx)}
		}
	}
	ev := s.events[0]
	s.events = s.events[1:]
	return ev, nil
}

func (s *sliceSource) close() { s.once.Do(func() { close(s.closed) }) }
