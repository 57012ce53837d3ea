package skills

import (
	"cmp"
	"fmt"
	"slices"
	"strings"
	"sync"
	"weak"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/orgast/orgskill"
)

// Set is every skill of one memex snapshot and the built-ins it does not
// override: the usable ones in the order they apply (topological by
// :DEPENDS_ON:, then priority, highest first), then the unusable ones in
// file order.
type Set struct {
	Skills []*Skill
	// usable is the prefix of Skills that is StateOK.
	usable int
}

// Usable are the skills in the order they apply.
func (s *Set) Usable() []*Skill { return s.Skills[:s.usable] }

// Find returns the skill whose key, ID or title is name (in that order).
func (s *Set) Find(name string) (*Skill, bool) {
	for _, k := range s.Skills {
		if k.Key == name || k.ID != "" && k.ID == name {
			return k, true
		}
	}
	for _, k := range s.Skills {
		if k.Title == name {
			return k, true
		}
	}
	for _, k := range s.Skills {
		if strings.EqualFold(k.Title, name) {
			return k, true
		}
	}
	return nil, false
}

// InFile are the skills read from path (for its diagnostics).
func (s *Set) InFile(path string) []*Skill {
	var out []*Skill
	for _, k := range s.Skills {
		if k.File == path {
			out = append(out, k)
		}
	}
	return out
}

// Read reads the skills of snap: every headline tagged :skill: that is not
// private, commented out or archived, outside flightplans.org and
// journal.org, then the built-ins no skill of the same title overrides.
// tools checks the gates blocks' rules. Read never fails: what is wrong
// with a skill is its diagnostics.
func Read(snap *memory.Snapshot, tools *gates.Tools, builtins []*Skill) *Set {
	var all []*Skill
	for n := range snap.Nodes() {
		h := n.OrgHeadline()
		if h == nil || !orgskill.Is(h) || n.Private() || h.Commented || h.Archived || n.InServerFile() {
			continue
		}
		all = append(all, fromNode(n, tools))
	}
	for _, b := range builtins {
		if !slices.ContainsFunc(all, func(k *Skill) bool { return strings.EqualFold(k.Title, b.Title) }) {
			c := *b
			c.Diagnostics = slices.Clone(b.Diagnostics)
			all = append(all, &c)
		}
	}
	return resolve(all)
}

// resolve links dependencies, marks cycles and missing or unusable
// dependencies, orders the usable skills and counts their tokens.
func resolve(all []*Skill) *Set {
	for _, k := range all {
		k.deps = nil
		for _, name := range k.DependsOn {
			d, err := lookup(all, name)
			if err != nil {
				k.problem(SeverityError, k.head, "the skill %q depends on %q: %v", k.Title, name, err)
				continue
			}
			if d == k {
				k.problem(SeverityError, k.head, "the skill %q depends on itself", k.Title)
				continue
			}
			k.deps = append(k.deps, d)
		}
	}
	markCycles(all)
	// A skill whose dependency is not used is not used either.
	for changed := true; changed; {
		changed = false
		for _, k := range all {
			if !k.OK() {
				continue
			}
			for _, d := range k.deps {
				if !d.OK() {
					k.problem(SeverityError, k.head, "the skill %q depends on %q, which is not used: %s", k.Title, d.Title, d.Problem)
					changed = true
					break
				}
			}
		}
	}
	order := topological(all)
	set := &Set{Skills: order, usable: len(order)}
	for _, k := range all {
		if !k.OK() {
			set.Skills = append(set.Skills, k)
		}
	}
	for i, k := range set.Skills {
		k.rank = i
		k.text = k.rendered()
		k.tokens = foveal.CountTokens(k.text)
	}
	return set
}

// lookup finds the one skill an ID or title names.
func lookup(all []*Skill, name string) (*Skill, error) {
	for _, k := range all {
		if k.ID != "" && k.ID == name {
			return k, nil
		}
	}
	var found *Skill
	for _, k := range all {
		if k.Title == name {
			if found != nil {
				return nil, fmt.Errorf("two skills are titled so (%s:%d and %s:%d)", found.File, found.Line, k.File, k.Line)
			}
			found = k
		}
	}
	if found == nil {
		return nil, fmt.Errorf("no skill has that ID or title")
	}
	return found, nil
}

// markCycles finds every cycle of dependencies (depth-first, colours) and
// marks each skill on one.
func markCycles(all []*Skill) {
	const (
		white = iota
		grey
		black
	)
	colour := make(map[*Skill]int, len(all))
	var stack []*Skill
	var visit func(k *Skill)
	visit = func(k *Skill) {
		colour[k] = grey
		stack = append(stack, k)
		for _, d := range k.deps {
			switch colour[d] {
			case white:
				visit(d)
			case grey:
				i := slices.Index(stack, d)
				cycle := stack[i:]
				names := make([]string, 0, len(cycle)+1)
				for _, c := range cycle {
					names = append(names, c.Title)
				}
				names = append(names, d.Title)
				for _, c := range cycle {
					c.problem(SeverityError, c.head, "the skill %q is in a dependency cycle: %s", c.Title, strings.Join(names, " → "))
				}
			}
		}
		stack = stack[:len(stack)-1]
		colour[k] = black
	}
	for _, k := range all {
		if colour[k] == white {
			visit(k)
		}
	}
}

// topological orders the usable skills: each after its dependencies, and
// among those ready, the highest priority first (then title, file, line).
func topological(all []*Skill) []*Skill {
	indeg := map[*Skill]int{}
	dependents := map[*Skill][]*Skill{}
	var ready []*Skill
	for _, k := range all {
		if !k.OK() {
			continue
		}
		indeg[k] = len(k.deps)
		for _, d := range k.deps {
			dependents[d] = append(dependents[d], k)
		}
		if len(k.deps) == 0 {
			ready = append(ready, k)
		}
	}
	before := func(a, b *Skill) int {
		return cmp.Or(cmp.Compare(b.Priority, a.Priority), cmp.Compare(a.Title, b.Title), cmp.Compare(a.File, b.File), cmp.Compare(a.Line, b.Line))
	}
	// ready is kept sorted, the next skill last: a skill becoming ready is
	// inserted in its place (a heap would do; skills are few).
	slices.SortFunc(ready, func(a, b *Skill) int { return before(b, a) })
	var out []*Skill
	for len(ready) > 0 {
		k := ready[len(ready)-1]
		ready = ready[:len(ready)-1]
		out = append(out, k)
		for _, d := range dependents[k] {
			if indeg[d]--; indeg[d] == 0 {
				i, _ := slices.BinarySearchFunc(ready, d, func(a, b *Skill) int { return before(b, a) })
				ready = slices.Insert(ready, i, d)
			}
		}
	}
	return out
}

// Query is what a pass offers the triggers.
type Query struct {
	// Text is the question.
	Text string
	// Tags are the foveal node's tags, inherited ones included.
	Tags []string
	// Background marks a pass nobody asked for (a scheduled run): only
	// heartbeat skills and Run apply, never a question's triggers.
	Background bool
	// Run is the skill whose schedule started the pass.
	Run *Skill
}

// triggered reports whether k's own trigger fires for q, whose text
// lower-cased is lower (ascii: the text is ASCII).
func (k *Skill) triggered(q Query, lower string, ascii bool) bool {
	if q.Run != nil && q.Run.Key == k.Key {
		return true
	}
	switch k.Kind {
	case TriggerHeartbeat:
		return q.Background
	case TriggerRegex:
		return !q.Background && k.mayMatch(lower, ascii) && k.re.MatchString(q.Text)
	case TriggerTag:
		return !q.Background && slices.Contains(q.Tags, k.tag)
	}
	return false
}

// Select returns the usable skills that apply to q — those triggered and
// their dependencies — in the order they apply.
func (s *Set) Select(q Query) []*Skill {
	use := s.Usable()
	var on []bool
	var mark func(k *Skill)
	mark = func(k *Skill) {
		if on[k.rank] {
			return
		}
		on[k.rank] = true
		for _, d := range k.deps {
			mark(d)
		}
	}
	var out []*Skill
	lower, ascii := strings.ToLower(q.Text), isASCII(q.Text)
	for _, k := range use {
		if k.triggered(q, lower, ascii) {
			if on == nil {
				on = make([]bool, len(use))
			}
			mark(k)
		}
	}
	if on == nil {
		return nil
	}
	for i, k := range use {
		if on[i] {
			out = append(out, k)
		}
	}
	return out
}

// Applied is what the skills of one pass add to it.
type Applied struct {
	// Skills are those applied, in order; Dropped those the token cap left
	// out.
	Skills, Dropped []*Skill
	// Text is the skills' part of MANDATES ("" when none).
	Text string
	// Tokens is Text's size as foveal.CountTokens counts.
	Tokens int
}

// Narrowing are the applied skills' rules for the gates.
func (a Applied) Narrowing() []gates.Narrowing {
	var out []gates.Narrowing
	for _, k := range a.Skills {
		if len(k.Rules.Ask)+len(k.Rules.Deny) > 0 {
			out = append(out, k.Narrowing())
		}
	}
	return out
}

// Titles are the applied skills' titles.
func (a Applied) Titles() []string {
	if len(a.Skills) == 0 {
		return nil
	}
	out := make([]string, len(a.Skills))
	for i, k := range a.Skills {
		out[i] = k.Title
	}
	return out
}

// Apply renders the selected skills' mandates within budget tokens: the
// lowest priority is dropped first (the later of equals), and with it
// every skill depending on it. A budget of 0 or less means no cap.
func Apply(sel []*Skill, budget int) Applied {
	var a Applied
	total := 0
	for _, k := range sel {
		total += k.tokens
	}
	kept := sel
	if budget > 0 && total > budget {
		kept = slices.Clone(sel)
		gone := map[*Skill]bool{}
		for total > budget && len(kept) > 0 {
			low := 0
			for i, k := range kept {
				if k.Priority <= kept[low].Priority {
					low = i
				}
			}
			gone[kept[low]] = true
			// Selected skills come in topological order: one pass finds
			// every dependant of what is gone.
			next := kept[:0]
			for _, k := range kept {
				if !gone[k] && slices.ContainsFunc(k.deps, func(d *Skill) bool { return gone[d] }) {
					gone[k] = true
				}
				if gone[k] {
					a.Dropped = append(a.Dropped, k)
					total -= k.tokens
					continue
				}
				next = append(next, k)
			}
			kept = next
		}
	}
	a.Skills = kept
	if len(kept) == 0 {
		return a
	}
	n := 0
	for _, k := range kept {
		n += len(k.text)
	}
	var b strings.Builder
	b.Grow(n)
	for _, k := range kept {
		b.WriteString(k.text)
	}
	a.Text, a.Tokens = b.String(), total
	return a
}

// rendered is the skill's part of MANDATES: its title, then its body with
// each line indented, so that no line of a note can pose as a section of
// the prompt.
func (k *Skill) rendered() string {
	var b strings.Builder
	fmt.Fprintf(&b, "- Skill %q:\n", k.Title)
	for _, l := range strings.Split(k.Mandate, "\n") {
		if strings.TrimSpace(l) == "" {
			continue
		}
		b.WriteString("  " + strings.TrimRight(l, " \t\r") + "\n")
	}
	return b.String()
}

// Cache keeps the Set of the latest snapshot it was asked about: a pass
// reads the skills of its snapshot once, whoever asks. The snapshot is
// held weakly: the cache never keeps an old snapshot (and the old
// versions of a large buffer edited since) alive.
type Cache struct {
	tools    *gates.Tools
	builtins []*Skill
	mu       sync.Mutex
	snap     weak.Pointer[memory.Snapshot]
	set      *Set
}

// NewCache makes a cache reading skills with tools and the built-ins.
func NewCache(tools *gates.Tools, builtins []*Skill) *Cache {
	return &Cache{tools: tools, builtins: builtins}
}

// For returns the skills of snap.
func (c *Cache) For(snap *memory.Snapshot) *Set {
	c.mu.Lock()
	defer c.mu.Unlock()
	if c.snap.Value() != snap || c.set == nil {
		c.snap, c.set = weak.Make(snap), Read(snap, c.tools, c.builtins)
	}
	return c.set
}

// Budget is the most tokens of skill text one pass carries (counted as
// foveal.CountTokens counts); past it the lowest priority is dropped.
const Budget = 800
