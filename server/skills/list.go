package skills

// Entry is one skill as `pp-lsp skills --json` and the language server's
// passepartout.skills list it (DESIGN §15).
type Entry struct {
	ID        string   `json:"id"`
	Title     string   `json:"title"`
	File      string   `json:"file"`
	Line      int      `json:"line"`
	Trigger   string   `json:"trigger"`
	Priority  int      `json:"priority"`
	DependsOn []string `json:"depends_on"`
	Scheduled string   `json:"scheduled"`
	State     string   `json:"state"`
	Problem   string   `json:"problem"`
	Builtin   bool     `json:"builtin"`
}

// Entries lists the set: the usable skills in the order they apply, then
// the others.
func (s *Set) Entries() []Entry {
	out := make([]Entry, 0, len(s.Skills))
	for _, k := range s.Skills {
		deps := k.DependsOn
		if deps == nil {
			deps = []string{}
		}
		out = append(out, Entry{
			ID: k.ID, Title: k.Title, File: k.File, Line: k.Line, Trigger: k.Trigger, Priority: k.Priority,
			DependsOn: deps, Scheduled: k.Scheduled, State: k.State, Problem: k.Problem, Builtin: k.Builtin,
		})
	}
	return out
}
