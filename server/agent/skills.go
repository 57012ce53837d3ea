package agent

import (
	"context"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/server/skills"
)

// SensorSchedule is a skill's scheduled run (DESIGN §15): a background
// pass nobody asked for.
const SensorSchedule Sensor = "schedule"

// SourceSchedule is the heartbeat running a skill that is due.
const SourceSchedule Source = "schedule"

// backgroundNarrowing is what every pass of a scheduled run asks for
// approval, on top of the user's rules: nobody watches it, so whatever it
// would write waits as a Flight Plan — a command too, whatever the rules
// allow when someone asks (shell(echo:*) let `echo x > f` write), since
// what a command writes is only the gates' prediction. It reads with
// file_read.
var backgroundNarrowing = gates.Narrowing{Source: "a scheduled run", Ask: []string{"file_write", "memory_edit", "shell"}}

// Skills are the skills of the memex as it is now, in the order they
// apply, and those not used with why.
func (a *Agent) Skills() *skills.Set { return a.skills.For(a.memex.Snapshot()) }

// skillsFor selects the skills that apply to a pass of sig over snap and
// renders them within skills.Budget tokens; what the cap leaves out is
// logged.
func (a *Agent) skillsFor(ctx context.Context, snap *memory.Snapshot, sig Signal) skills.Applied {
	set := a.skills.For(snap)
	q := skills.Query{Text: sig.Text, Background: sig.Skill != ""}
	if q.Background {
		q.Run, _ = set.Find(sig.Skill)
	} else if sig.File != "" {
		if n, ok := snap.NodeAt(sig.File, sig.Line); ok {
			q.Tags = n.AllTags()
		}
	}
	ap := skills.Apply(set.Select(q), skills.Budget)
	if len(ap.Dropped) > 0 {
		dropped := make([]string, len(ap.Dropped))
		for i, k := range ap.Dropped {
			dropped[i] = k.Title
		}
		a.log.InfoContext(ctx, "skills left out of the prompt: over the skill budget", "budget", skills.Budget, "dropped", dropped, "session", sig.Session)
	}
	return ap
}

// narrowing is what a pass adds to the gates: its skills' rules, and for
// a scheduled run the background rules.
func narrowing(sig Signal, ap skills.Applied) []gates.Narrowing {
	n := ap.Narrowing()
	if sig.Skill != "" {
		n = append(n, backgroundNarrowing)
	}
	return n
}

// SkillDiagnostics are the problems of the skills written in the file at
// path, as snap holds it (byte ranges into that text).
func (a *Agent) SkillDiagnostics(snap *memory.Snapshot, path string) []skills.Diagnostic {
	var out []skills.Diagnostic
	for _, k := range a.skills.For(snap).InFile(path) {
		out = append(out, k.Diagnostics...)
	}
	return out
}
