package skills

import (
	_ "embed"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/memory"
)

//go:embed builtin.org
var builtinOrg []byte

// The built-in skills' titles.
const (
	Gardener = "Gardener"
	Scribe   = "Scribe"
)

// Builtins are the skills pp-lsp brings (builtin.org), each overridden by
// a skill of the same title in the memex. They have no schedule of their
// own: an override with a SCHEDULED: repeater runs one daily, and either
// runs on request (Agent.RunSkill).
func Builtins() []*Skill {
	file := memory.ParseLoose("builtin.org", builtinOrg, "").Node()
	var out []*Skill
	for n := range file.Descendants() {
		k := fromNode(n, gates.BuiltinTools())
		k.File, k.Line, k.Builtin = "", 0, true
		k.Diagnostics, k.Problem = nil, ""
		out = append(out, k)
	}
	return out
}

// Is reports whether k is the built-in of that title or a skill
// overriding it.
func (k *Skill) Is(title string) bool { return strings.EqualFold(k.Title, title) }
