package gates

import (
	"bytes"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"sort"
	"strings"
)

// Tool names one of the eight things an action can do (DESIGN §6).
type Tool string

// The tools of DESIGN §6. Their names are the canonical spelling; decoders
// accept any case and '-' for '_' (see ParseTool).
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

// Tools lists every tool in DESIGN order; permission rules and the
// validator use it as the closed set of names.
var toolList = [...]Tool{ToolShell, ToolFileRead, ToolFileWrite, ToolHTTP, ToolMessage, ToolSend, ToolEval, ToolMemoryEdit}

// ParseTool maps a spelling such as "FILE-READ", ":file_read" or "File_Read"
// to its Tool; ok is false for anything that is not one of the eight.
func ParseTool(name string) (Tool, bool) {
	n := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(name), ":"))
	n = strings.ReplaceAll(n, "-", "_")
	for _, t := range toolList {
		if string(t) == n {
			return t, true
		}
	}
	return "", false
}

// argSpec is one argument of a tool's schema.
type argSpec struct {
	name     string
	required bool   // absent is a schema error
	def      string // value used when an optional argument is absent
}

// schemas is the argument schema of every tool, in DESIGN order. All
// arguments are strings. cwd and body are optional because the seeds'
// plist form omits them ("ls notes" runs in the first root; a GET has no
// body); everything else must be present.
var schemas = map[Tool][]argSpec{
	ToolShell:      {{name: "cmd", required: true}, {name: "cwd", def: "."}},
	ToolFileRead:   {{name: "path", required: true}},
	ToolFileWrite:  {{name: "path", required: true}, {name: "content", required: true}},
	ToolHTTP:       {{name: "method", required: true}, {name: "url", required: true}, {name: "body", def: ""}},
	ToolMessage:    {{name: "text", required: true}},
	ToolSend:       {{name: "channel", required: true}, {name: "to", required: true}, {name: "text", required: true}},
	ToolEval:       {{name: "lang", required: true}, {name: "code", required: true}},
	ToolMemoryEdit: {{name: "id", required: true}, {name: "content", required: true}},
}

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

// NewAction builds a well-formed action from a tool and its arguments,
// filling optional arguments with their defaults. It does not validate: the
// stack's validator does, for every action however it was made.
func NewAction(tool Tool, explanation string, args map[string]string) Action {
	out := make(Args, len(schemas[tool]))
	for _, s := range schemas[tool] {
		if v, ok := args[s.name]; ok {
			out[s.name] = v
		} else if !s.required {
			out[s.name] = s.def
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
