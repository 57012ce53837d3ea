package transport

import (
	"context"
	"errors"
	"io"
	"log/slog"
	"strconv"
	"sync"

	"go.lsp.dev/jsonrpc2"
)

// Options bound a Stream; zero fields take the defaults named beside them.
type Options struct {
	// Logger receives one line per malformed message (never its content);
	// nil discards them.
	Logger *slog.Logger
	// MaxMessage is the largest body read, in bytes (128 MiB: twice the
	// memex's largest Org file, for JSON's escapes).
	MaxMessage int
	// MaxHeader is the largest header block, in bytes (8 KiB).
	MaxHeader int
}

// Default limits.
const (
	DefaultMaxMessage = 128 << 20
	DefaultMaxHeader  = 8 << 10
)

// Stream is a jsonrpc2.Stream with LSP's framing that answers malformed
// messages itself and reads on (see the package doc).
type Stream struct {
	rwc io.ReadWriteCloser
	rd  *reader
	log *slog.Logger

	writeMu sync.Mutex
	body    []byte // scratch for an outgoing message, under writeMu
	frame   []byte // header and body, written at once, under writeMu
}

var _ jsonrpc2.Stream = (*Stream)(nil)

// NewStream speaks LSP's base protocol on rwc.
func NewStream(rwc io.ReadWriteCloser, opts Options) *Stream {
	if opts.MaxMessage <= 0 {
		opts.MaxMessage = DefaultMaxMessage
	}
	if opts.MaxHeader <= 0 {
		opts.MaxHeader = DefaultMaxHeader
	}
	log := opts.Logger
	if log == nil {
		log = slog.New(slog.DiscardHandler)
	}
	return &Stream{rwc: rwc, rd: newReader(rwc, opts.MaxHeader, opts.MaxMessage), log: log}
}

// Read returns the next well-formed message. Malformed ones on the way are
// answered and logged. A request's method and params borrow the stream's
// buffer until the next Read. The error is the input's: io.EOF at its end
// between messages, io.ErrUnexpectedEOF inside one.
func (s *Stream) Read(ctx context.Context) (jsonrpc2.Message, int64, error) {
	for {
		if err := ctx.Err(); err != nil {
			return nil, 0, err
		}
		body, n, skipped, err := s.rd.next()
		s.rd.buffered.Store(int64(s.rd.end - s.rd.start))
		if skipped > 0 {
			s.log.Warn("skipped input to the next message header", "bytes", skipped)
		}
		var fe *frameError
		if errors.As(err, &fe) {
			s.refuse(ctx, reject(nil, jsonrpc2.ParseError, fe.why), 0)
			continue
		}
		if err != nil {
			return nil, 0, err
		}
		msg, r := check(body)
		if r == nil {
			return msg, int64(n), nil
		}
		s.refuse(ctx, r, len(body))
		if r.deliver != nil {
			return r.deliver, int64(n), nil
		}
	}
}

// Buffered reports how many bytes of input are read in but not yet
// returned by Read: the messages the client sent after the one being
// handled that are already here. A handler called inline by the reading
// goroutine (a notification) may ask it; the language server folds
// queued edits of one document while it is non-zero.
func (s *Stream) Buffered() int { return int(s.rd.buffered.Load()) }

// refuse logs a rejected message and sends its answer.
func (s *Stream) refuse(ctx context.Context, r *rejection, size int) {
	attrs := []any{"reason", r.why}
	if size > 0 {
		attrs = append(attrs, "bytes", size)
	}
	if r.method != "" {
		attrs = append(attrs, "method", r.method)
	}
	if r.reply == nil {
		s.log.Warn("the client sent a malformed message; ignored", attrs...)
		return
	}
	s.log.Warn("the client sent a malformed message; answered with an error", attrs...)
	if err := s.writeBody(ctx, r.reply); err != nil {
		s.log.Debug("could not answer a malformed message", "err", err)
	}
}

// Write frames msg and writes it at once.
func (s *Stream) Write(ctx context.Context, msg jsonrpc2.Message) (int64, error) {
	if err := ctx.Err(); err != nil {
		return 0, err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	s.body = jsonrpc2.AppendMessage(s.body[:0], msg)
	return s.writeLocked(s.body)
}

// writeBody frames an encoded body and writes it at once.
func (s *Stream) writeBody(ctx context.Context, body []byte) error {
	if err := ctx.Err(); err != nil {
		return err
	}
	s.writeMu.Lock()
	defer s.writeMu.Unlock()
	_, err := s.writeLocked(body)
	return err
}

// maxKeptBuffer is the largest write buffer kept between messages.
const maxKeptBuffer = 1 << 20

// writeLocked writes header and body in one Write; writeMu is held.
func (s *Stream) writeLocked(body []byte) (int64, error) {
	f := append(s.frame[:0], "Content-Length: "...)
	f = strconv.AppendInt(f, int64(len(body)), 10)
	f = append(f, "\r\n\r\n"...)
	f = append(f, body...)
	n, err := s.rwc.Write(f)
	s.frame = f
	if cap(s.frame) > maxKeptBuffer {
		s.frame, s.body = nil, nil
	}
	return int64(n), err
}

// Close closes the connection.
func (s *Stream) Close() error { return s.rwc.Close() }
