package gates

import (
	"context"
	"fmt"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestBuiltinToolsAreDesigns: the registry's eight tools are DESIGN §6's,
// with its arguments in its order, and http, send and eval need approval.
func TestBuiltinToolsAreDesigns(t *testing.T) {
	want := map[Tool][]string{
		ToolShell: {"cmd", "cwd"}, ToolFileRead: {"path"}, ToolFileWrite: {"path", "content"},
		ToolHTTP: {"method", "url", "body"}, ToolMessage: {"text"}, ToolSend: {"channel", "to", "text"},
		ToolEval: {"lang", "code"}, ToolMemoryEdit: {"id", "content"},
	}
	tools := BuiltinTools()
	got := map[Tool][]string{}
	for _, s := range tools.Specs() {
		for _, a := range s.Args {
			got[s.Name] = append(got[s.Name], a.Name)
			assert.NotEmpty(t, a.Description, "%s %s", s.Name, a.Name)
		}
		assert.NotEmpty(t, s.Description, s.Name)
		assert.Equal(t, s.Name == ToolHTTP || s.Name == ToolSend || s.Name == ToolEval, s.NeedsApproval, s.Name)
		assert.Equal(t, s.NeedsApproval, tools.NeedsApproval(s.Name))
	}
	assert.Equal(t, want, got)
	assert.True(t, tools.NeedsApproval("launch"), "a tool the registry does not know needs a human")
	for _, spelling := range []string{"FILE-READ", ":file_read", " File_Read "} {
		tool, ok := tools.Parse(spelling)
		assert.True(t, ok, spelling)
		assert.Equal(t, ToolFileRead, tool)
	}

	// A copy changed by its reader changes nothing in the registry.
	specs := tools.Specs()
	specs[0].Args[0].Role = RoleCommand
	s, _ := tools.Spec(specs[0].Name)
	assert.NotEqual(t, RoleCommand, s.Args[0].Role)
}

func TestNewToolsRefusesABadTable(t *testing.T) {
	tests := []struct {
		name string
		spec ToolSpec
		want string
	}{
		{"a name in capitals", ToolSpec{Name: "Shout", Args: []ArgSpec{{Name: "text", Role: RoleAnswer}}}, "lower-case"},
		{"a second shell", ToolSpec{Name: ToolShell}, "defined twice"},
		{"an argument twice", ToolSpec{Name: "x", Args: []ArgSpec{{Name: "a", Role: RoleAnswer}, {Name: "a", Role: RoleAnswer}}}, "defined twice"},
		{"an argument called explanation", ToolSpec{Name: "x", Args: []ArgSpec{{Name: "explanation", Role: RoleAnswer}}}, "defined twice"},
		{"an argument without a role", ToolSpec{Name: "x", Args: []ArgSpec{{Name: "a"}}}, "has no role"},
		{"a required argument with a default", ToolSpec{Name: "x", Args: []ArgSpec{{Name: "a", Role: RoleAnswer, Required: true, Default: "."}}}, "required and has a default"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			_, err := BuiltinTools().With(tt.spec)
			assert.ErrorContains(t, err, tt.want)
		})
	}
}

// TestEveryCheckKnowsEveryRole: every vector and the validator say, for
// every role, what they do with an argument of it. A new role fails here
// until each has been taught it (and, until then, every action carrying
// one is denied: see TestARoleACheckWasNotWrittenForIsDenied).
func TestEveryCheckKnowsEveryRole(t *testing.T) {
	d := newDispatcher(DefaultConfig(), BuiltinTools())
	for _, v := range d.vectors {
		if v.perTool {
			assert.Empty(t, v.judges, v.name)
			continue
		}
		seen := map[Role]string{}
		for part, list := range map[string][]Role{"judges": v.judges, "lateJudges": v.lateJudges, "leaves": v.leaves} {
			for _, r := range list {
				if prev, ok := seen[r]; ok && (prev == "leaves" || part == "leaves") {
					t.Errorf("%s both judges and leaves the role %s", v.name, r)
				}
				seen[r] = part
			}
		}
		for r := roleNone + 1; r < numRoles; r++ {
			assert.Contains(t, seen, r, "%s does not say what it does with the role %s", v.name, r)
		}
	}
	var known [numRoles]int
	for _, r := range validatorNoNUL {
		known[r]++
	}
	for _, c := range validatorChecks {
		known[c.role]++
	}
	for _, r := range validatorFree {
		known[r]++
	}
	for r := roleNone + 1; r < numRoles; r++ {
		assert.NotZero(t, known[r], "the validator has no rule for the role %s", r)
		assert.NotEqual(t, fmt.Sprintf("role(%d)", r), r.String())
	}
}

// noteAppend is a tool the builtin table does not have, made only of
// roles the gates know.
var noteAppend = ToolSpec{Name: "note_append", Description: "Append text to a note.", Args: []ArgSpec{
	{Name: "path", Role: RoleWritePath, Required: true, Description: "the note"},
	{Name: "text", Role: RoleContent, Required: true, Description: "what to append"},
}}

// TestANewToolIsJudgedByTheRolesOfItsArguments: a tool registered beside
// the eight meets every vector written for what its arguments are — its
// path is confined and protected like file_write's, a secret in its text
// is asked about like one written into the notes — and nothing allows it
// until a permission rule does.
func TestANewToolIsJudgedByTheRolesOfItsArguments(t *testing.T) {
	tools, err := BuiltinTools().With(noteAppend)
	require.NoError(t, err)
	stack, env, _ := testEnv(t, DefaultConfig(), WithTools(tools))
	ctx := context.Background()
	note := func(path, text string) Action {
		a, err := tools.DecodeJSON(fmt.Appendf(nil, `{"tool":"note_append","args":{"path":%q,"text":%q},"explanation":"keep it"}`, path, text))
		require.NoError(t, err)
		return a
	}
	tests := []struct {
		name                  string
		action                Action
		verdict, gate, reason string
	}{
		{"outside the roots", note("../elsewhere.org", "x"), VerdictDeny, gateDispatcher, "paths: writes ../elsewhere.org, outside the roots"},
		{"the Flight Plans", note("flightplans.org", "* APPROVED x"), VerdictDeny, gateDispatcher, "flightplans.org"},
		{"a path made to look like another", note("notes/todo\u200b.org", "x"), VerdictDeny, gateDispatcher, "paths: the path"},
		{"a secret into the notes", note("notes/todo.org", "token ghp_aB3dE5fG7hJ9kL1mN3pQ5rS7tU9vW1xY3z5A"), VerdictAsk, gatePermissions, "secrets: the note_append writes what looks like a secret"},
		{"plain text into a note", note("notes/todo.org", "* TODO call Bob"), VerdictAsk, gatePermissions, "no permission rule allows this note_append action"},
		{"a missing argument", Action{Tool: "note_append", Args: Args{"path": "a.org"}, Explanation: "x"}, VerdictDeny, gateValidator, `note_append action without its "text" argument`},
		{"an empty path", note(" ", "x"), VerdictDeny, gateValidator, "note_append action with an empty path"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			v := stack.Check(ctx, tt.action, env)
			assert.Equal(t, tt.verdict, v.Verdict, v.Reason)
			assert.Equal(t, tt.gate, v.Gate, v.Reason)
			assert.Contains(t, v.Reason, tt.reason)
		})
	}

	// A rule names it as any tool; a pattern it has no matcher for is a
	// mistake in the configuration, not a rule that never matches.
	cfg := DefaultConfig()
	cfg.Permissions.Allow = []string{"note_append"}
	stack, env, _ = testEnv(t, cfg, WithTools(tools))
	v := stack.Check(ctx, note("notes/todo.org", "* TODO call Bob"), env)
	assert.Equal(t, VerdictAllow, v.Verdict, v.Reason)
	cfg.Permissions.Allow = nil
	cfg.Permissions.Deny = []string{"note_append(*.org)"}
	_, err = New(cfg, WithTools(tools))
	assert.ErrorContains(t, err, "note_append takes no pattern")
	_, err = New(cfg)
	assert.ErrorContains(t, err, `unknown tool "note_append"`, "the builtin tools do not have it")
}

// TestARoleACheckWasNotWrittenForIsDenied: an argument of a role the
// validator has no rule for makes every action of its tool malformed; one
// a vector was not written for is denied by that vector, naming it and
// the role, until the vector is taught it.
func TestARoleACheckWasNotWrittenForIsDenied(t *testing.T) {
	unknown := numRoles
	tools, err := BuiltinTools().With(ToolSpec{Name: "beam", Args: []ArgSpec{{Name: "to", Role: unknown, Required: true}}})
	require.NoError(t, err)
	stack, env, _ := testEnv(t, DefaultConfig(), WithTools(tools))
	ctx := context.Background()
	v := stack.Check(ctx, Action{Tool: "beam", Args: Args{"to": "mars"}, Explanation: "go"}, env)
	assert.Equal(t, VerdictDeny, v.Verdict)
	assert.Equal(t, gateValidator, v.Gate)
	assert.Contains(t, v.Reason, `the validator has no rule for the role role(16) (argument "to" of beam)`)

	// The paths vector, made to forget what it does with content: every
	// file_write is denied by it, whatever the other vectors say.
	builtin := BuiltinTools()
	forgetful := newDispatcher(DefaultConfig(), builtin)
	for i := range forgetful.vectors {
		if v := &forgetful.vectors[i]; v.name == vecPaths {
			v.leaves = slices.DeleteFunc(slices.Clone(v.leaves), func(r Role) bool { return r == RoleContent })
		}
	}
	forgetful.plans = forgetful.plan(builtin)
	write := act(ToolFileWrite, "path", "notes/todo.org", "content", "* TODO x\n")
	ce := stack.beginCheck(env)
	defer stack.endCheck(ce)
	r := forgetful.Check(ctx, write, &ce.env)
	assert.Equal(t, Deny, r.Decision)
	assert.Equal(t, `paths: it was not written for the role content (argument "content" of file_write), so it cannot judge the action`, r.Reason)
	// memory_edit has content too; shell, which has none, is judged as before.
	edit := act(ToolMemoryEdit, "id", "road-1", "content", "x")
	assert.Equal(t, Deny, forgetful.Check(ctx, edit, &ce.env).Decision)
	ls := act(ToolShell, "cmd", "ls notes", "cwd", ".")
	assert.Equal(t, Pass, forgetful.Check(ctx, ls, &ce.env).Decision)

	// Taught the role again, the vector judges file_write as it always did.
	taught := newDispatcher(DefaultConfig(), builtin)
	assert.Equal(t, Pass, taught.Check(ctx, write, &ce.env).Decision)
	assert.Equal(t, Deny, taught.Check(ctx, Action{Tool: "beam"}, &ce.env).Decision, "a tool the vectors were never told about")
}
