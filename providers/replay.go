package providers

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"log/slog"
	"os"
	"strings"
	"sync"
	"time"

	"pp-lsp/internal/plainerr"
)

// ReplayEntry is one line of a replay transcript. A transcript is a file of
// JSON lines; blank lines and lines starting with # are comments. Each entry
// is a matcher and what to answer:
//
//	# the first proposal, then the corrected one after the gates rejected it
//	{"match":{"task":"propose","last_contains":"tidy"},"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"rm -rf notes","cwd":".","explanation":"tidy up"}}]}}
//	{"match":{"any_contains":"PREVIOUS PROPOSAL REJECTED"},"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"ls notes","cwd":".","explanation":"look first"}}]}}
//	{"match":{},"reply":{"text":"Nothing to do here."},"repeat":true}
//	{"match":{"last_contains":"outage"},"error":{"kind":"server","message":"scripted outage"}}
//
// A request is answered by the first entry, in file order, that has not
// answered yet (or has "repeat": true) and whose every matcher holds. So a
// transcript scripts a multi-turn exchange in order, and the same question
// asked twice can get two different answers. A request no entry matches is
// a KindReplay error naming the request, never a made-up answer.
type ReplayEntry struct {
	Match  ReplayMatch  `json:"match"`
	Reply  *ReplayReply `json:"reply,omitempty"`
	Error  *ReplayError `json:"error,omitempty"`
	Repeat bool         `json:"repeat,omitempty"`
}

// ReplayMatch holds an entry's matchers; an empty matcher always holds.
// Text matchers are case-sensitive substrings.
type ReplayMatch struct {
	// Task equals the request's Task.
	Task string `json:"task,omitempty"`
	// SystemContains is in the system prompt.
	SystemContains string `json:"system_contains,omitempty"`
	// LastContains is in the last message's content.
	LastContains string `json:"last_contains,omitempty"`
	// LastRole is the last message's role (user, assistant, tool).
	LastRole string `json:"last_role,omitempty"`
	// AnyContains is in the system prompt or any message.
	AnyContains string `json:"any_contains,omitempty"`
	// HasTool is the name of a tool the request offers.
	HasTool string `json:"has_tool,omitempty"`
}

// ReplayReply is a scripted answer, streamed as a model would: the text in
// word-sized pieces, then the tool calls, the usage and the stop reason.
type ReplayReply struct {
	Text      string     `json:"text,omitempty"`
	ToolCalls []ToolCall `json:"tool_calls,omitempty"`
	// Stop is end, tool_use, max_tokens or other; empty means tool_use when
	// there are tool calls, else end.
	Stop StopReason `json:"stop,omitempty"`
	// Usage is reported as given; absent, it is estimated (bytes / 4).
	Usage *Usage `json:"usage,omitempty"`
	// PaceMS waits this long before each piece (for the demo's eyes).
	PaceMS int `json:"pace_ms,omitempty"`
	// Cut ends the stream after the text, before the tool calls and the
	// stop, as a connection lost in the middle of an answer would.
	Cut bool `json:"cut,omitempty"`
}

// ReplayError is a scripted failure, to rehearse the cascade's fall-through.
type ReplayError struct {
	// Kind is unreachable, timeout, rate_limited, unauthorized, not_found,
	// bad_request, server or stream_cut.
	Kind    string `json:"kind"`
	Message string `json:"message,omitempty"`
}

var replayErrorKinds = map[string]ErrorKind{
	"unreachable": KindUnreachable, "timeout": KindTimeout, "rate_limited": KindRateLimited,
	"unauthorized": KindAuth, "not_found": KindNotFound, "bad_request": KindBadRequest,
	"server": KindServer, "stream_cut": KindStreamCut,
}

// Replay is the replay provider: it answers from a transcript, never from a
// model, and says so — its Name is "replay:FILE" in every answer and log
// line. It is only ever used when configured (replay:FILE); nothing falls
// back to it.
type Replay struct {
	name    string
	file    string
	log     *slog.Logger
	mu      sync.Mutex
	entries []replayLine
	used    []bool
}

type replayLine struct {
	line int
	ReplayEntry
}

// LoadReplay reads a transcript. Its errors name the file and line.
func LoadReplay(file string, opts Options) (*Replay, error) {
	data, err := os.ReadFile(file)
	if err != nil {
		return nil, plainerr.File("read", "the replay transcript", file, err)
	}
	entries, err := parseReplay(data)
	if err != nil {
		return nil, fmt.Errorf("the replay transcript %s: %w", file, err)
	}
	r := &Replay{name: ProviderReplay + ":" + file, file: file, log: opts.logger(), entries: entries, used: make([]bool, len(entries))}
	r.log.Info("replay provider in use: answers come from a transcript, not a model", "provider", r.name, "entries", len(entries))
	return r, nil
}

// parseReplay reads a transcript's bytes; each error names its line.
func parseReplay(data []byte) ([]replayLine, error) {
	var out []replayLine
	sc := bufio.NewScanner(bytes.NewReader(data))
	sc.Buffer(make([]byte, 0, 64<<10), maxLine)
	for n := 1; sc.Scan(); n++ {
		text := bytes.TrimSpace(sc.Bytes())
		if len(text) == 0 || text[0] == '#' {
			continue
		}
		var e ReplayEntry
		dec := json.NewDecoder(bytes.NewReader(text))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&e); err != nil {
			return nil, plainerr.JSON(fmt.Sprintf("line %d", n), text, err)
		}
		if dec.More() {
			return nil, fmt.Errorf("line %d: more than one JSON value on the line", n)
		}
		if err := e.validate(); err != nil {
			return nil, fmt.Errorf("line %d: %w", n, err)
		}
		out = append(out, replayLine{line: n, ReplayEntry: e})
	}
	if err := sc.Err(); err != nil {
		return nil, err
	}
	if len(out) == 0 {
		return nil, errors.New("no entries")
	}
	return out, nil
}

func (e *ReplayEntry) validate() error {
	switch {
	case (e.Reply == nil) == (e.Error == nil):
		return errors.New(`an entry needs exactly one of "reply" and "error"`)
	case e.Error != nil:
		if _, ok := replayErrorKinds[e.Error.Kind]; !ok {
			return fmt.Errorf("error kind %q is not one of unreachable, timeout, rate_limited, unauthorized, not_found, bad_request, server, stream_cut", e.Error.Kind)
		}
		return nil
	}
	r := e.Reply
	if r.Text == "" && len(r.ToolCalls) == 0 {
		return errors.New(`a reply needs "text" or "tool_calls"`)
	}
	for i := range r.ToolCalls {
		tc := &r.ToolCalls[i]
		if tc.Name == "" {
			return fmt.Errorf("tool call %d has no name", i+1)
		}
		tc.Arguments = normalizeArgs(tc.Arguments)
	}
	switch r.Stop {
	case "", StopEnd, StopToolUse, StopMaxTokens, StopOther:
	default:
		return fmt.Errorf("stop %q is not one of end, tool_use, max_tokens, other", r.Stop)
	}
	if r.PaceMS < 0 || r.PaceMS > 10_000 {
		return fmt.Errorf("pace_ms %d is outside 0…10000", r.PaceMS)
	}
	return nil
}

// Name is "replay:FILE".
func (r *Replay) Name() string { return r.name }

// Local is true: a transcript on disk sends nothing anywhere.
func (r *Replay) Local() bool { return true }

// Entries is how many entries the transcript holds.
func (r *Replay) Entries() int { return len(r.entries) }

// Stream answers from the first unused entry that matches req.
func (r *Replay) Stream(ctx context.Context, req Request) (*Stream, error) {
	start := time.Now()
	if err := ctx.Err(); err != nil {
		return nil, &Error{Provider: r.name, Kind: KindCanceled, Message: "the request was cancelled", Err: context.Cause(ctx)}
	}
	e, ok := r.take(req)
	if !ok {
		last := "(no messages)"
		if n := len(req.Messages); n > 0 {
			m := req.Messages[n-1]
			last = fmt.Sprintf("last %s message %q", m.Role, clip(m.Content, 80))
		}
		return nil, &Error{Provider: r.name, Kind: KindReplay,
			Message: fmt.Sprintf("no unused entry matches this request (task %q, %s)", req.Task, last),
			Fix:     "add an entry for it to " + r.file}
	}
	r.log.Info("replay answering from its transcript", "provider", r.name, "line", e.line)
	if e.Error != nil {
		msg := e.Error.Message
		if msg == "" {
			msg = "scripted " + e.Error.Kind
		}
		return nil, &Error{Provider: r.name, Kind: replayErrorKinds[e.Error.Kind], Message: msg + fmt.Sprintf(" (transcript line %d)", e.line)}
	}
	events := replayEvents(req, e.Reply)
	src := newSliceSource(ctx, events, time.Duration(e.Reply.PaceMS)*time.Millisecond)
	var es eventSource = src
	if e.Reply.Cut {
		es = &cutSource{src: src, provider: r.name}
	}
	return newStream(r.name, ProviderReplay, start, es), nil
}

// take finds and marks the entry that answers req.
func (r *Replay) take(req Request) (replayLine, bool) {
	r.mu.Lock()
	defer r.mu.Unlock()
	for i, e := range r.entries {
		if (r.used[i] && !e.Repeat) || !e.Match.holds(req) {
			continue
		}
		r.used[i] = true
		return e, true
	}
	return replayLine{}, false
}

func (m ReplayMatch) holds(req Request) bool {
	if m.Task != "" && m.Task != req.Task {
		return false
	}
	if m.SystemContains != "" && !strings.Contains(req.System, m.SystemContains) {
		return false
	}
	var last Message
	if n := len(req.Messages); n > 0 {
		last = req.Messages[n-1]
	}
	if m.LastContains != "" && !strings.Contains(last.Content, m.LastContains) {
		return false
	}
	if m.LastRole != "" && string(last.Role) != m.LastRole {
		return false
	}
	if m.AnyContains != "" && !strings.Contains(req.System, m.AnyContains) &&
		!containsAny(req.Messages, m.AnyContains) {
		return false
	}
	if m.HasTool != "" && !hasTool(req.Tools, m.HasTool) {
		return false
	}
	return true
}

func containsAny(msgs []Message, s string) bool {
	for _, m := range msgs {
		if strings.Contains(m.Content, s) {
			return true
		}
	}
	return false
}

func hasTool(tools []Tool, name string) bool {
	for _, t := range tools {
		if t.Name == name {
			return true
		}
	}
	return false
}

// replayEvents turns a reply into the events a model's stream would give.
func replayEvents(req Request, r *ReplayReply) []Event {
	var evs []Event
	for _, piece := range wordPieces(r.Text) {
		evs = append(evs, Event{Kind: EventText, Text: piece})
	}
	out := len(r.Text)
	for _, tc := range r.ToolCalls {
		evs = append(evs, Event{Kind: EventToolCall, ToolCall: tc})
		out += len(tc.Name) + len(tc.Arguments)
	}
	usage := Usage{InputTokens: EstimateTokens(req), OutputTokens: (out + 3) / 4}
	if r.Usage != nil {
		usage = *r.Usage
	}
	stop := r.Stop
	if stop == "" {
		stop = StopEnd
		if len(r.ToolCalls) > 0 {
			stop = StopToolUse
		}
	}
	return append(evs, Event{Kind: EventUsage, Usage: usage}, Event{Kind: EventStop, Stop: stop, RawStop: string(stop)})
}

// wordPieces splits text after each run of whitespace, the way a model's
// tokens arrive: "a b\n" → "a ", "b\n".
func wordPieces(text string) []string {
	var out []string
	start := 0
	for i := 0; i < len(text); i++ {
		if isSpace(text[i]) && (i+1 == len(text) || !isSpace(text[i+1])) {
			out = append(out, text[start:i+1])
			start = i + 1
		}
	}
	if start < len(text) {
		out = append(out, text[start:])
	}
	return out
}

func isSpace(b byte) bool { return b == ' ' || b == '\n' || b == '\t' || b == '\r' }

// cutSource delivers a reply's text and then fails as a cut stream.
type cutSource struct {
	src      *sliceSource
	provider string
}

func (c *cutSource) next() (Event, error) {
	ev, err := c.src.next()
	if err == nil && ev.Kind == EventText {
		return ev, nil
	}
	if err != nil && !errors.Is(err, io.EOF) {
		return Event{}, err
	}
	return Event{}, &Error{Provider: c.provider, Kind: KindStreamCut, Message: "scripted cut: " + errCut.Error()}
}

func (c *cutSource) close() { c.src.close() }
