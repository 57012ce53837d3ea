package chat

import (
	"bytes"
	"encoding/json"
	"fmt"
	"path/filepath"
	"regexp"
	"strconv"
	"strings"
	"time"

	"pp-lsp/gates"
	"pp-lsp/internal/orgsetup"
	"pp-lsp/orgast"
	"pp-lsp/server/internal/orgtext"
)

// Turn is one question and what answered it.
type Turn struct {
	// Question is the whole question; the headline holds its first line.
	Question string
	Asked    time.Time
	// Model is the provider:model that answered ("" when none did).
	Model string
	// TokensIn and TokensOut are the prompt and completion tokens of every
	// model call of the turn; Estimated says they are our counter's
	// estimate because a provider reported none.
	TokensIn, TokensOut int
	Estimated           bool
	// From is where it was asked: a file and its 1-based line; "" when it
	// was asked from nowhere in particular. The file is written relative
	// to the conversation's folder when both are in one root (a Store's
	// Append), and read back absolute by a Store's Load; Parse and Render
	// keep it as it is.
	From     string
	FromLine int
	// Answer is what the model said (Org).
	Answer string
	// Failed is why the turn did not complete ("" when it did); a failed
	// turn is not sent as history.
	Failed string
	// Actions are what the turn did, in order.
	Actions []Action
	// Tags are the headline's own tags: a privacy tag makes the turn
	// private (one asked from a private place, or in a conversation with
	// a private part, whose answer may quote it). Render writes only the
	// tags Org reads as tags (ValidTag).
	Tags []string
}

// Verb says what became of an action.
type Verb string

// The verbs.
const (
	VerbRan    Verb = "ran"
	VerbFiled  Verb = "filed"
	VerbDenied Verb = "denied"
	VerbFailed Verb = "failed"
)

// Action is one action of a turn: its tool, its arguments (a JSON object,
// {} when they are not kept), and its result in one line. A filed action
// names its Flight Plan.
type Action struct {
	Verb      Verb
	Tool      string
	Args      json.RawMessage
	Result    string
	PlanID    string
	PlanTitle string
}

// Chat is a conversation file as read.
type Chat struct {
	Title string
	// Model is the file's #+PROPERTY: MODEL, the provider the
	// conversation asks ("" for the cascade's choice).
	Model string
	// Private is set when any of it is private as the memex and the
	// gates read privacy (gates.PrivateSpans): a #+FILETAGS: line
	// carrying a privacy tag, wherever it is and however many there are
	// (Org applies them all), or a headline carrying one.
	Private bool
	Turns   []Turn
	// End is the length of the text parsed (where the next turn goes).
	End int
}

// Header is a new conversation's first lines; fileTags (those Org reads
// as tags, ValidTag) go on a #+filetags: line — a privacy tag there makes
// the whole conversation private.
func Header(question string, fileTags ...string) string {
	h := "#+title: " + orgtext.Title(firstLine(question), 120) + "\n"
	if t := tagString(fileTags); t != "" {
		h += "#+filetags: " + t + "\n"
	}
	return h
}

// reTag is what Org reads as a tag (org-tag-re: letters, digits, _ @ # %).
var reTag = regexp.MustCompile(`^[\p{L}\p{N}_@#%]+$`)

// ValidTag reports whether Org reads t as one tag.
func ValidTag(t string) bool { return reTag.MatchString(t) }

// tagString is ":a:b:" of the valid tags ("" for none).
func tagString(tags []string) string {
	var b strings.Builder
	for _, t := range tags {
		if ValidTag(t) {
			b.WriteString(":" + t)
		}
	}
	if b.Len() == 0 {
		return ""
	}
	return b.String() + ":"
}

// PrivacyTag is the first of privacyTags that makes a conversation or a
// turn private as gates.PrivateSpans (and so the memex and every consumer)
// reads it, written on a #+filetags: line and on a headline; false when
// none does.
func PrivacyTag(privacyTags []string) (string, bool) {
	for _, t := range privacyTags {
		if !ValidTag(t) {
			continue
		}
		_, whole := gates.PrivateSpans([]byte(Header("q", t)), privacyTags)
		spans, _ := gates.PrivateSpans([]byte("#+title: q\n* q "+tagString([]string{t})+"\n"), privacyTags)
		if whole && len(spans) == 1 {
			return t, true
		}
	}
	return "", false
}

// maxTitle bounds a turn's headline, in runes.
const maxTitle = 100

// Render is a turn as Org text: a level-1 headline and its body, ending
// with a newline.
func Render(t Turn) string {
	var b strings.Builder
	title := orgtext.Title(firstLine(t.Question), maxTitle)
	if title == "" {
		title = "(no question)"
	}
	headline := title
	if tags := tagString(t.Tags); tags != "" {
		headline += " " + tags
	}
	b.WriteString("* " + headline + "\n:PROPERTIES:\n")
	prop := func(k, v string) {
		if v != "" {
			fmt.Fprintf(&b, ":%s: %s\n", k, v)
		}
	}
	prop("ASKED", orgtext.Inactive(t.Asked))
	prop("MODEL", orgtext.Title(t.Model, 200))
	prop("TOKENS_IN", strconv.Itoa(max(t.TokensIn, 0)))
	prop("TOKENS_OUT", strconv.Itoa(max(t.TokensOut, 0)))
	if t.Estimated {
		prop("TOKENS_ESTIMATED", "t")
	}
	// The place's file name was chosen by whoever filled the folder: it
	// is linked only when it reads as itself in one line of Org
	// (orgtext.Title leaves it as it is: no line break, no editor setting
	// such as a Vim modeline or an Emacs -*- or Local Variables: marker in
	// the chat file's last lines, no link to run), as the Gardener's
	// report links a note; any other is left out.
	if t.From != "" && orgtext.Title(t.From, 0) == t.From {
		prop("FROM", fromLink(t.From, t.FromLine))
	}
	if t.Failed != "" {
		prop("STATUS", "failed")
	}
	if len(t.Actions) > 0 {
		prop("ACTIONS", strconv.Itoa(len(t.Actions)))
	}
	q := strings.TrimSpace(t.Question)
	quoted := q != "" && !titleHolds(title, q)
	if quoted {
		prop("QUESTION", "quoted")
	}
	b.WriteString(":END:\n")
	if quoted {
		b.WriteString("#+begin_quote\n" + orgtext.Block(orgtext.Defuse(q)) + "#+end_quote\n")
	}
	if t.Failed != "" {
		b.WriteString(body("The answer failed: " + oneLine(t.Failed)))
	} else if a := strings.TrimSpace(t.Answer); a != "" {
		b.WriteString(body(a))
	}
	if len(t.Actions) > 0 {
		b.WriteString("\n")
		for _, a := range t.Actions {
			b.WriteString(renderAction(a) + "\n")
		}
	}
	return b.String()
}

// fromLink is [[file:PATH::LINE]], the path with Org's link escapes.
func fromLink(path string, line int) string {
	esc := orgtext.LinkPath(filepath.ToSlash(path))
	if line > 0 {
		return "[[file:" + esc + "::" + strconv.Itoa(line) + "]]"
	}
	return "[[file:" + esc + "]]"
}

// linkUnescaper undoes Org's escapes inside a link's path (orgtext.LinkPath).
var linkUnescaper = strings.NewReplacer(`\\`, `\`, `\[`, `[`, `\]`, `]`)

// parseFrom reads fromLink's text back ("", 0 when it is not one).
func parseFrom(v string) (string, int) {
	inner, ok := strings.CutPrefix(v, "[[file:")
	if !ok {
		return "", 0
	}
	inner, ok = strings.CutSuffix(inner, "]]")
	if !ok || inner == "" {
		return "", 0
	}
	line := 0
	if i := strings.LastIndex(inner, "::"); i >= 0 {
		n, err := strconv.Atoi(inner[i+2:])
		if err != nil || n < 1 {
			return "", 0
		}
		inner, line = inner[:i], n
	}
	return filepath.FromSlash(linkUnescaper.Replace(inner)), line
}

// renderAction is one list item: "- VERB TOOL ~ARGS~: RESULT", a filed
// action's result led by its plan's link.
func renderAction(a Action) string {
	args := compactArgs(a.Args)
	res := oneLine(a.Result)
	if a.Verb == VerbFiled && a.PlanID != "" {
		title := strings.NewReplacer("[", "(", "]", ")").Replace(orgtext.Title(a.PlanTitle, 80))
		if title == "" {
			title = "Flight Plan"
		}
		res = "[[id:" + a.PlanID + "][" + title + "]] " + res
	}
	return "- " + string(a.Verb) + " " + toolName(a.Tool) + " ~" + string(args) + "~: " + strings.TrimSpace(res)
}

// compactArgs is the arguments as one line of JSON, {} when they are not
// a JSON object.
func compactArgs(raw json.RawMessage) []byte {
	var buf bytes.Buffer
	if len(raw) == 0 || json.Compact(&buf, raw) != nil || !bytes.HasPrefix(buf.Bytes(), []byte("{")) {
		return []byte("{}")
	}
	// JSON lets a string hold bytes that are not UTF-8; the file may not,
	// nor a modeline a model wrote into an argument.
	return []byte(orgtext.DefuseJSON(orgtext.Plain(buf.String())))
}

// toolName keeps a tool's name one word of letters, digits, - and _.
func toolName(s string) string {
	var b strings.Builder
	for _, r := range s {
		if r == '_' || r == '-' || (r >= 'a' && r <= 'z') || (r >= 'A' && r <= 'Z') || (r >= '0' && r <= '9') {
			b.WriteRune(r)
		}
	}
	if b.Len() == 0 {
		return "unknown"
	}
	return b.String()
}

var reAction = regexp.MustCompile(`^- (ran|filed|denied|failed) ([A-Za-z0-9_-]+) ~`)
var rePlan = regexp.MustCompile(`^\[\[id:([^\]]+)\]\[([^\]]*)\]\] ?`)

// parseAction reads renderAction's line back; false when it is not one.
func parseAction(line string) (Action, bool) {
	m := reAction.FindStringSubmatchIndex(line)
	if m == nil {
		return Action{}, false
	}
	a := Action{Verb: Verb(line[m[2]:m[3]]), Tool: line[m[4]:m[5]]}
	rest := line[m[1]:]
	dec := json.NewDecoder(strings.NewReader(rest))
	var args json.RawMessage
	if err := dec.Decode(&args); err != nil {
		return Action{}, false
	}
	rest = rest[dec.InputOffset():]
	if !strings.HasPrefix(rest, "~:") {
		return Action{}, false
	}
	a.Args = args
	a.Result = strings.TrimSpace(rest[2:])
	if a.Verb == VerbFiled {
		if pm := rePlan.FindStringSubmatch(a.Result); pm != nil {
			a.PlanID, a.PlanTitle = pm[1], pm[2]
			a.Result = strings.TrimSpace(a.Result[len(pm[0]):])
		}
	}
	return a, true
}

// setupPrivate says whether a conversation's #+SETUPFILE: lines make it
// private (gates.PrivateSpansOf: Org reads the setup file's #+FILETAGS:
// as the file's own). Without its folder (base) a setup file cannot be
// found, and the conversation is private; without a home, one named from
// "~/" cannot be judged, and it is private too.
func setupPrivate(src []byte, tags []string, base, home string) bool {
	if !orgsetup.Mentions(src) {
		return false
	}
	if base == "" {
		return true
	}
	_, whole := gates.PrivateSpansOf(filepath.Join(base, "conversation.org"), src, tags, home)
	return whole
}

// Parse reads a conversation file. privacyTags are the tags that make a
// note private (compared case-insensitively). Headlines that are not
// turns (no :ASKED:) are left out; Parse never fails.
func Parse(src []byte, privacyTags []string) *Chat {
	c, _, _ := parse(src, privacyTags, "", "")
	return c
}

// parse is Parse, also saying whether the file has keywords that change
// how later text parses (setup: a TODO set-up, STARTUP, PRIORITIES) — what
// rules out reading only an appended tail — and whether it has any.
// A relative :FROM: is read relative to base, when given (the
// conversation's folder, as Org reads a file link).
func parse(src []byte, privacyTags []string, base, home string) (c *Chat, setup, keywords bool) {
	f := orgast.Parse(src)
	c = &Chat{End: len(src)}
	c.Title, _ = f.Title()
	keywords = len(f.Keywords) > 0
	for _, k := range f.Keywords {
		switch k.Key {
		case "TODO", "SEQ_TODO", "TYP_TODO", "STARTUP", "PRIORITIES":
			setup = true
		}
	}
	for _, k := range f.Keywords {
		if k.Key != "PROPERTY" {
			continue
		}
		if name, val, ok := strings.Cut(k.Value, " "); ok && strings.EqualFold(name, "MODEL") {
			c.Model = strings.TrimSpace(val)
		}
	}
	// Privacy by the one rule the memex's and the gates' readings agree
	// with: the first #+FILETAGS: alone let a second one, or one after
	// the turns, send a private conversation to a remote model.
	spans, _ := gates.PrivateSpans(src, privacyTags)
	c.Private = len(spans) > 0 || setupPrivate(src, privacyTags, base, home)
	for i := range f.Headlines {
		h := &f.Headlines[i]
		if h.Level != 1 {
			continue
		}
		asked, ok := h.Drawer.Get("ASKED")
		if !ok {
			continue
		}
		t := parseTurn(f, i, asked)
		if base != "" && t.From != "" && !filepath.IsAbs(t.From) {
			t.From = filepath.Join(base, t.From)
		}
		c.Turns = append(c.Turns, t)
	}
	return c, setup, keywords
}

func parseTurn(f *orgast.File, i int, asked string) Turn {
	h := &f.Headlines[i]
	t := Turn{Question: h.Title, Tags: h.Tags}
	if ts, err := time.ParseInLocation("[2006-01-02 Mon 15:04]", asked, time.Local); err == nil {
		t.Asked = ts
	}
	get := func(k string) string { v, _ := h.Drawer.Get(k); return v }
	t.Model = get("MODEL")
	t.TokensIn, _ = strconv.Atoi(get("TOKENS_IN"))
	t.TokensOut, _ = strconv.Atoi(get("TOKENS_OUT"))
	t.Estimated = get("TOKENS_ESTIMATED") == "t"
	t.From, t.FromLine = parseFrom(get("FROM"))
	failed := strings.EqualFold(get("STATUS"), "failed")
	nActions, _ := strconv.Atoi(get("ACTIONS"))

	// The body: from after the drawer to the section's end (the turn's
	// subtree holds no other headline of ours; deeper ones a user added
	// are left out).
	start := orgtext.BodyStart(f.Src, h)
	end := h.Section.End
	if end < start {
		end = start
	}
	text := string(f.Src[start:end])
	for _, b := range f.Blocks {
		if get("QUESTION") != "quoted" {
			break
		}
		if b.Node == i && b.Type == "quote-block" && b.Range.Start == start {
			t.Question = strings.TrimSpace(orgtext.Unblock(string(f.Src[b.Contents.Start:b.Contents.End])))
			text = string(f.Src[min(lineAfter(f.Src, b.Range.End), end):end])
			break
		}
	}
	lines := strings.Split(strings.TrimRight(text, "\n"), "\n")
	if nActions > 0 && nActions <= len(lines) {
		tail := lines[len(lines)-nActions:]
		var acts []Action
		for _, l := range tail {
			a, ok := parseAction(l)
			if !ok {
				acts = nil
				break
			}
			acts = append(acts, a)
		}
		if acts != nil {
			t.Actions = acts
			lines = lines[:len(lines)-nActions]
		}
	}
	answer := strings.TrimSpace(unbody(strings.Join(lines, "\n")))
	if failed {
		t.Failed = strings.TrimPrefix(answer, "The answer failed: ")
		if t.Failed == "" {
			t.Failed = "failed"
		}
	} else {
		t.Answer = answer
	}
	return t
}

// body is text as a turn's body: every line Org could read as structure
// (a headline, a keyword or comment, a drawer or fixed-width line, a line
// that already starts with a comma) gets a leading comma, except a
// block's delimiters, so that an answer's code blocks stay blocks; the
// text ends with a newline. An unclosed block cannot reach past the turn:
// a headline ends it. No line of it sets anything in the editor that
// opens the file (orgtext.Defuse).
func body(s string) string {
	lines := strings.Split(strings.TrimRight(orgtext.Defuse(orgtext.Plain(s)), "\n"), "\n")
	for i, l := range lines {
		t := strings.TrimLeft(l, " \t")
		if t != "" && strings.ContainsRune("*#:,", rune(t[0])) && !isBlockLine(t) {
			l = "," + l
		}
		lines[i] = l
	}
	return strings.Join(lines, "\n") + "\n"
}

// unbody reverses body.
func unbody(s string) string {
	lines := strings.Split(s, "\n")
	for i, l := range lines {
		if strings.HasPrefix(l, ",") {
			t := strings.TrimLeft(l[1:], " \t")
			if t != "" && strings.ContainsRune("*#:,", rune(t[0])) {
				lines[i] = l[1:]
			}
		}
	}
	return strings.Join(lines, "\n")
}

var reBlockLine = regexp.MustCompile(`(?i)^#\+(begin|end)_[A-Za-z0-9_-]+(\s|$)`)

func isBlockLine(t string) bool { return reBlockLine.MatchString(t) }

// lineAfter is the start of the line after the one off ends (off itself
// when it already starts a line).
func lineAfter(src []byte, off int) int {
	if off > 0 && off <= len(src) && src[off-1] == '\n' {
		return off
	}
	return orgtext.NextLine(src, off)
}

// titleHolds reports whether a headline titled title reads back, with
// orgast, as exactly question (no TODO keyword, priority, COMMENT or tags
// taken out of it).
func titleHolds(title, question string) bool {
	f := orgast.Parse([]byte("* " + title + "\n"))
	return len(f.Headlines) == 1 && f.Headlines[0].Title == question
}

func firstLine(s string) string {
	s = strings.TrimSpace(s)
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		return strings.TrimSpace(s[:i])
	}
	return s
}

// oneLine folds whitespace runs (newlines too) into single spaces, then
// Defuses the line (after folding: a no-break space folded into a space
// may start a modeline).
func oneLine(s string) string {
	return orgtext.Defuse(strings.Join(strings.Fields(orgtext.Plain(s)), " "))
}
