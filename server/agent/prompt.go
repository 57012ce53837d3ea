package agent

import (
	"encoding/json"
	"fmt"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/providers"
	"pp-lsp/server/internal/orgtext"
)

// toolSpec describes one tool of DESIGN §6 to the model.
type toolSpec struct {
	tool gates.Tool
	what string
	args [][3]string // name, description, "required" or ""
}

var toolSpecs = []toolSpec{
	{gates.ToolMessage, "Answer the user in words (plain text works too).", [][3]string{{"text", "the answer, in Org markup", "required"}}},
	{gates.ToolFileRead, "Read a file; its text comes back to you.", [][3]string{{"path", "relative to the first memex root, or absolute, or ~/…", "required"}}},
	{gates.ToolFileWrite, "Replace a file's whole content (inside the memex roots).", [][3]string{{"path", "relative to the first memex root", "required"}, {"content", "the new content, whole", "required"}}},
	{gates.ToolMemoryEdit, "Replace the body of the Org node with this :ID: (its headline, properties and children stay).", [][3]string{{"id", "the node's :ID:", "required"}, {"content", "the new body, without headlines", "required"}}},
	{gates.ToolShell, "Run a shell command (bash) inside the memex roots; its output comes back to you.", [][3]string{{"cmd", "the command line", "required"}, {"cwd", "working folder, relative to the first root (default .)", ""}}},
	{gates.ToolHTTP, "Make an HTTP request (always needs the user's approval).", [][3]string{{"method", "GET, POST, …", "required"}, {"url", "the URL", "required"}, {"body", "the request body", ""}}},
	{gates.ToolSend, "Send a message through a configured channel (always needs the user's approval).", [][3]string{{"channel", "the channel's name", "required"}, {"to", "the recipient", "required"}, {"text", "the message", "required"}}},
	{gates.ToolEval, "Evaluate code with an interpreter (always needs the user's approval).", [][3]string{{"lang", "python, sh, bash, javascript, ruby, perl, lisp, elisp", "required"}, {"code", "the code", "required"}}},
}

// ToolDefinitions are the tools as the providers pass them to a model's
// API: each with a JSON Schema of its arguments plus the required
// "explanation".
func ToolDefinitions() []providers.Tool {
	out := make([]providers.Tool, 0, len(toolSpecs))
	for _, s := range toolSpecs {
		props := map[string]any{}
		required := []string{}
		for _, a := range s.args {
			props[a[0]] = map[string]any{"type": "string", "description": a[1]}
			if a[2] != "" {
				required = append(required, a[0])
			}
		}
		props["explanation"] = map[string]any{"type": "string", "description": "why this action, in one or two sentences (required)"}
		required = append(required, "explanation")
		schema, _ := json.Marshal(map[string]any{
			"type": "object", "properties": props, "required": required, "additionalProperties": false,
		})
		out = append(out, providers.Tool{Name: string(s.tool), Description: s.what, Parameters: schema})
	}
	return out
}

// toolBelt is the TOOLS section: each tool, its arguments and the two ways
// to call it.
func toolBelt() string {
	var b strings.Builder
	for _, s := range toolSpecs {
		names := make([]string, 0, len(s.args))
		for _, a := range s.args {
			n := a[0]
			if a[2] == "" {
				n += "?"
			}
			names = append(names, n)
		}
		fmt.Fprintf(&b, "- %s{%s, explanation}: %s\n", s.tool, strings.Join(names, ", "), s.what)
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
func systemPrompt(assistant, contextText string, logs []string, sig Signal, redact func(string) string) string {
	var b strings.Builder
	fmt.Fprintf(&b, "IDENTITY: You are %s, the assistant of the person whose Org-mode notes (the memex) you see below.\n\n", assistant)
	b.WriteString("TOOLS:\n" + toolBelt() + "\n")
	b.WriteString("CONTEXT:\n")
	if sig.File != "" {
		fmt.Fprintf(&b, "(asked from %s, line %d)\n", sig.File, sig.Line+1)
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
