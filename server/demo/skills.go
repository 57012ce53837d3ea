package demo

import (
	"context"
	"fmt"
	"path/filepath"
	"strings"

	"pp-lsp/server/agent"
	"pp-lsp/server/skills"
)

// skillQuestion triggers the example skill "Cite the notes".
const skillQuestion = "Why does every proposal go through the gates?"

// skills shows the example skills: listed in the order they apply, one
// shaping an answer, the Gardener run now, and how schedules work.
func (t *tour) skills(ctx context.Context) error {
	t.heading("Skills: notes that shape answers")
	t.printf("A skill is a note: a headline tagged :skill: (skills/skills.org here). Its body\n")
	t.printf("joins the model's rules when its :TRIGGER: fires; a json :gates block in it can\n")
	t.printf("only make the gates stricter. `pp-lsp skills` lists them in the order they apply:\n\n")
	for _, e := range t.agent.Skills().Entries() {
		where := "built in"
		if !e.Builtin {
			where = fmt.Sprintf("%s:%d", t.rel(e.File), e.Line)
		}
		trigger := e.Trigger
		if trigger == "" {
			trigger = "(run on request or schedule)"
		}
		t.printf("   %-15s %-32s %s\n", e.Title, trigger, where)
	}
	path, line, err := t.cursorLine()
	if err != nil {
		return err
	}
	t.printf("\nYou ask, from the cursor: %q\n\n", skillQuestion)
	out, err := t.ask(ctx, path, line, skillQuestion)
	if err != nil {
		return err
	}
	if n := len(out.Passes); n > 0 && len(out.Passes[n-1].Skills) > 0 {
		t.printf("\nApplied: %s — its rule was in the prompt, and the journal records it.\n", strings.Join(out.Passes[n-1].Skills, ", "))
	} else {
		t.printf("\nNo skill applied to this pass.\n")
	}

	t.printf("\nThe Gardener is built in and needs no model: it lists broken links, duplicate\n")
	t.printf("IDs, orphans and TODOs untouched for 90 days, and proposes the report for today's\n")
	t.printf("daily note. Run now, it waits for you like any write nobody watched:\n\n")
	run, err := t.agent.RunSkill(ctx, skills.Gardener)
	switch {
	case err != nil:
		t.printf("   the Gardener did not run: %v\n", err)
	case len(run.Passes) == 0 || run.Passes[0].Action == nil:
		t.printf("   the Gardener proposed nothing.\n")
	default:
		p := run.Passes[0]
		report := p.Action.Arg("content")
		if i := strings.Index(report, "* Gardener report"); i >= 0 {
			t.block(report[i:])
		}
		if p.Status == agent.StatusFiled {
			t.printf("\n   → a Flight Plan (%s…) appending it to %s\n", p.PlanID[:8], filepath.ToSlash(p.Action.Arg("path")))
		}
	}
	t.printf("\n\"Weekly review\" has a SCHEDULED: repeater: when it is due, the heartbeat runs it\n")
	t.printf("as a background pass (its writes wait as Flight Plans), then pp-lsp moves the\n")
	t.printf("timestamp on exactly as Org's repeaters do — once per due time, across restarts.\n")
	return nil
}
