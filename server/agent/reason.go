package agent

import (
	"context"
	"fmt"
	"slices"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/providers"
	"pp-lsp/server/journal"
	"pp-lsp/server/skills"
)

// reason asks the model for a proposal and gates it, up to MaxTries times,
// each rejection's trace shown to the model in the next prompt. It sets the
// pass's tries, and either its Action and Verdict (allow or ask) or its
// Status to StatusDenied. The error is the model's failure or the caller's
// cancellation.
func (a *Agent) reason(ctx context.Context, p *Pass, sig Signal, snap *memory.Snapshot, env *gates.Env, applied skills.Applied, emit func(string) error) (proposal, *holdback, error) {
	contextText, err := a.ctxsrc.Render(ctx, snap, sig.File, sig.Line, a.cfg.Budget)
	if err != nil {
		a.log.WarnContext(ctx, "the context could not be rendered", "err", err)
		contextText = "(the context could not be rendered)"
	}
	out := &tryBreaks{emit: emit}
	for try := 1; try <= MaxTries; try++ {
		out.newTry()
		req := providers.Request{
			System:   systemPrompt(a.cfg.Assistant, a.tools, contextText, a.logs.Lines(), sig, applied.Text, a.forModel),
			Messages: messages(sig),
			Tools:    ToolDefinitions(a.tools),
			Task:     "propose",
			Provider: sig.Provider, LocalOnly: sig.LocalOnly,
		}
		h := &holdback{emit: out.write}
		resp, err := a.complete(ctx, req, h)
		p.count(req, resp)
		if err != nil {
			return proposal{}, nil, err
		}
		p.Provider, p.Model = resp.Provider, modelName(resp)
		prop := parseProposal(resp)
		var v gates.Verdict
		t := Try{N: try}
		if prop.err != nil {
			v = a.gates().Malformed(prop.err)
			t.Proposal = prop.raw
		} else {
			v = a.gates().Check(ctx, prop.action, env)
			act := prop.action
			if v.Action != nil {
				act = *v.Action
			}
			t.Action, t.Proposal = &act, string(prop.action.CanonicalJSON())
		}
		t.Verdict = v
		p.Tries = append(p.Tries, t)
		if err := a.journalProposal(ctx, sig, t, prop, p.Skills); err != nil {
			// A pass that cannot be journalled does not act.
			return proposal{}, nil, fmt.Errorf("nothing was done: %w", err)
		}
		a.log.InfoContext(ctx, "proposal gated", "try", try, "tool", toolOf(t), "verdict", v.Verdict, "gate", v.Gate, "session", sig.Session, "depth", sig.Depth)
		p.Verdict = v
		if err := out.settle(v.Verdict == gates.VerdictDeny); err != nil {
			return proposal{}, nil, fmt.Errorf("streaming the answer: %w", err)
		}
		if v.Verdict != gates.VerdictDeny {
			p.Action = t.Action
			return prop, h, nil
		}
		sig.Rejections = append(sig.Rejections, Rejection{Try: try, Proposal: t.Proposal, Verdict: v})
	}
	p.Status = StatusDenied
	return proposal{}, nil, nil
}

func toolOf(t Try) string {
	if t.Action == nil {
		return "(none)"
	}
	return string(t.Action.Tool)
}

// messages is the conversation for the model: a conversation's earlier
// turns (DESIGN §13), then the history an action's output came back with,
// or the user's question.
func messages(sig Signal) []providers.Message {
	now := sig.History
	if len(now) == 0 {
		now = []providers.Message{{Role: providers.RoleUser, Content: sig.Text}}
	}
	if len(sig.Prior) == 0 {
		return now
	}
	return append(append(make([]providers.Message, 0, len(sig.Prior)+len(now)), sig.Prior...), now...)
}

// complete streams one answer, its text through the holdback. It is the
// one way to a model: the request goes through the redactor here, so that
// no secret of the notes, a tool's output, a skill or an earlier turn
// reaches one, whichever path put it into the request.
func (a *Agent) complete(ctx context.Context, req providers.Request, h *holdback) (providers.Response, error) {
	if err := a.mayAsk(req); err != nil {
		return providers.Response{}, err
	}
	req = redactRequest(req, a.redact)
	st, err := a.provider.Stream(ctx, req)
	if err != nil {
		return providers.Response{}, fmt.Errorf("asking the model: %w", err)
	}
	defer st.Close()
	for ev, err := range st.Events() {
		if err != nil {
			return st.Response(), fmt.Errorf("the model's answer broke off: %w", err)
		}
		if ev.Kind == providers.EventText {
			if err := h.text(ev.Text); err != nil {
				return st.Response(), fmt.Errorf("streaming the answer: %w", err)
			}
		}
	}
	return st.Response(), nil
}

// maxJournalAction bounds an action kept whole in the journal.
const maxJournalAction = 16 << 10

// journalAction is what the journal keeps of an action: the canonical
// JSON, scrubbed of vault secrets, when the gates did not deny it and it
// is not huge; its summary otherwise (a denied action may carry the very
// secret it was denied for).
func (a *Agent) journalAction(act gates.Action, v gates.Verdict) []byte {
	js := act.CanonicalJSON()
	if v.Verdict == gates.VerdictDeny || len(js) > maxJournalAction {
		return journal.Summary(act)
	}
	return redactJSON(js, a.redact)
}

func (a *Agent) journalProposal(ctx context.Context, sig Signal, t Try, prop proposal, skills []string) error {
	e := journal.Entry{
		Kind: journal.KindProposal, Source: string(sig.Source), Session: sig.Session, RequestID: sig.RequestID,
		Try: t.N, Verdict: &t.Verdict, Skills: skills, Private: sig.LocalOnly,
		Title: fmt.Sprintf("%s: %s by %s", toolOf(t), t.Verdict.Verdict, t.Verdict.Gate),
	}
	if prop.err == nil {
		e.Tool, e.ActionHash = string(prop.action.Tool), prop.action.Hash()
		e.Action = a.journalAction(prop.action, t.Verdict)
	}
	if sig.Depth > 0 {
		e.Title += fmt.Sprintf(" (depth %d)", sig.Depth)
	}
	return a.appendJournal(ctx, e)
}

// tryBreaks passes streamed text on. The first try's streams as it comes;
// a retry's (after the gates refused a try) is held until its verdict: a
// refused retry's is never shown, nor one that only says again what was
// already shown (a model answering each try with the same words), so the
// caller sees one answer, not one a try. Text shown after another try's
// that did not end a line starts a new one, so that two tries' words are
// never run together on the caller's screen.
type tryBreaks struct {
	emit    func(string) error
	last    byte
	pending bool
	tries   int
	// hold: the current try is a retry whose verdict is not known yet;
	// held is its text.
	hold bool
	held strings.Builder
	// shown is the text shown so far, trimmed, tries apart.
	shown []string
	cur   strings.Builder
}

func (t *tryBreaks) newTry() {
	t.tries++
	t.endShown()
	t.pending = t.last != 0 && t.last != '\n'
	t.hold = t.tries > 1
	t.held.Reset()
}

// settle ends a retry's hold with its verdict: its text is shown when it
// was not refused and says something not shown before.
func (t *tryBreaks) settle(refused bool) error {
	if !t.hold {
		return nil
	}
	t.hold = false
	s := t.held.String()
	t.held.Reset()
	if refused || s == "" || slices.Contains(t.shown, strings.TrimSpace(s)) {
		return nil
	}
	return t.write(s)
}

func (t *tryBreaks) endShown() {
	if x := strings.TrimSpace(t.cur.String()); x != "" {
		t.shown = append(t.shown, x)
	}
	t.cur.Reset()
}

func (t *tryBreaks) write(s string) error {
	if t.hold {
		t.held.WriteString(s)
		return nil
	}
	if s == "" {
		return t.emit(s)
	}
	t.cur.WriteString(s)
	if t.pending {
		t.pending = false
		s = "\n" + s
	}
	t.last = s[len(s)-1]
	return t.emit(s)
}
