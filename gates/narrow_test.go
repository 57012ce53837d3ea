package gates

import (
	"context"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func TestNarrowingOnlyNarrows(t *testing.T) {
	ctx := context.Background()
	stack, env, _ := testEnv(t, DefaultConfig())
	w := env.World()
	w.Narrowing = []Narrowing{{Source: "skill Careful", Deny: []string{"shell(cat:*)"}, Ask: []string{"file_write(notes/**)"}}}
	narrow, err := stack.NewEnv(ctx, w)
	require.NoError(t, err)
	t.Cleanup(func() { narrow.Close() })

	cases := []struct {
		name          string
		action        Action
		plain, narrow string
	}{
		{"a deny rule denies what the built-in rules allow", act(ToolShell, "cmd", "cat inbox.org"), VerdictAllow, VerdictDeny},
		{"an ask rule asks for what the built-in rules allow", act(ToolFileWrite, "path", "notes/x.org", "content", "* x\n"), VerdictAllow, VerdictAsk},
		{"what no rule names is unchanged", act(ToolShell, "cmd", "ls notes"), VerdictAllow, VerdictAllow},
		{"rm -rf / stays denied", act(ToolShell, "cmd", "rm -rf /"), VerdictDeny, VerdictDeny},
		{"an action that asked still asks", act(ToolShell, "cmd", "make test"), VerdictAsk, VerdictAsk},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			assert.Equal(t, c.plain, stack.Check(ctx, c.action, env).Verdict)
			v := stack.Check(ctx, c.action, narrow)
			assert.Equal(t, c.narrow, v.Verdict, v.Reason)
			if c.narrow != c.plain {
				assert.Contains(t, v.Reason, "skill Careful")
			}
		})
	}
}

func TestNarrowingRefusesBadRules(t *testing.T) {
	stack, env, _ := testEnv(t, DefaultConfig())
	w := env.World()
	w.Narrowing = []Narrowing{{Source: "skill Bad", Deny: []string{"teleport(*)"}}}
	_, err := stack.NewEnv(context.Background(), w)
	require.Error(t, err)
	assert.Contains(t, err.Error(), "skill Bad")
	assert.Error(t, stack.Tools().CheckRule("shell("))
	assert.NoError(t, stack.Tools().CheckRule("shell(rm:*)"))
}
