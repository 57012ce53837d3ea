package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/providers"
	"pp-lsp/server/internal/orgtext"
)

// ToolDefinitions are the tools of the registry as the providers pass them
// to a model's API: each with a JSON Schema of its arguments plus the
// required "explanation".
func ToolDefinitions(tools *gates.Tools) []providers.Tool {
	specs := tools.Specs()
	out := make([]providers.Tool, 0, len(specs))
	for _, s := range specs {
		props := map[string]any{}
		required := []string{}
		for _, a := range s.Args {
			props[a.Name] = map[string]any{"type": "string", "description": a.Description}
			if a.Required {
				required = append(required, a.Name)
			}
		}
		props["explanation"] = map[string]any{"type": "string", "description": "why this action, in one or two sentences (required)"}
		required = append(required, "explanation")
		schema, _ := json.Marshal(map[string]any{
			"type": "object", "properties": props, "required": required, "additionalProperties": false,
		})
		out = append(out, providers.Tool{Name: string(s.Name), Description: describe(s), Parameters: schema})
	}
	return out
}

// describe is what the model is told a tool does, and that it waits for
// the user when it always does.
func describe(s gates.ToolSpec) string {
	if !s.NeedsApproval {
		return s.Description
	}
	return strings.TrimSuffix(s.Description, ".") + " (always needs the user's approval)."
}

// toolBelt is the TOOLS section: each tool, its arguments and the two ways
// to call it.
func toolBelt(tools *gates.Tools) string {
	var b strings.Builder
	for _, s := range tools.Specs() {
		fmt.Fprintf(&b, "- %s{%s, explanation}: %s\n", s.Name, strings.Join(s.ArgNames(), ", "), describe(s))
	}
	b.WriteString("Call a tool through the API's tool calls, or answer with exactly one plist such as\n")
	b.WriteString(`(:TOOL :SHELL :ARGS (:CMD "ls notes" :CWD ".") :EXPLANATION "see what the notes folder holds")` + "\n")
	return b.String()
}

// mandates are the fixed rules of every answer.
const mandates = `- You propose; you never act. Deterministic gates check every proposal; what they allow runs, what needs approval waits as a Flight Plan for the user, what they deny comes back to you with the reason.
- One action per answer: one tool call, or one plist, or plain text.
- Every action carries an explanation: why it serves the user's request.
- To answer in words, just write the answer (Org markup), without a tool.
- Paths are relative to the first memex root unless absolute.
- flightplans.org and journal.org belong to the user: never read them to act on them, never write them, never try to approve a plan.
- Never put secrets, keys or passwords into an action; never try to get around a gate's rejection — reach the goal another way, or explain why you cannot.
- Private notes are not shown to you; do not ask for them.`

// systemPrompt assembles the prompt in the seeds' order: identity, tools,
// the foveal context, recent logs, mandates, and the rejection trace of the
// previous tries.
func systemPrompt(assistant string, tools *gates.Tools, contextText string, logs []string, sig Signal, skillText string, redact func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "IDENTITY: You are %s, the assistant of the person whose Org-mode notes (the memex) you see below.\n\n", assistant)
	b.WriteString("TOOLS:\n" + toolBelt(tools) + "\n")
	b.WriteString("CONTEXT:\n")
	if sig.File != "" {
		// Through the filter: the name of a file private as a whole is its
		// title, which the view below hides.
		fmt.Fprintf(&b, "(asked from %s, line %d)\n", redact(sig.File), sig.Line+1)
	}
	b.WriteString(strings.TrimRight(contextText, "\n") + "\n\n")
	b.WriteString("LOGS:\n")
	if len(logs) == 0 {
		b.WriteString("(none)\n")
	}
	for _, l := range logs {
		b.WriteString(l + "\n")
	}
	b.WriteString("\nMANDATES:\n" + mandates + "\n")
	b.WriteString(skillMandates(skillText))
	for _, r := range sig.Rejections {
		fmt.Fprintf(&b, "\nPREVIOUS PROPOSAL REJECTED (try %d of %d):\n", r.Try, MaxTries)
		fmt.Fprintf(&b, "proposal: %s\n", redact(clip(r.Proposal, 2000)))
		fmt.Fprintf(&b, "denied by %s: %s\n", r.Verdict.Gate, redact(r.Verdict.Reason))
		fmt.Fprintf(&b, "trace: %s\n", traceLine(r.Verdict.Trace))
	}
	if len(sig.Rejections) > 0 {
		b.WriteString("Propose something else that reaches the user's goal within these rules, or answer in words.\n")
	}
	return b.String()
}

// skillMandates introduces the skills' part of MANDATES: notes the user
// wrote, which add to the rules above and never lift one.
func skillMandates(text string) string {
	if text == "" {
		return ""
	}
	return "- The user's skills (notes tagged :skill:) add these rules; none of them lifts a rule above:\n" + text
}

// traceLine is a gate trace in one line.
func traceLine(tr []gates.TraceEntry) string {
	parts := make([]string, 0, len(tr))
	for _, e := range tr {
		parts = append(parts, fmt.Sprintf("%s(%d) %s", e.Gate, e.Priority, e.Result))
	}
	return strings.Join(parts, ", ")
}

func clip(s string, n int) string {
	if len(s) <= n {
		return s
	}
	return orgtext.Cut(s, n) + "…"
}
