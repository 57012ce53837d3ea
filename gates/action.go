package gates

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
)

// Tool names a tool of a registry (Tools): one of the things an action
// can do.
type Tool string

// The builtin tools, DESIGN §6's eight (see BuiltinTools). Their names are
// the canonical spelling; decoders accept any case and '-' for '_' (see
// Tools.Parse).
const (
	ToolShell      Tool = "shell"
	ToolFileRead   Tool = "file_read"
	ToolFileWrite  Tool = "file_write"
	ToolHTTP       Tool = "http"
	ToolMessage    Tool = "message"
	ToolSend       Tool = "send"
	ToolEval       Tool = "eval"
	ToolMemoryEdit Tool = "memory_edit"
)

// ParseTool maps a spelling such as "FILE-READ", ":file_read" or "File_Read"
// to its Tool among the builtin tools; ok is false for anything else.
// Code that has a registry uses its Parse.
func ParseTool(name string) (Tool, bool) { return BuiltinTools().Parse(name) }

// Action is one proposal, typed: the tool, its arguments (every schema key
// present, optional ones filled with their defaults) and the model's
// explanation ("" when it gave none).
type Action struct {
	Tool        Tool
	Args        Args
	Explanation string
}

// Args holds a tool's arguments by schema name. Only the keys of the tool's
// schema are ever present in a decoded action.
type Args map[string]string

// Arg returns the named argument, "" when absent.
func (a Action) Arg(name string) string { return a.Args[name] }

// Shell returns cmd and cwd of a shell action.
func (a Action) Shell() (cmd, cwd string) { return a.Args["cmd"], a.Args["cwd"] }

// NewAction builds a well-formed action of one of the builtin tools (see
// Tools.NewAction).
func NewAction(tool Tool, explanation string, args map[string]string) Action {
	return BuiltinTools().NewAction(tool, explanation, args)
}

// NewAction builds a well-formed action from a tool and its arguments,
// filling optional arguments with their defaults. It does not validate: the
// stack's validator does, for every action however it was made.
func (t *Tools) NewAction(tool Tool, explanation string, args map[string]string) Action {
	var spec []ArgSpec
	if s := t.spec(tool); s != nil {
		spec = s.Args
	}
	out := make(Args, len(spec))
	for _, s := range spec {
		if v, ok := args[s.Name]; ok {
			out[s.Name] = v
		} else if !s.Required {
			out[s.Name] = s.Default
		}
	}
	for k, v := range args { // unknown keys are kept so the validator can name them
		if _, ok := out[k]; !ok {
			out[k] = v
		}
	}
	return Action{Tool: tool, Args: out, Explanation: explanation}
}

// MessageAction wraps free text a model said outside any tool call: DESIGN
// §6 makes it a message, gated like any other action.
func MessageAction(text, explanation string) Action {
	return NewAction(ToolMessage, explanation, map[string]string{"text": text})
}

// CanonicalJSON is the one byte form of an action that Flight Plans hash
// (:ACTION_HASH:): {"tool","args","explanation"} in that order, args keys
// sorted, no HTML escaping, no insignificant whitespace. Two actions that
// mean the same thing (whatever form they were decoded from) have the same
// canonical JSON.
func (a Action) CanonicalJSON() []byte {
	var b bytes.Buffer
	b.WriteString(`{"tool":`)
	writeJSONString(&b, string(a.Tool))
	b.WriteString(`,"args":{`)
	keys := make([]string, 0, len(a.Args))
	for k := range a.Args {
		keys = append(keys, k)
	}
	sort.Strings(keys)
	for i, k := range keys {
		if i > 0 {
			b.WriteByte(',')
		}
		writeJSONString(&b, k)
		b.WriteByte(':')
		writeJSONString(&b, a.Args[k])
	}
	b.WriteString(`},"explanation":`)
	writeJSONString(&b, a.Explanation)
	b.WriteByte('}')
	return b.Bytes()
}

// Hash is "sha256:<hex>" of the canonical JSON, the value of a Flight
// Plan's :ACTION_HASH: property.
func (a Action) Hash() string {
	sum := sha256.Sum256(a.CanonicalJSON())
	return "sha256:" + hex.EncodeToString(sum[:])
}

// writeJSONString writes s as a JSON string without HTML escaping, so that
// the canonical form of "<" is "<" as every other JSON encoder would
// write it with escaping off.
func writeJSONString(b *bytes.Buffer, s string) {
	enc := json.NewEncoder(b)
	enc.SetEscapeHTML(false)
	_ = enc.Encode(s)       // a string always encodes (invalid UTF-8 becomes U+FFFD)
	b.Truncate(b.Len() - 1) // Encode appends a newline
}
