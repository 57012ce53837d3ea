package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"strconv"
	"strings"
)

// usageError marks bad usage or bad input: the process exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// newFlagSet makes a flag set for subcommand name that reports errors as
// usage errors instead of exiting, and prints its help to out on -h.
func newFlagSet(name, usageLine string, out io.Writer) *flag.FlagSet {
	fs := flag.NewFlagSet(name, flag.ContinueOnError)
	fs.SetOutput(out)
	fs.Usage = func() {
		fmt.Fprintf(out, "Usage: %s\n", usageLine)
		fs.PrintDefaults()
	}
	return fs
}

// parseFlags parses args; -h prints help and ends the command successfully
// (errHelp), anything else wrong is a usage error.
func parseFlags(fs *flag.FlagSet, args []string) error {
	if err := fs.Parse(args); err != nil {
		if errors.Is(err, flag.ErrHelp) {
			return errHelp
		}
		return &usageError{msg: fs.Name() + ": " + err.Error()}
	}
	return nil
}

// errHelp ends a command after its help was printed.
var errHelp = errors.New("help printed")

// stringList is a repeatable string flag (--root A --root B).
type stringList []string

func (s *stringList) String() string     { return strings.Join(*s, ",") }
func (s *stringList) Set(v string) error { *s = append(*s, v); return nil }

// parseFileLine splits "FILE:LINE" (LINE 1-based) at its last colon.
func parseFileLine(arg string) (string, int, error) {
	i := strings.LastIndexByte(arg, ':')
	if i <= 0 || i == len(arg)-1 {
		return "", 0, usageErrorf("%q is not FILE:LINE", arg)
	}
	line, err := strconv.Atoi(arg[i+1:])
	if err != nil || line < 1 {
		return "", 0, usageErrorf("%q: LINE must be a positive integer", arg)
	}
	return arg[:i], line, nil
}
