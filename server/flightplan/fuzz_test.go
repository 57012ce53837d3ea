package flightplan

import (
	"bytes"
	"testing"
	"time"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/orgast"
	"pp-lsp/server/workspace"
)

// FuzzRender: whatever command and explanation a model proposes, the plan
// written reads back as exactly that action, one plan, not edited.
func FuzzRender(f *testing.F) {
	f.Add("make test", "Run the tests.")
	f.Add("printf '* x\\n#+end_src\\n'", "* headline\n#+end_src\n:END:\n#+TODO: A | B")
	f.Add("echo `x` :a:b:", ",* escaped\n,#+x")
	f.Add("make test", "a NUL\x00 in the explanation is asked, not denied")
	f.Fuzz(func(t *testing.T, cmd, explanation string) {
		if !utf8.ValidString(cmd) || !utf8.ValidString(explanation) {
			t.Skip("the validator denies these before any plan is filed")
		}
		a := gates.Build(gates.ShellArgs{Cmd: cmd, Cwd: "."}, explanation)
		src, err := workspace.Edit{Changes: AppendTo(nil, Render(Filing{ID: testID, Created: time.Unix(0, 0), Action: a, Gate: "permissions"}))}.Apply()
		require.NoError(t, err)
		// An explanation with a NUL is asked, not denied: a plan is filed,
		// and nothing the model wrote may change how the file decodes.
		require.True(t, utf8.Valid(src) && !bytes.ContainsRune(src, 0), "%q", src)
		plans := Parse(src)
		require.Len(t, plans, 1, "%s", src)
		p := plans[0]
		assert.Equal(t, StatePlan, p.State)
		require.NotNil(t, p.Action, "%v\n%s", p.ActionErr, src)
		assert.Equal(t, a.Hash(), p.Action.Hash())
		assert.False(t, p.Edited())
	})
}

// FuzzParse: any bytes parse without panic, and the edits made to any plan
// apply and never add or remove a level-1 headline.
func FuzzParse(f *testing.F) {
	f.Add([]byte(Header+"* PLAN x\n:PROPERTIES:\n:ID: a\n:END:\n#+begin_src json\n{}\n#+end_src\n"), "done")
	f.Add([]byte("* x"), "note\n* not a headline")
	f.Add([]byte("*\n** y\n* z :t:\n:PROPERTIES:\n:END:"), "")
	f.Fuzz(func(t *testing.T, src []byte, note string) {
		plans := Parse(src)
		level1 := func(b []byte) int {
			n := 0
			for _, h := range orgast.Parse(b).Headlines {
				if h.Parent == -1 {
					n++
				}
			}
			return n
		}
		want := level1(src)
		for i := range plans {
			p := &plans[i]
			out, err := workspace.Edit{Base: src, Changes: []workspace.Change{
				p.SetState(StateDone), p.Note(src, time.Unix(0, 0), note, note), p.SetProperty(src, "GATE", note),
			}}.Apply()
			require.NoError(t, err)
			assert.Equal(t, want, level1(out), "editing plan %d changed the outline:\n%s", i, out)
		}
	})
}
