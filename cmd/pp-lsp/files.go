package main

import (
	"errors"
	"io"
	"os"
	"path/filepath"

	"pp-lsp/internal/plainerr"
	"pp-lsp/memory"
)

// orgFileArg checks a FILE operand before any work: it exists, it is a
// file, and it is text by memory's rule (a binary file named .org is never
// indexed, so context and ask would only fail later, less clearly). It
// returns the file's absolute path; any fault is bad input (exit 2).
func orgFileArg(name string) (string, error) {
	abs, err := filepath.Abs(name)
	if err != nil {
		return "", usageErrorf("cannot find %s: %s", name, plainerr.Reason(err))
	}
	f, err := os.Open(abs)
	if err != nil {
		return "", &usageError{msg: plainerr.File("read", "", name, err).Error()}
	}
	defer f.Close()
	fi, err := f.Stat()
	switch {
	case err != nil:
		return "", &usageError{msg: plainerr.File("read", "", name, err).Error()}
	case fi.IsDir():
		return "", usageErrorf("%s is a folder; give an Org file", name)
	case !fi.Mode().IsRegular():
		return "", usageErrorf("%s is not a regular file; give an Org file", name)
	}
	sample := make([]byte, 8<<10)
	n, err := io.ReadFull(f, sample)
	if err != nil && !errors.Is(err, io.ErrUnexpectedEOF) && !errors.Is(err, io.EOF) {
		return "", &usageError{msg: plainerr.File("read", "", name, err).Error()}
	}
	if err := memory.CheckText(sample[:n]); err != nil {
		return "", notTextError(name, err)
	}
	return abs, nil
}

// notTextError is bad input: a file that is not text where Org is wanted.
func notTextError(name string, err error) error {
	return usageErrorf("%s is not an Org file: %v", name, err)
}
