package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"
	"slices"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"

	"pp-lsp/server/agent"
)

// executeParams are the params of workspace/executeCommand. Every command
// takes one argument, an object.
type executeParams struct {
	Command       string            `json:"command"`
	Arguments     []json.RawMessage `json:"arguments"`
	WorkDoneToken json.RawMessage   `json:"workDoneToken"`
}

// The commands of workspace/executeCommand. Each takes one argument, an
// object, decoded into the command's own type.
const (
	CommandContext = "passepartout.context"
	CommandAsk     = "passepartout.ask"
	CommandApprove = "passepartout.approve"
	CommandReject  = "passepartout.reject"
	// CommandApproveAlways approves a plan and allows similar actions from
	// then on (agent.ApproveAlways).
	CommandApproveAlways = "passepartout.approveAlways"
	// CommandUndo takes back the latest (or the named) change an action
	// made (agent.Undo).
	CommandUndo  = "passepartout.undo"
	CommandAddID = "passepartout.addId"
	CommandPlans = "passepartout.plans"
	CommandChats = "passepartout.chats"
	// CommandInsertAnswer puts the last answer into a note (answers.go).
	CommandInsertAnswer = "passepartout.insertAnswer"
)

// lspCommand is how one command is served.
type lspCommand struct {
	name string
	// args names the fields of its argument, for the error that a
	// malformed one gets.
	args string
	// needsAgent: it is answered errNoAgent when the agent is not running.
	needsAgent bool
	// progress: it reports $/progress on the request's workDoneToken (or
	// a token of the server's); the others never see the token.
	progress bool
	// serve decodes the argument into the command's type and runs it.
	serve func(ctx context.Context, v *view, arg json.RawMessage, token protocol.ProgressToken) (any, error)
}

// commandTable lists the commands, in the order initialize announces them.
// The editors' command lists and the package doc follow it
// (TestCommandListsFollowTheTable).
func (s *Server) commandTable() []lspCommand {
	return []lspCommand{
		commandOf(CommandContext, `{"uri", "position", "budget"}`, false, false, s.contextCommand),
		commandOf(CommandAsk, `{"uri", "position", "text", "chat", "noChat"}`, true, true, s.ask),
		commandOf(CommandApprove, `{"id", "hash"?, "revision"?} or {"uri", "position", "hash"?, "revision"?}`, true, false, func(ctx context.Context, v *view, a decideArgs, _ protocol.ProgressToken) (any, error) {
			return s.decide(ctx, v, a, decideApprove)
		}),
		commandOf(CommandReject, `{"id"} or {"uri", "position"}`, true, false, func(ctx context.Context, v *view, a decideArgs, _ protocol.ProgressToken) (any, error) {
			return s.decide(ctx, v, a, decideReject)
		}),
		commandOf(CommandApproveAlways, `{"id", "hash"?, "revision"?} or {"uri", "position", "hash"?, "revision"?}`, true, false, func(ctx context.Context, v *view, a decideArgs, _ protocol.ProgressToken) (any, error) {
			return s.decide(ctx, v, a, decideAlways)
		}),
		commandOf(CommandUndo, `{"id"?, "list"?}`, true, false, s.undo),
		commandOf(CommandAddID, `{"uri", "position"}`, false, false, s.addID),
		commandOf(CommandPlans, `{}`, true, false, s.plans),
		commandOf(CommandBacklinks, `{"uri", "position"}`, false, false, s.backlinks),
		commandOf(CommandUnlinked, `{"uri", "position"}`, false, false, s.unlinked),
		commandOf(CommandDaily, `{"date"}`, false, false, s.daily),
		commandOf(CommandCreateNode, `{"uri", "position"}`, false, false, s.createNode),
		commandOf(CommandSkills, `{}`, true, false, s.skillsCommand),
		commandOf(CommandRunSkill, `{"name"}`, true, false, s.runSkill),
		commandOf(CommandChats, `{}`, true, false, s.chats),
		commandOf(CommandInsertAnswer, `{"uri", "position"}`, false, false, s.insertAnswer),
	}
}

// commandOf makes a table entry whose argument decodes into A.
func commandOf[A any](name, args string, needsAgent, progress bool, run func(ctx context.Context, v *view, a A, token protocol.ProgressToken) (any, error)) lspCommand {
	return lspCommand{name: name, args: args, needsAgent: needsAgent, progress: progress,
		serve: func(ctx context.Context, v *view, raw json.RawMessage, token protocol.ProgressToken) (any, error) {
			var a A
			if err := json.Unmarshal(raw, &a); err != nil {
				return nil, userErrorf("%s takes %s: %v", name, args, err)
			}
			return run(ctx, v, a, token)
		}}
}

// commandNames are the commands initialize announces.
func (s *Server) commandNames() []string {
	var out []string
	for _, c := range s.commands {
		out = append(out, c.name)
	}
	return out
}

// executeCommand runs one of the commands of the table.
func (s *Server) executeCommand(ctx context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p executeParams
	if !absent(params) {
		if err := json.Unmarshal(params, &p); err != nil {
			return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "the params of workspace/executeCommand do not decode: %v", err)
		}
	}
	arg := json.RawMessage("{}")
	if len(p.Arguments) > 0 && !absent(p.Arguments[0]) {
		arg = p.Arguments[0]
	}
	token, err := progressToken(p.WorkDoneToken)
	if err != nil {
		return nil, err
	}
	i := slices.IndexFunc(s.commands, func(c lspCommand) bool { return c.name == p.Command })
	if i < 0 {
		return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q; the commands are %v", p.Command, s.commandNames())
	}
	c := s.commands[i]
	if c.needsAgent && v.agent == nil {
		return nil, s.noAgent()
	}
	if !c.progress {
		token = nil
	}
	return c.serve(ctx, v, arg, token)
}

// planItem is one plan of passepartout.plans: the agent's PlanInfo, and
// the URI of flightplans.org (the plans lists open it, and hover its
// headline for the plan's verdict and gate trace).
type planItem struct {
	agent.PlanInfo
	URI string `json:"uri"`
}

// plans is passepartout.plans: the Flight Plans (whatever its argument).
func (s *Server) plans(ctx context.Context, v *view, _ json.RawMessage, _ protocol.ProgressToken) (any, error) {
	plans, err := v.agent.Plans(ctx)
	if err != nil {
		return nil, err
	}
	u := string(uri.File(v.agent.PlansPath()))
	items := make([]planItem, 0, len(plans))
	for _, p := range plans {
		items = append(items, planItem{PlanInfo: p, URI: u})
	}
	return items, nil
}

// undoArgs name the change to undo ("": the latest), or ask for the list.
type undoArgs struct {
	ID   string `json:"id"`
	List bool   `json:"list"`
}

// undone is the answer of passepartout.undo.
type undone struct {
	// Undone is the change taken back; Change the undo's own.
	Undone  agent.ChangeInfo `json:"undone"`
	Change  agent.ChangeInfo `json:"change,omitzero"`
	Summary string           `json:"summary"`
}

// undo is passepartout.undo: {"list": true} lists the changes; otherwise
// the latest (or the named) change is taken back — open buffers through
// workspace/applyEdit — or refused, naming the file that changed since.
func (s *Server) undo(ctx context.Context, v *view, a undoArgs, _ protocol.ProgressToken) (any, error) {
	if a.List {
		return v.agent.Changes(ctx)
	}
	res, err := v.agent.Undo(ctx, a.ID)
	if err != nil {
		if errors.Is(err, agent.ErrUsage) {
			return nil, userErrorf("%v", err)
		}
		return nil, err // refused or failed: RequestFailed, as a plan that cannot run
	}
	s.showMessage(protocol.MessageTypeInfo, "pp-lsp: "+res.Summary)
	return undone{Undone: res.Undone, Change: res.Change, Summary: res.Summary}, nil
}

// chatInfo is one conversation in passepartout.chats's answer.
type chatInfo struct {
	URI     string `json:"uri"`
	Title   string `json:"title"`
	Turns   int    `json:"turns"`
	Last    string `json:"last,omitempty"`
	Model   string `json:"model,omitempty"`
	Private bool   `json:"private,omitempty"`
}

// chats lists the conversations, the latest first.
func (s *Server) chats(ctx context.Context, v *view, _ json.RawMessage, _ protocol.ProgressToken) (any, error) {
	chats, err := v.agent.Chats(ctx)
	if err != nil {
		return nil, err
	}
	out := []chatInfo{}
	for _, c := range chats {
		ci := chatInfo{URI: string(uri.File(c.Path)), Title: c.Title, Turns: c.Turns, Model: c.Model, Private: c.Private}
		if !c.Last.IsZero() {
			ci.Last = c.Last.Format("2006-01-02 15:04")
		}
		out = append(out, ci)
	}
	return out, nil
}

// errNoAgent answers the agent's commands when it is not running and the
// host knows no reason.
var errNoAgent = errors.New("the agent is not running")

// noAgent is the error of an agent's command while the agent is not
// running: why (host.NotRunning's sentence, which every client of the
// host gets), or that it is still coming up.
func (s *Server) noAgent() error {
	if _, err := s.host.Ready(); err != nil {
		return err
	}
	return errNoAgent
}

// progressToken reads a workDoneToken (absent: nil).
func progressToken(raw json.RawMessage) (protocol.ProgressToken, error) {
	if absent(raw) {
		return nil, nil
	}
	var n int32
	if err := json.Unmarshal(raw, &n); err == nil {
		return protocol.Integer(n), nil
	}
	var s string
	if err := json.Unmarshal(raw, &s); err == nil {
		return protocol.String(s), nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "workDoneToken must be a string or an integer, not %s", raw)
}

// fileArg is the file a command's "uri" argument names.
func (v *view) fileArg(raw string) (*orgFile, error) {
	if raw == "" {
		return nil, userErrorf("the command needs a \"uri\"")
	}
	u, err := uri.Parse(raw)
	if err != nil {
		return nil, userErrorf("%q is not a URI: %v", raw, err)
	}
	return v.file(u)
}

// decideArgs name a plan: by "id", or by the place of its headline
// ("uri" and "position" in flightplans.org). "hash" is the revision the
// user saw (the hash of its action, as the plans list and the code
// actions give it): an approval runs the plan only if it still holds that
// action (agent.ApproveSeen). Without it, an approval by place takes the
// hash of the action at that place in the buffer the editor sent; one by
// "id" alone is accepted as before, unchecked (DESIGN §8's contract).
// "revision" is, for a plan with a diff (file_write, memory_edit), the
// :REVISION: shown beside that diff (the plans list's "revision"): the
// filing the diff was made for, which names the text the file held then.
// A plan filed afresh because its file changed keeps its action hash but
// not its revision, so an approval with it runs nothing and is journalled
// as refused. An approval by place without it takes the revision at that
// place in the buffer. A rejection ignores both: rejecting runs nothing.
type decideArgs struct {
	ID       string             `json:"id"`
	URI      string             `json:"uri"`
	Position *protocol.Position `json:"position"`
	Hash     string             `json:"hash"`
	Revision string             `json:"revision"`
}

// decision is the answer of approve and reject.
type decision struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	State   string `json:"state"`
	Ran     bool   `json:"ran"`
	Summary string `json:"summary"`
	Output  string `json:"output,omitempty"`
	// Rule is the permission rule added (approveAlways).
	Rule string `json:"rule,omitempty"`
}

// decisionKind is what decide does.
type decisionKind int

const (
	decideApprove decisionKind = iota
	decideReject
	decideAlways
)

// decide approves (and runs), rejects, or approves while allowing
// similar actions, a Flight Plan on the user's command.
func (s *Server) decide(ctx context.Context, v *view, a decideArgs, how decisionKind) (any, error) {
	id := a.ID
	if id == "" && a.URI != "" && a.Position != nil {
		f, err := v.fileArg(a.URI)
		if err != nil {
			return nil, err
		}
		if !v.agent.IsPlansFile(f.path) {
			return nil, userErrorf("%s is not the Flight Plans file (%s)", filepath.Base(f.path), filepath.Base(v.agent.PlansPath()))
		}
		plan := planAt(f.org.Src, int(a.Position.Line))
		if plan == nil || plan.ID == "" {
			return nil, userErrorf("no Flight Plan at line %d", a.Position.Line+1)
		}
		id = plan.ID
		if a.Hash == "" && plan.Action != nil {
			a.Hash = plan.Action.Hash()
		}
		if a.Revision == "" {
			a.Revision = plan.Revision
		}
	}
	if id == "" {
		return nil, userErrorf("name the plan: {\"id\"}, or {\"uri\", \"position\"} on its headline")
	}
	var run agent.PlanRun
	var err error
	switch how {
	case decideApprove:
		run, err = v.agent.ApproveAsSeen(ctx, id, agent.Seen{Hash: a.Hash, Revision: a.Revision})
	case decideReject:
		run, err = v.agent.Reject(ctx, id)
	case decideAlways:
		run, err = v.agent.ApproveAlwaysAsSeen(ctx, id, agent.Seen{Hash: a.Hash, Revision: a.Revision})
	}
	if errors.Is(err, agent.ErrUsage) {
		return nil, userErrorf("%v", err)
	}
	if err != nil {
		return nil, err
	}
	if run.Err != nil {
		return nil, fmt.Errorf("the plan %s: %w", id, run.Err)
	}
	if run.Rule != "" {
		s.showMessage(protocol.MessageTypeInfo, "pp-lsp: from now on "+run.Rule+" is allowed (added to your configuration file)")
	}
	return decision{ID: run.ID, Title: run.Title, State: string(run.State), Ran: run.Ran, Summary: run.Summary, Output: run.Output, Rule: run.Rule}, nil
}
