package flightplan

import (
	"fmt"
	"strings"

	"pp-lsp/orgast"
)

// Severity is an LSP diagnostic severity.
type Severity int

// The LSP severities the plans' diagnostics use.
const (
	SeverityError       Severity = 1
	SeverityWarning     Severity = 2
	SeverityInformation Severity = 3
)

// Diagnostic is something the editor should show on a plan's headline.
type Diagnostic struct {
	// Line is the 0-based line of the plan's headline; Range its bytes.
	Line     int
	Range    orgast.Range
	Severity Severity
	Message  string
}

// Diagnostics reads src (the text of a Flight Plans file, as the editor has
// it) and says, for each plan, what the server sees: waiting for approval
// and why (the gate trace, from the store), approved but not saved (disk is
// the file as saved, nil when there is none: only a saved APPROVED runs),
// edited since filing, foreign (no valid filing record: it never runs), an
// action that does not decode, a duplicate or malformed ID. store may be nil
// (then every plan is foreign).
func Diagnostics(src, disk []byte, store *Store) []Diagnostic {
	plans := Parse(src)
	saved := map[string]State{}
	for _, p := range Parse(disk) {
		saved[p.ID] = p.State
	}
	seen := map[string]int{}
	for _, p := range plans {
		seen[p.ID]++
	}
	var out []Diagnostic
	for i := range plans {
		p := &plans[i]
		add := func(sev Severity, format string, a ...any) {
			out = append(out, Diagnostic{Line: p.Line, Range: p.headline, Severity: sev, Message: fmt.Sprintf(format, a...)})
		}
		switch {
		case p.ID == "":
			add(SeverityWarning, "this headline has no :ID:, so it is not a Flight Plan the server can run")
			continue
		case !ValidID(p.ID):
			add(SeverityError, "the plan's :ID: %q is not a UUID: the server will not run it", p.ID)
			continue
		case seen[p.ID] > 1:
			add(SeverityError, "another plan carries the same :ID: %s: neither runs until the copy has its own ID", p.ID)
			continue
		}
		if p.State.Final() {
			continue
		}
		st := store.Standing(p)
		if st.Foreign != "" {
			add(SeverityError, "this plan was not filed by pp-lsp (%s): it never runs, approved or not; ask again to have the action filed", st.Foreign)
			continue
		}
		var rec *Record
		if r, ok, err := store.Load(p.ID); err == nil && ok {
			rec = &r
		}
		switch {
		case p.ActionErr != nil:
			add(SeverityError, "the action cannot run: %v", p.ActionErr)
		case st.Edited:
			add(SeverityWarning, "the action was edited after filing (it no longer hashes to its filing record): on approval it goes back to PLAN, is gated again and needs a fresh approval")
		case p.State == StatePlan:
			add(SeverityInformation, "waiting for approval (switch PLAN to APPROVED and save to run it, REJECTED to drop it): %s", why(p, rec))
		case p.State == StateApproved && saved[p.ID] != StateApproved:
			add(SeverityInformation, "approved in this buffer only: save the file to run it (an APPROVED that is not saved never runs); %s", why(p, rec))
		case p.State == StateApproved:
			add(SeverityInformation, "approved: it runs at the next pickup; %s", why(p, rec))
		}
	}
	return out
}

// why is the gate's reason and trace in one line.
func why(p *Plan, rec *Record) string {
	if rec == nil || rec.Verdict == nil {
		return "asked by " + p.Gate
	}
	v := rec.Verdict
	var tr []string
	for _, e := range v.Trace {
		tr = append(tr, e.Gate+" "+e.Result)
	}
	return fmt.Sprintf("%s by %s: %s (trace: %s)", v.Verdict, v.Gate, v.Reason, strings.Join(tr, ", "))
}

// Hover is the Markdown an editor shows over the plan at the 0-based line
// of src: its state, tool, the gate that asked and why, the whole trace,
// whether the action is still the one filed, and its result once run.
// ok is false when no plan's headline is on that line.
func Hover(src []byte, line int, store *Store) (string, bool) {
	plans := Parse(src)
	for i := range plans {
		p := &plans[i]
		if p.Line != line {
			continue
		}
		var b strings.Builder
		fmt.Fprintf(&b, "**Flight Plan** `%s` — **%s**\n\n", p.ID, p.State)
		fmt.Fprintf(&b, "Tool `%s`, asked by the `%s` gate, filed %s.\n\n", p.Tool, p.Gate, p.Created)
		var rec *Record
		if ValidID(p.ID) {
			if r, ok, err := store.Load(p.ID); err == nil && ok {
				rec = &r
			}
		}
		st := store.Standing(p)
		if rec != nil && rec.Verdict != nil {
			fmt.Fprintf(&b, "Verdict **%s** by `%s`: %s\n\n", rec.Verdict.Verdict, rec.Verdict.Gate, rec.Verdict.Reason)
			b.WriteString("| gate | priority | result |\n|---|---|---|\n")
			for _, e := range rec.Verdict.Trace {
				fmt.Fprintf(&b, "| %s | %d | %s |\n", e.Gate, e.Priority, e.Result)
			}
			b.WriteString("\n")
		}
		switch {
		case st.Foreign != "":
			fmt.Fprintf(&b, "**Not filed by pp-lsp**: %s. This plan never runs.\n", st.Foreign)
		case p.ActionErr != nil:
			fmt.Fprintf(&b, "The action cannot run: %v\n", p.ActionErr)
		case st.Edited:
			fmt.Fprintf(&b, "The action was **edited** after filing: it hashes to `%s`, not `%s`. On approval it goes back to PLAN, is gated again and needs a fresh approval.\n", p.Action.Hash(), st.Record.ActionHash)
		default:
			fmt.Fprintf(&b, "The action is the one filed (`%s`).\n", st.Record.ActionHash)
		}
		if len(p.Writes) > 0 {
			b.WriteString("\nThe gates found that it writes:\n")
			for _, w := range p.Writes {
				fmt.Fprintf(&b, "- `%s`\n", w)
			}
		}
		if p.Diff != "" {
			b.WriteString("\nWhat it changes:\n\n" + Fence("diff", p.Diff))
		}
		if rec != nil && rec.Result != "" {
			fmt.Fprintf(&b, "\nResult: %s\n", rec.Result)
		}
		return b.String(), true
	}
	return "", false
}

// Fence is text in a Markdown code fence longer than any run of
// backticks inside it.
func Fence(lang, text string) string {
	n := 3
	for run, i := 0, 0; i < len(text); i++ {
		if text[i] == '`' {
			run++
			n = max(n, run+1)
		} else {
			run = 0
		}
	}
	f := strings.Repeat("`", n)
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return f + lang + "\n" + text + f + "\n"
}
