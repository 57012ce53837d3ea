//go:build unix

package sandbox

import (
	"fmt"
	"io"
	"os"
	"sync"
	"time"
)

// stdio are a command's standard descriptors when it is not started by
// os/exec (the helper gets them over its socket): the child's ends, and
// the copying the writers and readers that are not files need.
type stdio struct {
	child   [3]*os.File
	closers []*os.File // ours and the child's, closed at the end
	copies  sync.WaitGroup
	pending []func() // the copies to start once the child's ends are handed over
	readers []*os.File
}

// newStdio makes the descriptors for c, as os/exec would: a file is
// passed as it is, nil is /dev/null, anything else gets a pipe and a
// copying goroutine (one pipe when Stdout and Stderr are the same writer).
func newStdio(c Command) (*stdio, error) {
	s := &stdio{}
	fail := func(err error) (*stdio, error) {
		s.close()
		return nil, fmt.Errorf("sandbox: the command's standard descriptors: %w", err)
	}
	switch in := c.Stdin.(type) {
	case nil:
		f, err := os.Open(os.DevNull)
		if err != nil {
			return fail(err)
		}
		s.child[0] = f
		s.closers = append(s.closers, f)
	case *os.File:
		s.child[0] = in
	default:
		r, w, err := os.Pipe()
		if err != nil {
			return fail(err)
		}
		s.child[0] = r
		s.closers = append(s.closers, r)
		s.pending = append(s.pending, func() {
			io.Copy(w, in)
			w.Close()
		})
	}
	out := func(i int, wr io.Writer) error {
		switch wr := wr.(type) {
		case nil:
			f, err := os.OpenFile(os.DevNull, os.O_WRONLY, 0)
			if err != nil {
				return err
			}
			s.child[i] = f
			s.closers = append(s.closers, f)
		case *os.File:
			s.child[i] = wr
		default:
			if i == 2 && c.Stderr == c.Stdout {
				s.child[2] = s.child[1]
				return nil
			}
			r, w, err := os.Pipe()
			if err != nil {
				return err
			}
			s.child[i] = w
			s.closers = append(s.closers, w)
			s.readers = append(s.readers, r)
			s.copies.Add(1)
			go func() {
				defer s.copies.Done()
				io.Copy(wr, r)
			}()
		}
		return nil
	}
	if err := out(1, c.Stdout); err != nil {
		return fail(err)
	}
	if err := out(2, c.Stderr); err != nil {
		return fail(err)
	}
	return s, nil
}

// started closes our copies of the child's ends (the helper holds its
// own now) and starts feeding the input.
func (s *stdio) started() {
	for _, f := range s.closers {
		f.Close()
	}
	s.closers = nil
	for _, p := range s.pending {
		go p()
	}
	s.pending = nil
}

// wait waits for the output to end, at most d after the command ended: a
// process that escaped the sweep and keeps a descriptor open does not
// hold the action up.
func (s *stdio) wait(d time.Duration) {
	done := make(chan struct{})
	go func() {
		s.copies.Wait()
		close(done)
	}()
	select {
	case <-done:
	case <-time.After(d):
		for _, r := range s.readers {
			r.Close()
		}
		<-done
	}
}

// close releases whatever is still open.
func (s *stdio) close() {
	for _, f := range s.closers {
		f.Close()
	}
	for _, r := range s.readers {
		r.Close()
	}
}
