package skills

import (
	"testing"
	"time"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/orgast/orgskill"
)

// FuzzSkills: any Org text read as skills, selected, rendered and
// advanced never panics, and the rendering keeps to the budget's rule
// (what is kept fits, or one skill alone is kept).
func FuzzSkills(f *testing.F) {
	f.Add("* A :skill:\n:PROPERTIES:\n:TRIGGER: a+\n:DEPENDS_ON: B\n:END:\nbody\n* B :skill:\nSCHEDULED: <2026-11-20 Fri ++1w>\n:PROPERTIES:\n:DEPENDS_ON: A\n:END:\n", "aaa")
	f.Add("* S :skill:\n:PROPERTIES:\n:TRIGGER: tag:x\n:PRIORITY: -5\n:END:\n#+begin_src json :gates\n{\"deny\":[\"shell(rm:*)\"],\"allow\":[1]}\n#+end_src\n", "q")
	tools := gates.BuiltinTools()
	now := time.Date(2026, 11, 26, 10, 0, 0, 0, time.UTC)
	f.Fuzz(func(t *testing.T, org, question string) {
		file := memory.ParseLoose("fuzz.org", []byte(org), "").Node()
		var all []*Skill
		for n := range file.Descendants() {
			if h := n.OrgHeadline(); h != nil && orgskill.Is(h) && !n.Private() {
				all = append(all, fromNode(n, tools))
			}
		}
		set := resolve(all)
		for _, bg := range []bool{false, true} {
			sel := set.Select(Query{Text: question, Tags: []string{"x"}, Background: bg})
			a := Apply(sel, 50)
			if a.Tokens > 50 && len(a.Skills) > 0 {
				t.Fatalf("%d tokens kept over a budget of 50", a.Tokens)
			}
		}
		for _, k := range set.Usable() {
			if k.Due(now, time.UTC) {
				_, _, _ = k.Advance([]byte(org), now, time.UTC)
			}
		}
	})
}
