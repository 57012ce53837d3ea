package main

import (
	"context"
	"fmt"
	"io"
	"os"
	"strings"

	"pp-lsp/server/agent"
)

// runAsk is `pp-lsp ask [--root DIR]... [--chat FILE | --no-chat]
// [FILE:LINE] TEXT`: one question through the pipeline (DESIGN §7), in a
// conversation (§13): a new one unless --chat continues one or --no-chat
// keeps it out of any. The answer streams to stdout; each proposal's
// verdict and what happened, the model and its tokens, and the
// conversation's file go to stderr.
func runAsk(ctx context.Context, c *cli, args []string) error {
	const usageLine = "pp-lsp ask [--root DIR]... [--chat FILE | --no-chat] [FILE:LINE] TEXT"
	fs := newFlagSet("ask", usageLine)
	fs.interspersed = false // the question is free words, "-x" among them
	roots := fs.rootFlag("")
	chatFile := fs.String("chat", "", "continue the conversation in `FILE` (FILE:LINE is then optional)")
	noChat := fs.Bool("no-chat", false, "keep the question out of any conversation")
	log, err := fs.parseLogged(c, args)
	if err != nil {
		return err
	}
	if *chatFile != "" && *noChat {
		return usageErrorf("--chat and --no-chat contradict each other; give one")
	}
	req := agent.AskRequest{Source: agent.SourceCLI, NewChat: !*noChat}
	ops := fs.Args()
	if *chatFile != "" {
		if req.Chat, err = orgFileArg(*chatFile); err != nil {
			return err
		}
		if len(ops) > 1 {
			// FILE:LINE is optional here: the first word is one when it
			// names an existing file.
			if f, l, perr := parseFileLine(ops[0]); perr == nil {
				if _, serr := os.Stat(f); serr == nil {
					req.File, req.Line, ops = f, l-1, ops[1:]
				}
			}
		}
		if len(ops) == 0 {
			return usageErrorf("needs a question (usage: %s)", usageLine)
		}
	} else {
		if len(ops) < 2 {
			return usageErrorf("needs FILE:LINE and a question (usage: %s)", usageLine)
		}
		file, line, err := parseFileLine(ops[0])
		if err != nil {
			return err
		}
		req.File, req.Line, ops = file, line-1, ops[1:]
	}
	if req.File != "" {
		if req.File, err = orgFileArg(req.File); err != nil {
			return err
		}
	}
	req.Text = strings.Join(ops, " ")
	a, err := agent.Open(ctx, agent.Setup{Roots: *roots, Getenv: c.getenv, RequireProvider: true, Logger: log})
	if err != nil {
		return err
	}
	defer a.Close(ctx)

	out := &trailing{w: c.stdout}
	res, err := a.Ask(ctx, req, out.write)
	out.end()
	for _, p := range res.Passes {
		if p.Status == agent.StatusFailed && len(p.Tries) == 0 {
			continue // nothing was proposed: the error below says what failed
		}
		agent.Describe(c.stderr, p)
	}
	if res.Model != "" {
		fmt.Fprintf(c.stderr, "answered by %s: %s\n", res.Model, res.Usage)
	}
	if res.Chat != "" {
		fmt.Fprintf(c.stderr, "chat: %s\n", res.Chat)
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
