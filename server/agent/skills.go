package agent

import (
	"context"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/server/flightplan"
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

// filedNarrowing is what narrowed the gates for the pass that files a
// plan: the keys of its skills, and the rules it added (theirs, and a
// scheduled run's).
type filedNarrowing struct {
	skills []string
	rules  []gates.Narrowing
}

// narrowedBy is the filedNarrowing of a pass of sig with ap applied.
func narrowedBy(sig Signal, ap skills.Applied) filedNarrowing {
	nw := filedNarrowing{rules: narrowing(sig, ap)}
	for _, k := range ap.Skills {
		nw.skills = append(nw.skills, k.Key)
	}
	return nw
}

// planNarrowing is what narrows the gates when the plan id is gated again
// (at approval, or after an edit): the rules recorded when it was filed,
// and the current rules of the skills that applied then, wherever they
// stand now — a skill tightened since holds at approval as it would at a
// new pass, and one loosened or gone still holds as it was. Only a rule
// can narrow, so when unsure it keeps more: a plan whose record holds no
// narrowing (filed before it was kept, or a record that cannot be read)
// is narrowed by every skill's rules, and a skill is found by its key,
// else by its title.
func (a *Agent) planNarrowing(snap *memory.Snapshot, id string) []gates.Narrowing {
	rec, ok, err := a.store.Load(id)
	return a.recordNarrowing(snap, rec, ok && err == nil)
}

// recordNarrowing is planNarrowing of the plan's record rec, read already
// (read says it could be).
func (a *Agent) recordNarrowing(snap *memory.Snapshot, rec flightplan.Record, read bool) []gates.Narrowing {
	set := a.skills.For(snap)
	withRules := func(k *skills.Skill) bool { return len(k.Rules.Ask)+len(k.Rules.Deny) > 0 }
	if !read || !rec.Narrowed {
		var out []gates.Narrowing
		for _, k := range set.Skills {
			if withRules(k) {
				out = append(out, k.Narrowing())
			}
		}
		return out
	}
	out := append([]gates.Narrowing(nil), rec.Narrowing...)
	for _, key := range rec.Skills {
		if k, ok := set.Find(key); ok && withRules(k) {
			out = append(out, k.Narrowing())
		}
	}
	return out
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
