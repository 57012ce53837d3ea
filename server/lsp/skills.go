package lsp

import (
	"context"
	"strings"

	"go.lsp.dev/protocol"

	"pp-lsp/orgast/orgskill"
	"pp-lsp/server/skills"
)

// The skills' commands (DESIGN §15).
const (
	CommandSkills   = "passepartout.skills"
	CommandRunSkill = "passepartout.runSkill"
)

// skillsCommand is passepartout.skills: the skills in the order they
// apply, then those not used with why (pp-lsp skills --json).
func (s *Server) skillsCommand(_ context.Context, v *view, _ struct{}, _ protocol.ProgressToken) (any, error) {
	return v.agent.Skills().Entries(), nil
}

// runSkillArgs name the skill to run by ID or title.
type runSkillArgs struct {
	Name string `json:"name"`
}

// runSkillResult is what running a skill did.
type runSkillResult struct {
	Skill   string `json:"skill"`
	Status  string `json:"status"`
	Summary string `json:"summary"`
	PlanID  string `json:"planId,omitempty"`
}

// runSkill is passepartout.runSkill: the skill runs now, as its schedule
// would run it (a background pass: its writes wait as Flight Plans); its
// SCHEDULED: is left as it is.
func (s *Server) runSkill(ctx context.Context, v *view, a runSkillArgs, _ protocol.ProgressToken) (any, error) {
	if strings.TrimSpace(a.Name) == "" {
		return nil, userErrorf("%s takes {\"name\"}: the ID or title of a skill", CommandRunSkill)
	}
	run, err := v.agent.RunSkill(ctx, a.Name)
	if err != nil {
		return nil, userErrorf("%v", err)
	}
	out := runSkillResult{Skill: run.Skill, Status: "failed"}
	if run.Err != nil {
		out.Summary = run.Err.Error()
	}
	if n := len(run.Passes); n > 0 {
		last := run.Passes[n-1]
		out.Status, out.Summary, out.PlanID = string(last.Status), last.Summary(), last.PlanID
	}
	return out, nil
}

// skillDiagnostics are the problems of the skills in the file at path.
func skillDiagnostics(v *view, f *orgFile, path string) []diagnostic {
	if v.agent == nil || v.snap == nil || !hasSkill(f) {
		return nil
	}
	var out []diagnostic
	for _, d := range v.agent.SkillDiagnostics(v.snap, path) {
		sev := 1
		if d.Severity == skills.SeverityWarning {
			sev = 2
		}
		out = append(out, diagnostic{Range: rangeAt(f.org, d.Range), Severity: sev, Code: "skill", Source: "pp-lsp", Message: d.Message})
	}
	return out
}

// hasSkill reports whether a headline of f is tagged :skill: (only then
// are the memex's skills read for its diagnostics).
func hasSkill(f *orgFile) bool {
	for i := range f.org.Headlines {
		if orgskill.Is(&f.org.Headlines[i]) {
			return true
		}
	}
	return false
}
