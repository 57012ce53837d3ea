package lsp

import (
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"path/filepath"

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

// executeCommand runs one of the commands in commandNames.
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
	switch p.Command {
	case CommandContext:
		return s.contextCommand(ctx, v, arg)
	case CommandAsk:
		return s.ask(ctx, v, arg, token)
	case CommandApprove:
		return s.decide(ctx, v, arg, true)
	case CommandReject:
		return s.decide(ctx, v, arg, false)
	case CommandAddID:
		return s.addID(ctx, v, arg)
	case CommandPlans:
		if v.agent == nil {
			return nil, errNoAgent
		}
		plans, err := v.agent.Plans(ctx)
		if err != nil {
			return nil, err
		}
		if plans == nil {
			plans = []agent.PlanInfo{}
		}
		return plans, nil
	}
	return nil, jsonrpc2.Errorf(jsonrpc2.InvalidParams, "unknown command %q; the commands are %v", p.Command, commandNames())
}

// errNoAgent answers the agent's commands when it could not be opened.
var errNoAgent = errors.New("the agent is not running (see the server's earlier message about its configuration)")

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
// ("uri" and "position" in flightplans.org).
type decideArgs struct {
	ID       string             `json:"id"`
	URI      string             `json:"uri"`
	Position *protocol.Position `json:"position"`
}

// decision is the answer of approve and reject.
type decision struct {
	ID      string `json:"id"`
	Title   string `json:"title"`
	State   string `json:"state"`
	Ran     bool   `json:"ran"`
	Summary string `json:"summary"`
	Output  string `json:"output,omitempty"`
}

// decide approves (and runs) or rejects a Flight Plan on the user's
// command.
func (s *Server) decide(ctx context.Context, v *view, arg json.RawMessage, approve bool) (any, error) {
	if v.agent == nil {
		return nil, errNoAgent
	}
	var a decideArgs
	if err := json.Unmarshal(arg, &a); err != nil {
		return nil, userErrorf("approve and reject take {\"id\"} or {\"uri\", \"position\"}: %v", err)
	}
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
	}
	if id == "" {
		return nil, userErrorf("name the plan: {\"id\"}, or {\"uri\", \"position\"} on its headline")
	}
	var run agent.PlanRun
	var err error
	if approve {
		run, err = v.agent.Approve(ctx, id)
	} else {
		run, err = v.agent.Reject(ctx, id)
	}
	if err != nil {
		return nil, err
	}
	if run.Err != nil {
		return nil, fmt.Errorf("the plan %s: %w", id, run.Err)
	}
	return decision{ID: run.ID, Title: run.Title, State: string(run.State), Ran: run.Ran, Summary: run.Summary, Output: run.Output}, nil
}
