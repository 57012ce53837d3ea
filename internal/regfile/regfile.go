// Package regfile opens a file to be read only when it is a regular file,
// as judged by the file opened (fstat), and never waits doing so: a FIFO
// or a device planted where a file of the user's should be (the
// configuration file, the install key, the bridge's token) is refused at
// once, where a plain open would wait for a writer that never comes, or
// read a device without end.
//
// Invariant: Open returns a regular file or an error, promptly, whatever
// is at the path; ReadAll never holds more than its limit (and one byte).
package regfile

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
)

// ErrNotRegular and ErrSymlink are wrapped by Open's error for a path that
// is no regular file (a folder, a FIFO, a device, a socket), or a symlink
// where none is followed; ErrTooLarge by ReadAll's for a file larger than
// its limit. The errors are *fs.PathError, whose Err says what is wrong in
// words ("it is a FIFO (a named pipe), not a regular file"), so that
// internal/plainerr words them as any other.
var (
	ErrNotRegular = errors.New("it is not a regular file")
	ErrSymlink    = errors.New("it is a symlink")
	ErrTooLarge   = errors.New("it is too large")
)

// notRegular is ErrNotRegular, naming what the file is instead.
type notRegular struct{ kind string }

func (e notRegular) Error() string        { return "it is " + e.kind + ", not a regular file" }
func (e notRegular) Is(target error) bool { return target == ErrNotRegular }

// kindOf names a file that is not regular.
func kindOf(m fs.FileMode) string {
	switch {
	case m.IsDir():
		return "a folder"
	case m&fs.ModeNamedPipe != 0:
		return "a FIFO (a named pipe)"
	case m&fs.ModeSocket != 0:
		return "a socket"
	case m&fs.ModeDevice != 0:
		return "a device"
	}
	return "something else"
}

// tooLarge is ErrTooLarge, naming the limit.
type tooLarge struct{ limit int64 }

func (e tooLarge) Error() string        { return fmt.Sprintf("it holds more than %d bytes", e.limit) }
func (e tooLarge) Is(target error) bool { return target == ErrTooLarge }

// Open opens path to be read when it is a regular file, with its
// information as opened. follow says whether a symlink in the last
// component is followed (a configuration file kept among the user's
// dotfiles) or refused (a file of the server's own). What is at the path
// is looked at first, so that a FIFO or a device is not even opened; the
// open itself never waits and the opened file is judged again, so that one
// swapped in between is refused too.
func Open(path string, follow bool) (*os.File, fs.FileInfo, error) {
	stat := os.Lstat
	if follow {
		stat = os.Stat
	}
	before, err := stat(path)
	if err != nil {
		return nil, nil, err
	}
	if err := judge(path, before); err != nil {
		return nil, nil, err
	}
	f, err := open(path, follow)
	if err != nil {
		if isSymlinkErr(err) {
			return nil, nil, &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
		}
		return nil, nil, err
	}
	fi, err := f.Stat()
	if err == nil {
		err = judge(path, fi)
	}
	if err == nil && !os.SameFile(before, fi) {
		err = &fs.PathError{Op: "open", Path: path, Err: errors.New("it was replaced while it was opened")}
	}
	if err != nil {
		f.Close()
		return nil, nil, err
	}
	return f, fi, nil
}

func judge(path string, fi fs.FileInfo) error {
	switch {
	case fi.Mode()&fs.ModeSymlink != 0:
		return &fs.PathError{Op: "open", Path: path, Err: ErrSymlink}
	case !fi.Mode().IsRegular():
		return &fs.PathError{Op: "open", Path: path, Err: notRegular{kindOf(fi.Mode())}}
	}
	return nil
}

// ReadAll reads the rest of f, at most limit bytes: a file that holds more
// is an error wrapping ErrTooLarge, read no further than one byte past
// limit.
func ReadAll(f *os.File, limit int64) ([]byte, error) {
	b, err := io.ReadAll(io.LimitReader(f, limit+1))
	if err != nil {
		return nil, err
	}
	if int64(len(b)) > limit {
		return nil, &fs.PathError{Op: "read", Path: f.Name(), Err: tooLarge{limit}}
	}
	return b, nil
}

// Read is Open and ReadAll: the regular file at path, at most limit bytes.
func Read(path string, follow bool, limit int64) ([]byte, fs.FileInfo, error) {
	f, fi, err := Open(path, follow)
	if err != nil {
		return nil, nil, err
	}
	defer f.Close()
	b, err := ReadAll(f, limit)
	if err != nil {
		return nil, nil, err
	}
	return b, fi, nil
}
