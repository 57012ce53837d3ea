package main

import (
	"context"
	"io"
	"log/slog"
	"strings"
	"sync"

	"pp-lsp/gates"
	"pp-lsp/server/agent"
)

// envLog sets the log level of every command (debug, info, warn, error);
// --log-level wins over it.
const envLog = "PASSEPARTOUT_LOG"

// logger is the command's logger on stderr. By default it writes warnings
// and errors only, one line each, worded for people ("pp-lsp ask: warning:
// …"); --log-level or PASSEPARTOUT_LOG lowers the level, and
// --log-format picks slog's text (key=value, the default at debug) or JSON
// lines, for a log collector. The language server's editor reads stderr
// too: Neovim shows any line there as an error, so warn is its default.
func (fs *flagSet) logger(c *cli) (*slog.Logger, error) {
	level := slog.LevelWarn
	name, from := fs.logLevel, "--log-level"
	if name == "" {
		name, from = c.getenv(envLog), envLog
	}
	if name != "" {
		if err := level.UnmarshalText([]byte(name)); err != nil {
			return nil, usageErrorf("%s: %q is not a log level; use debug, info, warn or error", from, name)
		}
	}
	format := fs.logFormat
	if format == "" {
		format = "human"
		if level <= slog.LevelDebug {
			format = "text"
		}
	}
	opts := &slog.HandlerOptions{Level: level}
	var h slog.Handler
	switch format {
	case "human":
		h = &humanHandler{out: &lockedWriter{w: c.stderr}, prefix: fs.command(), level: level}
	case "text":
		h = slog.NewTextHandler(c.stderr, opts)
	case "json":
		h = slog.NewJSONHandler(c.stderr, opts)
	default:
		return nil, usageErrorf("--log-format: %q is not a log format; use human, text or json", format)
	}
	// No log line carries a secret the gates' rules find, whoever logs
	// it: the agent's records pass its own redactor (the vault's too)
	// first, the servers', the SDKs' and the transports' only this one.
	return slog.New(agent.RedactingHandler(h, gates.RedactSecrets)), nil
}

// humanHandler writes one line per record: "pp-lsp ask: warning: the
// model provider failed (provider: ollama:llama3.2; reason: unreachable)".
type humanHandler struct {
	out    *lockedWriter
	prefix string
	level  slog.Level
	attrs  []slog.Attr
	group  string
}

func (h *humanHandler) Enabled(_ context.Context, l slog.Level) bool { return l >= h.level }

func (h *humanHandler) Handle(_ context.Context, r slog.Record) error {
	var b strings.Builder
	b.WriteString(h.prefix)
	b.WriteString(": ")
	switch {
	case r.Level >= slog.LevelError:
		b.WriteString("error: ")
	case r.Level >= slog.LevelWarn:
		b.WriteString("warning: ")
	case r.Level < slog.LevelInfo:
		b.WriteString("debug: ")
	}
	b.WriteString(oneLine(r.Message))
	var parts []string
	var add func(group string, a slog.Attr)
	add = func(group string, a slog.Attr) {
		a.Value = a.Value.Resolve()
		if a.Equal(slog.Attr{}) {
			return
		}
		if a.Value.Kind() == slog.KindGroup {
			// The groups of WithGroup come nested in the record
			// (agent.RedactingHandler): "g.key: value".
			if a.Key != "" {
				group += a.Key + "."
			}
			for _, g := range a.Value.Group() {
				add(group, g)
			}
			return
		}
		parts = append(parts, group+a.Key+": "+oneLine(a.Value.String()))
	}
	for _, a := range h.attrs {
		add("", a) // named with their group when they were added
	}
	r.Attrs(func(a slog.Attr) bool { add(h.group, a); return true })
	if len(parts) > 0 {
		b.WriteString(" (" + strings.Join(parts, "; ") + ")")
	}
	b.WriteByte('\n')
	return h.out.write(b.String())
}

func (h *humanHandler) WithAttrs(as []slog.Attr) slog.Handler {
	h2 := *h
	h2.attrs = append(append([]slog.Attr(nil), h.attrs...), as...)
	for i := len(h.attrs); i < len(h2.attrs); i++ {
		h2.attrs[i].Key = h.group + h2.attrs[i].Key
	}
	return &h2
}

func (h *humanHandler) WithGroup(name string) slog.Handler {
	if name == "" {
		return h
	}
	h2 := *h
	h2.group = h.group + name + "."
	return &h2
}

// lockedWriter serialises whole lines from concurrent loggers.
type lockedWriter struct {
	mu sync.Mutex
	w  io.Writer
}

func (l *lockedWriter) write(s string) error {
	l.mu.Lock()
	defer l.mu.Unlock()
	_, err := io.WriteString(l.w, s)
	return err
}

// oneLine folds a text onto one line, so that every message is one.
func oneLine(s string) string {
	s = strings.TrimSpace(s)
	if !strings.ContainsAny(s, "\r\n") {
		return s
	}
	return strings.Join(strings.Fields(strings.NewReplacer("\r\n", " ", "\n", " ", "\r", " ").Replace(s)), " ")
}
