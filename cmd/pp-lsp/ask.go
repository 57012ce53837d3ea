package main

import (
	"context"
	"fmt"
	"io"
	"strings"

	"pp-lsp/server/agent"
)

// runAsk is `pp-lsp ask [--root DIR]... FILE:LINE TEXT`: one pass of the
// pipeline (DESIGN §7). The answer streams to stdout; each proposal's
// verdict and what happened go to stderr.
func runAsk(ctx context.Context, c *cli, args []string) error {
	const usageLine = "pp-lsp ask [--root DIR]... FILE:LINE TEXT"
	fs := newFlagSet("ask", usageLine)
	fs.interspersed = false // the question is free words, "-x" among them
	roots := fs.rootFlag("")
	log, err := fs.parseLogged(c, args)
	if err != nil {
		return err
	}
	if fs.NArg() < 2 {
		return usageErrorf("needs FILE:LINE and a question (usage: %s)", usageLine)
	}
	file, line, err := parseFileLine(fs.Arg(0))
	if err != nil {
		return err
	}
	if file, err = orgFileArg(file); err != nil {
		return err
	}
	text := strings.Join(fs.Args()[1:], " ")
	a, err := agent.Open(ctx, agent.Setup{Roots: *roots, Getenv: c.getenv, RequireProvider: true, Logger: log})
	if err != nil {
		return err
	}
	defer a.Close(ctx)

	out := &trailing{w: c.stdout}
	res, err := a.Ask(ctx, agent.AskRequest{Source: agent.SourceCLI, File: file, Line: line - 1, Text: text}, out.write)
	out.end()
	for _, p := range res.Passes {
		if p.Status == agent.StatusFailed && len(p.Tries) == 0 {
			continue // nothing was proposed: the error below says what failed
		}
		agent.Describe(c.stderr, p)
	}
	if err != nil {
		return err
	}
	switch res.Status {
	case agent.StatusDenied:
		return fmt.Errorf("the gates denied every proposal (%d tries); nothing ran", res.Tries)
	case agent.StatusFailed:
		return res.Passes[len(res.Passes)-1].Err
	case agent.StatusDropped:
		return fmt.Errorf("stopped at the depth limit (%d)", agent.MaxDepth)
	}
	return nil
}

// trailing writes the streamed answer and ends it with a newline.
type trailing struct {
	w    io.Writer
	last byte
}

func (t *trailing) write(s string) error {
	if s == "" {
		return nil
	}
	t.last = s[len(s)-1]
	_, err := io.WriteString(t.w, s)
	return err
}

func (t *trailing) end() {
	if t.last != 0 && t.last != '\n' {
		io.WriteString(t.w, "\n")
	}
}
