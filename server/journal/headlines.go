package journal

import (
	"strings"

	"pp-lsp/server/internal/orgtext"
)

// Headline is one entry as a reader of the journal's text sees it (the
// Scribe, which hands a model yesterday's headlines).
type Headline struct {
	// Line is the entry's first line without its "* ".
	Line string
	// Kind, PlanID and Private are its :KIND:, :PLAN: and :PRIVATE: t,
	// read from its property drawer alone.
	Kind    Kind
	PlanID  string
	Private bool
	// Text is its example block's text (a result's output, a turn's
	// conversation), "" when it has none.
	Text string
}

// Headlines reads the entries of a journal's bytes, split as the package
// doc defines them. It never fails: what an entry does not say is left
// empty.
func Headlines(data []byte) []Headline {
	_, entries, _ := split(data)
	out := make([]Headline, 0, len(entries))
	for _, e := range entries {
		lines := strings.Split(string(e), "\n")
		s := Headline{Line: strings.TrimPrefix(lines[0], "* ")}
		inDrawer, inText := false, false
		var text []string
		for _, l := range lines[1:] {
			switch {
			case inText:
				if l == "#+end_example" {
					inText = false
					continue
				}
				text = append(text, l)
			case l == ":PROPERTIES:":
				inDrawer = true
			case inDrawer && l == ":END:":
				inDrawer = false
			case inDrawer:
				k, v, _ := strings.Cut(strings.TrimPrefix(l, ":"), ":")
				v = strings.TrimSpace(v)
				switch k {
				case "KIND":
					s.Kind = Kind(v)
				case "PLAN":
					s.PlanID = v
				case "PRIVATE":
					s.Private = v == "t"
				}
			case l == "#+begin_example" && s.Text == "" && text == nil:
				inText = true
			}
		}
		if text != nil {
			s.Text = orgtext.Unblock(strings.Join(text, "\n"))
		}
		out = append(out, s)
	}
	return out
}
