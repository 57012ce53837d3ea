package providers

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net"
	"net/http"
	"net/url"
	"sync"
	"sync/atomic"
	"syscall"
	"time"
)

// attempt is one HTTP exchange's lifetime: its context, its timers, and
// (for a stream) its body and decoder. It is the eventSource of an HTTP
// provider's Stream.
//
// The timers cancel the attempt's context with a cause; the transport then
// closes the connection, so the server sees the client leave at once.
type attempt struct {
	h        *httpAPI
	parent   context.Context
	ctx      context.Context
	cancel   context.CancelCauseFunc
	stopAll  context.CancelFunc
	timer    *time.Timer
	started  atomic.Bool // first output seen: the timer now measures stalls
	key      string
	body     io.ReadCloser
	dec      decoder
	queue    []Event
	done     bool
	closeOne sync.Once
}

func (h *httpAPI) newAttempt(parent context.Context, key string) *attempt {
	a := &attempt{h: h, parent: parent, key: key}
	inner, cancel := context.WithCancelCause(parent)
	total := time.Duration(h.timeouts.Total)
	a.ctx, a.stopAll = context.WithTimeoutCause(inner, total, &Error{
		Provider: h.name, Kind: KindTimeout,
		Message: fmt.Sprintf("the answer was not complete within %s (total timeout)", total),
	})
	a.cancel = cancel
	first := time.Duration(h.timeouts.FirstOutput)
	stall := time.Duration(h.timeouts.Stall)
	a.timer = time.AfterFunc(first, func() {
		if a.started.Load() {
			cancel(&Error{Provider: h.name, Kind: KindTimeout, Message: fmt.Sprintf("the stream stalled: nothing for %s (stall timeout)", stall)})
			return
		}
		cancel(&Error{Provider: h.name, Kind: KindTimeout, Message: fmt.Sprintf("no output within %s (first-output timeout)", first),
			Fix: "is the model loading, or the server stuck? the timeout is timeouts.first_output"})
	})
	return a
}

// firstOutput switches the timer from the first-output deadline to the
// stall deadline.
func (a *attempt) firstOutput() {
	if !a.started.Swap(true) {
		a.timer.Reset(time.Duration(a.h.timeouts.Stall))
	}
}

// alive resets the stall deadline (the server sent something).
func (a *attempt) alive() {
	if a.started.Load() {
		a.timer.Reset(time.Duration(a.h.timeouts.Stall))
	}
}

func (a *attempt) next() (Event, error) {
	for len(a.queue) == 0 {
		if a.done {
			return Event{}, io.EOF
		}
		evs, err := a.dec.step()
		switch {
		case errors.Is(err, io.EOF):
			a.done = true
			a.close()
		case err != nil:
			return Event{}, a.classify(err, false)
		default:
			a.alive()
		}
		a.queue = evs
	}
	ev := a.queue[0]
	a.queue = a.queue[1:]
	if ev.isOutput() {
		a.firstOutput()
	}
	return ev, nil
}

// close ends the attempt: timers stopped, context cancelled (closing the
// connection if the answer is still streaming), body closed.
func (a *attempt) close() {
	a.closeOne.Do(func() {
		a.timer.Stop()
		a.cancel(&Error{Provider: a.h.name, Kind: KindCanceled, Message: "the stream was closed"})
		a.stopAll()
		if a.body != nil {
			a.body.Close()
		}
	})
}

// classify turns what went wrong into an *Error: the caller's cancellation
// first, then the attempt's own timers, then what the transport says. beforeResponse
// tells a failure to connect from a failure in the middle of a stream.
func (a *attempt) classify(err error, beforeResponse bool) error {
	name := a.h.name
	var pe *Error
	if errors.As(err, &pe) && pe.Kind != 0 {
		if pe.Provider == "" {
			pe.Provider = name
		}
		pe.Message = redact(pe.Message, a.key)
		return pe
	}
	if a.parent.Err() != nil {
		return &Error{Provider: name, Kind: KindCanceled, Message: "the request was cancelled", Err: context.Cause(a.parent)}
	}
	if cause := context.Cause(a.ctx); cause != nil && errors.As(cause, &pe) {
		return pe
	}
	msg := redact(err.Error(), a.key)
	var ne net.Error
	switch {
	case errors.Is(err, errCut), errors.Is(err, io.ErrUnexpectedEOF), errors.Is(err, io.EOF):
		return &Error{Provider: name, Kind: KindStreamCut, Message: errCut.Error()}
	case errors.Is(err, errLineTooLong), errors.Is(err, errNoEvents), errors.Is(err, errNoRecords):
		return &Error{Provider: name, Kind: KindProtocol, Message: err.Error()}
	case errors.As(err, &ne) && ne.Timeout():
		return &Error{Provider: name, Kind: KindTimeout, Message: fmt.Sprintf("connecting to %s timed out after %s", a.h.base, time.Duration(a.h.timeouts.Connect))}
	case beforeResponse:
		return &Error{Provider: name, Kind: KindUnreachable, Message: clip(unreachable(a.h.base, err, a.key), 300), Err: err,
			Fix: fmt.Sprintf("is the server running at %s?", a.h.base)}
	}
	return &Error{Provider: name, Kind: KindStreamCut, Message: clip(msg, 300), Err: err}
}

// unreachable says in words why no connection to base was made; Go's text
// ("Post \"URL\": dial tcp 127.0.0.1:1: connect: connection refused")
// names the URL twice and the system call once.
func unreachable(base string, err error, key string) string {
	var dns *net.DNSError
	switch {
	case errors.Is(err, syscall.ECONNREFUSED):
		return "the connection to " + base + " was refused"
	case errors.As(err, &dns):
		return fmt.Sprintf("the host %q is not known", dns.Name)
	case errors.Is(err, syscall.EHOSTUNREACH), errors.Is(err, syscall.ENETUNREACH):
		return "there is no route to " + base
	}
	var ue *url.Error
	if errors.As(err, &ue) {
		err = ue.Err
	}
	return redact(err.Error(), key)
}

// readJSON reads a whole JSON answer into out; what names the request in
// errors.
func (a *attempt) readJSON(resp *http.Response, what string, out any) error {
	defer resp.Body.Close()
	data, err := io.ReadAll(io.LimitReader(resp.Body, maxAnswer+1))
	if err != nil {
		return a.classify(err, false)
	}
	if len(data) > maxAnswer {
		return &Error{Provider: a.h.name, Kind: KindProtocol, Message: fmt.Sprintf("the answer exceeds %d MiB", maxAnswer>>20)}
	}
	if err := json.Unmarshal(data, out); err != nil {
		return &Error{Provider: a.h.name, Kind: KindProtocol, Message: fmt.Sprintf("%s did not answer the API's JSON: %s", what, clip(redact(err.Error(), a.key), 200))}
	}
	return nil
}
