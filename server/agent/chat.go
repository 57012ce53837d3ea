package agent

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"

	"pp-lsp/gates"
	"pp-lsp/memory"
	"pp-lsp/memory/foveal"
	"pp-lsp/providers"
	"pp-lsp/server/chat"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/journal"
	"pp-lsp/server/workspace"
)

// Usage is what a question cost in tokens: every model call of its passes,
// as the providers reported it, or our counter's estimate where one
// reported nothing (Estimated).
type Usage struct {
	Prompt     int  `json:"prompt"`
	Completion int  `json:"completion"`
	Estimated  bool `json:"estimated,omitempty"`
}

// String is "N in, M out" with "(estimated)" when it is.
func (u Usage) String() string {
	s := fmt.Sprintf("%d tokens in, %d out", u.Prompt, u.Completion)
	if u.Estimated {
		s += " (estimated)"
	}
	return s
}

// count adds one model call's usage to the pass: the provider's figures,
// or, when it gave none, the estimate of what was sent and received.
func (p *Pass) count(req providers.Request, resp providers.Response) {
	if resp.Provider == "" {
		return
	}
	u := resp.Usage
	if u.InputTokens == 0 && u.OutputTokens == 0 {
		u.InputTokens = foveal.CountTokens(req.System) + chat.Tokens(req.Messages)
		u.OutputTokens = chat.Tokens([]providers.Message{{Content: resp.Text, ToolCalls: resp.ToolCalls}})
		p.UsageEstimated = true
	}
	p.Usage.InputTokens += u.InputTokens
	p.Usage.OutputTokens += u.OutputTokens
}

// modelName is the provider:model that answered ("ollama:llama3.2"), or
// the replay transcript's name.
func modelName(resp providers.Response) string {
	kind, _, _ := strings.Cut(resp.Provider, ":")
	if kind == providers.ProviderReplay || resp.Model == "" {
		return resp.Provider
	}
	return kind + ":" + resp.Model
}

// mayAsk refuses a request the configured provider may not take: a
// private question (asked from a private place, or in a private
// conversation) goes only to a provider marked local. A
// cascade restricts itself per request (providers.Cascade.Stream).
func (a *Agent) mayAsk(req providers.Request) error {
	if _, cascade := a.provider.(*providers.Cascade); cascade || !req.LocalOnly || providers.IsLocal(a.provider) {
		return nil
	}
	return fmt.Errorf("the question is private (asked from a private note, or in a private conversation) and %s is not marked local: configure a local model (an Ollama on loopback, or \"local\": true in the configuration), or ask from a place that is not private", a.provider.Name())
}

// conversation is the chat a question belongs to, held for the question.
type conversation struct {
	path    string
	release func()
	// from is where the turn says it was asked: the cursor, or the first
	// turn's place when asked from the conversation itself.
	from     string
	fromLine int
	// privateTag, when set, goes on the turn's headline: the question
	// was asked from a private place or in a conversation with a private
	// part, so the turn (its :FROM:, the answer of a model that saw
	// private text) is as private.
	privateTag string
}

// ChatDir is the folder of new conversations, absolute.
func (a *Agent) ChatDir() string { return a.chats.Dir() }

// beginChat finds the conversation of req — the one it names, the chat
// file it was asked from, or a new one when req.NewChat — takes it (one
// question at a time per conversation) and puts its earlier turns, model
// and privacy into sig. It returns nil when the question is in no
// conversation. sig has been through Perceive.
func (a *Agent) beginChat(ctx context.Context, req AskRequest, sig *Signal) (*conversation, error) {
	var p string
	sig.FollowUp = true
	switch {
	case req.Chat != "":
		r, err := a.chats.Resolve(req.Chat)
		if err != nil {
			return nil, usage(err)
		}
		p = r
	case sig.File != "" && a.chats.InDir(sig.File):
		r, err := a.chats.Resolve(sig.File)
		if err != nil {
			return nil, usage(err)
		}
		p = r
	}
	var release func()
	if p != "" {
		// The conversation is waited for first, the disk checked after:
		// the question's one Recheck (sig.checked, which its pass reads
		// on from) is no older than the moment its turn came.
		r, err := a.chats.Lock(ctx, p)
		if err != nil {
			return nil, err
		}
		release = r
	}
	snap, err := a.fresh(ctx)
	if err != nil {
		if release != nil {
			release()
		}
		return nil, err
	}
	sig.checked = snap
	tags := snap.PrivacyTags()
	// Asked from a private place (a note private as a whole, or inside a
	// private node): the conversation is private, made so on disk — its
	// :FROM: names the place, and its answers follow the question.
	fromPrivate := a.privatePlace(snap, sig.File, sig.Line)
	switch {
	case p != "":
	case req.NewChat:
		sig.FollowUp = false
		var fileTags []string
		if fromPrivate {
			tag, ok := chat.PrivacyTag(tags)
			if !ok {
				return nil, fmt.Errorf("the question is asked from a private note, and no privacy tag (%s) can mark its conversation private", strings.Join(tags, ", "))
			}
			fileTags = []string{tag}
		}
		r, err := a.own.WriteNew(func() (string, error) {
			r, err := a.chats.Create(sig.Text, a.now(), fileTags...)
			if err == nil {
				a.memex.ReloadFiles(context.WithoutCancel(ctx), r)
			}
			return r, err
		})
		if err != nil {
			return nil, err
		}
		p = r
		if release, err = a.chats.Lock(ctx, p); err != nil {
			return nil, err
		}
	default:
		// In no conversation, asked from a private place all the same:
		// the question (most often about the note it is asked from) and
		// what its passes do are as private as a private conversation's
		// — local models only, journal entries and plans marked private,
		// nothing in later prompts' LOGS. DESIGN §12: private notes reach
		// no model by any path; --no-chat only keeps the question out of
		// a conversation file.
		sig.FollowUp = false
		sig.LocalOnly = fromPrivate
		return nil, nil
	}
	c, err := a.chats.Load(p, tags)
	if err != nil {
		release()
		return nil, err
	}
	if req.Chat != "" && !a.chats.InDir(p) && len(c.Turns) == 0 {
		// A note named by mistake must not grow turns.
		release()
		return nil, usage(fmt.Errorf("%s is not a conversation: it is outside %s and holds no turn", p, a.chats.Dir()))
	}
	conv := &conversation{path: p, release: release, from: sig.File, fromLine: sig.Line + 1}
	if sig.File == p || (sig.File == "" && req.Chat != "") {
		// Asked from the conversation itself, or from nowhere in
		// particular: the context is the place the conversation began.
		conv.from, conv.fromLine = "", 0
		sig.File, sig.Line, sig.Character = "", 0, 0
		for _, t := range c.Turns {
			if t.From != "" {
				conv.from, conv.fromLine = t.From, t.FromLine
				sig.File, sig.Line = t.From, max(t.FromLine-1, 0)
				break
			}
		}
		fromPrivate = fromPrivate || a.privatePlace(snap, sig.File, sig.Line)
	}
	sig.Prior = c.History(a.cfg.ChatBudget)
	sig.Provider = c.Model
	sig.LocalOnly = c.Private || fromPrivate
	if sig.LocalOnly {
		tag, ok := chat.PrivacyTag(tags)
		if !ok {
			release()
			return nil, fmt.Errorf("the conversation %s is private, and no privacy tag (%s) can mark its new turn private", p, strings.Join(tags, ", "))
		}
		conv.privateTag = tag
	}
	return conv, nil
}

// privatePlace reports whether the place file:line (0-based) is private:
// the node there as the memex reads it (its own tags, an ancestor's, the
// file's), or a private part of the text there as the gates read it
// (gates.PrivateSpansOf, its #+SETUPFILE: lines followed, for a file the
// memex does not hold too). A file that cannot be read is taken for
// private.
func (a *Agent) privatePlace(snap *memory.Snapshot, file string, line int) bool {
	if file == "" {
		return false
	}
	var text []byte
	if f, ok := snap.File(file); ok {
		if n, ok := snap.NodeAt(file, line); ok && n.Private() {
			return true
		}
		text = f.Text()
	} else {
		cur, err := a.files.Read(file)
		if err != nil {
			return true
		}
		text = cur.Text
	}
	spans, whole := gates.PrivateSpansOf(file, text, snap.PrivacyTags(), a.world.Home)
	if whole {
		return true
	}
	off := lineOffset(text, line)
	for _, sp := range spans {
		if off >= sp.Start && off < sp.End {
			return true
		}
	}
	return false
}

// lineOffset is where the 0-based line starts in text (its end when it has
// fewer lines).
func lineOffset(text []byte, line int) int {
	off := 0
	for ; line > 0; line-- {
		i := bytes.IndexByte(text[off:], '\n')
		if i < 0 {
			return len(text)
		}
		off += i + 1
	}
	return off
}

// finishChat appends the question's turn to its conversation and lets it
// go. A turn that did not complete is appended marked failed.
func (a *Agent) finishChat(ctx context.Context, conv *conversation, sig Signal, res *AskResult, askErr error) {
	defer conv.release()
	t := chat.Turn{
		Question: sig.Text, Asked: a.now(), Model: res.Model,
		TokensIn: res.Usage.Prompt, TokensOut: res.Usage.Completion, Estimated: res.Usage.Estimated,
		From: conv.from, FromLine: conv.fromLine, Answer: res.Text,
	}
	if conv.privateTag != "" {
		t.Tags = []string{conv.privateTag}
	}
	for _, p := range res.Passes {
		if act, ok := a.turnAction(p); ok {
			t.Actions = append(t.Actions, act)
		}
	}
	switch {
	case askErr != nil:
		t.Failed = askErr.Error()
	case res.Status == StatusFailed || res.Status == StatusCancelled:
		t.Failed = res.Summary
	}
	ctx = context.WithoutCancel(ctx)
	// The turn waits for no action (an action may wait for the editor's
	// user): only for another writer of this file.
	err := func() error {
		defer a.locks.lock(conv.path)()
		_, err := a.chats.Append(ctx, conv.path, t)
		if errors.Is(err, workspace.ErrChangedMeanwhile) {
			// Someone saved the file between our read and our write: the
			// turn goes after what they wrote.
			_, err = a.chats.Append(ctx, conv.path, t)
		}
		return err
	}()
	if err != nil {
		a.log.ErrorContext(ctx, "the conversation's turn could not be written", "chat", conv.path, "err", err)
		return
	}
	res.Chat = conv.path
	title := fmt.Sprintf("%s: %s", filepath.Base(conv.path), res.Usage)
	if res.Model != "" {
		title += " by " + res.Model
	}
	a.appendJournal(ctx, journal.Entry{Kind: journal.KindTurn, Source: string(sig.Source), Session: sig.Session, RequestID: sig.RequestID,
		Title: title, Status: string(res.Status), Text: conv.path, Private: sig.LocalOnly})
}

// maxTurnArgs bounds the arguments a turn keeps of an action.
const maxTurnArgs = 2 << 10

// turnAction is what a pass did, as a conversation records it; false for
// a pass that did nothing but answer.
func (a *Agent) turnAction(p Pass) (chat.Action, bool) {
	act := p.Action
	if act == nil && len(p.Tries) > 0 {
		act = p.Tries[len(p.Tries)-1].Action
	}
	if act == nil || act.Tool == gates.ToolMessage {
		return chat.Action{}, false
	}
	out := chat.Action{Tool: string(act.Tool), Args: json.RawMessage(`{}`)}
	if p.Status != StatusDenied {
		if js, err := json.Marshal(act.Args); err == nil && len(js) <= maxTurnArgs {
			out.Args = json.RawMessage(redactJSON(js, a.redact))
		}
	}
	switch {
	case p.Status == StatusDenied:
		out.Verb, out.Result = chat.VerbDenied, p.Verdict.Gate+": "+a.forModel(p.Verdict.Reason)
	case p.PlanID != "":
		out.Verb, out.PlanID, out.PlanTitle = chat.VerbFiled, p.PlanID, flightplan.TitleFor(*act)
		out.Result = "waits for approval (" + p.Verdict.Gate + ": " + a.forModel(p.Verdict.Reason) + ")"
	case p.Result != nil && p.Err == nil:
		out.Verb, out.Result = chat.VerbRan, p.Result.Summary
	case p.Err != nil:
		out.Verb, out.Result = chat.VerbFailed, a.forModel(p.Err.Error())
	default:
		return chat.Action{}, false
	}
	return out, true
}

// ChatInfo is one conversation as a list shows it.
type ChatInfo struct {
	Path  string `json:"path"`
	Title string `json:"title"`
	// Turns counts its turns; Last is when the latest was asked (zero for
	// none), Model who answered it.
	Turns   int       `json:"turns"`
	Last    time.Time `json:"last"`
	Model   string    `json:"model,omitempty"`
	Private bool      `json:"private,omitempty"`
}

// Chats lists the conversations in the conversations' folder, the latest
// asked first.
func (a *Agent) Chats(ctx context.Context) ([]ChatInfo, error) {
	entries, err := os.ReadDir(a.chats.Dir())
	if errors.Is(err, fs.ErrNotExist) {
		return nil, nil
	}
	if err != nil {
		return nil, fmt.Errorf("listing the conversations: %w", err)
	}
	tags := a.memex.Snapshot().PrivacyTags()
	var out []ChatInfo
	for _, e := range entries {
		p := filepath.Join(a.chats.Dir(), e.Name())
		if !e.Type().IsRegular() || !a.chats.InDir(p) || strings.HasPrefix(e.Name(), ".") {
			continue
		}
		c, err := a.chats.Load(p, tags)
		if err != nil {
			continue
		}
		info := ChatInfo{Path: p, Title: c.Title, Turns: len(c.Turns), Private: c.Private}
		if n := len(c.Turns); n > 0 {
			info.Last, info.Model = c.Turns[n-1].Asked, c.Turns[n-1].Model
		}
		out = append(out, info)
	}
	slices.SortStableFunc(out, func(x, y ChatInfo) int {
		if c := y.Last.Compare(x.Last); c != 0 {
			return c
		}
		return strings.Compare(x.Path, y.Path)
	})
	return out, ctx.Err()
}
