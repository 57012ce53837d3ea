package agent

import (
	"context"
	"fmt"
	"log/slog"
	"strings"
	"sync"
)

// LogRing keeps the last lines logged, for the LOGS section of the prompt
// (CONTEXT_LOG_LIMIT). It is fed by a slog handler that also passes every
// record on. Lines are scrubbed by the redactor before they are kept, and
// records before they are passed on, so that neither the ring nor a log
// holds a secret.
type LogRing struct {
	mu     sync.Mutex
	lines  []string
	next   int
	full   bool
	redact func(string) string
}

// maxLogLine bounds one kept line.
const maxLogLine = 300

// NewLogRing keeps the last limit lines (limit < 1 keeps none).
func NewLogRing(limit int) *LogRing {
	return &LogRing{lines: make([]string, max(limit, 0))}
}

// SetRedactor sets the function every line passes through before it is
// kept, and every record's message and values before they are passed on
// (the agent's redactor).
func (r *LogRing) SetRedactor(f func(string) string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.redact = f
}

func (r *LogRing) add(line string) {
	r.mu.Lock()
	defer r.mu.Unlock()
	if len(r.lines) == 0 {
		return
	}
	if r.redact != nil {
		line = r.redact(line)
	}
	if len(line) > maxLogLine {
		line = line[:maxLogLine] + "…"
	}
	r.lines[r.next] = line
	r.next = (r.next + 1) % len(r.lines)
	if r.next == 0 {
		r.full = true
	}
}

// Lines returns the kept lines, oldest first.
func (r *LogRing) Lines() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	if !r.full {
		return append([]string(nil), r.lines[:r.next]...)
	}
	return append(append([]string(nil), r.lines[r.next:]...), r.lines[:r.next]...)
}

// Handler returns a slog handler that keeps Info and above in the ring and
// passes every record on to next (nil: nowhere else).
func (r *LogRing) Handler(next slog.Handler) slog.Handler {
	if next == nil {
		next = slog.DiscardHandler
	}
	return &ringHandler{ring: r, next: next}
}

type ringHandler struct {
	ring   *LogRing
	next   slog.Handler
	attrs  string
	prefix string
}

// RedactingHandler is next with every record's message and values
// through redact first, as a ring passes them on, and nothing kept: for
// the binary's own log, whose records the agent's ring never sees (the
// language server's, the MCP server's, the SDKs' and the transports').
func RedactingHandler(next slog.Handler, redact func(string) string) slog.Handler {
	r := NewLogRing(0)
	r.SetRedactor(redact)
	return r.Handler(next)
}

// Enabled: Info and above for the ring (if it keeps any line), and
// whatever the next handler wants.
func (h *ringHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelInfo && len(h.ring.lines) > 0 || h.next.Enabled(ctx, l)
}

// Handle keeps Info and above in the ring and passes the record on.
func (h *ringHandler) Handle(ctx context.Context, rec slog.Record) error {
	if rec.Level >= slog.LevelInfo && len(h.ring.lines) > 0 { // lines is never resized
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s %s%s", rec.Time.Format("15:04:05"), rec.Level, rec.Message, h.attrs)
		rec.Attrs(func(a slog.Attr) bool {
			writeAttr(&b, h.prefix, a)
			return true
		})
		h.ring.add(b.String())
	}
	if h.next.Enabled(ctx, rec.Level) {
		return h.next.Handle(ctx, h.ring.scrub(rec))
	}
	return nil
}

// redactor is the ring's redactor, or nil.
func (r *LogRing) redactor() func(string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.redact
}

// scrub is rec with its message and values through the redactor: a value
// the redactor changes is passed on as the redacted string.
func (r *LogRing) scrub(rec slog.Record) slog.Record {
	redact := r.redactor()
	if redact == nil {
		return rec
	}
	out := slog.NewRecord(rec.Time, rec.Level, redact(rec.Message), rec.PC)
	rec.Attrs(func(a slog.Attr) bool {
		out.AddAttrs(scrubAttr(a, redact))
		return true
	})
	return out
}

// scrubAttr is a with every string value in it through redact (a value
// the redactor changes becomes the redacted string).
func scrubAttr(a slog.Attr, redact func(string) string) slog.Attr {
	a.Value = a.Value.Resolve()
	switch a.Value.Kind() {
	case slog.KindGroup:
		g := a.Value.Group()
		out := make([]slog.Attr, len(g))
		for i, e := range g {
			out[i] = scrubAttr(e, redact)
		}
		return slog.Attr{Key: a.Key, Value: slog.GroupValue(out...)}
	case slog.KindString, slog.KindAny:
		s := a.Value.String()
		if r := redact(s); r != s {
			return slog.String(a.Key, r)
		}
	}
	return a
}

func writeAttr(b *strings.Builder, prefix string, a slog.Attr) {
	a.Value = a.Value.Resolve()
	if a.Equal(slog.Attr{}) {
		return
	}
	if a.Value.Kind() == slog.KindGroup {
		p := prefix
		if a.Key != "" {
			p += a.Key + "."
		}
		for _, g := range a.Value.Group() {
			writeAttr(b, p, g)
		}
		return
	}
	fmt.Fprintf(b, " %s%s=%s", prefix, a.Key, a.Value.String())
}

// WithAttrs keeps the attributes for the ring's lines and the next handler.
func (h *ringHandler) WithAttrs(as []slog.Attr) slog.Handler {
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range as {
		writeAttr(&b, h.prefix, a)
	}
	scrubbed := as
	if redact := h.ring.redactor(); redact != nil {
		scrubbed = make([]slog.Attr, len(as))
		for i, a := range as {
			scrubbed[i] = scrubAttr(a, redact)
		}
	}
	return &ringHandler{ring: h.ring, next: h.next.WithAttrs(scrubbed), attrs: b.String(), prefix: h.prefix}
}

// WithGroup prefixes later keys, for the ring's lines and the next handler.
func (h *ringHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	return &ringHandler{ring: h.ring, next: h.next.WithGroup(name), attrs: h.attrs, prefix: h.prefix + name + "."}
}
