package journal

import (
	"encoding/json"
	"fmt"
	"strings"
	"time"

	"pp-lsp/gates"
	"pp-lsp/server/internal/orgtext"
)

// Kind says what an entry records.
type Kind string

// The kinds of entry.
const (
	// KindProposal is one proposal of the model and the gates' verdict on it.
	KindProposal Kind = "proposal"
	// KindPlan is a Flight Plan filed for approval.
	KindPlan Kind = "plan"
	// KindApproval is a human's approval of a plan, as the server saw it.
	KindApproval Kind = "approval"
	// KindRejection is a human's rejection of a plan.
	KindRejection Kind = "rejection"
	// KindEdit is a plan whose action was edited after filing and gated again.
	KindEdit Kind = "edit"
	// KindResult is what an action did when it ran (DONE or FAILED).
	KindResult Kind = "result"
	// KindDropped is a signal dropped by the depth limit.
	KindDropped Kind = "dropped"
	// KindForeign is a plan seen in flightplans.org that the server never
	// filed (no valid filing record): it never runs.
	KindForeign Kind = "foreign"
	// KindCall is a client's request that reads the memex (an MCP
	// client's search, node, view): who asked what, and what it came to.
	KindCall Kind = "call"
	// KindStart is a server's start: how it confines commands (DESIGN §12).
	KindStart Kind = "start"
	// KindRule is a permission rule a human added by approving a plan and
	// allowing similar actions from then on.
	KindRule Kind = "rule"
	// KindUndo is a change an action made, undone by a human (or an undo
	// undone: redone).
	KindUndo Kind = "undo"
	// KindTurn is a conversation's turn (DESIGN §13): the model that
	// answered and the tokens it took.
	KindTurn Kind = "turn"
	// KindRefused is a human's approval the server refused because the
	// plan changed since they saw it (its action, or the diff of what it
	// would overwrite): nothing ran.
	KindRefused Kind = "refused"
)

// Entry is one record. Only Kind and Title are required; everything else is
// written when set.
type Entry struct {
	Kind Kind
	// Time is when it happened (zero: now).
	Time time.Time
	// Title summarises the entry in one line (made safe by the journal).
	Title string
	// Source, Session and RequestID say who asked.
	Source, Session, RequestID string
	// Tool and ActionHash name the action (ActionHash: gates' Action.Hash).
	Tool       string
	ActionHash string
	// Try is the attempt number within one pass (1-based; 0: not a try).
	Try int
	// PlanID links the entry to a Flight Plan.
	PlanID string
	// Verdict is the gates' answer, written with its whole trace.
	Verdict *gates.Verdict
	// Status is a plan's state after the event (APPROVED, DONE, FAILED…).
	Status string
	// Action is the action as JSON. The caller decides what is safe to keep
	// (see Summary for actions that must not be stored whole).
	Action []byte
	// Text is free text: a result's output, a reason. It is written in an
	// example block, bounded by MaxText.
	Text string
	// Skills are the titles of the skills that shaped the proposal.
	Skills []string
	// Private marks an entry of a private conversation's pass, or of a
	// plan one filed (written as :PRIVATE: t): what it says may quote
	// private notes, so it is never handed to a model.
	Private bool
}

// MaxText bounds Entry.Text as written; the rest is cut with a note.
const MaxText = 16 << 10

// render writes e with prevHash and id, in the format the package doc
// defines. Property values are one line each.
func render(e Entry, id, prevHash string) []byte {
	var b strings.Builder
	title := orgtext.Title(string(e.Kind)+" "+e.Title, 160)
	fmt.Fprintf(&b, "* %s %s\n", orgtext.Inactive(e.Time), title)
	b.WriteString(":PROPERTIES:\n")
	prop := func(k, v string) {
		if v = orgtext.Title(v, 400); v != "" {
			fmt.Fprintf(&b, "%-14s%s\n", ":"+k+":", v)
		}
	}
	prop("ID", id)
	prop("TIME", e.Time.UTC().Format(time.RFC3339Nano))
	prop("KIND", string(e.Kind))
	prop("SOURCE", e.Source)
	prop("SESSION", e.Session)
	prop("REQUEST", e.RequestID)
	prop("TOOL", e.Tool)
	prop("ACTION_HASH", e.ActionHash)
	if e.Try > 0 {
		prop("TRY", fmt.Sprint(e.Try))
	}
	prop("PLAN", e.PlanID)
	if e.Verdict != nil {
		prop("VERDICT", e.Verdict.Verdict)
		prop("GATE", e.Verdict.Gate)
	}
	prop("STATUS", e.Status)
	if len(e.Skills) > 0 {
		quoted := make([]string, len(e.Skills))
		for i, k := range e.Skills {
			quoted[i] = fmt.Sprintf("%q", k)
		}
		prop("SKILLS", strings.Join(quoted, " "))
	}
	if e.Private {
		prop("PRIVATE", "t")
	}
	prop("PREV_HASH", prevHash)
	b.WriteString(":END:\n")
	if e.Verdict != nil {
		if e.Verdict.Reason != "" {
			b.WriteString(orgtext.Paragraph("Reason: " + orgtext.Title(e.Verdict.Reason, 2000)))
		}
		v, _ := json.Marshal(e.Verdict)
		b.WriteString(orgtext.JSONBlock(string(v)))
	}
	if len(e.Action) > 0 {
		b.WriteString(orgtext.JSONBlock(string(e.Action)))
	}
	if e.Text != "" {
		text := e.Text
		if len(text) > MaxText {
			text = orgtext.Cut(text, MaxText) + fmt.Sprintf("\n[… %d more bytes not kept]", len(e.Text)-MaxText)
		}
		b.WriteString("#+begin_example\n" + orgtext.Block(orgtext.Defuse(text)) + "#+end_example\n")
	}
	return []byte(b.String())
}

// Summary is what the journal keeps of an action that must not be stored
// whole — a denied one may carry the very secret it was denied for: its
// tool, and each argument's size, never a value.
func Summary(a gates.Action) []byte {
	sizes := map[string]int{}
	for k, v := range a.Args {
		sizes[k] = len(v)
	}
	out, _ := json.Marshal(struct {
		Tool           gates.Tool     `json:"tool"`
		ArgBytes       map[string]int `json:"arg_bytes"`
		ExplainedBytes int            `json:"explanation_bytes"`
		Note           string         `json:"note"`
	}{a.Tool, sizes, len(a.Explanation), "arguments not kept: a denied action may hold a secret"})
	return out
}
