package gates

import (
	"encoding/json"
	"fmt"
	"sort"
	"strings"
	"unicode/utf8"
)

// DecodeError says why a value is not an action. The stack turns it into a
// validator deny; it never crashes anything.
type DecodeError struct{ Reason string }

// Error says why, in one sentence.
func (e *DecodeError) Error() string { return "not a valid action: " + e.Reason }

func decodeErrorf(format string, a ...any) error {
	return &DecodeError{Reason: fmt.Sprintf(format, a...)}
}

// DecodeJSON decodes an action of one of the builtin tools (see
// Tools.DecodeJSON).
func DecodeJSON(data []byte) (Action, error) { return BuiltinTools().DecodeJSON(data) }

// DecodeValue decodes an action of one of the builtin tools (see
// Tools.DecodeValue).
func DecodeValue(v any) (Action, error) { return BuiltinTools().DecodeValue(v) }

// DecodeToolCall decodes a tool call of one of the builtin tools (see
// Tools.DecodeToolCall).
func DecodeToolCall(call any) (Action, error) { return BuiltinTools().DecodeToolCall(call) }

// DecodeToolCalls decodes tool calls of the builtin tools (see
// Tools.DecodeToolCalls).
func DecodeToolCalls(msg any) ([]Action, error) { return BuiltinTools().DecodeToolCalls(msg) }

// DecodeJSON decodes the JSON form of DESIGN §6,
// {"tool":…,"args":{…},"explanation":…}. Keys are exact (lower case): a JSON
// writer spells them as the schema does, and "Explanation" is not
// "explanation". Duplicate keys, unknown keys, missing required arguments,
// non-string arguments and invalid UTF-8 are errors.
func (t *Tools) DecodeJSON(data []byte) (Action, error) {
	if !utf8.Valid(data) {
		return Action{}, decodeErrorf("the input is not valid UTF-8")
	}
	v, err := parseJSON(data)
	if err != nil {
		return Action{}, decodeErrorf("%v", err)
	}
	return t.decodeAction(v, false)
}

// DecodeValue decodes an action handed over as a generic value: what a
// plist or JSON reader produced — map[string]any or a flat key/value []any
// for objects, []any, string, numbers, bool, nil. Keys compare
// case-insensitively and may keep a leading ':' (plist keywords). Two forms
// are read: (:TOOL :SHELL :ARGS (:CMD … :CWD …) :EXPLANATION …) and the
// seeds' (:TYPE :REQUEST :PAYLOAD (:ACTION :SHELL :CMD … :EXPLANATION …)).
func (t *Tools) DecodeValue(v any) (Action, error) {
	return t.decodeAction(v, true)
}

// DecodeToolCall decodes one tool call of a model API: OpenAI's
// {"type":"function","function":{"name","arguments"}} (arguments a JSON
// string or an object), its legacy {"name","arguments"}, or Anthropic's
// {"type":"tool_use","name","input"}. The function name is the tool; the
// arguments object holds the tool's arguments plus "explanation".
func (t *Tools) DecodeToolCall(call any) (Action, error) {
	obj, ok := asObject(call, false)
	if !ok {
		return Action{}, decodeErrorf("a tool call must be an object, got %s", kindOf(call))
	}
	var name, args any
	switch {
	case obj.has("function"):
		fn, ok := asObject(obj.get("function"), false)
		if !ok {
			return Action{}, decodeErrorf("tool call: \"function\" must be an object")
		}
		name, args = fn.get("name"), fn.get("arguments")
	case obj.has("input"):
		name, args = obj.get("name"), obj.get("input")
	default:
		name, args = obj.get("name"), obj.get("arguments")
	}
	n, ok := name.(string)
	if !ok {
		return Action{}, decodeErrorf("tool call without a function name")
	}
	if s, isString := args.(string); isString {
		if !utf8.ValidString(s) {
			return Action{}, decodeErrorf("tool call arguments are not valid UTF-8")
		}
		parsed, err := parseJSON([]byte(s))
		if err != nil {
			return Action{}, decodeErrorf("tool call arguments: %v", err)
		}
		args = parsed
	}
	argObj, ok := asObject(args, false)
	if !ok {
		return Action{}, decodeErrorf("tool call arguments must be an object, got %s", kindOf(args))
	}
	tool, ok := t.Parse(n)
	if !ok {
		return Action{}, decodeErrorf("unknown tool %q", n)
	}
	var explanation string
	rest := &object{vals: map[string]any{}}
	for _, k := range argObj.keys {
		if k == "explanation" {
			e, ok := argObj.vals[k].(string)
			if !ok {
				return Action{}, decodeErrorf("explanation must be a string, got %s", kindOf(argObj.vals[k]))
			}
			explanation = e
			continue
		}
		rest.keys = append(rest.keys, k)
		rest.vals[k] = argObj.vals[k]
	}
	a, err := t.buildAction(tool, rest, false)
	a.Explanation = explanation
	return a, err
}

// DecodeToolCalls decodes every tool call of one model message: OpenAI's
// {"tool_calls":[…]} or Anthropic's {"content":[…]} (only its tool_use
// blocks), or a bare array of calls. Each call decodes on its own; the
// first error stops.
func (t *Tools) DecodeToolCalls(msg any) ([]Action, error) {
	var calls []any
	if obj, ok := asObject(msg, false); ok {
		switch {
		case obj.has("tool_calls"):
			calls, _ = obj.get("tool_calls").([]any)
		case obj.has("content"):
			blocks, _ := obj.get("content").([]any)
			for _, b := range blocks {
				if bo, ok := asObject(b, false); ok && bo.get("type") == "tool_use" {
					calls = append(calls, b)
				}
			}
		default:
			return nil, decodeErrorf("no tool_calls or content in the message")
		}
	} else if arr, ok := msg.([]any); ok {
		calls = arr
	} else {
		return nil, decodeErrorf("tool calls must be an object or an array, got %s", kindOf(msg))
	}
	out := make([]Action, 0, len(calls))
	for i, c := range calls {
		a, err := t.DecodeToolCall(c)
		if err != nil {
			return nil, fmt.Errorf("tool call %d: %w", i, err)
		}
		out = append(out, a)
	}
	return out, nil
}

// decodeAction reads the two action forms from a generic value; fold says
// whether keys compare case-insensitively (plist) or exactly (JSON).
func (t *Tools) decodeAction(v any, fold bool) (Action, error) {
	obj, ok := asObject(v, fold)
	if !ok {
		return Action{}, decodeErrorf("an action must be an object, got %s", kindOf(v))
	}
	if obj.dupErr != "" {
		return Action{}, decodeErrorf("%s", obj.dupErr)
	}
	if obj.has("tool") {
		if err := obj.only("tool", "args", "explanation"); err != nil {
			return Action{}, err
		}
		name, ok := obj.get("tool").(string)
		if !ok {
			return Action{}, decodeErrorf("tool must be a string, got %s", kindOf(obj.get("tool")))
		}
		tool, ok := t.Parse(name)
		if !ok {
			return Action{}, decodeErrorf("unknown tool %q", name)
		}
		if !obj.has("args") {
			return Action{}, decodeErrorf("%s action without args", tool)
		}
		args, ok := asObject(obj.get("args"), fold)
		if !ok {
			return Action{}, decodeErrorf("args must be an object, got %s", kindOf(obj.get("args")))
		}
		if args.dupErr != "" {
			return Action{}, decodeErrorf("args: %s", args.dupErr)
		}
		a, err := t.buildAction(tool, args, fold)
		if err != nil {
			return a, err
		}
		a.Explanation, err = explanationOf(obj)
		return a, err
	}
	if fold && obj.has("type") && obj.has("payload") {
		// The seeds' envelope: only a request carries an action.
		if err := obj.only("type", "payload", "meta", "depth"); err != nil {
			return Action{}, err
		}
		if t, _ := obj.get("type").(string); !strings.EqualFold(strings.TrimPrefix(t, ":"), "request") {
			return Action{}, decodeErrorf("only a :REQUEST carries an action, got :TYPE %v", obj.get("type"))
		}
		payload, ok := asObject(obj.get("payload"), true)
		if !ok {
			return Action{}, decodeErrorf("payload must be a plist, got %s", kindOf(obj.get("payload")))
		}
		return t.decodePayload(payload)
	}
	if fold && obj.has("action") {
		return t.decodePayload(obj)
	}
	return Action{}, decodeErrorf("no tool in the action")
}

// decodePayload reads (:ACTION :SHELL :CMD … :EXPLANATION …): the action
// key names the tool, explanation is the explanation, every other key is
// an argument.
func (t *Tools) decodePayload(p *object) (Action, error) {
	if p.dupErr != "" {
		return Action{}, decodeErrorf("payload: %s", p.dupErr)
	}
	name, ok := p.get("action").(string)
	if !ok {
		return Action{}, decodeErrorf("payload action must be a keyword or string, got %s", kindOf(p.get("action")))
	}
	tool, ok := t.Parse(name)
	if !ok {
		return Action{}, decodeErrorf("unknown tool %q", name)
	}
	args := &object{vals: map[string]any{}, fold: true}
	for _, k := range p.keys {
		if k == "action" || k == "explanation" {
			continue
		}
		args.keys = append(args.keys, k)
		args.vals[k] = p.vals[k]
	}
	a, err := t.buildAction(tool, args, true)
	if err != nil {
		return a, err
	}
	a.Explanation, err = explanationOf(p)
	return a, err
}

func explanationOf(obj *object) (string, error) {
	if !obj.has("explanation") {
		return "", nil // the policy gate denies it, naming the missing explanation
	}
	e, ok := obj.get("explanation").(string)
	if !ok {
		return "", decodeErrorf("explanation must be a string, got %s", kindOf(obj.get("explanation")))
	}
	return e, nil
}

// buildAction checks args against the tool's schema: only its keys, each a
// string, every required one present; optional ones get their defaults.
func (t *Tools) buildAction(tool Tool, args *object, fold bool) (Action, error) {
	spec := t.spec(tool)
	out := make(Args, len(spec.Args))
	var unknown []string
	for _, k := range args.keys {
		if _, ok := spec.Arg(k); !ok {
			unknown = append(unknown, k)
			continue
		}
		s, ok := args.vals[k].(string)
		if !ok {
			return Action{Tool: tool}, decodeErrorf("%s argument %q must be a string, got %s", tool, k, kindOf(args.vals[k]))
		}
		out[k] = s
	}
	if len(unknown) > 0 {
		sort.Strings(unknown)
		return Action{Tool: tool}, decodeErrorf("%s has no argument %s", tool, quoteList(unknown))
	}
	for _, s := range spec.Args {
		if _, ok := out[s.Name]; ok {
			continue
		}
		if s.Required {
			return Action{Tool: tool}, decodeErrorf("%s action without its %q argument", tool, s.Name)
		}
		out[s.Name] = s.Default
	}
	return Action{Tool: tool, Args: out}, nil
}

// asObject views v as an object. Plists arrive as map[string]any or as a
// flat []any of alternating keys and values; JSON objects as *object.
// With fold, keys are lower-cased and lose a leading ':'.
func asObject(v any, fold bool) (*object, bool) {
	norm := func(k string) string {
		if fold {
			return strings.ToLower(strings.TrimPrefix(k, ":"))
		}
		return k
	}
	out := &object{vals: map[string]any{}, fold: fold}
	add := func(k string, val any) {
		nk := norm(k)
		if _, dup := out.vals[nk]; dup && out.dupErr == "" {
			out.dupErr = fmt.Sprintf("duplicate key %q", k)
		}
		if _, seen := out.vals[nk]; !seen {
			out.keys = append(out.keys, nk)
		}
		out.vals[nk] = val
	}
	switch o := v.(type) {
	case *object:
		if !fold {
			return o, true
		}
		for _, k := range o.keys {
			add(k, o.vals[k])
		}
	case map[string]any:
		keys := make([]string, 0, len(o))
		for k := range o {
			keys = append(keys, k)
		}
		sort.Strings(keys)
		for _, k := range keys {
			add(k, o[k])
		}
	case []any:
		if !fold || len(o)%2 != 0 || len(o) == 0 {
			return nil, false
		}
		for i := 0; i < len(o); i += 2 {
			k, ok := o[i].(string)
			if !ok {
				return nil, false
			}
			add(k, o[i+1])
		}
	default:
		return nil, false
	}
	return out, true
}

func (o *object) has(k string) bool { _, ok := o.vals[k]; return ok }
func (o *object) get(k string) any  { return o.vals[k] }

// only refuses any key outside allowed: an extra top-level key (a claimed
// approval, a self-reported risk, a second action) is never ignored.
func (o *object) only(allowed ...string) error {
	var extra []string
	for _, k := range o.keys {
		ok := false
		for _, a := range allowed {
			if k == a {
				ok = true
				break
			}
		}
		if !ok {
			extra = append(extra, k)
		}
	}
	if len(extra) > 0 {
		return decodeErrorf("unknown top-level key %s", quoteList(extra))
	}
	return nil
}

func kindOf(v any) string {
	switch v.(type) {
	case nil:
		return "null"
	case string:
		return "a string"
	case bool:
		return "a boolean"
	case json.Number, float64, float32, int, int64, int32, uint, uint64:
		return "a number"
	case []any:
		return "an array"
	case *object, map[string]any:
		return "an object"
	}
	return fmt.Sprintf("a %T", v)
}

func quoteList(ks []string) string {
	q := make([]string, len(ks))
	for i, k := range ks {
		q[i] = fmt.Sprintf("%q", k)
	}
	return strings.Join(q, ", ")
}
