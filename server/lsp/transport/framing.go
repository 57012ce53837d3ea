package transport

import (
	"bytes"
	"errors"
	"fmt"
	"io"
	"strconv"
	"strings"
	"sync/atomic"
)

// frameError is a header that cannot be read: the frame is answered -32700
// and skipped, reading resumes at the next "Content-Length:".
type frameError struct {
	why string
}

func (e *frameError) Error() string { return e.why }

// initialBuffer is the buffer a reader starts with; it grows as a large
// message arrives, and shrinks back after one larger than keptBuffer. A
// read that fills it with more than the message being read (a backlog of
// small ones: a burst of edits) makes it grow, up to burstBuffer — what a
// pipe holds on Linux — and never past twice what was received, so that
// one read takes a burst in whole and Buffered sees what is queued.
const (
	initialBuffer = 4096
	burstBuffer   = 64 << 10
	keptBuffer    = 4 << 20
)

// lengthField is the header field that frames a message, lower case.
const lengthField = "content-length:"

// reader reads LSP frames — a header block, a blank line, a body of
// Content-Length bytes — through its own buffer.
type reader struct {
	src        io.Reader
	maxHeader  int
	maxMessage int

	buf   []byte
	start int // first unread byte in buf
	end   int // end of the bytes read into buf
	err   error

	// buffered is end-start after the last frame was returned (Buffered).
	buffered atomic.Int64
	// received counts the bytes read; backlog is set by a read that
	// filled the buffer past what was needed, grow when a frame was
	// returned after one (the buffer grows at its next reset).
	received      int
	backlog, grow bool

	// resyncFrom is set after a header that could not be read: the next
	// call first skips to the next "Content-Length:" from this offset of
	// the unread bytes. The header's answer goes out before that wait.
	resyncFrom int
}

func newReader(src io.Reader, maxHeader, maxMessage int) *reader {
	return &reader{src: src, maxHeader: maxHeader, maxMessage: maxMessage, buf: make([]byte, initialBuffer)}
}

// next returns the body of the next frame and how many bytes it took on
// the wire. The body is valid until the next call. A header that cannot be
// read is a *frameError; the next call skips to the next "Content-Length:"
// first, and reports how many bytes it skipped. Otherwise an error is the
// input's: io.EOF between frames, io.ErrUnexpectedEOF inside one.
func (r *reader) next() (body []byte, wire, skipped int, err error) {
	if r.resyncFrom > 0 {
		from := r.resyncFrom
		r.resyncFrom = 0
		skipped, err = r.resync(from)
		if err != nil {
			return nil, 0, skipped, err
		}
	}
	blank, err := r.skipBlank()
	if err != nil {
		return nil, 0, skipped, err
	}
	length, headerLen, err := r.header()
	if err != nil {
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("the input ended inside a message header: %w", io.ErrUnexpectedEOF)
		}
		return nil, 0, skipped, err
	}
	r.start += headerLen
	if err := r.fill(length); err != nil {
		if errors.Is(err, io.EOF) {
			err = fmt.Errorf("the input ended %d bytes into a body of %d: %w", r.end-r.start, length, io.ErrUnexpectedEOF)
		}
		return nil, 0, skipped, err
	}
	body = r.buf[r.start : r.start+length]
	r.start += length
	r.grow, r.backlog = r.grow || r.backlog, false
	return body, blank + headerLen + length, skipped, nil
}

// skipBlank skips the whitespace some clients leave between messages.
func (r *reader) skipBlank() (int, error) {
	n := 0
	for {
		if err := r.fill(1); err != nil {
			return n, err
		}
		for r.start < r.end {
			switch r.buf[r.start] {
			case '\r', '\n', ' ', '\t':
				r.start++
				n++
			default:
				return n, nil
			}
		}
	}
}

// header parses the header block at r.start without consuming it: the
// Content-Length and the block's length, blank line included. On a
// *frameError it has set where the next call resumes.
func (r *reader) header() (length, headerLen int, err error) {
	length = -1
	resume := 1 // past the first byte at least, so the same header is not read again
	fail := func(format string, a ...any) (int, int, error) {
		r.resyncFrom = resume
		return 0, 0, &frameError{why: fmt.Sprintf(format, a...) + "; reading resumes at the next Content-Length header"}
	}
	pos := 0 // offset of the next line from r.start
	for {
		i := bytes.IndexByte(r.buf[r.start+pos:r.end], '\n')
		if i < 0 {
			if r.end-r.start >= r.maxHeader {
				return fail("the message header is longer than %d bytes", r.maxHeader)
			}
			// Wait for one byte more, with room for the whole header.
			if err := r.fillRoom(r.end-r.start+1, r.maxHeader+1); err != nil {
				return 0, 0, err
			}
			continue
		}
		if pos+i+1 > r.maxHeader {
			return fail("the message header is longer than %d bytes", r.maxHeader)
		}
		line := r.buf[r.start+pos : r.start+pos+i]
		lineStart := pos
		pos += i + 1
		line = bytes.TrimSuffix(line, []byte{'\r'})
		if len(line) == 0 {
			break
		}
		colon := bytes.IndexByte(line, ':')
		if colon <= 0 || !isToken(line[:colon]) {
			return fail("the message header has a line that is not \"Name: value\" (%s)", describeLine(line))
		}
		if !bytes.EqualFold(line[:colon+1], []byte(lengthField)) {
			continue
		}
		resume = lineStart + colon + 1
		value := bytes.Trim(line[colon+1:], " \t")
		n, problem := parseLength(value, r.maxMessage)
		switch {
		case problem != "":
			return fail("the Content-Length %s %s", describeLine(value), problem)
		case length >= 0 && n != length:
			return fail("the message header states two Content-Lengths, %d and %d", length, n)
		}
		length = n
	}
	if length < 0 {
		return fail("the message header has no Content-Length")
	}
	return length, pos, nil
}

// resync skips to the next "Content-Length:" (any case) at or after offset
// from of the unread bytes, reading on as needed in bounded memory. It
// returns how many bytes it skipped; io.EOF when the input ended first.
func (r *reader) resync(from int) (int, error) {
	from = min(from, r.end-r.start)
	r.start += from
	skipped := from
	for {
		if i := indexFold(r.buf[r.start:r.end], lengthField); i >= 0 {
			r.start += i
			return skipped + i, nil
		}
		// Keep what could be the beginning of a match.
		drop := max(0, r.end-r.start-(len(lengthField)-1))
		r.start += drop
		skipped += drop
		if err := r.fill(r.end - r.start + 1); err != nil {
			skipped += r.end - r.start
			r.start = r.end
			return skipped, err
		}
	}
}

// fill reads until need unread bytes are buffered. The buffer grows only
// when it is full of bytes that arrived: its size is at most twice what
// was received, whatever a header said was coming.
func (r *reader) fill(need int) error { return r.fillRoom(need, need) }

// fillRoom is fill, growing the buffer up to room unread bytes at once
// when it must grow (room ≥ need): a header read a few bytes at a time
// must not grow it a byte at a time.
func (r *reader) fillRoom(need, room int) error {
	if r.end-r.start >= need {
		return nil
	}
	if r.start == r.end {
		r.start, r.end = 0, 0
		if len(r.buf) > keptBuffer {
			r.buf = make([]byte, initialBuffer) // give back what a large message took
			r.grow = false
		}
	}
	for r.end-r.start < need {
		if r.err != nil {
			return r.err
		}
		if r.end == len(r.buf) {
			r.makeRoom(room)
		}
		n, err := r.src.Read(r.buf[r.end:])
		r.end += n
		r.received += n
		if r.end == len(r.buf) && r.end-r.start > need {
			r.backlog = true
		}
		if err != nil {
			r.err = err
		}
	}
	return nil
}

// makeRoom moves the unread bytes to the front of the buffer, and doubles
// it (up to room) when they fill it.
func (r *reader) makeRoom(room int) {
	if r.grow && len(r.buf) < burstBuffer && 2*r.received > len(r.buf) {
		// Room for a burst of messages (see initialBuffer).
		r.grow = false
		nb := make([]byte, min(burstBuffer, 2*r.received))
		r.end = copy(nb, r.buf[r.start:r.end])
		r.start, r.buf = 0, nb
		return
	}
	if r.start > 0 {
		r.end = copy(r.buf, r.buf[r.start:r.end])
		r.start = 0
		if r.end < len(r.buf) {
			return
		}
	}
	nb := make([]byte, min(max(2*len(r.buf), initialBuffer), room))
	r.end = copy(nb, r.buf[:r.end])
	r.buf = nb
}

// parseLength reads a Content-Length value: decimal digits, at most max.
// problem says what is wrong with any other.
func parseLength(v []byte, max int) (n int, problem string) {
	switch {
	case len(v) > 1 && v[0] == '-' && isDigits(v[1:]):
		return 0, "is negative"
	case len(v) == 0 || !isDigits(v):
		return 0, "is not a decimal number"
	}
	v = bytes.TrimLeft(v, "0")
	if len(v) > len(strconv.Itoa(max)) {
		return 0, fmt.Sprintf("is over the limit of %d bytes", max)
	}
	n, _ = strconv.Atoi(string(v)) // at most as many digits as max: no overflow
	if n > max {
		return 0, fmt.Sprintf("is over the limit of %d bytes", max)
	}
	return n, ""
}

func isDigits(v []byte) bool {
	for _, c := range v {
		if c < '0' || c > '9' {
			return false
		}
	}
	return true
}

// isToken reports whether name is an HTTP field name (RFC 9110 §5.6.2).
func isToken(name []byte) bool {
	for _, c := range name {
		switch {
		case 'a' <= c && c <= 'z', 'A' <= c && c <= 'Z', '0' <= c && c <= '9':
		case strings.IndexByte("!#$%&'*+-.^_`|~", c) >= 0:
		default:
			return false
		}
	}
	return true
}

// describeLine quotes at most the first 40 bytes of a header line for an
// error message (a header carries no user text, but it may be anything).
func describeLine(line []byte) string {
	if len(line) > 40 {
		return strconv.Quote(string(line[:40])) + "…"
	}
	return strconv.Quote(string(line))
}

// indexFold is the index of the first occurrence of the lower-case ASCII
// pattern in b under ASCII case folding, or -1.
func indexFold(b []byte, pattern string) int {
	for i := 0; i+len(pattern) <= len(b); {
		j := bytes.IndexAny(b[i:], "cC")
		if j < 0 || i+j+len(pattern) > len(b) {
			return -1
		}
		i += j
		if bytes.EqualFold(b[i:i+len(pattern)], []byte(pattern)) {
			return i
		}
		i++
	}
	return -1
}
