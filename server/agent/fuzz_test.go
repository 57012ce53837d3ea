package agent

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"pp-lsp/gates"
	"pp-lsp/providers"
)

// FuzzParseProposal: any answer is an action, a message or a rejected
// proposal with a reason; nothing panics and nothing is evaluated.
func FuzzParseProposal(f *testing.F) {
	for _, s := range []string{
		`(:TOOL :SHELL :ARGS (:CMD "ls") :EXPLANATION "x")`, `#.(run)`, "```\n(:x)\n```", `{"tool":"shell"}`, "plain words", "",
		`(:TYPE :REQUEST :PAYLOAD (:ACTION :SHELL :CMD "ls" :EXPLANATION "x"))`,
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		p := parseProposal(providers.Response{Text: text})
		if p.err != nil {
			assert.NotEmpty(t, p.err.Error())
			return
		}
		_, ok := gates.ParseTool(string(p.action.Tool))
		assert.True(t, ok)
		if p.message {
			assert.Equal(t, strings.TrimSpace(text), p.action.Arg("text"))
		}
	})
}
