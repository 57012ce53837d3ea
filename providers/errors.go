package providers

import (
	"errors"
	"fmt"
	"strings"
	"time"
)

// ErrNoProvider is what asking returns when no provider is configured.
var ErrNoProvider = errors.New("no language model provider is configured: set PASSEPARTOUT_PROVIDERS (for example ollama:llama3.2, or openai:MODEL@http://127.0.0.1:8080/v1)")

// ErrorKind classifies a provider failure; the cascade and doctor decide by it.
type ErrorKind uint8

// The kinds of failure.
const (
	KindUnreachable ErrorKind = iota + 1 // no connection (refused, DNS, TLS)
	KindTimeout                          // connect, first output, stall or total time ran out
	KindRateLimited                      // HTTP 429
	KindAuth                             // HTTP 401/403, or no key where one is required
	KindNotFound                         // HTTP 404: a wrong base URL or an absent model
	KindBadRequest                       // another 4xx: the API refused the request
	KindServer                           // 5xx, an overload, or an error event inside the stream
	KindStreamCut                        // the stream ended before its end marker
	KindProtocol                         // the server did not speak the API's format
	KindConfig                           // the provider's configuration cannot work
	KindCanceled                         // the caller cancelled or closed the stream
	KindReplay                           // the replay transcript has no answer for the request
)

// String names the kind in one or two words.
func (k ErrorKind) String() string {
	switch k {
	case KindUnreachable:
		return "unreachable"
	case KindTimeout:
		return "timeout"
	case KindRateLimited:
		return "rate limited"
	case KindAuth:
		return "unauthorized"
	case KindNotFound:
		return "not found"
	case KindBadRequest:
		return "bad request"
	case KindServer:
		return "server error"
	case KindStreamCut:
		return "stream cut"
	case KindProtocol:
		return "protocol error"
	case KindConfig:
		return "configuration"
	case KindCanceled:
		return "canceled"
	case KindReplay:
		return "replay"
	}
	return "error"
}

// Error is a provider failure. Its text names the provider and says what
// went wrong and, where it can, what to fix; it never holds a key (server
// messages are redacted before they get here).
type Error struct {
	Provider string
	Kind     ErrorKind
	// Status is the HTTP status, when there was one.
	Status int
	// RetryAfter is the server's Retry-After, when it sent one.
	RetryAfter time.Duration
	// Message is what happened, in words (the server's own message, redacted,
	// when it gave one).
	Message string
	// Fix says what the user can do, when we know.
	Fix string
	Err error
}

// Error renders "PROVIDER: KIND[ (HTTP n)]: MESSAGE[ — FIX]".
func (e *Error) Error() string {
	if e.Provider == "" {
		return e.Reason()
	}
	return e.Provider + ": " + e.Reason()
}

// Reason is the error without the provider's name (log lines carry the
// name in their own attribute).
func (e *Error) Reason() string {
	var b strings.Builder
	b.WriteString(e.Kind.String())
	if e.Status != 0 {
		fmt.Fprintf(&b, " (HTTP %d)", e.Status)
	}
	if e.Message != "" {
		b.WriteString(": ")
		b.WriteString(e.Message)
	}
	if e.RetryAfter > 0 {
		fmt.Fprintf(&b, " (retry after %s)", e.RetryAfter)
	}
	if e.Fix != "" {
		b.WriteString(" — ")
		b.WriteString(e.Fix)
	}
	return b.String()
}

// Unwrap returns the cause.
func (e *Error) Unwrap() error { return e.Err }

// reasonOf is err's text without the provider's name, when it has one.
func reasonOf(err error) string {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Reason()
	}
	return err.Error()
}

// KindOf returns the kind of the first *Error in err's chain, or 0.
func KindOf(err error) ErrorKind {
	var pe *Error
	if errors.As(err, &pe) {
		return pe.Kind
	}
	return 0
}

// CascadeError is what the cascade returns when every provider failed: one
// error per attempt, in order.
type CascadeError struct {
	Attempts []error
}

// Error lists every attempt's failure on one line; one attempt is just its
// own error.
func (e *CascadeError) Error() string {
	if len(e.Attempts) == 1 {
		return e.Attempts[0].Error()
	}
	parts := make([]string, len(e.Attempts))
	for i, err := range e.Attempts {
		parts[i] = err.Error()
	}
	return "every provider failed: " + strings.Join(parts, "; ")
}

// Unwrap lets errors.As and errors.Is see each attempt.
func (e *CascadeError) Unwrap() []error { return e.Attempts }

// redact removes secret from s. Servers echo keys back in error bodies
// ("Incorrect API key provided: sk-…"); the text goes into errors and logs,
// so every server-provided string passes through here first.
func redact(s, secret string) string {
	if secret == "" {
		return s
	}
	return strings.ReplaceAll(s, secret, "[redacted]")
}

// clip bounds a server-provided message to one readable line.
func clip(s string, n int) string {
	s = strings.Join(strings.Fields(s), " ")
	if len(s) <= n {
		return s
	}
	cut := n
	for cut > 0 && (s[cut]&0xC0) == 0x80 { // do not split a UTF-8 sequence
		cut--
	}
	return s[:cut] + "…"
}
