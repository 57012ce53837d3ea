package gates

import (
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"

	"pp-lsp/orgast/orgskill"
)

// A skill (DESIGN §15) is a standing instruction: its body joins the
// MANDATES of every pass it triggers, its SCHEDULED: repeater starts
// background passes, its gates block narrows what they may do. The model
// proposes, never acts: a write that may add, change or remove one is
// never allowed without a human (skillWriteAsk). What a skill is, is
// orgskill's — the loader's own predicate.

// whySkills is what every skill-write reason ends with.
const whySkills = "standing instructions and schedules come from a human"

// maxSkillScan bounds the bytes of a file read to tell the skills it holds
// now; a larger file is taken to hold one.
const maxSkillScan = 16 << 20

// skillWriteAsk says why an action's writes may change the skills, if
// they may: a file_write whose text holds skills other than the file's
// now, a memory_edit in a file that holds a skill, a shell command that
// writes an Org file or into a folder.
func (d *dispatcher) skillWriteAsk(ctx context.Context, a Action, args []arg, env *Env) (string, bool) {
	for _, g := range args {
		switch g.role {
		case RoleWritePath:
			content, ok := g.with(a, RoleContent)
			if !ok {
				// A write of text the gates cannot read.
				if why, ok := env.skillShellWrite(env.locate(a.Arg(g.name), ".").abs); ok {
					return why, true
				}
				continue
			}
			if why, ok := env.skillFileWrite(a.Arg(g.name), content); ok {
				return why, true
			}
		case RoleNodeID:
			content, _ := g.with(a, RoleContent)
			if why, ok := env.skillNodeEdit(a.Arg(g.name), content); ok {
				return why, true
			}
		case RoleCommand:
			cmd, cwd := g.command(a)
			for _, w := range shellOf(ctx, env, cmd, cwd).writes {
				if why, ok := env.skillShellWrite(w); ok {
					return why, true
				}
			}
		}
	}
	return "", false
}

// skillChange words a change of the skills as a reason.
func skillChange(c orgskill.Change) string {
	return fmt.Sprintf("%s the skill %q: %s", strings.Replace(c.How, "adds", "writes", 1), c.Title, whySkills)
}

// currentSkills reads the skills of the file at the canonical path abs as
// it is now: none when there is no such file; ok false when it cannot be
// told (unreadable, too large).
func (e *Env) currentSkills(abs string) (skills []orgskill.Skill, ok bool) {
	n := e.view().lstat(abs)
	switch {
	case errors.Is(n.err, fs.ErrNotExist):
		return nil, true
	case n.err != nil:
		return nil, false
	case n.mode != 0:
		// A folder, a device, a dangling link: no text to replace, and
		// the actuator refuses to write it.
		return nil, true
	}
	data, err := readBounded(abs, maxSkillScan+1)
	if err != nil || len(data) > maxSkillScan {
		return nil, false
	}
	return orgskill.InText(data), true
}

// skillFileWrite judges a file_write of content to p: whatever the file's
// name (an Org file may be a symlink to it), the skills of content must
// be the file's own now.
func (e *Env) skillFileWrite(p, content string) (string, bool) {
	l := e.locate(p, ".")
	if l.abs == "" {
		return "", false // the paths vector denies it
	}
	after := orgskill.InText([]byte(content))
	before, ok := e.currentSkills(l.abs)
	if !ok {
		if len(after) > 0 || isOrgName(l.abs) {
			return fmt.Sprintf("writes %s, whose skills cannot be read now to compare (%s)", p, whySkills), true
		}
		return "", false
	}
	if ch := orgskill.Diff(before, after); len(ch) > 0 {
		return skillChange(ch[0]), true
	}
	return "", false
}

// skillNodeEdit judges a memory_edit of node id's body: in a file that
// holds a skill, any body may change one (its own mandate, a #+TODO: that
// retitles it, a #+FILETAGS: that makes it private or public); elsewhere
// a body, which holds no headline, makes none.
func (e *Env) skillNodeEdit(id, content string) (string, bool) {
	if s := orgskill.InText([]byte(content)); len(s) > 0 {
		return skillChange(orgskill.Change{Title: s[0].Title, How: "adds"}), true
	}
	m := e.world.Memex
	if m == nil {
		return "", false // the self-modification vector asks
	}
	file, ok := m.FileOfID(id)
	if !ok {
		return "", false
	}
	l := e.locate(file, ".")
	if l.abs == "" {
		return "", false
	}
	switch skills, ok := e.currentSkills(l.abs); {
	case !ok:
		return fmt.Sprintf("edits node %q in %s, whose skills cannot be read now (%s)", id, file, whySkills), true
	case len(skills) > 0:
		return fmt.Sprintf("edits node %q in %s, which holds the skill %q: %s", id, l.rel, skills[0].Title, whySkills), true
	}
	return "", false
}

// skillShellWrite judges a file a command writes or deletes (canonical,
// inside the roots), whose text the gates do not know: an Org file the
// memex reads, or a folder (files land below it), may come to hold a
// skill; a file_write of the same text is compared instead.
func (e *Env) skillShellWrite(abs string) (string, bool) {
	if abs == "" {
		return "", false
	}
	rel := abs
	if i, r := e.rootOf(abs); i >= 0 {
		rel = r
	}
	if isOrgName(abs) {
		return fmt.Sprintf("a command writes %s: an Org file may hold a skill, and %s", rel, whySkills), true
	}
	if n := e.view().lstat(abs); n.err == nil && n.mode.IsDir() {
		return fmt.Sprintf("a command writes into the folder %s: an Org file landing there may hold a skill, and %s", rel, whySkills), true
	}
	return "", false
}

// isOrgName says whether a file name is one the memex reads as Org (it
// reads "*.org"; the case is ignored here, as a file system may).
func isOrgName(p string) bool {
	return strings.EqualFold(filepath.Ext(p), ".org")
}
