package agent

import (
	"context"
	"fmt"
	"log/slog"
	"slices"
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

// ringHandler keeps what With and WithGroup fix itself, and adds it to
// each record it passes on, through the redactor as it is then — never to
// next, which would keep the values as they were when fixed: a logger
// derived with With before the agent's redactor was set (the providers',
// the gates', a connection's) would pass them on unredacted.
type ringHandler struct {
	ring *LogRing
	next slog.Handler
	// fixed are the attributes and groups of With and WithGroup, in order.
	fixed []fixedAttrs
	// attrs and prefix are the same, rendered for the ring's lines.
	attrs  string
	prefix string
}

// fixedAttrs is one With (attrs) or one WithGroup (group).
type fixedAttrs struct {
	group string
	attrs []slog.Attr
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

// UseRedactor makes every record h passes on from now on — the values
// fixed by With before it among them — pass redact instead, when h is (or
// was derived from) a RedactingHandler; it reports whether it was.
func UseRedactor(h slog.Handler, redact func(string) string) bool {
	rh, ok := h.(*ringHandler)
	if !ok || len(rh.ring.lines) > 0 {
		return false
	}
	rh.ring.SetRedactor(redact)
	return true
}

// Enabled: Info and above for the ring (if it keeps any line), and
// whatever the next handler wants.
func (h *ringHandler) Enabled(ctx context.Context, l slog.Level) bool {
	return l >= slog.LevelInfo && len(h.ring.lines) > 0 || h.next.Enabled(ctx, l)
}

// privatePass marks the context of a private conversation's pass (and of
// the run of a plan one filed): see keepOutOfPrompt.
type privatePass struct{}

// keepOutOfPrompt is ctx marked so that what is logged with it is passed
// on but never kept in a ring, whose lines go into every later prompt
// (LOGS), whatever model it is sent to: an action's summary in a private
// conversation may quote it.
func keepOutOfPrompt(ctx context.Context) context.Context {
	return context.WithValue(ctx, privatePass{}, true)
}

// keptOutOfPrompt reports whether ctx is so marked.
func keptOutOfPrompt(ctx context.Context) bool {
	v, _ := ctx.Value(privatePass{}).(bool)
	return v
}

// Handle keeps Info and above in the ring — not a record logged with a
// context keepOutOfPrompt marked — and passes the record on.
func (h *ringHandler) Handle(ctx context.Context, rec slog.Record) error {
	if rec.Level >= slog.LevelInfo && len(h.ring.lines) > 0 && !keptOutOfPrompt(ctx) { // lines is never resized
		var b strings.Builder
		fmt.Fprintf(&b, "%s %s %s%s", rec.Time.Format("15:04:05"), rec.Level, rec.Message, h.attrs)
		rec.Attrs(func(a slog.Attr) bool {
			writeAttr(&b, h.prefix, a)
			return true
		})
		h.ring.add(b.String())
	}
	if h.next.Enabled(ctx, rec.Level) {
		return h.next.Handle(ctx, h.ring.scrub(rec, h.fixed))
	}
	return nil
}

// redactor is the ring's redactor, or nil.
func (r *LogRing) redactor() func(string) string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return r.redact
}

// scrub is rec with its message and values through the redactor — the
// values fixed by With among them, nested in the groups of WithGroup as
// slog nests them: a value the redactor changes is passed on as the
// redacted string.
func (r *LogRing) scrub(rec slog.Record, fixed []fixedAttrs) slog.Record {
	redact := r.redactor()
	if redact == nil {
		redact = func(s string) string { return s }
	}
	out := slog.NewRecord(rec.Time, rec.Level, redact(rec.Message), rec.PC)
	var attrs []slog.Attr
	rec.Attrs(func(a slog.Attr) bool {
		attrs = append(attrs, scrubAttr(a, redact))
		return true
	})
	for i := len(fixed) - 1; i >= 0; i-- {
		f := fixed[i]
		if f.group == "" {
			own := make([]slog.Attr, len(f.attrs), len(f.attrs)+len(attrs))
			for j, a := range f.attrs {
				own[j] = scrubAttr(a, redact)
			}
			attrs = append(own, attrs...)
			continue
		}
		if len(attrs) > 0 { // an empty group is no group (slog's rule)
			attrs = []slog.Attr{{Key: f.group, Value: slog.GroupValue(attrs...)}}
		}
	}
	out.AddAttrs(attrs...)
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

// WithAttrs keeps the attributes for the ring's lines and the records
// passed on (see ringHandler).
func (h *ringHandler) WithAttrs(as []slog.Attr) slog.Handler {
	if len(as) == 0 {
		return h
	}
	var b strings.Builder
	b.WriteString(h.attrs)
	for _, a := range as {
		writeAttr(&b, h.prefix, a)
	}
	fixed := append(slices.Clip(h.fixed), fixedAttrs{attrs: slices.Clone(as)})
	return &ringHandler{ring: h.ring, next: h.next, fixed: fixed, attrs: b.String(), prefix: h.prefix}
}

// WithGroup prefixes later keys, for the ring's lines and the records
// passed on.
func (h *ringHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	fixed := append(slices.Clip(h.fixed), fixedAttrs{group: name})
	return &ringHandler{ring: h.ring, next: h.next, fixed: fixed, attrs: h.attrs, prefix: h.prefix + name + "."}
}
