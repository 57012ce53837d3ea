// Package frame reads and writes the frames of the framed-TCP wire protocol
// (DESIGN §9): six ASCII hex digits giving the payload's length in bytes (at
// most 0xFFFFFF), then the payload.
//
// Invariant: a Reader never allocates more than its maximum payload (plus the
// header) whatever the peer sends, never waits forever in the middle of a
// frame when the connection supports read deadlines and a stall timeout is
// set, and tells a clean end of stream (between frames) from a frame cut off.
//
// The package knows nothing of plists: it moves payload bytes. It is its own
// package because the transport concerns (buffering, deadlines, the peer's
// honesty about lengths) are separate from the syntax of what is carried.
package frame

import (
	"errors"
	"fmt"
	"io"
	"os"
	"time"
)

// HeaderLen is the length of a frame header: six hex digits.
const HeaderLen = 6

// MaxPayload is the largest length a header can state.
const MaxPayload = 0xFFFFFF

// ErrTooLarge is matched (errors.Is) when a header states a length over the
// reader's maximum, or a payload to write is longer than MaxPayload.
var ErrTooLarge = errors.New("frame too large")

// HeaderError is a header that is not six hex digits.
type HeaderError struct {
	// Header is the six bytes received (at most six).
	Header []byte
}

func (e *HeaderError) Error() string {
	return fmt.Sprintf("frame header %q is not 6 hex digits", e.Header)
}

// AppendHeader appends the header for a payload of n bytes: six upper-case
// hex digits, as Emacs's (format "%06X" n) writes them.
func AppendHeader(dst []byte, n int) ([]byte, error) {
	if n < 0 || n > MaxPayload {
		return dst, fmt.Errorf("a payload of %d bytes does not fit a frame (at most %d): %w", n, MaxPayload, ErrTooLarge)
	}
	dst = append(dst, "000000"...)
	putHeader(dst[len(dst)-HeaderLen:], n)
	return dst, nil
}

// putHeader writes n (at most MaxPayload) as six hex digits into h.
func putHeader(h []byte, n int) {
	const hex = "0123456789ABCDEF"
	for i := HeaderLen - 1; i >= 0; i-- {
		h[i] = hex[n&15]
		n >>= 4
	}
}

// Append appends one frame carrying payload.
func Append(dst, payload []byte) ([]byte, error) {
	dst, err := AppendHeader(dst, len(payload))
	if err != nil {
		return dst, err
	}
	return append(dst, payload...), nil
}

// Begin reserves room for a header at the end of dst and returns the buffer
// and the header's offset, so that a payload can be appended in place and the
// frame closed by End without copying it.
func Begin(dst []byte) ([]byte, int) {
	return append(dst, "000000"...), len(dst)
}

// End writes the header at offset start (from Begin) for the payload that
// follows it to the end of buf.
func End(buf []byte, start int) error {
	n := len(buf) - start - HeaderLen
	if n < 0 || n > MaxPayload {
		return fmt.Errorf("a payload of %d bytes does not fit a frame (at most %d): %w", n, MaxPayload, ErrTooLarge)
	}
	putHeader(buf[start:start+HeaderLen], n)
	return nil
}

// parseHeader reads the length from six hex digits (either case).
func parseHeader(h []byte) (int, error) {
	n := 0
	for _, c := range h {
		var d byte
		switch {
		case c >= '0' && c <= '9':
			d = c - '0'
		case c >= 'a' && c <= 'f':
			d = c - 'a' + 10
		case c >= 'A' && c <= 'F':
			d = c - 'A' + 10
		default:
			return 0, &HeaderError{Header: append([]byte(nil), h...)}
		}
		n = n<<4 | int(d)
	}
	return n, nil
}

// deadliner is what a connection offers to bound a read in time (net.Conn).
type deadliner interface {
	SetReadDeadline(t time.Time) error
}

// Reader reads frames from a stream through its own buffer.
type Reader struct {
	src   io.Reader
	dl    deadliner // nil when src has no deadlines
	max   int
	buf   []byte
	start int // first unread byte in buf
	end   int // end of the bytes read into buf

	stall    time.Duration
	idle     time.Time // deadline while no frame has begun; zero is none
	deadline time.Time // the deadline last set on dl
	set      bool      // whether deadline was ever set
}

// initialBuffer is the buffer a Reader starts with; it grows to the largest
// frame seen (bounded by max) and shrinks back after it.
const initialBuffer = 4096

// NewReader reads frames of at most max payload bytes (0 or more than
// MaxPayload means MaxPayload) from src.
func NewReader(src io.Reader, max int) *Reader {
	if max <= 0 || max > MaxPayload {
		max = MaxPayload
	}
	r := &Reader{src: src, max: max, buf: make([]byte, initialBuffer)}
	r.dl, _ = src.(deadliner)
	return r
}

// SetMaxPayload changes the largest payload accepted from the next frame on
// (0 or more than MaxPayload means MaxPayload): a daemon keeps it small until
// the peer has authenticated.
func (r *Reader) SetMaxPayload(max int) {
	if max <= 0 || max > MaxPayload {
		max = MaxPayload
	}
	r.max = max
}

// SetStallTimeout bounds the wait for each read once a frame has begun: a
// peer that sends part of a frame and then nothing for d gets an error
// wrapping os.ErrDeadlineExceeded. Zero (the default) waits forever. It
// needs a source with read deadlines (a net.Conn); others ignore it.
func (r *Reader) SetStallTimeout(d time.Duration) { r.stall = d }

// SetIdleDeadline bounds the wait for the first byte of the next frame: the
// handshake's deadline. The zero time (the default) lets a connection idle
// between frames forever.
func (r *Reader) SetIdleDeadline(t time.Time) { r.idle = t }

// Next returns the next frame's payload. It is valid until the next call.
// Between frames, the end of the stream is io.EOF; inside one it is an error
// wrapping io.ErrUnexpectedEOF. A bad header is a *HeaderError, a length over
// the maximum an error matching ErrTooLarge; a stall wraps
// os.ErrDeadlineExceeded.
func (r *Reader) Next() ([]byte, error) {
	if err := r.fill(HeaderLen); err != nil {
		return nil, err
	}
	n, err := parseHeader(r.buf[r.start : r.start+HeaderLen])
	if err != nil {
		return nil, err
	}
	if n > r.max {
		return nil, fmt.Errorf("the frame header states %d bytes, over the limit of %d: %w", n, r.max, ErrTooLarge)
	}
	if err := r.fill(HeaderLen + n); err != nil {
		return nil, err
	}
	payload := r.buf[r.start+HeaderLen : r.start+HeaderLen+n]
	r.start += HeaderLen + n
	return payload, nil
}

// Buffered reports how many bytes are read but not yet returned.
func (r *Reader) Buffered() int { return r.end - r.start }

// fill reads until the buffer holds need unread bytes.
func (r *Reader) fill(need int) error {
	if r.end-r.start >= need {
		return nil
	}
	if r.start == r.end {
		// Nothing pending: reset, and give back a buffer grown by a big frame.
		r.start, r.end = 0, 0
		if len(r.buf) > 16*initialBuffer {
			r.buf = make([]byte, initialBuffer)
		}
	}
	if r.start+need > len(r.buf) {
		size := len(r.buf)
		for size < need {
			size *= 2
		}
		size = min(size, r.max+HeaderLen)
		if size < need {
			size = need
		}
		nb := make([]byte, size)
		r.end = copy(nb, r.buf[r.start:r.end])
		r.start = 0
		r.buf = nb
	}
	for r.end-r.start < need {
		begun := r.end > r.start
		if err := r.armDeadline(begun); err != nil {
			return err
		}
		k, err := r.src.Read(r.buf[r.end:])
		r.end += k
		if r.end-r.start >= need {
			return nil
		}
		if err != nil {
			got := r.end - r.start
			switch {
			case errors.Is(err, io.EOF) && got == 0:
				return io.EOF
			case errors.Is(err, io.EOF):
				return fmt.Errorf("the stream ended %d bytes into a frame: %w", got, io.ErrUnexpectedEOF)
			case errors.Is(err, os.ErrDeadlineExceeded) && got > 0:
				return fmt.Errorf("the frame stalled %d bytes in, nothing more for %s: %w", got, r.stall, err)
			}
			return err
		}
	}
	return nil
}

// armDeadline sets the read deadline for the next read: the idle deadline
// before a frame begins, the stall timeout once it has (whichever is sooner
// if both apply). It touches the connection only when the deadline changes.
func (r *Reader) armDeadline(begun bool) error {
	if r.dl == nil {
		return nil
	}
	want := r.idle
	if begun && r.stall > 0 {
		s := time.Now().Add(r.stall)
		if want.IsZero() || s.Before(want) {
			want = s
		}
	}
	if r.set && want.Equal(r.deadline) {
		return nil
	}
	if err := r.dl.SetReadDeadline(want); err != nil {
		return fmt.Errorf("setting the read deadline: %w", err)
	}
	r.deadline, r.set = want, true
	return nil
}
