package main

import (
	"context"
	"encoding/json"
	"fmt"
	"text/tabwriter"

	"pp-lsp/server/agent"
)

// plansReport is what `pp-lsp plans --json` prints.
type plansReport struct {
	Plans []agent.PlanInfo `json:"plans"`
	Runs  []planRunJSON    `json:"runs,omitempty"`
}

// planRunJSON is one plan handled by --run-approved.
type planRunJSON struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	State   string `json:"state"`
	Ran     bool   `json:"ran"`
	Summary string `json:"summary,omitempty"`
	Error   string `json:"error,omitempty"`
}

// runPlans is `pp-lsp plans [--json] [--root DIR] [--run-approved]`: the
// Flight Plans in flightplans.org; with --run-approved, every APPROVED plan
// runs first (DESIGN §8).
func runPlans(ctx context.Context, c *cli, args []string) error {
	const usageLine = "pp-lsp plans [--json] [--root DIR] [--run-approved]"
	fs := newFlagSet("plans", usageLine)
	asJSON := fs.Bool("json", false, "print the plans as one JSON object")
	runApproved := fs.Bool("run-approved", false, "run every APPROVED plan (each at most once, whoever else approves it)")
	roots := fs.rootFlag("the memex root `DIR` holding flightplans.org (default: the current directory)")
	log, err := fs.parseLogged(c, args)
	if err != nil {
		return err
	}
	if fs.NArg() > 0 {
		return usageErrorf("takes no operands, got %q", fs.Arg(0))
	}
	a, err := agent.Open(ctx, agent.Setup{Roots: *roots, Getenv: c.getenv, Logger: log})
	if err != nil {
		return err
	}
	defer a.Close(ctx)

	var rep plansReport
	var failed int
	if *runApproved {
		runs, err := a.Pickup(ctx)
		if err != nil {
			return err
		}
		for _, r := range runs {
			j := planRunJSON{ID: r.ID, Title: r.Title, State: string(r.State), Ran: r.Ran, Summary: r.Summary}
			if r.Err != nil {
				j.Error = r.Err.Error()
				failed++
			}
			rep.Runs = append(rep.Runs, j)
			if !*asJSON {
				agent.DescribeRun(c.stderr, r)
			}
		}
	}
	if rep.Plans, err = a.Plans(ctx); err != nil {
		return err
	}
	if rep.Plans == nil {
		rep.Plans = []agent.PlanInfo{}
	}
	if *asJSON {
		b, err := json.Marshal(rep)
		if err != nil {
			return err
		}
		fmt.Fprintf(c.stdout, "%s\n", b)
	} else {
		tw := tabwriter.NewWriter(c.stdout, 0, 4, 2, ' ', 0)
		fmt.Fprintln(tw, "STATE\tID\tTOOL\tCREATED\tTITLE")
		for _, p := range rep.Plans {
			title := p.Title
			switch {
			case p.Problem != "":
				title += "  [" + p.Problem + "]"
			case p.Edited:
				title += "  [edited: gated again on approval]"
			}
			fmt.Fprintf(tw, "%s\t%s\t%s\t%s\t%s\n", p.State, p.ID, p.Tool, p.Created, title)
		}
		tw.Flush()
	}
	if failed > 0 {
		return fmt.Errorf("%s could not be handled (see above)", plural(failed, "approved plan"))
	}
	return nil
}
