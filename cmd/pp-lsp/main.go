// Command pp-lsp is Passepartout for editors: a language server, a framed-TCP
// daemon and a pipe-friendly CLI over the user's Org files.
//
// This package is wiring only: it parses flags and calls into server, memory,
// gates and providers. Every subcommand lives in its own file.
package main

import (
	"context"
	"errors"
	"fmt"
	"io"
	"os"
	"os/signal"
	"sort"
	"strings"
	"syscall"

	"pp-lsp/memory"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/agent"
)

// version is the release; the build may override it with -ldflags "-X main.version=…".
var version = "0.1.0-dev"

// cli is what a subcommand may touch of the outside world. Tests build one
// with buffers and a fixed environment; main builds it from the process.
type cli struct {
	stdin  io.Reader
	stdout io.Writer
	stderr io.Writer
	getenv func(string) string
}

// command is one subcommand: its one-line summary, its usage line and its body.
type command struct {
	usage   string
	summary string
	run     func(ctx context.Context, c *cli, args []string) error
}

// commands is the table of subcommands; `pp-lsp --stdio` is handled before it.
func commands() map[string]command {
	return map[string]command{
		"version": {"pp-lsp version", "print the version", runVersion},
		"outline": {"pp-lsp outline --json FILE...", "outline of each Org file, as Emacs's org-element sees it", runOutline},
		"index":   {"pp-lsp index --json [--root DIR]...", "index a memex and print its figures", runIndex},
		"context": {"pp-lsp context [--json] [--root DIR]... [--budget N] FILE:LINE", "the foveal-peripheral context the model would see from FILE:LINE", runContext},
		"gate":    {"pp-lsp gate [--root DIR] [--config FILE]", "JSON-lines actions on stdin → JSON-lines verdicts on stdout", runGate},
		"ask":     {"pp-lsp ask [--root DIR]... FILE:LINE TEXT", "one pass of the pipeline, the answer streamed to stdout", runAsk},
		"plans":   {"pp-lsp plans [--json] [--root DIR] [--run-approved]", "list Flight Plans; execute approved ones", runPlans},
		"skills":  {"pp-lsp skills [--json] [--root DIR]...", "the skills found in the memex, in the order they apply", runSkills},
		"undo":    {"pp-lsp undo [--list] [--json] [--root DIR] [ID]", "undo the latest (or the named) change an action made", runUndo},
		"serve":   {"pp-lsp serve --tcp ADDR [--root DIR]...", "the framed-TCP daemon alone", runServe},
		"mcp":     {"pp-lsp mcp [--root DIR]... [--config FILE] [--rescan SECONDS]", "the memex and the gated actions for other agents: MCP on stdin and stdout", runMCP},
		"doctor":  {"pp-lsp doctor [--root DIR]... [--config FILE]", "check configuration, roots, data dir, journal, sandbox, providers, editors", runDoctor},
		"demo":    {"pp-lsp demo [--keep]", "a guided tour on a temporary copy of examples/memex", runDemo},
	}
}

func main() {
	sandbox.Main() // as the sandbox's helper, this process runs one confined command and exits
	ctx, stop := signal.NotifyContext(context.Background(), os.Interrupt, syscall.SIGTERM)
	code := run(ctx, &cli{stdin: os.Stdin, stdout: os.Stdout, stderr: os.Stderr, getenv: os.Getenv}, os.Args[1:])
	stop()
	os.Exit(code)
}

// run executes one command line and returns the process exit code:
// 0 success, 1 a failed operation, 2 bad usage or input. Whatever went
// wrong is one line on stderr, "pp-lsp COMMAND: what is wrong".
func run(ctx context.Context, c *cli, args []string) int {
	name := ""
	if len(args) > 0 {
		name = args[0]
		if strings.HasPrefix(name, "-") && name != "-h" && name != "--help" {
			name = "--stdio"
		}
	}
	c, flush := forPeople(c, name, args)
	defer flush()
	name, err := dispatch(ctx, c, args)
	switch {
	case err == nil || errors.Is(err, errHelp):
		return 0
	case errors.Is(err, errNoCommand):
		return 2 // the usage on stderr says it all
	}
	prefix := "pp-lsp"
	if name != "" {
		prefix += " " + name
	}
	fmt.Fprintln(c.stderr, prefix+": "+oneLine(err.Error()))
	return exitCode(err)
}

// exitCode is 2 for bad usage or input — ours, or what the packages below
// mark as the caller's (a root that is no folder, a configuration that
// does not parse) — and 1 for any other failure.
func exitCode(err error) int {
	var u *usageError
	if errors.As(err, &u) || errors.Is(err, agent.ErrUsage) || errors.Is(err, memory.ErrRoot) {
		return 2
	}
	return 1
}

// errNoCommand is a bare `pp-lsp`: the usage is printed instead of an error.
var errNoCommand = errors.New("no command given")

// dispatch runs the command args name and returns its name, for the
// error's prefix, with its error.
func dispatch(ctx context.Context, c *cli, args []string) (string, error) {
	if len(args) == 0 {
		usage(c.stderr)
		return "", errNoCommand
	}
	switch name := args[0]; {
	case name == "-h" || name == "--help" || name == "help":
		usage(c.stdout)
		return "", nil
	case name == "--version" || name == "-version":
		return "", runVersion(ctx, c, nil)
	case name == "--stdio" || name == "-stdio" || strings.HasPrefix(name, "--tcp") || strings.HasPrefix(name, "--config"):
		return "--stdio", runStdio(ctx, c, args)
	case strings.HasPrefix(name, "-"):
		return "", usageErrorf("%s: no such flag; a command comes first ('pp-lsp --help' lists them)", strings.SplitN(name, "=", 2)[0])
	default:
		cmd, ok := commands()[name]
		if !ok {
			return "", usageErrorf("%q is not a command; 'pp-lsp --help' lists them", name)
		}
		return name, cmd.run(ctx, c, args[1:])
	}
}

func usage(w io.Writer) {
	fmt.Fprintf(w, "pp-lsp %s — Passepartout for editors\n\nUsage:\n", version)
	fmt.Fprintf(w, "  %-60s %s\n", "pp-lsp --stdio [--tcp ADDR]", "language server on stdin/stdout (with --tcp also the bridge)")
	cmds := commands()
	names := make([]string, 0, len(cmds))
	for n := range cmds {
		names = append(names, n)
	}
	sort.Strings(names)
	for _, n := range names {
		fmt.Fprintf(w, "  %-60s %s\n", cmds[n].usage, cmds[n].summary)
	}
	fmt.Fprintln(w, "\nRun 'pp-lsp COMMAND --help' for a command's flags. Exit status: 0 ok, 1 failed, 2 bad usage or input.")
}

func runVersion(_ context.Context, c *cli, args []string) error {
	fs := newFlagSet("version", "pp-lsp version")
	if err := fs.parse(c, args); err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("takes no operands, got %q", fs.Arg(0))
	}
	fmt.Fprintf(c.stdout, "pp-lsp %s\n", version)
	return nil
}
