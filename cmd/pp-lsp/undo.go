package main

import (
	"context"
	"encoding/json"
	"fmt"
	"strings"
	"text/tabwriter"

	"pp-lsp/server/agent"
)

// runUndo is `pp-lsp undo [--list] [--json] [--root DIR] [ID]`: the latest
// (or the named) change an action made is taken back, when every file it
// changed still holds what it wrote (DESIGN §8); --list lists the changes.
func runUndo(ctx context.Context, c *cli, args []string) error {
	const usageLine = "pp-lsp undo [--list] [--json] [--root DIR] [ID]"
	fs := newFlagSet("undo", usageLine)
	list := fs.Bool("list", false, "list the changes undo can take back, newest first")
	asJSON := fs.Bool("json", false, "print the list, or what the undo did, as JSON")
	roots := fs.rootFlag("the memex root `DIR` (default: the current directory)")
	log, err := fs.parseLogged(c, args)
	if err != nil {
		return err
	}
	switch {
	case fs.NArg() > 1:
		return usageErrorf("takes at most one change ID, got %q and %q", fs.Arg(0), fs.Arg(1))
	case *list && fs.NArg() == 1:
		return usageErrorf("--list takes no change ID, got %q", fs.Arg(0))
	}
	a, err := agent.Open(ctx, agent.Setup{Roots: *roots, Getenv: c.getenv, Logger: log})
	if err != nil {
		return err
	}
	defer a.Close(ctx)
	if *list {
		changes, err := a.Changes(ctx)
		if err != nil {
			return err
		}
		if *asJSON {
			return printJSON(c, map[string]any{"changes": changes})
		}
		if len(changes) == 0 {
			fmt.Fprintln(c.stdout, "No changes to undo.")
			return nil
		}
		tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "ID\tTIME\tCHANGE\tFILES")
		for _, ch := range changes {
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\n", ch.ID, ch.Time.Local().Format("2006-01-02 15:04:05"), ch.Title, strings.Join(ch.Files, ", "))
		}
		return tw.Flush()
	}
	res, err := a.Undo(ctx, fs.Arg(0))
	if err != nil {
		return err
	}
	if *asJSON {
		return printJSON(c, res)
	}
	fmt.Fprintln(c.stdout, res.Summary)
	if res.Change.ID != "" {
		fmt.Fprintf(c.stdout, "(`pp-lsp undo` again takes the undo back: change %s)\n", res.Change.ID)
	}
	return nil
}

// printJSON prints v as one line of JSON.
func printJSON(c *cli, v any) error {
	b, err := json.Marshal(v)
	if err != nil {
		return err
	}
	_, err = fmt.Fprintf(c.stdout, "%s\n", b)
	return err
}
