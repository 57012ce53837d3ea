package flightplan

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"strings"
	"time"

	"github.com/google/uuid"

	"pp-lsp/gates"
	"pp-lsp/orgast"
	"pp-lsp/server/internal/orgtext"
	"pp-lsp/server/workspace"
)

// FileName is the Flight Plans file, in the first root.
const FileName = "flightplans.org"

// Header starts a new flightplans.org.
const Header = "#+TITLE: Flight Plans\n" + TodoLine + "\n"

// TodoLine declares the plan states to Org.
const TodoLine = "#+TODO: PLAN(p) APPROVED(a) | DONE(d) FAILED(f) REJECTED(r)"

// State is a plan's TODO keyword.
type State string

// The states of a plan.
const (
	StatePlan     State = "PLAN"
	StateApproved State = "APPROVED"
	StateDone     State = "DONE"
	StateFailed   State = "FAILED"
	StateRejected State = "REJECTED"
)

// Final reports whether nothing more happens to a plan in state s.
func (s State) Final() bool { return s == StateDone || s == StateFailed || s == StateRejected }

// Plan is one plan as read from the file.
type Plan struct {
	ID         string
	State      State
	Title      string
	Created    string
	Tool       string
	Gate       string
	ActionHash string
	// Revision is :REVISION:, the filing the diff shown was made for
	// (Store.Revision; "" for a plan without one): anyone who can write
	// the file can set it, so it counts only when it is the revision of
	// the sealed filing record.
	Revision string
	// Explanation is the text between the drawer and the action block.
	Explanation string
	// ActionText is the src block's content, unescaped: what will run.
	ActionText string
	// Action is ActionText decoded; nil when there is no block or it does
	// not decode (ActionErr says why).
	Action    *gates.Action
	ActionErr error
	// Diff is the #+begin_src diff block after the action's, unescaped:
	// what a file_write or memory_edit would change ("" when none).
	Diff string
	// Writes are the paths of :WRITES: (a shell plan's, as the gates found
	// them).
	Writes []string
	// Line is the 0-based line of the headline.
	Line int

	keyword  orgast.Range // the TODO keyword's bytes ("" state: empty range after the stars)
	headline orgast.Range
	subtree  orgast.Range
	drawer   *orgast.Drawer
	notesAt  int // where notes are appended: after the subtree's last non-blank line
	// diffBlock is the diff block's bytes (#+begin_src to the line after
	// #+end_src), empty when there is none; afterAction is where one
	// goes: the line after the action block's #+end_src.
	diffBlock   orgast.Range
	afterAction int
}

// Edited reports whether the action in the block does not hash to the
// plan's own :ACTION_HASH: (or does not decode). Anyone can write that
// property: what decides whether a plan may run is its filing record
// (Store.Standing).
func (p *Plan) Edited() bool {
	return p.Action == nil || p.Action.Hash() != p.ActionHash
}

// ValidID reports whether id is a UUID in its canonical form, the only
// plan IDs that name records on disk.
func ValidID(id string) bool {
	u, err := uuid.Parse(id)
	return err == nil && u.String() == id
}

var (
	reBeginDiff = regexp.MustCompile(`(?im)\A(?:[ \t]*\r?\n)*[ \t]*#\+begin_src[ \t]+diff\b[^\n]*\n`)
	reBeginJSON = regexp.MustCompile(`(?im)^[ \t]*#\+begin_src[ \t]+json\b[^\n]*\n`)
	reEndSrc    = regexp.MustCompile(`(?im)^[ \t]*#\+end_src[ \t]*\r?$`)
)

// Parse reads every level-1 headline of a Flight Plans file as a plan.
// Headlines that are not plans (no :ID:) are returned too, with an empty
// ID, so that a caller can tell the user.
func Parse(src []byte) []Plan {
	f := orgast.Parse(src)
	var out []Plan
	for i := range f.Headlines {
		h := &f.Headlines[i]
		if h.Parent != -1 {
			continue
		}
		p := Plan{State: State(h.Todo), Title: h.Title, Line: f.Lines.Line(h.Line.Start), headline: h.Line, drawer: h.Drawer,
			subtree: orgast.Range{Start: h.Line.Start, End: h.End}}
		p.keyword = keywordRange(src, h)
		if h.Drawer != nil {
			p.ID, _ = h.Drawer.Get("ID")
			p.Created, _ = h.Drawer.Get("CREATED")
			p.Tool, _ = h.Drawer.Get("TOOL")
			p.Gate, _ = h.Drawer.Get("GATE")
			p.ActionHash, _ = h.Drawer.Get("ACTION_HASH")
			p.Revision, _ = h.Drawer.Get("REVISION")
			if w, ok := h.Drawer.Get("WRITES"); ok {
				p.Writes = SplitWrites(w)
			}
		}
		body := orgtext.BodyStart(src, h)
		section := src[body:h.Section.End]
		if loc := reBeginJSON.FindIndex(section); loc != nil {
			p.Explanation = strings.TrimSpace(string(section[:loc[0]]))
			rest := section[loc[1]:]
			if end := reEndSrc.FindIndex(rest); end != nil {
				p.ActionText = orgtext.Unblock(string(rest[:end[0]]))
				p.afterAction = orgtext.NextLine(src, body+loc[1]+end[1])
				p.readDiff(src, h.Section.End)
				a, err := gates.DecodeJSON([]byte(p.ActionText))
				if err != nil {
					p.ActionErr = err
				} else {
					p.Action = &a
				}
			} else {
				p.ActionErr = fmt.Errorf("the #+begin_src json block of plan %q has no #+end_src", p.Title)
			}
		} else {
			p.Explanation = strings.TrimSpace(string(section))
			p.ActionErr = fmt.Errorf("plan %q has no #+begin_src json block holding its action", p.Title)
		}
		p.notesAt = orgtext.ContentEnd(src, h.Line.Start, h.End)
		out = append(out, p)
	}
	return out
}

// readDiff reads the diff block that starts right after the action's
// block, if one does.
func (p *Plan) readDiff(src []byte, end int) {
	rest := src[p.afterAction:end]
	loc := reBeginDiff.FindIndex(rest)
	if loc == nil {
		return
	}
	stop := reEndSrc.FindIndex(rest[loc[1]:])
	if stop == nil {
		return
	}
	p.Diff = orgtext.Unblock(string(rest[loc[1] : loc[1]+stop[0]]))
	p.diffBlock = orgast.Range{Start: p.afterAction, End: orgtext.NextLine(src, p.afterAction+loc[1]+stop[1])}
}

// Find returns the plan with the given ID; more than one is an error
// (someone copied a plan: neither runs until the copy has its own ID).
func Find(plans []Plan, id string) (*Plan, error) {
	var found *Plan
	for i := range plans {
		if plans[i].ID != id {
			continue
		}
		if found != nil {
			return nil, fmt.Errorf("two Flight Plans carry the ID %s (lines %d and %d): give the copy a new ID", id, found.Line+1, plans[i].Line+1)
		}
		found = &plans[i]
	}
	if found == nil {
		return nil, fmt.Errorf("no Flight Plan has the ID %q", id)
	}
	return found, nil
}

// keywordRange finds the TODO keyword after the stars; without one, the
// empty range where it would go.
func keywordRange(src []byte, h *orgast.Headline) orgast.Range {
	i := h.Line.Start
	for i < h.Line.End && src[i] == '*' {
		i++
	}
	for i < h.Line.End && (src[i] == ' ' || src[i] == '\t') {
		i++
	}
	if h.Todo != "" && bytes.HasPrefix(src[i:h.Line.End], []byte(h.Todo)) {
		return orgast.Range{Start: i, End: i + len(h.Todo)}
	}
	return orgast.Range{Start: i, End: i}
}

// Filing is what a new plan is made of.
type Filing struct {
	ID      string
	Created time.Time
	Action  gates.Action
	// Gate is the gate that asked (the verdict's deciding gate).
	Gate string
	// Diff is the unified diff of what a file_write or memory_edit would
	// change ("": none shown); Writes the paths a shell command writes, as
	// the gates found them.
	Diff   string
	Writes []string
	// Revision names this filing of a plan with a diff (Store.Revision):
	// written as :REVISION:, "" for none.
	Revision string
}

// Render writes a new plan, exactly as DESIGN §8 lays it out.
func Render(f Filing) []byte {
	var b strings.Builder
	fmt.Fprintf(&b, "* %s %s\n", StatePlan, TitleFor(f.Action))
	b.WriteString(":PROPERTIES:\n")
	prop := func(k, v string) { fmt.Fprintf(&b, "%-14s%s\n", ":"+k+":", orgtext.Title(v, 200)) }
	prop("ID", f.ID)
	prop("CREATED", orgtext.Inactive(f.Created))
	prop("TOOL", string(f.Action.Tool))
	prop("GATE", f.Gate)
	prop("ACTION_HASH", f.Action.Hash())
	if f.Revision != "" {
		prop("REVISION", f.Revision)
	}
	if len(f.Writes) > 0 {
		prop("WRITES", JoinWrites(f.Writes))
	}
	b.WriteString(":END:\n")
	if e := strings.TrimSpace(f.Action.Explanation); e != "" {
		b.WriteString(orgtext.Paragraph(e))
	}
	b.WriteString(orgtext.JSONBlock(ActionJSON(f.Action)))
	b.WriteString(DiffBlock(f.Diff))
	return []byte(b.String())
}

// DiffBlock is the #+begin_src diff block showing diff ("" for none). Its
// lines are Defused: a diff of a file holding "Local Variables:" lines
// would otherwise hand them, "+"-prefixed, to the Emacs that opens
// flightplans.org.
func DiffBlock(diff string) string {
	if diff == "" {
		return ""
	}
	return "#+begin_src diff\n" + orgtext.Block(orgtext.Defuse(diff)) + "#+end_src\n"
}

// SetDiff is the change that puts diff (a unified diff, "" for none) in
// the plan's diff block, replacing the one it has.
func (p *Plan) SetDiff(diff string) workspace.Change {
	if p.diffBlock.Len() > 0 {
		return workspace.Change{Start: p.diffBlock.Start, End: p.diffBlock.End, NewText: DiffBlock(diff)}
	}
	at := p.afterAction
	if at == 0 {
		at = p.notesAt
	}
	return workspace.Change{Start: at, End: at, NewText: DiffBlock(diff)}
}

// JoinWrites is :WRITES:'s value: the paths separated by spaces, a space
// or a percent sign inside one escaped as Org's multivalued properties
// have it (%20, %25).
func JoinWrites(paths []string) string {
	q := make([]string, len(paths))
	for i, p := range paths {
		q[i] = strings.NewReplacer("%", "%25", " ", "%20", "\t", "%09").Replace(p)
	}
	return strings.Join(q, " ")
}

// SplitWrites reads :WRITES:'s value back.
func SplitWrites(v string) []string {
	var out []string
	for _, f := range strings.Fields(v) {
		out = append(out, strings.NewReplacer("%20", " ", "%09", "\t", "%25", "%").Replace(f))
	}
	return out
}

// ActionJSON is the action as a plan shows it: the canonical JSON, indented
// for a human to read and edit. It decodes to the same action.
func ActionJSON(a gates.Action) string {
	var out bytes.Buffer
	if err := json.Indent(&out, a.CanonicalJSON(), "", "  "); err != nil {
		return string(a.CanonicalJSON())
	}
	return out.String()
}

// TitleFor summarises an action as a plan's headline.
func TitleFor(a gates.Action) string {
	q := func(s string, n int) string { return "`" + orgtext.Inline(orgtext.Title(s, n)) + "`" }
	var t string
	switch args := a.Typed().(type) {
	case gates.ShellArgs:
		t = "Run " + q(args.Cmd, 60) + " in " + orgtext.Title(args.Cwd, 40)
	case gates.FileReadArgs:
		t = "Read " + q(args.Path, 80)
	case gates.FileWriteArgs:
		t = "Write " + q(args.Path, 80)
	case gates.HTTPArgs:
		t = "HTTP " + strings.ToUpper(orgtext.Title(args.Method, 10)) + " " + q(args.URL, 80)
	case gates.MessageArgs:
		t = "Show a message"
	case gates.SendArgs:
		t = "Send a message to " + q(args.To, 60) + " over " + q(args.Channel, 20)
	case gates.EvalArgs:
		t = "Evaluate " + q(args.Lang, 20) + " code"
	case gates.MemoryEditArgs:
		t = "Replace the body of node " + q(args.ID, 60)
	default:
		t = "Run " + string(a.Tool)
	}
	return orgtext.Title(t, 160)
}

// AppendTo returns the changes that add plan (from Render) to a Flight
// Plans file whose current text is cur: the header when the file is new or
// lacks the #+TODO: line that declares the states, and the plan at the end.
func AppendTo(cur []byte, plan []byte) []workspace.Change {
	var cs []workspace.Change
	if len(bytes.TrimSpace(cur)) == 0 {
		return []workspace.Change{{Start: 0, End: len(cur), NewText: Header + string(plan)}}
	}
	f := orgast.Parse(cur)
	if !f.Todo.Has(string(StatePlan)) || !f.Todo.Has(string(StateApproved)) {
		cs = append(cs, workspace.Change{Start: 0, End: 0, NewText: TodoLine + "\n"})
	}
	text := string(plan)
	if cur[len(cur)-1] != '\n' {
		text = "\n" + text
	}
	return append(cs, workspace.Change{Start: len(cur), End: len(cur), NewText: text})
}

// SetState is the change that switches p's keyword to s.
func (p *Plan) SetState(s State) workspace.Change {
	text := string(s)
	if p.keyword.Len() == 0 {
		text += " "
	}
	return workspace.Change{Start: p.keyword.Start, End: p.keyword.End, NewText: text}
}

// Text is the plan's whole subtree in src, the text it was parsed from.
func (p *Plan) Text(src []byte) []byte { return src[p.subtree.Start:p.subtree.End] }

// SetTitle is the change that rewrites p's headline after its keyword to
// title (a new action's, see TitleFor).
func (p *Plan) SetTitle(src []byte, title string) workspace.Change {
	end := p.headline.End
	if end > p.keyword.End && src[end-1] == '\r' {
		end--
	}
	text := " " + orgtext.Title(title, 200)
	if p.keyword.Len() == 0 {
		text = text[1:] // SetState puts the keyword and its space here
	}
	return workspace.Change{Start: p.keyword.End, End: end, NewText: text}
}

// SetProperty is the change that sets p's property key to value: the
// value replaced in place, or a new line before :END:.
func (p *Plan) SetProperty(src []byte, key, value string) workspace.Change {
	value = orgtext.Title(value, 200)
	if p.drawer != nil {
		for _, pr := range p.drawer.Properties {
			if strings.EqualFold(pr.Key, key) {
				if pr.ValueRange.Len() == 0 {
					return workspace.Change{Start: pr.KeyRange.End + 1, End: pr.Range.End, NewText: " " + value}
				}
				return workspace.Change{Start: pr.ValueRange.Start, End: pr.ValueRange.End, NewText: value}
			}
		}
		end := bytes.LastIndex(src[p.drawer.Range.Start:p.drawer.Range.End], []byte(":END:"))
		at := p.drawer.Range.Start + end
		return workspace.Change{Start: at, End: at, NewText: fmt.Sprintf("%-14s%s\n", ":"+key+":", value)}
	}
	at := orgtext.NextLine(src, p.headline.End)
	return workspace.Change{Start: at, End: at, NewText: fmt.Sprintf(":PROPERTIES:\n%-14s%s\n:END:\n", ":"+key+":", value)}
}

// Note is the change that appends text below the plan: a list item
// stamped with t, and, when output is not empty, an example block with it
// (cut to MaxOutput bytes).
func (p *Plan) Note(src []byte, t time.Time, text, output string) workspace.Change {
	var b strings.Builder
	if p.notesAt > 0 && src[p.notesAt-1] != '\n' {
		b.WriteByte('\n')
	}
	b.WriteString("- " + orgtext.Inactive(t) + " " + orgtext.Title(text, 2000) + "\n")
	if output != "" {
		if len(output) > MaxOutput {
			output = orgtext.Cut(output, MaxOutput) + fmt.Sprintf("\n[… %d more bytes not shown]", len(output)-MaxOutput)
		}
		b.WriteString("#+begin_example\n" + orgtext.Block(orgtext.Defuse(output)) + "#+end_example\n")
	}
	return workspace.Change{Start: p.notesAt, End: p.notesAt, NewText: b.String()}
}

// MaxOutput bounds the output written under a plan.
const MaxOutput = 8 << 10
