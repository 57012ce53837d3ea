package bridge

import (
	"context"
	"net"
	"time"

	"pp-lsp/server/agent"
	"pp-lsp/server/host"
	"pp-lsp/server/plist"
)

// The bridge as a front end of the agent: each action's payload becomes the
// agent's request, the agent's answer the :RESPONSE's payload.
//
//	:ASK      → :OUTCOME (how the last pass ended: :ANSWERED :RAN :FILED
//	            :DENIED :FAILED :DROPPED :CANCELLED) :PASSES :TRIES :SUMMARY
//	            (one line, the agent's) and, when there was one, :TOOL,
//	            :VERDICT :GATE :REASON (the last try's) and :PLAN-ID; :CHAT
//	            (the conversation's file), :MODEL (provider:model) and
//	            :USAGE (:PROMPT :COMPLETION [:ESTIMATED t]) when they apply
//	:CONTEXT  → :TEXT :BUDGET
//	:PLANS    → :PLANS ((:ID :STATE :TITLE :TOOL :CREATED :GATE :LINE :EDITED) …)
//	:UNDO [:ID change] → :UNDONE (change) [:CHANGE (change)] :SUMMARY;
//	:UNDO :LIST t → :CHANGES ((:ID :TIME :TITLE :FILES [:PLAN-ID] [:UNDOES]) …)
//	:APPROVE, :REJECT → :ID :STATE :RAN :SUMMARY [:OUTPUT] (:APPROVE :ALWAYS t: also :RULE,
//	                    the permission rule added)
//	:STATUS   → :MEMEX (:FILES :HEADLINES :ROOT-HASH :PLANS-PENDING)
//
// :LINE is 1-based on the wire (0 or absent: no line); the agent's lines
// are 0-based.

// ForHost is the agent of h as the bridge's Backend: every action waits
// until the agent is up, and is answered with why when it could not come
// up. The bridge thus serves its own actions (:PING, :STATUS) while the
// memex is still being read.
func ForHost(h *host.Host) Backend { return hostBackend{h} }

// ForAgent is a running agent as the bridge's Backend.
func ForAgent(a *agent.Agent) Backend { return agentBackend{a} }

// FrontEnd is srv serving on ln as one of a host's front ends (its Backend
// is the host's, ForHost).
func FrontEnd(srv *Server, ln net.Listener) host.FrontEnd { return frontEnd{srv, ln} }

type frontEnd struct {
	srv *Server
	ln  net.Listener
}

func (f frontEnd) Name() string                    { return "the bridge on " + f.ln.Addr().String() }
func (f frontEnd) Serve(ctx context.Context) error { return f.srv.Serve(ctx, f.ln) }

type hostBackend struct{ h *host.Host }

var (
	_ StatusReporter = hostBackend{}
	_ AlwaysApprover = hostBackend{}
	_ AlwaysApprover = agentBackend{}
	_ Undoer         = hostBackend{}
	_ Undoer         = agentBackend{}
	_ SeenApprover   = hostBackend{}
	_ SeenApprover   = agentBackend{}
)

// with calls f on the host's agent once it is up.
func (b hostBackend) with(ctx context.Context, f func(agentBackend) (plist.Plist, error)) (plist.Plist, error) {
	a, err := b.h.Agent(ctx)
	if err != nil {
		return nil, err
	}
	return f(agentBackend{a})
}

func (b hostBackend) Ask(ctx context.Context, req AskRequest, emit func(string) error) (plist.Plist, error) {
	return b.with(ctx, func(a agentBackend) (plist.Plist, error) { return a.Ask(ctx, req, emit) })
}

func (b hostBackend) Context(ctx context.Context, req ContextRequest) (plist.Plist, error) {
	return b.with(ctx, func(a agentBackend) (plist.Plist, error) { return a.Context(ctx, req) })
}

func (b hostBackend) Plans(ctx context.Context) (plist.Plist, error) {
	return b.with(ctx, func(a agentBackend) (plist.Plist, error) { return a.Plans(ctx) })
}

func (b hostBackend) Approve(ctx context.Context, id string) (plist.Plist, error) {
	return b.with(ctx, func(a agentBackend) (plist.Plist, error) { return a.Approve(ctx, id) })
}

func (b hostBackend) ApproveAlways(ctx context.Context, id string) (plist.Plist, error) {
	return b.with(ctx, func(a agentBackend) (plist.Plist, error) { return a.ApproveAlways(ctx, id) })
}

func (b hostBackend) ApproveSeen(ctx context.Context, id, hash, revision string, always bool) (plist.Plist, error) {
	return b.with(ctx, func(a agentBackend) (plist.Plist, error) { return a.ApproveSeen(ctx, id, hash, revision, always) })
}

func (b hostBackend) Undo(ctx context.Context, id string) (plist.Plist, error) {
	return b.with(ctx, func(a agentBackend) (plist.Plist, error) { return a.Undo(ctx, id) })
}

func (b hostBackend) Changes(ctx context.Context) (plist.Plist, error) {
	return b.with(ctx, func(a agentBackend) (plist.Plist, error) { return a.Changes(ctx) })
}

func (b hostBackend) Reject(ctx context.Context, id string) (plist.Plist, error) {
	return b.with(ctx, func(a agentBackend) (plist.Plist, error) { return a.Reject(ctx, id) })
}

// Status does not wait: :STATUS is answered at once, with why there are no
// figures yet while the memex is being read.
func (b hostBackend) Status(ctx context.Context) (plist.Plist, error) {
	a, err := b.h.Ready()
	if err != nil {
		return nil, err
	}
	return agentBackend{a}.Status(ctx)
}

type agentBackend struct{ a *agent.Agent }

var _ StatusReporter = agentBackend{}

func (b agentBackend) Ask(ctx context.Context, req AskRequest, emit func(string) error) (plist.Plist, error) {
	res, err := b.a.Ask(ctx, agent.AskRequest{
		Source: agent.SourceBridge, Text: req.Text, File: req.File, Line: max(req.Line-1, 0),
		Session: req.SessionID, Depth: req.Depth, Chat: req.Chat, NewChat: !req.NoChat,
	}, emit)
	if err != nil {
		return nil, err
	}
	pl := plist.Plist{}.Add("OUTCOME", plist.Keyword(res.Status)).Add("PASSES", len(res.Passes)).Add("TRIES", res.Tries)
	if res.Tool != "" {
		pl = pl.Add("TOOL", string(res.Tool))
	}
	if v := res.Verdict; v.Verdict != "" {
		pl = pl.Add("VERDICT", v.Verdict).Add("GATE", v.Gate).Add("REASON", v.Reason)
	}
	if res.PlanID != "" {
		pl = pl.Add("PLAN-ID", res.PlanID)
	}
	if res.Chat != "" {
		pl = pl.Add("CHAT", res.Chat)
	}
	if res.Model != "" {
		usage := plist.Plist{}.Add("PROMPT", res.Usage.Prompt).Add("COMPLETION", res.Usage.Completion)
		if res.Usage.Estimated {
			usage = usage.Add("ESTIMATED", true)
		}
		pl = pl.Add("MODEL", res.Model).Add("USAGE", usage)
	}
	return pl.Add("SUMMARY", res.Summary), nil
}

func (b agentBackend) Context(ctx context.Context, req ContextRequest) (plist.Plist, error) {
	res, err := b.a.Context(ctx, agent.ContextRequest{File: req.File, Line: max(req.Line-1, 0), Budget: req.Budget})
	if err != nil {
		return nil, err
	}
	return plist.Plist{}.Add("TEXT", res.Text).Add("BUDGET", res.Budget), nil
}

func (b agentBackend) Plans(ctx context.Context) (plist.Plist, error) {
	plans, err := b.a.Plans(ctx)
	if err != nil {
		return nil, err
	}
	var list []any
	for _, p := range plans {
		pl := plist.Plist{}.Add("ID", p.ID).Add("STATE", p.State).Add("TITLE", p.Title).Add("TOOL", p.Tool).
			Add("CREATED", p.Created).Add("GATE", p.Gate).Add("LINE", p.Line).Add("EDITED", p.Edited)
		if p.Hash != "" {
			// The action's hash, sent back with :APPROVE as :HASH (absent:
			// the block holds no action).
			pl = pl.Add("HASH", p.Hash)
		}
		if p.Revision != "" {
			// The filing whose diff the plan shows, sent back with
			// :APPROVE as :REVISION (absent: a plan without a diff).
			pl = pl.Add("REVISION", p.Revision)
		}
		list = append(list, pl)
	}
	return plist.Plist{}.Add("PLANS", list), nil
}

func (b agentBackend) Approve(ctx context.Context, id string) (plist.Plist, error) {
	r, err := b.a.Approve(ctx, id)
	if err != nil {
		return nil, err
	}
	return runPlist(r), nil
}

func (b agentBackend) ApproveAlways(ctx context.Context, id string) (plist.Plist, error) {
	r, err := b.a.ApproveAlways(ctx, id)
	if err != nil {
		return nil, err
	}
	return runPlist(r), nil
}

// ApproveSeen runs the plan only if it holds the action whose hash the
// client sent, and is still the filing whose revision it sent
// (agent.ApproveAsSeen, agent.ApproveAlwaysAsSeen).
func (b agentBackend) ApproveSeen(ctx context.Context, id, hash, revision string, always bool) (plist.Plist, error) {
	approve := b.a.ApproveAsSeen
	if always {
		approve = b.a.ApproveAlwaysAsSeen
	}
	r, err := approve(ctx, id, agent.Seen{Hash: hash, Revision: revision})
	if err != nil {
		return nil, err
	}
	return runPlist(r), nil
}

func (b agentBackend) Undo(ctx context.Context, id string) (plist.Plist, error) {
	res, err := b.a.Undo(ctx, id)
	if err != nil {
		return nil, err
	}
	pl := plist.Plist{}.Add("UNDONE", changePlist(res.Undone))
	if res.Change.ID != "" {
		pl = pl.Add("CHANGE", changePlist(res.Change))
	}
	return pl.Add("SUMMARY", res.Summary), nil
}

func (b agentBackend) Changes(ctx context.Context) (plist.Plist, error) {
	changes, err := b.a.Changes(ctx)
	if err != nil {
		return nil, err
	}
	var list []any
	for _, c := range changes {
		list = append(list, changePlist(c))
	}
	return plist.Plist{}.Add("CHANGES", list), nil
}

// changePlist is one change as the wire says it.
func changePlist(c agent.ChangeInfo) plist.Plist {
	files := make([]any, len(c.Files))
	for i, f := range c.Files {
		files[i] = f
	}
	pl := plist.Plist{}.Add("ID", c.ID).Add("TIME", c.Time.UTC().Format(time.RFC3339)).Add("TITLE", c.Title).Add("FILES", files)
	if c.PlanID != "" {
		pl = pl.Add("PLAN-ID", c.PlanID)
	}
	if c.Undoes != "" {
		pl = pl.Add("UNDOES", c.Undoes)
	}
	return pl
}

func (b agentBackend) Reject(ctx context.Context, id string) (plist.Plist, error) {
	r, err := b.a.Reject(ctx, id)
	if err != nil {
		return nil, err
	}
	return runPlist(r), nil
}

func runPlist(r agent.PlanRun) plist.Plist {
	pl := plist.Plist{}.Add("ID", r.ID).Add("STATE", string(r.State)).Add("RAN", r.Ran).Add("SUMMARY", r.Summary)
	if r.Output != "" {
		pl = pl.Add("OUTPUT", r.Output)
	}
	if r.Rule != "" {
		pl = pl.Add("RULE", r.Rule)
	}
	return pl
}

func (b agentBackend) Status(ctx context.Context) (plist.Plist, error) {
	o := b.a.Overview(ctx)
	return plist.Plist{}.Add("FILES", o.Files).Add("HEADLINES", o.Headlines).Add("ROOT-HASH", o.RootHash).Add("PLANS-PENDING", o.PlansPending), nil
}
