package main

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/server/skills"
)

func runSkills(ctx context.Context, c *cli, args []string) error {
	const usageLine = "pp-lsp skills [--json] [--root DIR]..."
	fs := newFlagSet("skills", usageLine)
	asJSON := fs.Bool("json", false, "print the skills as one JSON array")
	roots := fs.rootFlag("")
	log, err := fs.parseLogged(c, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("takes no operands, got %q (roots go after --root)", fs.Arg(0))
	}
	m, err := memory.Open(ctx, memory.Options{Roots: *roots, Home: gates.DefaultWorld(c.getenv, *roots).Home, Logger: log})
	if err != nil {
		if errors.Is(err, memory.ErrRoot) {
			return err
		}
		return fmt.Errorf("cannot index the memex: %w", err)
	}
	defer m.Close(ctx)
	set := skills.Read(m.Snapshot(), gates.BuiltinTools(), skills.Builtins())
	if *asJSON {
		b, err := json.Marshal(set.Entries())
		if err != nil {
			return fmt.Errorf("cannot encode the skills: %w", err)
		}
		_, err = fmt.Fprintf(c.stdout, "%s\n", b)
		return err
	}
	printSkills(c.stdout, set.Entries())
	return nil
}

// printSkills is one line per skill in the order they apply, and the
// problem below it.
func printSkills(w io.Writer, es []skills.Entry) {
	if len(es) == 0 {
		fmt.Fprintln(w, "no skills: tag a headline :skill: to write one")
		return
	}
	for _, e := range es {
		where := fmt.Sprintf("%s:%d", e.File, e.Line)
		if e.Builtin {
			where = "built in"
		}
		trigger := e.Trigger
		if trigger == "" {
			trigger = "-"
		}
		fmt.Fprintf(w, "%-5s %4d  %s  (%s; trigger %s", e.State, e.Priority, e.Title, where, trigger)
		if e.Scheduled != "" {
			fmt.Fprintf(w, "; scheduled %s", e.Scheduled)
		}
		fmt.Fprintln(w, ")")
		if e.Problem != "" {
			fmt.Fprintf(w, "      %s\n", e.Problem)
		}
	}
}
