package gates

import (
	"fmt"
	"strings"
	"sync"
)

// Role says what an argument of a tool is, to the gates: the dispatcher's
// vectors and the validator judge an argument by its role, never by the
// name of its tool, so that every argument of every tool meets every check
// written for what it is — and one whose role a check was not written for
// is denied, naming that check.
type Role uint8

// The roles. A new role is unknown to every vector and to the validator
// until each says what it does with it (see vectorRoles and
// validatorRoles); until then every action carrying one is denied.
const (
	roleNone Role = iota
	// RoleCommand is a command line a tool runs (bash).
	RoleCommand
	// RoleWorkDir is the folder a command runs in.
	RoleWorkDir
	// RoleReadPath is a file a tool reads.
	RoleReadPath
	// RoleWritePath is a file a tool writes.
	RoleWritePath
	// RoleContent is text a tool writes into the notes.
	RoleContent
	// RoleNodeID is the :ID: of the Org node a tool changes.
	RoleNodeID
	// RoleMethod is the method of an HTTP request.
	RoleMethod
	// RoleURL is a URL a tool requests.
	RoleURL
	// RoleBody is a request body sent to a server.
	RoleBody
	// RoleChannel is the way a message is sent (email, chat…).
	RoleChannel
	// RoleRecipient is who a message is sent to.
	RoleRecipient
	// RoleMessage is text sent to someone other than the user.
	RoleMessage
	// RoleAnswer is text for the user, shown in the editor.
	RoleAnswer
	// RoleLang is the language of code.
	RoleLang
	// RoleCode is code an interpreter evaluates.
	RoleCode
	// numRoles bounds the roles (tables indexed by role).
	numRoles
)

var roleNames = [numRoles]string{
	roleNone: "none", RoleCommand: "command", RoleWorkDir: "workdir", RoleReadPath: "read-path",
	RoleWritePath: "write-path", RoleContent: "content", RoleNodeID: "node-id", RoleMethod: "method",
	RoleURL: "url", RoleBody: "body", RoleChannel: "channel", RoleRecipient: "recipient",
	RoleMessage: "message", RoleAnswer: "answer", RoleLang: "lang", RoleCode: "code",
}

// String is the role's name.
func (r Role) String() string {
	if r < numRoles {
		return roleNames[r]
	}
	return fmt.Sprintf("role(%d)", uint8(r))
}

// ArgSpec is one argument of a tool. Every argument is a string.
type ArgSpec struct {
	Name string
	Role Role
	// Required: an action without it is malformed. An optional argument
	// an action leaves out takes Default.
	Required bool
	Default  string
	// Description tells the model what goes there.
	Description string
}

// ToolSpec is one tool: everything pp-lsp knows about it, in one place —
// the gates (its schema, and its arguments' roles), the actuators (whether
// it needs approval), the model's prompt and the providers' tool
// definitions (its description and its arguments').
type ToolSpec struct {
	Name Tool
	// Description tells the model what the tool does.
	Description string
	Args        []ArgSpec
	// NeedsApproval: it runs only from an approved Flight Plan, whatever
	// the gates say (it reaches beyond the user's machine or runs
	// arbitrary code).
	NeedsApproval bool
}

// Arg returns the argument named name.
func (s *ToolSpec) Arg(name string) (ArgSpec, bool) {
	for _, a := range s.Args {
		if a.Name == name {
			return a, true
		}
	}
	return ArgSpec{}, false
}

// ArgNames are the names of its arguments in order, an optional one
// followed by "?": how the prompt's tool belt and MCP's description of
// propose_action list them.
func (s *ToolSpec) ArgNames() []string {
	names := make([]string, 0, len(s.Args))
	for _, a := range s.Args {
		n := a.Name
		if !a.Required {
			n += "?"
		}
		names = append(names, n)
	}
	return names
}

// ArgWith returns the first argument of role r.
func (s *ToolSpec) ArgWith(r Role) (ArgSpec, bool) {
	for _, a := range s.Args {
		if a.Role == r {
			return a, true
		}
	}
	return ArgSpec{}, false
}

// Tools is the registry of tools: what the gates accept, the actuators
// run and the model is offered. It never changes once made; make one with
// NewTools or BuiltinTools and pass it to whatever needs it.
type Tools struct {
	specs  []ToolSpec
	byName map[Tool]*ToolSpec
}

// validName is what a tool's and an argument's name may be: DESIGN §6
// spells them in lower case with '_', and decoders fold any other
// spelling to that.
func validName(s string) bool {
	for i := 0; i < len(s); i++ {
		c := s[i]
		if !(c >= 'a' && c <= 'z' || i > 0 && (c >= '0' && c <= '9' || c == '_')) {
			return false
		}
	}
	return s != ""
}

// NewTools makes a registry of specs, in the order given (the order the
// model sees them in). Each name must be new, lower case, and each
// argument named once with a role.
func NewTools(specs ...ToolSpec) (*Tools, error) {
	t := &Tools{byName: make(map[Tool]*ToolSpec, len(specs))}
	names := map[Tool]bool{}
	for _, s := range specs {
		if !validName(string(s.Name)) {
			return nil, fmt.Errorf("tool %q: a tool's name is lower-case letters, digits and _", s.Name)
		}
		if names[s.Name] {
			return nil, fmt.Errorf("tool %q is defined twice", s.Name)
		}
		names[s.Name] = true
		seen := map[string]bool{"explanation": true}
		for _, a := range s.Args {
			switch {
			case !validName(a.Name):
				return nil, fmt.Errorf("tool %s: argument %q: an argument's name is lower-case letters, digits and _", s.Name, a.Name)
			case seen[a.Name]:
				return nil, fmt.Errorf("tool %s: argument %q is defined twice (or is \"explanation\", which every action has)", s.Name, a.Name)
			case a.Role == roleNone:
				return nil, fmt.Errorf("tool %s: argument %q has no role", s.Name, a.Name)
			case a.Required && a.Default != "":
				return nil, fmt.Errorf("tool %s: argument %q is required and has a default", s.Name, a.Name)
			}
			seen[a.Name] = true
		}
		s.Args = append([]ArgSpec(nil), s.Args...)
		t.specs = append(t.specs, s)
	}
	for i := range t.specs {
		t.byName[t.specs[i].Name] = &t.specs[i]
	}
	return t, nil
}

// With is a new registry of these tools and more.
func (t *Tools) With(more ...ToolSpec) (*Tools, error) {
	return NewTools(append(t.Specs(), more...)...)
}

// Specs are the tools, in order; the caller may change the copy.
func (t *Tools) Specs() []ToolSpec {
	out := make([]ToolSpec, len(t.specs))
	for i, s := range t.specs {
		s.Args = append([]ArgSpec(nil), s.Args...)
		out[i] = s
	}
	return out
}

// Spec returns the tool named tool.
func (t *Tools) Spec(tool Tool) (ToolSpec, bool) {
	s, ok := t.byName[tool]
	if !ok {
		return ToolSpec{}, false
	}
	c := *s
	c.Args = append([]ArgSpec(nil), s.Args...)
	return c, true
}

// spec is Spec without the copy, for the gates' own reading.
func (t *Tools) spec(tool Tool) *ToolSpec { return t.byName[tool] }

// Parse maps a spelling such as "FILE-READ", ":file_read" or "File_Read"
// to its Tool; ok is false for anything that is not one of the tools.
func (t *Tools) Parse(name string) (Tool, bool) {
	n := strings.ToLower(strings.TrimPrefix(strings.TrimSpace(name), ":"))
	n = strings.ReplaceAll(n, "-", "_")
	if _, ok := t.byName[Tool(n)]; ok {
		return Tool(n), true
	}
	return "", false
}

// NeedsApproval reports whether tool runs only from an approved Flight
// Plan; a tool the registry does not know does.
func (t *Tools) NeedsApproval(tool Tool) bool {
	s, ok := t.byName[tool]
	return !ok || s.NeedsApproval
}

// BuiltinTools are the eight tools of DESIGN §6, in the order the model
// is offered them: one registry, made at the first call, which (as every
// registry) never changes.
func BuiltinTools() *Tools { return builtinTools() }

var builtinTools = sync.OnceValue(func() *Tools {
	t, err := NewTools(builtinSpecs()...)
	if err != nil {
		panic("gates: the builtin tools: " + err.Error()) // a bug in the table below, caught by every test
	}
	return t
})

// builtinSpecs is the one definition of the eight tools. cwd and body are
// optional because the seeds' plist form omits them ("ls notes" runs in
// the first root; a GET has no body); every other argument is required.
func builtinSpecs() []ToolSpec {
	return []ToolSpec{
		{Name: ToolMessage, Description: "Answer the user in words (plain text works too).", Args: []ArgSpec{
			{Name: "text", Role: RoleAnswer, Required: true, Description: "the answer, in Org markup"}}},
		{Name: ToolFileRead, Description: "Read a file; its text comes back to you.", Args: []ArgSpec{
			{Name: "path", Role: RoleReadPath, Required: true, Description: "relative to the first memex root, or absolute, or ~/…"}}},
		{Name: ToolFileWrite, Description: "Replace a file's whole content (inside the memex roots).", Args: []ArgSpec{
			{Name: "path", Role: RoleWritePath, Required: true, Description: "relative to the first memex root"},
			{Name: "content", Role: RoleContent, Required: true, Description: "the new content, whole"}}},
		{Name: ToolMemoryEdit, Description: "Replace the body of the Org node with this :ID: (its headline, properties and children stay).", Args: []ArgSpec{
			{Name: "id", Role: RoleNodeID, Required: true, Description: "the node's :ID:"},
			{Name: "content", Role: RoleContent, Required: true, Description: "the new body, without headlines"}}},
		{Name: ToolShell, Description: "Run a shell command (bash) inside the memex roots; its output comes back to you.", Args: []ArgSpec{
			{Name: "cmd", Role: RoleCommand, Required: true, Description: "the command line"},
			{Name: "cwd", Role: RoleWorkDir, Default: ".", Description: "working folder, relative to the first root (default .)"}}},
		{Name: ToolHTTP, Description: "Make an HTTP request.", NeedsApproval: true, Args: []ArgSpec{
			{Name: "method", Role: RoleMethod, Required: true, Description: "GET, POST, …"},
			{Name: "url", Role: RoleURL, Required: true, Description: "the URL"},
			{Name: "body", Role: RoleBody, Description: "the request body"}}},
		{Name: ToolSend, Description: "Send a message through a configured channel.", NeedsApproval: true, Args: []ArgSpec{
			{Name: "channel", Role: RoleChannel, Required: true, Description: "the channel's name"},
			{Name: "to", Role: RoleRecipient, Required: true, Description: "the recipient"},
			{Name: "text", Role: RoleMessage, Required: true, Description: "the message"}}},
		{Name: ToolEval, Description: "Evaluate code with an interpreter.", NeedsApproval: true, Args: []ArgSpec{
			{Name: "lang", Role: RoleLang, Required: true, Description: "python, sh, bash, javascript, ruby, perl, lisp, elisp"},
			{Name: "code", Role: RoleCode, Required: true, Description: "the code"}}},
	}
}
