package mcp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"strings"

	"github.com/google/jsonschema-go/jsonschema"
	sdk "github.com/modelcontextprotocol/go-sdk/mcp"

	"pp-lsp/gates"
	"pp-lsp/memory/foveal"
	"pp-lsp/server/agent"
)

// The tools of DESIGN §16. Each is a typed handler (its JSON Schema made by
// the SDK from the argument and result structs) that converts its
// arguments into the agent's plain-data request and the agent's answer
// into its result, as the bridge's backend does for frames. Lists come
// wrapped in an object ({"hits": […]}): a structuredContent is an object.

// SearchArgs are memex_search's arguments.
type SearchArgs struct {
	Query string `json:"query" jsonschema:"words of a title or alias, or what the notes are about"`
	K     int    `json:"k,omitempty" jsonschema:"how many hits to return (default 10, at most 100)"`
}

// Hit is one search hit.
type Hit struct {
	ID    string  `json:"id" jsonschema:"the node's :ID:, or its synthetic key: what node_read and backlinks take"`
	Title string  `json:"title"`
	File  string  `json:"file" jsonschema:"the node's file, absolute"`
	Line  int     `json:"line" jsonschema:"the 1-based line of its headline (1 for a file)"`
	Score float64 `json:"score" jsonschema:"0 to 1, higher is better"`
}

// SearchResult is memex_search's result.
type SearchResult struct {
	Hits []Hit `json:"hits"`
}

// ContextArgs are memex_context's arguments.
type ContextArgs struct {
	File   string `json:"file" jsonschema:"an Org file of the memex: absolute, or relative to the first root"`
	Line   int    `json:"line" jsonschema:"the 1-based line the view is centred on"`
	Budget int    `json:"budget,omitempty" jsonschema:"the token budget (default: the configured one, 4000)"`
}

// maxBudget bounds memex_context's budget: a model's whole context, and
// never the whole of a large memex at once.
const maxBudget = 1_000_000

// IDArgs are node_read's and backlinks' arguments.
type IDArgs struct {
	ID string `json:"id" jsonschema:"a node's :ID: or synthetic key, as memex_search returns it"`
}

// NodeResult is node_read's result.
type NodeResult struct {
	ID    string `json:"id"`
	Title string `json:"title"`
	File  string `json:"file"`
	Line  int    `json:"line"`
	Text  string `json:"text" jsonschema:"the node's subtree as Org text, private parts cut out"`
}

// BacklinkItem is one link landing on a node.
type BacklinkItem struct {
	ID      string `json:"id" jsonschema:"the node holding the link"`
	Title   string `json:"title"`
	File    string `json:"file"`
	Line    int    `json:"line" jsonschema:"the 1-based line of the link"`
	Context string `json:"context" jsonschema:"the line around the link"`
}

// BacklinksResult is backlinks' result.
type BacklinksResult struct {
	Backlinks []BacklinkItem `json:"backlinks"`
}

// ProposeArgs are propose_action's arguments.
type ProposeArgs struct {
	Action map[string]any `json:"action" jsonschema:"the action: {\"tool\": one of shell file_read file_write http message send eval memory_edit, \"args\": {…}, \"explanation\": why}"`
}

// RunResult is what an allowed action did.
type RunResult struct {
	OK       bool   `json:"ok"`
	Summary  string `json:"summary"`
	Output   string `json:"output" jsonschema:"what it printed or returned, private notes replaced by [private]"`
	ExitCode int    `json:"exit_code"`
}

// ProposeResult is propose_action's result: the gates' verdict and what
// became of the action.
type ProposeResult struct {
	Verdict string             `json:"verdict" jsonschema:"allow, ask or deny"`
	Gate    string             `json:"gate" jsonschema:"the gate that decided"`
	Reason  string             `json:"reason"`
	Trace   []gates.TraceEntry `json:"trace"`
	Status  string             `json:"status" jsonschema:"ran, answered, filed, denied, failed or cancelled"`
	Summary string             `json:"summary"`
	Tool    string             `json:"tool,omitempty"`
	PlanID  string             `json:"plan_id,omitempty" jsonschema:"the Flight Plan waiting for the human's approval (ask)"`
	Result  *RunResult         `json:"result,omitempty" jsonschema:"what the action did (allow)"`
}

// privatePlanTitle stands in plans_list for the title of a plan a
// private conversation filed.
const privatePlanTitle = "(a plan of a private conversation)"

// privatePlanProblem stands in plans_list for the problem of such a plan.
const privatePlanProblem = "the plan cannot run as it is (its action was edited or damaged): pp-lsp plans says why"

// NoArgs are plans_list's arguments: none.
type NoArgs struct{}

// PlansResult is plans_list's result.
type PlansResult struct {
	Plans []agent.PlanInfo `json:"plans"`
}

// tool is one tool as the guard knows it.
type tool struct {
	name  string
	check func(json.RawMessage) error
}

func (s *Server) toolNamed(name string) (tool, bool) {
	for _, t := range s.tools() {
		if t.name == name {
			return t, true
		}
	}
	return tool{}, false
}

// The descriptions tell the client's model what each tool does and, for
// actions, how the gates and approval work.
const (
	descSearch = "Search the user's Org memex (their notes) by title, alias and meaning. " +
		"Returns the best hits with their id, title, file, line and a score from 0 to 1. Private notes never appear."
	descContext = "The foveal-peripheral view of the memex from a place: the node at file:line in full, its ancestors, " +
		"related notes, and the rest of the memex as an outline, within a token budget; with its figures. Private notes never appear."
	descNodeRead  = "Read one node of the memex (a headline and its subtree, or a whole file) as Org text, by the id memex_search gave. A private node is reported as not found."
	descBacklinks = "List the links landing on a node of the memex: the node holding each link, where it is, and the line around it."
	descPlans     = "List the Flight Plans (actions waiting for, or done after, the human's approval): id, state (PLAN, APPROVED, DONE, FAILED, REJECTED), title, tool, when created, and the gate that asked."
)

// describePropose is propose_action's description, its list of tools and
// of those that always need approval read from the registry the gates
// judge and the actuators run (gates.Tools).
func describePropose(tools *gates.Tools) string {
	var list, human []string
	for _, sp := range tools.Specs() {
		list = append(list, fmt.Sprintf("%s{%s}", sp.Name, strings.Join(sp.ArgNames(), ",")))
		if sp.NeedsApproval {
			human = append(human, string(sp.Name))
		}
	}
	d := "Propose an action for pp-lsp to carry out. Every action is checked by pp-lsp's deterministic gates (no model decides) and journalled. " +
		"The verdict decides what happens: \"allow\" runs it now — shell commands in a sandbox that can write only under the memex roots and cannot reach the network — and returns its output, with private notes replaced by [private]; " +
		"\"ask\" runs nothing: it files a Flight Plan (returned as plan_id) in flightplans.org, which runs only after the human approves it in their editor (PLAN → APPROVED, saved); you cannot approve it, and plans_list shows its state; " +
		"\"deny\" runs nothing and returns the deciding gate, its reason and the trace — do not try variants to get around it. "
	if len(human) > 0 {
		d += strings.Join(human, ", ") + " always need the human's approval. "
	}
	return d + `The action is a JSON object: {"tool": "shell", "args": {"cmd": "ls notes", "cwd": "."}, "explanation": "why"} (the explanation is required) — tools: ` +
		strings.Join(list, " ") + "; paths are relative to the first root."
}

// tools lists every tool with its decoder (for the guard).
func (s *Server) tools() []tool {
	return []tool{
		{"memex_search", checker[SearchArgs]("memex_search")},
		{"memex_context", checker[ContextArgs]("memex_context")},
		{"node_read", checker[IDArgs]("node_read")},
		{"backlinks", checker[IDArgs]("backlinks")},
		{"propose_action", checker[ProposeArgs]("propose_action")},
		{"plans_list", checker[NoArgs]("plans_list")},
	}
}

func checker[In any](name string) func(json.RawMessage) error {
	return func(raw json.RawMessage) error {
		_, err := decodeArgs[In](name, raw)
		return err
	}
}

// readOnly marks a tool that changes nothing.
var readOnly = &sdk.ToolAnnotations{ReadOnlyHint: true, OpenWorldHint: new(false)}

func (s *Server) addTools() {
	addRead(s, &sdk.Tool{Name: "memex_search", Title: "Search the memex", Description: descSearch, Annotations: readOnly},
		func(ctx context.Context, a *agent.Agent, in SearchArgs) (SearchResult, string, error) {
			hits, err := a.Search(ctx, agent.SearchRequest{Query: in.Query, K: in.K})
			out := SearchResult{Hits: make([]Hit, 0, len(hits))}
			for _, h := range hits {
				out.Hits = append(out.Hits, Hit{ID: h.ID, Title: h.Title, File: h.File, Line: h.Line, Score: h.Score})
			}
			return out, fmt.Sprintf("%d hits", len(hits)), err
		})
	addRead(s, &sdk.Tool{Name: "memex_context", Title: "The view from a place in the memex", Description: descContext, Annotations: readOnly},
		func(ctx context.Context, a *agent.Agent, in ContextArgs) (foveal.View, string, error) {
			if in.Line < 1 {
				return foveal.View{}, "", fmt.Errorf("line %d is not a line number: lines count from 1", in.Line)
			}
			if in.Budget > maxBudget {
				return foveal.View{}, "", fmt.Errorf("a budget of %d tokens is more than the %d a view may take", in.Budget, maxBudget)
			}
			v, err := a.View(ctx, agent.ContextRequest{File: in.File, Line: in.Line - 1, Budget: in.Budget})
			if err != nil {
				return foveal.View{}, "", err
			}
			if v.Semantic == nil {
				v.Semantic = []foveal.Related{}
			}
			return *v, fmt.Sprintf("%d tokens", v.Tokens), nil
		})
	addRead(s, &sdk.Tool{Name: "node_read", Title: "Read a node", Description: descNodeRead, Annotations: readOnly},
		func(ctx context.Context, a *agent.Agent, in IDArgs) (NodeResult, string, error) {
			n, err := a.Node(ctx, in.ID)
			if err != nil {
				return NodeResult{}, "", err
			}
			return NodeResult{ID: n.ID, Title: n.Title, File: n.File, Line: n.Line, Text: n.Text}, fmt.Sprintf("%d bytes", len(n.Text)), nil
		})
	addRead(s, &sdk.Tool{Name: "backlinks", Title: "Links to a node", Description: descBacklinks, Annotations: readOnly},
		func(ctx context.Context, a *agent.Agent, in IDArgs) (BacklinksResult, string, error) {
			bls, err := a.Backlinks(ctx, in.ID)
			out := BacklinksResult{Backlinks: make([]BacklinkItem, 0, len(bls))}
			for _, b := range bls {
				out.Backlinks = append(out.Backlinks, BacklinkItem{ID: b.ID, Title: b.Title, File: b.File, Line: b.Line, Context: b.Context})
			}
			return out, fmt.Sprintf("%d backlinks", len(bls)), err
		})
	addRead(s, &sdk.Tool{Name: "plans_list", Title: "List the Flight Plans", Description: descPlans, Annotations: readOnly},
		func(ctx context.Context, a *agent.Agent, _ NoArgs) (PlansResult, string, error) {
			plans, err := a.Plans(ctx)
			if plans == nil {
				plans = []agent.PlanInfo{}
			}
			for i := range plans {
				// The action's hash is for approving, which no MCP client
				// can; of a private plan it would confirm a guess at its
				// action.
				plans[i].Hash = ""
				plans[i].Revision = ""
				if plans[i].Private {
					// A private conversation's plan: its title, and its
					// problem (which names the plan by its title, or
					// quotes its action), may quote the conversation,
					// which no client is shown.
					plans[i].Title = privatePlanTitle
					if plans[i].Problem != "" {
						plans[i].Problem = privatePlanProblem
					}
				}
			}
			return PlansResult{Plans: plans}, fmt.Sprintf("%d plans", len(plans)), err
		})
	sdk.AddTool(s.srv, &sdk.Tool{Name: "propose_action", Title: "Propose a gated action", Description: describePropose(s.opts.Tools),
		Annotations: &sdk.ToolAnnotations{DestructiveHint: new(true), OpenWorldHint: new(true)}}, s.propose)
}

// addRead registers t, a tool that reads the memex, with f as its work
// (see read). Unlike sdk.AddTool's typed handlers — which check the
// arguments against the input schema and the result against the output
// schema by decoding each into maps and encoding it again, several passes
// over a view of tens of kilobytes — it reads the arguments once with
// decodeArgs (as strict as the schema: the guard has refused anything
// else already) and encodes the result once, for structuredContent and
// its text alike. The client is shown the same schemas: jsonschema's of
// the same types, as the SDK derives them (TestReadToolsKeepTheSDKsSchemas).
func addRead[In, Out any](s *Server, t *sdk.Tool, f func(context.Context, *agent.Agent, In) (Out, string, error)) {
	in, err := jsonschema.For[In](&jsonschema.ForOptions{})
	if err == nil {
		t.InputSchema = in
		var out *jsonschema.Schema
		out, err = jsonschema.For[Out](&jsonschema.ForOptions{})
		t.OutputSchema = out
	}
	if err != nil {
		// The types are this package's own: a test would have failed.
		panic(fmt.Sprintf("the schema of %s: %v", t.Name, err))
	}
	h := read(s, t.Name, f)
	s.srv.AddTool(t, func(ctx context.Context, req *sdk.CallToolRequest) (*sdk.CallToolResult, error) {
		args, err := decodeArgs[In](t.Name, req.Params.Arguments)
		if err != nil {
			return toolError(err), nil
		}
		res, out, _ := h(ctx, req, args)
		if res != nil {
			return res, nil
		}
		b, err := json.Marshal(out)
		if err != nil {
			return toolError(fmt.Errorf("the result of %s could not be encoded: %w", t.Name, err)), nil
		}
		return &sdk.CallToolResult{Content: []sdk.Content{&sdk.TextContent{Text: string(b)}}, StructuredContent: json.RawMessage(b)}, nil
	})
}

// read is a tool that reads the memex: it waits for the agent, runs f,
// journals the call (what was asked, what it came to) and only then
// answers — a call that cannot be journalled answers nothing.
func read[In, Out any](s *Server, name string, f func(context.Context, *agent.Agent, In) (Out, string, error)) sdk.ToolHandlerFor[In, Out] {
	return func(ctx context.Context, req *sdk.CallToolRequest, in In) (*sdk.CallToolResult, Out, error) {
		var zero Out
		a, err := s.agentFor(ctx, req)
		if err != nil {
			return toolError(err), zero, nil
		}
		out, outcome, err := f(ctx, a, in)
		c := agent.Call{Source: agent.SourceMCP, Session: s.session, Name: name, Args: jsonOneLine(in), Outcome: outcome}
		if err != nil {
			c.Failed, c.Outcome = true, sentence(err.Error())
		}
		if jerr := a.Record(ctx, c); jerr != nil {
			return toolError(fmt.Errorf("nothing is answered: %w", jerr)), zero, nil
		}
		if err != nil {
			return toolError(err), zero, nil
		}
		return nil, out, nil
	}
}

// propose is propose_action: the action's own bytes go to the agent,
// which gates, journals and acts on them.
func (s *Server) propose(ctx context.Context, req *sdk.CallToolRequest, _ ProposeArgs) (*sdk.CallToolResult, ProposeResult, error) {
	a, err := s.agentFor(ctx, req)
	if err != nil {
		return toolError(err), ProposeResult{}, nil
	}
	res, err := a.Propose(ctx, agent.ProposeRequest{Action: rawArg(req.Params.Arguments, "action"), Source: agent.SourceMCP, Session: s.session})
	if err != nil {
		if errors.Is(err, agent.ErrBadAction) {
			return toolError(fmt.Errorf("the action was denied by the validator, nothing ran: %w", err)), ProposeResult{}, nil
		}
		return toolError(err), ProposeResult{}, nil
	}
	out := ProposeResult{Verdict: res.Verdict.Verdict, Gate: res.Verdict.Gate, Reason: res.Verdict.Reason, Trace: res.Verdict.Trace,
		Status: string(res.Status), Summary: res.Summary, Tool: string(res.Tool), PlanID: res.PlanID}
	if out.Trace == nil {
		out.Trace = []gates.TraceEntry{}
	}
	if r := res.Result; r != nil {
		out.Result = &RunResult{OK: r.OK && res.Err == nil, Summary: r.Summary, Output: r.Output + r.Shown, ExitCode: r.ExitCode}
	}
	return nil, out, nil
}
