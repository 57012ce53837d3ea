package skills

// Builtins are the skills pp-lsp brings, each overridable by a skill of
// the same title.
func Builtins() []*Skill { return nil }
