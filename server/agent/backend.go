package agent

import (
	"context"
	"path/filepath"

	"pp-lsp/server/bridge"
	"pp-lsp/server/plist"
)

// Backend serves the bridge's :ASK, :CONTEXT, :PLANS, :APPROVE and
// :REJECT, and the memex figures of :STATUS.
func (a *Agent) Backend() bridge.Backend { return backend{a} }

type backend struct{ a *Agent }

var _ bridge.StatusReporter = backend{}

// Ask runs the question through the pipeline, its answer streamed.
func (b backend) Ask(ctx context.Context, req bridge.AskRequest, emit func(string) error) (plist.Plist, error) {
	out, err := b.a.Handle(ctx, FromBridge(req, ""), emit)
	if err != nil {
		return nil, err
	}
	return outcomePlist(out), nil
}

// outcomePlist is the :RESPONSE payload of an :ASK: how the last pass
// ended, its verdict, and the plan or result.
func outcomePlist(out Outcome) plist.Plist {
	p := out.Last()
	pl := plist.Plist{}.Add("OUTCOME", plist.Keyword(p.Status)).Add("PASSES", len(out.Passes)).Add("TRIES", len(p.Tries))
	if p.Action != nil {
		pl = pl.Add("TOOL", string(p.Action.Tool))
	}
	if p.Verdict.Verdict != "" {
		pl = pl.Add("VERDICT", p.Verdict.Verdict).Add("GATE", p.Verdict.Gate).Add("REASON", p.Verdict.Reason)
	}
	if p.PlanID != "" {
		pl = pl.Add("PLAN-ID", p.PlanID)
	}
	if p.Result != nil {
		pl = pl.Add("SUMMARY", summaryOf(*p.Result, p.Err))
	} else if p.Err != nil {
		pl = pl.Add("SUMMARY", p.Err.Error())
	}
	return pl
}

// Context renders the foveal context at :FILE :LINE (1-based).
func (b backend) Context(ctx context.Context, req bridge.ContextRequest) (plist.Plist, error) {
	file := req.File
	if file != "" && !filepath.IsAbs(file) {
		file = filepath.Join(b.a.roots[0], file)
	}
	budget := req.Budget
	if budget <= 0 {
		budget = b.a.cfg.Budget
	}
	text, err := b.a.ctxsrc.Render(ctx, b.a.memex.Snapshot(), file, max(req.Line-1, 0), budget)
	if err != nil {
		return nil, err
	}
	return plist.Plist{}.Add("TEXT", text).Add("BUDGET", budget), nil
}

// Plans lists the Flight Plans as (:PLANS ((:ID … :STATE …) …)).
func (b backend) Plans(ctx context.Context) (plist.Plist, error) {
	plans, err := b.a.Plans(ctx)
	if err != nil {
		return nil, err
	}
	var list []any
	for _, p := range plans {
		list = append(list, plist.Plist{}.Add("ID", p.ID).Add("STATE", p.State).Add("TITLE", p.Title).Add("TOOL", p.Tool).
			Add("CREATED", p.Created).Add("GATE", p.Gate).Add("LINE", p.Line).Add("EDITED", p.Edited))
	}
	return plist.Plist{}.Add("PLANS", list), nil
}

// Approve approves and runs a plan.
func (b backend) Approve(ctx context.Context, id string) (plist.Plist, error) {
	r, err := b.a.Approve(ctx, id)
	if err != nil {
		return nil, err
	}
	return runPlist(r), nil
}

// Reject rejects a plan.
func (b backend) Reject(ctx context.Context, id string) (plist.Plist, error) {
	r, err := b.a.Reject(ctx, id)
	if err != nil {
		return nil, err
	}
	return runPlist(r), nil
}

func runPlist(r PlanRun) plist.Plist {
	pl := plist.Plist{}.Add("ID", r.ID).Add("STATE", string(r.State)).Add("RAN", r.Ran).Add("SUMMARY", r.Summary)
	if r.Output != "" {
		pl = pl.Add("OUTPUT", r.Output)
	}
	return pl
}

// Status reports the memex's figures and the plans waiting.
func (b backend) Status(ctx context.Context) (plist.Plist, error) {
	s := b.a.memex.Snapshot()
	f := s.Figures()
	pending := 0
	if plans, err := b.a.Plans(ctx); err == nil {
		for _, p := range plans {
			if p.State == "PLAN" || p.State == "APPROVED" {
				pending++
			}
		}
	}
	return plist.Plist{}.Add("FILES", f.Files).Add("HEADLINES", f.Headlines).Add("ROOT-HASH", f.RootHash.String()).Add("PLANS-PENDING", pending), nil
}
