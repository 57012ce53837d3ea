package skills

import (
	"bytes"
	"encoding/json"
	"fmt"
	"regexp"
	"slices"
	"strconv"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/memory/orgfeat"
	"pp-lsp/orgast"
	"pp-lsp/orgast/orgskill"
)

// Tag is the tag that makes a headline a skill (compared without case):
// orgskill's, the one predicate the gates judge writes with too.
const Tag = orgskill.Tag

// DefaultPriority is a skill's priority without :PRIORITY:.
const DefaultPriority = 100

// The bounds on what one skill may hold: past them the skill is not used.
const (
	maxRegex   = 1000
	maxMandate = 16 << 10
)

// TriggerKind is what makes a skill apply to a pass.
type TriggerKind string

// The trigger kinds.
const (
	// TriggerNone: only as another's dependency, or on its schedule.
	TriggerNone TriggerKind = "none"
	// TriggerRegex: a regular expression (Go's RE2) matching the question.
	TriggerRegex TriggerKind = "regex"
	// TriggerTag: the foveal node carries the tag (with inheritance).
	TriggerTag TriggerKind = "tag"
	// TriggerHeartbeat: every background pass (a scheduled run).
	TriggerHeartbeat TriggerKind = "heartbeat"
)

// The states of a skill.
const (
	// StateOK: the skill is used when triggered.
	StateOK = "ok"
	// StateError: the skill is not used (Problem says why).
	StateError = "error"
)

// Severity is how bad a diagnostic is.
type Severity int

// The severities.
const (
	SeverityError Severity = iota + 1
	SeverityWarning
)

// Diagnostic is one problem with a skill, placed in its file.
type Diagnostic struct {
	Severity Severity
	// Range is where, in byte offsets of the file (the headline line when
	// nothing narrower).
	Range   orgast.Range
	Message string
}

// Skill is one skill as read from a headline.
type Skill struct {
	// Key is the node's identity (memory.Node.Key), ID its :ID: or "".
	Key, ID string
	Title   string
	// File is the absolute path; Line the headline's 1-based line.
	File string
	Line int
	// Trigger is :TRIGGER: as written; Kind, the regular expression or the
	// tag are what it says.
	Trigger string
	Kind    TriggerKind
	re      *regexp.Regexp
	lits    []string
	tag     string
	// Priority orders skills of one rank, highest first.
	Priority int
	// DependsOn are the IDs or titles named by :DEPENDS_ON:; deps the
	// skills they resolve to.
	DependsOn []string
	deps      []*Skill
	// Scheduled is the SCHEDULED: timestamp as written ("" when none), and
	// ScheduledRange where it is in the file.
	Scheduled      string
	ScheduledRange orgast.Range
	// Mandate is the body: added to the MANDATES of a pass it applies to.
	Mandate string
	// Rules are the narrowing permission rules of its json :gates block.
	Rules gates.PermissionRules
	// Builtin marks the skills pp-lsp brings (Gardener, Scribe).
	Builtin bool
	// State is StateOK or StateError; Problem the first reason it is not
	// used (or a warning about a used one); Diagnostics all of them.
	State       string
	Problem     string
	Diagnostics []Diagnostic

	// head is the headline line, where diagnostics about the whole skill go.
	head orgast.Range
	// text is the skill as rendered into MANDATES, tokens its size.
	text   string
	tokens int
	rank   int
}

// OK reports whether the skill is used.
func (s *Skill) OK() bool { return s.State == StateOK }

// Narrowing is the skill's rules as the gates take them.
func (s *Skill) Narrowing() gates.Narrowing {
	return gates.Narrowing{Source: fmt.Sprintf("skill %q", s.Title), Ask: s.Rules.Ask, Deny: s.Rules.Deny}
}

func (s *Skill) problem(sev Severity, r orgast.Range, format string, args ...any) {
	msg := fmt.Sprintf(format, args...)
	s.Diagnostics = append(s.Diagnostics, Diagnostic{Severity: sev, Range: r, Message: msg})
	if sev == SeverityError {
		if s.State != StateError {
			s.Problem = msg
		}
		s.State = StateError
	} else if s.Problem == "" {
		s.Problem = msg
	}
}

// fromNode reads a skill from a headline tagged :skill:. The checks that
// need the other skills (dependencies, cycles) are Read's.
func fromNode(n memory.Node, tools *gates.Tools) *Skill {
	h := n.OrgHeadline()
	f := n.Org()
	s := &Skill{
		Key: n.Key(), ID: n.ID(), Title: n.Title(), File: n.Path(), Line: f.Lines.Line(h.Line.Start) + 1,
		Priority: DefaultPriority, State: StateOK, Kind: TriggerNone,
	}
	head := h.Line
	s.head = head
	propRange := func(key string) orgast.Range {
		for _, p := range h.Properties() {
			if strings.EqualFold(p.Key, key) {
				return p.Range
			}
		}
		return head
	}
	if v, ok := h.Drawer.Get("TRIGGER"); ok {
		s.Trigger = strings.TrimSpace(v)
		s.readTrigger(propRange("TRIGGER"))
	} else {
		s.problem(SeverityWarning, head, "the skill %q has no :TRIGGER:, so it applies only as a dependency or on its schedule", s.Title)
	}
	if v, ok := h.Drawer.Get("PRIORITY"); ok {
		p, err := strconv.Atoi(strings.TrimSpace(v))
		if err != nil {
			s.problem(SeverityError, propRange("PRIORITY"), "the :PRIORITY: of skill %q is %q, not an integer", s.Title, v)
		} else {
			s.Priority = p
		}
	}
	if v, ok := h.Drawer.Get("DEPENDS_ON"); ok {
		s.DependsOn = orgfeat.SplitAndUnquote(v)
	}
	if h.Planning().Scheduled.Raw != "" {
		s.Scheduled, s.ScheduledRange = h.Planning().Scheduled.Raw, h.Planning().Scheduled.Range
		s.checkSchedule()
	}
	s.readBody(n, f, h, tools)
	return s
}

func (s *Skill) readTrigger(r orgast.Range) {
	t := s.Trigger
	switch {
	case t == "":
		s.problem(SeverityWarning, r, "the :TRIGGER: of skill %q is empty, so it applies only as a dependency or on its schedule", s.Title)
	case strings.EqualFold(t, "heartbeat"):
		s.Kind = TriggerHeartbeat
	case strings.HasPrefix(strings.ToLower(t), "tag:"):
		s.Kind, s.tag = TriggerTag, strings.TrimSpace(t[4:])
		if s.tag == "" || strings.ContainsAny(s.tag, " \t:") {
			s.problem(SeverityError, r, "the :TRIGGER: of skill %q names no single tag: write tag:NAME", s.Title)
		}
	default:
		s.Kind = TriggerRegex
		if len(t) > maxRegex {
			s.problem(SeverityError, r, "the :TRIGGER: of skill %q is a regular expression of %d bytes; the limit is %d", s.Title, len(t), maxRegex)
			return
		}
		re, err := regexp.Compile(t)
		if err != nil {
			s.problem(SeverityError, r, "the :TRIGGER: of skill %q is not a valid regular expression: %s", s.Title, reError(err))
			return
		}
		s.re, s.lits = re, literals(t)
	}
}

// reError is regexp's error without its "error parsing regexp: " prefix.
func reError(err error) string {
	return strings.TrimPrefix(err.Error(), "error parsing regexp: ")
}

// readBody takes the headline's own section (never its children, which
// may be private or skills of their own) after the planning line and the
// drawer: the json :gates block becomes Rules, the rest the mandate.
func (s *Skill) readBody(n memory.Node, f *orgast.File, h *orgast.Headline, tools *gates.Tools) {
	start := bodyStart(f.Src, h)
	end := h.Section.End
	hi := n.Headline()
	var body bytes.Buffer
	at := start
	seen := false
	for i := range f.Blocks {
		b := &f.Blocks[i]
		if b.Node != hi || b.Type != "src-block" || b.Range.Start < start || b.Range.End > end || !isGatesBlock(f.Src[b.Line.Start:b.Line.End]) {
			continue
		}
		body.Write(f.Src[at:b.Range.Start])
		at = b.Range.End
		if seen {
			s.problem(SeverityError, b.Line, "the skill %q has more than one json :gates block", s.Title)
			continue
		}
		seen = true
		s.readRules(f.Src[b.Contents.Start:b.Contents.End], b.Line, tools)
	}
	body.Write(f.Src[at:end])
	s.Mandate = strings.TrimSpace(body.String())
	if len(s.Mandate) > maxMandate {
		s.problem(SeverityError, h.Line, "the body of skill %q is %d bytes; the limit is %d", s.Title, len(s.Mandate), maxMandate)
	}
}

// bodyStart is where a headline's body begins: after its line, its
// planning line and its property drawer.
func bodyStart(src []byte, h *orgast.Headline) int {
	next := func(off int) int {
		if i := bytes.IndexByte(src[off:], '\n'); i >= 0 {
			return off + i + 1
		}
		return len(src)
	}
	start := next(h.Line.End)
	if h.Planning().Range.End > 0 {
		start = max(start, next(h.Planning().Range.End))
	}
	if h.Drawer != nil {
		start = max(start, next(h.Drawer.Range.End))
	}
	return min(start, h.Section.End)
}

// isGatesBlock reports whether a src block's opening line is
// "#+begin_src json :gates …".
func isGatesBlock(line []byte) bool {
	fields := strings.Fields(string(line))
	if len(fields) < 3 || !strings.EqualFold(fields[0], "#+begin_src") || !strings.EqualFold(fields[1], "json") {
		return false
	}
	return slices.ContainsFunc(fields[2:], func(f string) bool { return strings.EqualFold(f, ":gates") })
}

// readRules reads the gates block: {"ask": [...], "deny": [...]}. An
// "allow" key is a warning and ignored; anything else wrong makes the
// skill unusable (a rule that could not be read would fail open).
func (s *Skill) readRules(text []byte, r orgast.Range, tools *gates.Tools) {
	var raw map[string]json.RawMessage
	if err := json.Unmarshal(text, &raw); err != nil {
		s.problem(SeverityError, r, "the :gates block of skill %q is not a JSON object: %v", s.Title, err)
		return
	}
	keys := make([]string, 0, len(raw))
	for k := range raw {
		keys = append(keys, k)
	}
	slices.Sort(keys)
	for _, k := range keys {
		v := raw[k]
		var list []string
		if err := json.Unmarshal(v, &list); err != nil {
			s.problem(SeverityError, r, "the :gates block of skill %q: %q must be a list of rules", s.Title, k)
			continue
		}
		switch strings.ToLower(k) {
		case "allow":
			s.problem(SeverityWarning, r, "the :gates block of skill %q has allow rules, which are ignored: a skill may only narrow what the gates allow (ask, deny)", s.Title)
			continue
		case "ask":
			s.Rules.Ask = append(s.Rules.Ask, list...)
		case "deny":
			s.Rules.Deny = append(s.Rules.Deny, list...)
		default:
			s.problem(SeverityError, r, "the :gates block of skill %q has the key %q; only \"ask\" and \"deny\" are read", s.Title, k)
			continue
		}
		for _, rule := range list {
			if err := tools.CheckRule(rule); err != nil {
				s.problem(SeverityError, r, "the :gates block of skill %q: %v", s.Title, err)
			}
		}
	}
	slices.Sort(s.Rules.Ask)
	slices.Sort(s.Rules.Deny)
}
