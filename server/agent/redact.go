package agent

import (
	"bytes"
	"encoding/json"
	"io"

	"pp-lsp/providers"
)

// redactRequest is req with every text in it through redact: the system
// prompt (the context, the logs, the skills, the rejections), every
// message (the question, earlier turns, tools' results) and the
// arguments of the calls earlier turns made. The tools' definitions are
// the registry's own.
func redactRequest(req providers.Request, redact func(string) string) providers.Request {
	req.System = redact(req.System)
	msgs := make([]providers.Message, len(req.Messages))
	for i, m := range req.Messages {
		m.Content = redact(m.Content)
		if len(m.ToolCalls) > 0 {
			calls := make([]providers.ToolCall, len(m.ToolCalls))
			for j, c := range m.ToolCalls {
				c.Arguments = redactJSON(c.Arguments, redact)
				calls[j] = c
			}
			m.ToolCalls = calls
		}
		msgs[i] = m
	}
	req.Messages = msgs
	return req
}

// redactJSON is js with its strings through redact, still JSON: a secret
// is found in a string as it reads, not in its escaped form (a "\n"
// before a key would hide it from a rule that wants it to start a word),
// and its mark replaces it within the string. js comes back unchanged
// when redact finds nothing in it; a js that is not JSON is redacted as
// text.
func redactJSON(js []byte, redact func(string) string) []byte {
	if s := string(js); redact(s) == s && !bytes.ContainsRune(js, '\\') {
		return js
	}
	return redactJSONStrings(js, redact)
}

// redactJSONStrings is redactJSON without its first reading of js as a
// whole: each string is read alone. For a large result of our own types
// (an MCP tool's view or node), whose JSON is one long line where the
// rules' keyword lines are slow to read and whose every text field is a
// string of its own; a js that is not JSON is redacted as text.
func redactJSONStrings(js []byte, redact func(string) string) []byte {
	dec := json.NewDecoder(bytes.NewReader(js))
	dec.UseNumber()
	var v any
	if err := dec.Decode(&v); err != nil || !atEOF(dec) {
		return []byte(redact(string(js)))
	}
	changed := false
	v = redactValue(v, redact, &changed)
	if !changed {
		return js
	}
	var b bytes.Buffer
	enc := json.NewEncoder(&b)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return []byte(redact(string(js)))
	}
	return bytes.TrimRight(b.Bytes(), "\n")
}

// atEOF says whether nothing but blanks follows the value dec decoded:
// More would say so of a stray "]" or "}" too, and the text after it
// would then pass unread.
func atEOF(dec *json.Decoder) bool {
	_, err := dec.Token()
	return err == io.EOF
}

// redactValue redacts the strings of a decoded JSON value, its keys too.
func redactValue(v any, redact func(string) string, changed *bool) any {
	switch x := v.(type) {
	case string:
		if r := redact(x); r != x {
			*changed = true
			return r
		}
		return x
	case []any:
		for i := range x {
			x[i] = redactValue(x[i], redact, changed)
		}
		return x
	case map[string]any:
		out := make(map[string]any, len(x))
		for k, e := range x {
			out[redactValue(k, redact, changed).(string)] = redactValue(e, redact, changed)
		}
		return out
	}
	return v
}

// forModel is text about an action bound for a model, or for a note a
// model reads (a gate's reason, an error), that is not the memex's own
// view: through the privacy filter an action's output passes (a quote of
// a private note, the name of a file private as a whole: a gate denying
// a glob names the private file it reached), then the redactor. It reads
// the memex's current snapshot: every such text follows its question's
// Recheck, and the current snapshot descends from the one it made.
func (a *Agent) forModel(s string) string { return a.acts.Filter(a.memex.Snapshot(), s) }

// Redact is s through the agent's one redactor (gates.Redactor over its
// vault): for a front end that hands the agent's text to another agent
// (the MCP server's every tool result) to apply last.
func (a *Agent) Redact(s string) string { return a.redact(s) }

// RedactJSONWith is js with its strings through redact, still JSON (a js
// that is not JSON is redacted as text): for a front end, with the
// agent's Redact, or the rules alone before the agent is up.
func RedactJSONWith(js []byte, redact func(string) string) []byte {
	return redactJSONStrings(js, redact)
}
