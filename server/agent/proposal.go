package agent

import (
	"encoding/json"
	"errors"
	"fmt"
	"regexp"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/providers"
	"pp-lsp/server/plist"
)

// proposal is what one answer of the model proposes.
type proposal struct {
	action gates.Action
	// err says why the answer is no action (the validator denies it).
	err error
	// raw is what the model said, for the rejection trace.
	raw string
	// message is free text taken as a message action.
	message bool
	// call is the tool call it came as, if it did.
	call *providers.ToolCall
}

// parseProposal reads an answer: its tool call (exactly one), or else its
// text as one plist form read without evaluation, or a JSON action, or
// anything else as a message (DESIGN §6).
func parseProposal(resp providers.Response) proposal {
	if n := len(resp.ToolCalls); n > 0 {
		tc := resp.ToolCalls[0]
		raw := fmt.Sprintf(`{"name":%q,"arguments":%s}`, tc.Name, tc.Arguments)
		if n > 1 {
			return proposal{err: fmt.Errorf("one action per answer: the answer made %d tool calls", n), raw: raw, call: &tc}
		}
		a, err := gates.DecodeToolCall(map[string]any{"name": tc.Name, "arguments": string(tc.Arguments)})
		return proposal{action: a, err: err, raw: raw, call: &tc}
	}
	text := strings.TrimSpace(resp.Text)
	cleaned := markdownStrip(text)
	switch {
	case cleaned == "":
		return proposal{err: errors.New("the answer was empty"), raw: text}
	case looksLikePlist(cleaned):
		a, err := decodePlist(cleaned)
		return proposal{action: a, err: err, raw: cleaned}
	case looksLikeJSONAction(cleaned):
		a, err := gates.DecodeJSON([]byte(cleaned))
		return proposal{action: a, err: err, raw: cleaned}
	}
	return proposal{action: gates.MessageAction(text, "the answer to the user's question"), message: true, raw: text}
}

// decodePlist reads one plist form — never evaluating anything: `#.` and
// every other # syntax, quote and backquote are read errors — and decodes
// it as an action.
func decodePlist(text string) (gates.Action, error) {
	v, err := plist.Read([]byte(text))
	if err != nil {
		return gates.Action{}, fmt.Errorf("the answer looks like a plist but cannot be read (nothing is ever evaluated): %w", err)
	}
	pl, err := plist.AsPlist(v)
	if err != nil {
		return gates.Action{}, fmt.Errorf("the answer is a list but not a property list: %w", err)
	}
	return gates.DecodeValue(pl.Map())
}

var (
	reFenceOpen  = regexp.MustCompile("^```[A-Za-z0-9_+-]*\r?\n")
	reFenceClose = regexp.MustCompile("\r?\n```$")
	// reReaderMacro is Lisp reader syntax after '#' — #. #' #( #: #| #s(
	// #x1 #1= … — as opposed to Org's "#+KEYWORD" and "# comment".
	reReaderMacro = regexp.MustCompile(`^#(?:[.'(:|\\<@$&\[*]|[sS]\(|[xXoObB][0-9a-fA-F]|\d+[=#])`)
)

// markdownStrip removes the code fences a model wraps a form in, as the
// seeds' markdown-strip does.
func markdownStrip(s string) string {
	s = reFenceOpen.ReplaceAllString(strings.TrimSpace(s), "")
	s = reFenceClose.ReplaceAllString(s, "")
	s = strings.ReplaceAll(s, "```", "")
	return strings.TrimSpace(s)
}

// looksLikePlist reports whether text is meant as a Lisp form: it starts
// with a list, a quoted list, or reader syntax.
func looksLikePlist(t string) bool {
	return strings.HasPrefix(t, "(") || strings.HasPrefix(t, "'(") || strings.HasPrefix(t, "`(") ||
		strings.HasPrefix(t, ",(") || reReaderMacro.MatchString(t)
}

// looksLikeJSONAction reports whether text is one JSON object with a
// "tool" key: an action written as text by a model without tool calls.
func looksLikeJSONAction(t string) bool {
	if !strings.HasPrefix(t, "{") || !json.Valid([]byte(t)) {
		return false
	}
	var m map[string]json.RawMessage
	if json.Unmarshal([]byte(t), &m) != nil {
		return false
	}
	_, ok := m["tool"]
	return ok
}

// holdback streams an answer's text to the caller as it comes, except an
// answer that starts like a form (a plist, reader syntax, a code fence, a
// JSON object): that one is held until the whole answer is known, so that
// a proposed action is never shown as if it were the answer.
type holdback struct {
	emit    func(string) error
	held    strings.Builder
	decided bool
	prose   bool
}

func (h *holdback) text(delta string) error {
	if h.decided && h.prose {
		return h.emit(delta)
	}
	h.held.WriteString(delta)
	if h.decided {
		return nil
	}
	t := strings.TrimLeft(h.held.String(), " \t\r\n")
	switch {
	case t == "":
		return nil
	case t[0] == '#' && len(t) < 3:
		return nil // "#+" is Org, "#." is a form: wait for more
	case t[0] == '(' || t[0] == '{' || t[0] == '`' || t[0] == '\'' || t[0] == ',' || reReaderMacro.MatchString(t):
		h.decided = true
		return nil
	}
	h.decided, h.prose = true, true
	s := h.held.String()
	h.held.Reset()
	return h.emit(s)
}

// streamed reports whether the whole text already reached the caller.
func (h *holdback) streamed() bool { return h.decided && h.prose }

// flush sends what was held (the answer turned out to be words).
func (h *holdback) flush() error {
	s := h.held.String()
	h.held.Reset()
	h.decided, h.prose = true, true
	if s == "" {
		return nil
	}
	return h.emit(s)
}
