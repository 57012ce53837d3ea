package providers

import (
	"bufio"
	"bytes"
	"errors"
	"io"
)

// maxLine bounds one line of a stream. A whole tool call (a file_write's
// content) can arrive in one Ollama line, so it is generous; beyond it the
// stream is refused rather than buffered without end.
const maxLine = 16 << 20

// errLineTooLong is what a longer line gives.
var errLineTooLong = errors.New("a line of the stream is longer than 16 MiB")

// newLineScanner splits r into lines ended by "\n", "\r\n" or a lone "\r"
// (the three line ends of the SSE grammar; NDJSON servers use the first two).
// The last line needs no line end.
// It records whether the last line lacked its line end: a stream cut in the
// middle of a line.
func newLineScanner(r io.Reader) (*bufio.Scanner, *lineSplitter) {
	sc := bufio.NewScanner(r)
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	ls := &lineSplitter{}
	sc.Split(ls.split)
	return sc, ls
}

// lineSplitter is the scanner's split function and what it saw.
type lineSplitter struct {
	unterminated bool // the stream ended inside a line
}

func (ls *lineSplitter) split(data []byte, atEOF bool) (int, []byte, error) {
	i := bytes.IndexAny(data, "\r\n")
	switch {
	case i < 0:
		if atEOF && len(data) > 0 {
			ls.unterminated = true
			return len(data), data, nil
		}
		return 0, nil, nil
	case data[i] == '\n':
		return i + 1, data[:i], nil
	case i+1 < len(data):
		if data[i+1] == '\n' {
			return i + 2, data[:i], nil
		}
		return i + 1, data[:i], nil
	case atEOF:
		return i + 1, data[:i], nil
	}
	return 0, nil, nil // a "\r" at the end: wait to see whether "\n" follows
}

// scanErr turns a scanner's error into the stream's.
func scanErr(sc *bufio.Scanner) error {
	if err := sc.Err(); err != nil {
		if errors.Is(err, bufio.ErrTooLong) {
			return errLineTooLong
		}
		return err
	}
	return io.EOF
}

// sseEvent is one server-sent event: its name ("" when the server sent no
// event: line) and its data lines joined by "\n".
type sseEvent struct {
	name string
	data []byte
}

// sseReader reads server-sent events as the HTML standard's grammar says:
// "field: value" lines, at most one space after the colon removed; lines
// starting with ":" are comments (keep-alives); a blank line ends an event;
// "id" and "retry" are read and ignored. An event pending at the end of the
// stream is still delivered (some servers omit the last blank line); a cut
// in its middle shows up as data that does not parse.
type sseReader struct {
	sc    *bufio.Scanner
	ls    *lineSplitter
	atEOF bool // the pending event was dispatched by the end of the stream
	name  string
	data  []byte
	have  bool // a data line was seen since the last dispatch
}

func newSSEReader(r io.Reader) *sseReader {
	sc, ls := newLineScanner(r)
	return &sseReader{sc: sc, ls: ls}
}

// truncated reports whether the last event came from a stream that ended
// without finishing it (no blank line, or no line end): if its data does not
// parse, the stream was cut rather than malformed.
func (s *sseReader) truncated() bool { return s.atEOF }

// next returns the next event, or io.EOF at the end of the stream.
func (s *sseReader) next() (sseEvent, error) {
	for s.sc.Scan() {
		line := s.sc.Bytes()
		if len(line) == 0 {
			if ev, ok := s.dispatch(); ok {
				return ev, nil
			}
			continue
		}
		if line[0] == ':' {
			continue
		}
		field, value := line, []byte(nil)
		if i := bytes.IndexByte(line, ':'); i >= 0 {
			field, value = line[:i], line[i+1:]
			value = bytes.TrimPrefix(value, []byte(" "))
		}
		switch string(field) {
		case "event":
			s.name = string(value)
		case "data":
			if len(s.data)+len(value) > maxLine {
				return sseEvent{}, errLineTooLong
			}
			if s.have {
				s.data = append(s.data, '\n')
			}
			s.data = append(s.data, value...)
			s.have = true
		}
	}
	err := scanErr(s.sc)
	if errors.Is(err, io.EOF) {
		if ev, ok := s.dispatch(); ok {
			s.atEOF = true
			return ev, nil
		}
	}
	return sseEvent{}, err
}

// dispatch ends the event being read; an event without data is dropped, as
// the standard says.
func (s *sseReader) dispatch() (sseEvent, bool) {
	ev := sseEvent{name: s.name, data: s.data}
	ok := s.have
	s.name, s.data, s.have = "", nil, false
	return ev, ok
}

// ndjsonReader reads newline-delimited JSON, skipping blank lines.
type ndjsonReader struct {
	sc *bufio.Scanner
	ls *lineSplitter
}

func newNDJSONReader(r io.Reader) *ndjsonReader {
	sc, ls := newLineScanner(r)
	return &ndjsonReader{sc: sc, ls: ls}
}

// truncated reports whether the last line lacked its line end (the stream
// was cut inside it).
func (n *ndjsonReader) truncated() bool { return n.ls.unterminated }

// next returns the next non-blank line, or io.EOF.
func (n *ndjsonReader) next() ([]byte, error) {
	for n.sc.Scan() {
		line := bytes.TrimSpace(n.sc.Bytes())
		if len(line) > 0 {
			return line, nil
		}
	}
	return nil, scanErr(n.sc)
}
