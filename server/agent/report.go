package agent

import (
	"fmt"
	"io"
	"strings"
)

// Describe writes what a pass did, for a person reading stderr: each
// proposal with its verdict and gate trace, then what happened.
func Describe(w io.Writer, p Pass) {
	prefix := ""
	if p.Depth > 0 {
		prefix = fmt.Sprintf("[depth %d] ", p.Depth)
	}
	for _, t := range p.Tries {
		fmt.Fprintf(w, "%stry %d: %s → %s by %s", prefix, t.N, clip(oneLine(t.Proposal), 160), t.Verdict.Verdict, t.Verdict.Gate)
		if t.Verdict.Reason != "" {
			fmt.Fprintf(w, ": %s", oneLine(t.Verdict.Reason))
		}
		fmt.Fprintf(w, "\n%s  trace: %s\n", prefix, traceLine(t.Verdict.Trace))
	}
	switch p.Status {
	case StatusRan:
		fmt.Fprintf(w, "%sran %s: %s\n", prefix, p.Action.Tool, summaryOf(*p.Result, p.Err))
		writeOutput(w, prefix, p.Result.Output)
		for _, warn := range p.Result.Warnings {
			fmt.Fprintf(w, "%sWARNING: %s\n", prefix, warn)
		}
	case StatusAnswered:
		fmt.Fprintf(w, "%sanswered: %s\n", prefix, p.Result.Summary)
	case StatusFiled:
		fmt.Fprintf(w, "%sfiled as Flight Plan %s: it waits for your approval in flightplans.org (switch PLAN to APPROVED and save the file; `pp-lsp plans` lists the plans)\n", prefix, p.PlanID)
	case StatusDenied:
		fmt.Fprintf(w, "%sdenied after %d tries: nothing ran\n", prefix, len(p.Tries))
	case StatusFailed:
		fmt.Fprintf(w, "%sfailed: %v\n", prefix, p.Err)
		if r := p.RolledBack; r != nil {
			fmt.Fprintf(w, "%srolled back: %d files restored, %d removed, %d buffers to restore, %d left alone\n", prefix, len(r.Restored), len(r.Removed), len(r.Buffers), len(r.Conflicts))
		}
	case StatusDropped:
		fmt.Fprintf(w, "%sdropped: deeper than %d signals\n", prefix, MaxDepth)
	case StatusCancelled:
		fmt.Fprintf(w, "%scancelled\n", prefix)
	}
}

// DescribeRun writes what happened to a plan.
func DescribeRun(w io.Writer, r PlanRun) {
	if r.Err != nil {
		fmt.Fprintf(w, "plan %s (%s): %v\n", r.ID, r.Title, r.Err)
		return
	}
	// The summary starts with the state when the plan's file records it
	// so ("DONE: exit status 0"); said once here.
	summary := strings.TrimPrefix(oneLine(r.Summary), string(r.State)+": ")
	fmt.Fprintf(w, "plan %s (%s): %s — %s\n", r.ID, r.Title, r.State, summary)
	if r.Verdict != nil {
		fmt.Fprintf(w, "  gates at approval: %s by %s; trace: %s\n", r.Verdict.Verdict, r.Verdict.Gate, traceLine(r.Verdict.Trace))
	}
}

func oneLine(s string) string { return strings.Join(strings.Fields(s), " ") }

// outputLines bounds how much of an action's output a report shows; the
// model saw all of it (within the actuator's own cap).
const outputLines = 20

// writeOutput shows an action's output indented under its report line, its
// first outputLines lines and a count of the rest.
func writeOutput(w io.Writer, prefix, out string) {
	out = strings.TrimRight(out, "\n")
	if out == "" {
		return
	}
	lines := strings.Split(out, "\n")
	for i, l := range lines {
		if i == outputLines {
			fmt.Fprintf(w, "%s  │ … %d more lines\n", prefix, len(lines)-outputLines)
			break
		}
		fmt.Fprintf(w, "%s  │ %s\n", prefix, l)
	}
}
