package main

import (
	"errors"
	"flag"
	"fmt"
	"io"
	"log/slog"
	"strconv"
	"strings"
	"time"
)

// usageError marks bad usage or bad input: the process exits 2.
type usageError struct{ msg string }

func (e *usageError) Error() string { return e.msg }

func usageErrorf(format string, a ...any) error {
	return &usageError{msg: fmt.Sprintf(format, a...)}
}

// errHelp ends a command after its help was printed.
var errHelp = errors.New("help printed")

// flagSet is one subcommand's command line. The flags are declared on the
// embedded flag.FlagSet, which serves as their registry only: parse reads
// the arguments itself, so that every mistake is reported once, as one
// sentence naming the flag ("--budget: "abc" is not a whole number"), with
// two dashes as the help shows them, and without the usage dumped after
// it. --help (or -h) prints the usage to stdout and ends the command.
type flagSet struct {
	*flag.FlagSet
	usageLine string
	// interspersed lets flags follow operands ("outline a.org --json");
	// ask turns it off, so that its question is free words.
	interspersed bool
	operands     []string
	logLevel     string
	logFormat    string
	roots        *stringList // declared by rootFlag
}

// newFlagSet makes the flag set of subcommand name, with the logging
// flags every command shares.
func newFlagSet(name, usageLine string) *flagSet {
	fs := &flagSet{FlagSet: flag.NewFlagSet(name, flag.ContinueOnError), usageLine: usageLine, interspersed: true}
	fs.SetOutput(io.Discard)
	fs.StringVar(&fs.logLevel, "log-level", "", "log `LEVEL` on stderr: debug, info, warn or error (default: $"+envLog+", else warn)")
	fs.StringVar(&fs.logFormat, "log-format", "", "log `FORMAT` on stderr: human (one line per warning), text (slog's key=value) or json")
	return fs
}

// rootFlag declares the repeatable --root flag (usage "" says the usual).
// After parse it holds the roots given, or the current directory.
func (fs *flagSet) rootFlag(usage string) *stringList {
	if usage == "" {
		usage = "a memex root `DIR` (repeatable; default: the current directory)"
	}
	fs.roots = &stringList{}
	fs.Var(fs.roots, "root", usage)
	return fs.roots
}

// parseLogged parses args, then makes the command's logger from them.
func (fs *flagSet) parseLogged(c *cli, args []string) (*slog.Logger, error) {
	if err := fs.parse(c, args); err != nil {
		return nil, err
	}
	return fs.logger(c)
}

// Args, NArg and Arg are the operands parse left, in order.
func (fs *flagSet) Args() []string { return fs.operands }
func (fs *flagSet) NArg() int      { return len(fs.operands) }
func (fs *flagSet) Arg(i int) string {
	if i < 0 || i >= len(fs.operands) {
		return ""
	}
	return fs.operands[i]
}

// parse reads args: flags as --name, --name=value or --name value (one
// dash works too), "--" ending them. It returns errHelp after printing the
// usage to c.stdout for --help, and a usageError naming the flag at fault
// otherwise.
func (fs *flagSet) parse(c *cli, args []string) error {
	fs.operands = nil
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			fs.operands = append(fs.operands, args[i+1:]...)
			return nil
		}
		if len(a) < 2 || a[0] != '-' {
			if !fs.interspersed {
				fs.operands = append(fs.operands, args[i:]...)
				return nil
			}
			fs.operands = append(fs.operands, a)
			continue
		}
		name := strings.TrimPrefix(strings.TrimPrefix(a, "-"), "-")
		name, value, hasValue := strings.Cut(name, "=")
		if name == "" || name[0] == '-' {
			return usageErrorf("%s is not a flag; '%s --help' lists them", a, fs.command())
		}
		if name == "h" || name == "help" {
			fs.printUsage(c.stdout)
			return errHelp
		}
		f := fs.Lookup(name)
		if f == nil {
			return usageErrorf("--%s: no such flag; '%s --help' lists them", name, fs.command())
		}
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); ok && b.IsBoolFlag() {
			if !hasValue {
				value = "true"
			}
		} else if !hasValue {
			if i+1 >= len(args) {
				return usageErrorf("--%s needs a value (--%s %s)", name, name, argName(f))
			}
			i++
			value = args[i]
		}
		if err := f.Value.Set(value); err != nil {
			return usageErrorf("--%s: %s", name, badValue(f, value, err))
		}
	}
	if fs.roots != nil && len(*fs.roots) == 0 {
		*fs.roots = stringList{"."}
	}
	return nil
}

// command is how the user runs this subcommand: "pp-lsp context".
func (fs *flagSet) command() string { return "pp-lsp " + fs.Name() }

// badValue says why value does not suit flag f. The standard flag types
// report "parse error"; our own Values word their errors themselves.
func badValue(f *flag.Flag, value string, err error) string {
	if g, ok := f.Value.(flag.Getter); ok {
		switch g.Get().(type) {
		case int, int64, uint, uint64:
			return fmt.Sprintf("%q is not a whole number", value)
		case float64:
			return fmt.Sprintf("%q is not a number", value)
		case bool:
			return fmt.Sprintf("%q is not true or false", value)
		case time.Duration:
			return fmt.Sprintf("%q is not a duration such as 30s or 5m", value)
		}
	}
	return err.Error()
}

// printUsage writes the usage line and each flag with two dashes.
func (fs *flagSet) printUsage(w io.Writer) {
	fmt.Fprintf(w, "Usage: %s\n", fs.usageLine)
	type row struct{ left, usage string }
	var rows []row
	width := 0
	fs.VisitAll(func(f *flag.Flag) {
		_, usage := flag.UnquoteUsage(f)
		left := "--" + f.Name
		if b, ok := f.Value.(interface{ IsBoolFlag() bool }); !ok || !b.IsBoolFlag() {
			left += " " + argName(f)
		}
		width = max(width, len(left))
		rows = append(rows, row{left, usage})
	})
	if len(rows) > 0 {
		fmt.Fprintln(w, "\nFlags:")
	}
	for _, r := range rows {
		fmt.Fprintf(w, "  %-*s  %s\n", width, r.left, r.usage)
	}
}

// argName is what a flag's value is called in the help: the back-quoted
// word of its usage ("a memex root `DIR`"), N for a number, else VALUE.
func argName(f *flag.Flag) string {
	switch arg, _ := flag.UnquoteUsage(f); arg {
	case "int", "uint":
		return "N"
	case "string", "value", "":
		return "VALUE"
	default:
		return arg
	}
}

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
