package gates

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io/fs"
	"path/filepath"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"

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
			rep := shellOf(ctx, env, cmd, cwd)
			writes := rep.writes
			if len(writes) == 0 {
				continue
			}
			if why, ok, known := env.skillLiteralWrite(cmd, cwd, rep); known {
				if ok {
					return why, true
				}
				continue
			}
			if env.skillSelectionWrite(cmd, cwd, rep) {
				continue
			}
			for _, w := range writes {
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

// currentText reads the file at the canonical path abs as it is now (nil
// when there is none); ok false when it cannot be read whole.
func (e *Env) currentText(abs string) (data []byte, ok bool) {
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
	return data, true
}

// bufferTexts is what a Memex may tell besides: the text of an editor
// buffer open over a file (*memory.Snapshot does). The skills loader
// reads the buffer, not the disk, and a file action changes the buffer:
// a write is judged against both.
type bufferTexts interface {
	BufferText(path string) ([]byte, bool)
}

// heldTexts are the texts a write to the file at path (the memex's name
// for it) and canonical abs changes: the disk's (ok false when it cannot
// be read whole), then an open buffer's when it differs.
func (e *Env) heldTexts(path, abs string) (texts [][]byte, ok bool) {
	data, ok := e.currentText(abs)
	texts = append(texts, data)
	if b, is := e.world.Memex.(bufferTexts); is {
		for _, p := range []string{path, abs} {
			if buf, open := b.BufferText(p); open && !bytes.Equal(buf, data) {
				return append(texts, buf), ok
			}
		}
	}
	return texts, ok
}

// skillFileWrite judges a file_write of content to p: whatever the file's
// name (an Org file may be a symlink to it), the skills of content must
// be the file's own now, and a file that holds one must stay text the
// memex reads.
func (e *Env) skillFileWrite(p, content string) (string, bool) {
	l := e.locate(p, ".")
	if l.class != pathInside {
		return "", false // the paths vector denies it
	}
	after := orgskill.InText([]byte(content))
	texts, ok := e.heldTexts(e.memexName(l.abs), l.abs)
	if !ok && (len(after) > 0 || isOrgName(l.abs)) {
		return fmt.Sprintf("writes %s, whose skills cannot be read now to compare (%s)", p, whySkills), true
	}
	for i, cur := range texts {
		if i == 0 && !ok {
			continue
		}
		before := orgskill.InText(cur)
		if ch := orgskill.Diff(before, after); len(ch) > 0 {
			return skillChange(ch[0]), true
		}
		if why, ok := binaryFlip(l.rel, before, cur, []byte(content)); ok {
			return why, true
		}
	}
	return "", false
}

// binaryFlip judges a write that leaves a file's skills as they are, from
// cur to after: the memex takes a file with a NUL, or mostly bytes that
// are not UTF-8, for binary and reads nothing of it, so a write that makes
// it so drops the skills, and one that undoes it brings them in.
func binaryFlip(rel string, before []orgskill.Skill, cur, after []byte) (string, bool) {
	if len(before) == 0 || utf8.Valid(cur) && bytes.IndexByte(cur, 0) < 0 && bytes.IndexByte(after, 0) < 0 {
		return "", false
	}
	return fmt.Sprintf("writes %s, which holds the skill %q, with a NUL byte or over text that is not UTF-8: the memex reads such a file as binary, not Org, so the write may drop or bring in its skills, and %s", rel, before[0].Title, whySkills), true
}

// skillNodeEdit judges a memory_edit of node id's body: in a file that
// holds a skill, any body may change one (its own mandate, a #+TODO: that
// retitles it, a #+FILETAGS: that makes it private or public); elsewhere
// a body, which holds no headline, makes none — when the file reads the
// same lines after the edit as before, both it and the body UTF-8 with LF
// line ends (plainLines: a file whose lines end in CR alone reads as one
// line once the body brings an LF, a Latin-1 file as UTF-8 once the body
// drops its one byte that is not, and either may turn text around the
// body into a skill's headline), and no headline of the file mentions a
// skill that the file's keywords keep from being one (skillishHeadline).
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
	if l.class != pathInside {
		return "", false // the self-modification vector denies it
	}
	texts, ok := e.heldTexts(file, l.abs)
	if !ok {
		return fmt.Sprintf("edits node %q in %s, whose skills cannot be read now (%s)", id, file, whySkills), true
	}
	for _, data := range texts {
		if skills := orgskill.InText(data); len(skills) > 0 {
			return fmt.Sprintf("edits node %q in %s, which holds the skill %q: %s", id, l.rel, skills[0].Title, whySkills), true
		}
		if !plainLines(data) || !plainLines([]byte(content)) {
			return fmt.Sprintf("edits node %q in %s, whose lines or encoding the edit may change (a carriage return, a NUL or a byte that is not UTF-8), and with them its skills: %s", id, l.rel, whySkills), true
		}
		if h, ok := skillishHeadline(data); ok {
			return fmt.Sprintf("edits node %q in %s, whose headline %q could be a skill's once the file's keywords change (a #+TODO: line makes a first word a keyword): %s", id, l.rel, h, whySkills), true
		}
	}
	return "", false
}

// skillishHeadline finds a headline line of Org text (one starting with a
// star) that Mentions a skill. Whether a headline's tags are read as tags
// may depend on the file's keywords — with "#+TODO: T", "* T :skill:" is
// a keyword and a title, no tag — which a body can hold and an edit of it
// add or drop; a body holds no headline, so in a file without such a line
// no edit of one makes a skill.
func skillishHeadline(text []byte) (string, bool) {
	for len(text) > 0 {
		line := text
		if i := bytes.IndexByte(text, '\n'); i >= 0 {
			line, text = text[:i], text[i+1:]
		} else {
			text = nil
		}
		if len(line) > 0 && line[0] == '*' && orgskill.Mentions(line) {
			return string(line), true
		}
	}
	return "", false
}

// plainLines reports whether text is UTF-8 without CR or NUL: Org text
// whose lines are its LF-separated pieces however it is cut and joined
// at line ends (orgast reads a CR as a line end in a file without LF, a
// NUL as binary, and a file that is not UTF-8 as Latin-1 or raw bytes).
func plainLines(text []byte) bool {
	return utf8.Valid(text) && bytes.IndexByte(text, '\r') < 0 && bytes.IndexByte(text, 0) < 0
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
	n := e.view().lstat(abs)
	switch {
	case n.err != nil:
	case n.mode.IsDir():
		return fmt.Sprintf("a command writes into the folder %s: an Org file landing there may hold a skill, and %s", rel, whySkills), true
	case n.mode == 0 && n.nlink > 1:
		// Another name of the file may be an Org file's.
		return fmt.Sprintf("a command writes %s, a file with another name (a hard link) that may be an Org file's: it may hold a skill, and %s", rel, whySkills), true
	case n.mode == 0:
		// A file an Org file may reach by a symlink, holding a skill
		// now: the write may change it.
		if cur, ok := e.currentText(abs); !ok || len(orgskill.InText(cur)) > 0 {
			return fmt.Sprintf("a command writes %s, which holds a skill: %s", rel, whySkills), true
		}
	}
	return "", false
}

// isOrgName says whether a file name is one the memex reads as Org (it
// reads "*.org"; the case is ignored here, as a file system may).
func isOrgName(p string) bool {
	return strings.EqualFold(filepath.Ext(p), ".org")
}

// skillLiteralWrite judges a command that is one echo or printf of literal
// text redirected into one file (literalWrite), the one file the shell
// analysis found it writes: the file's text after it is compared as a
// file_write's. known is false for any other command.
func (e *Env) skillLiteralWrite(cmd, cwd string, rep *shellReport) (why string, ask, known bool) {
	writes := rep.writes
	if len(writes) != 1 || len(rep.cmds) != 1 || len(rep.cmds[0].argv) == 0 || !literalWriters[rep.cmds[0].argv[0]] {
		// Not one command, echo or printf: literalWrite would say no, and
		// parsing the command again costs as much as its analysis.
		return "", false, false
	}
	p, text, appends, ok := literalWrite(cmd)
	if !ok {
		return "", false, false
	}
	l := e.locate(p, cwd)
	if l.class != pathInside || l.abs != writes[0] {
		return "", false, false
	}
	cur, ok := e.currentText(l.abs)
	if !ok {
		return "", false, false
	}
	after := []byte(text)
	if appends {
		after = append(cur[:len(cur):len(cur)], text...)
	}
	before := orgskill.InText(cur)
	if ch := orgskill.Diff(before, orgskill.InText(after)); len(ch) > 0 {
		return skillChange(ch[0]), true, true
	}
	if why, ok := binaryFlip(l.rel, before, cur, after); ok {
		return why, true, true
	}
	// The text written is known: judged as a file_write's (orgcontent.go).
	if why, ok := e.editorCodeIn(string(after), filepath.Dir(l.abs), "the text written to "+l.rel); ok {
		return why, true, true
	}
	return "", false, true
}

// selectionWriters are the programs skillSelectionWrite reads: each
// prints whole lines of its input files, each ended by a newline, and
// nothing else, with the options selectionArgs lets through.
var selectionWriters = map[string]bool{"sort": true, "grep": true}

// skillSelectionWrite says whether a command that is one sort or grep of
// files, with options that only choose and order their lines, redirected
// (> or >>) into one file, surely leaves the skills as they are. A skill's
// headline carries the tag skill, which ends "ill:" in any spelling the
// loader takes (strings.EqualFold: :SKILL:, :ſkill:, the Kelvin sign's K;
// orgskill.Mentions): when neither the files read, nor any word of the
// command (a name grep prints before ":"), nor the file written (on disk
// or in an open buffer) holds "ill:", and an appended file ends with a
// newline (no line of it is joined with the first line printed), the file
// after it holds no "ill:", so no skill, and held none before. A file
// read must be a regular file (a pipe's text is not known now), known
// whole; the file written one with no other name.
func (e *Env) skillSelectionWrite(cmd, cwd string, rep *shellReport) bool {
	writes := rep.writes
	if len(writes) != 1 || len(rep.cmds) != 1 || len(rep.cmds[0].argv) == 0 || !selectionWriters[rep.cmds[0].argv[0]] {
		return false
	}
	argv, p, appends, ok := redirectedCall(cmd)
	if !ok {
		return false
	}
	for _, w := range argv {
		if orgskill.Mentions([]byte(w + ":")) {
			return false
		}
	}
	files, ok := selectionArgs(argv)
	if !ok {
		return false
	}
	for _, f := range files {
		l := e.locate(f, cwd)
		if l.abs == "" || l.class == pathDynamic || l.class == pathCredential {
			return false
		}
		if n := e.view().lstat(l.abs); n.err == nil && n.mode != 0 {
			return false // a folder, a pipe, a device: not a file's text
		}
		data, ok := e.currentText(l.abs)
		if !ok || orgskill.Mentions(data) {
			return false
		}
	}
	l := e.locate(p, cwd)
	if l.class != pathInside || l.abs != writes[0] {
		return false
	}
	if n := e.view().lstat(l.abs); n.err == nil && (n.mode != 0 || n.nlink > 1) {
		return false
	}
	texts, ok := e.heldTexts(p, l.abs)
	if !ok {
		return false
	}
	for _, t := range texts {
		if orgskill.Mentions(t) || appends && len(t) > 0 && t[len(t)-1] != '\n' {
			return false
		}
	}
	return true
}

// selectionArgs reads sort's or grep's words (argv[0] the program) when
// every option only chooses or orders whole lines — sort: -b -d -f -g -h
// -i -M -n -r -R -s -u -V, -k KEY, -t SEP; grep: -E -F -G -i -y -v -w -x
// -s -I -h, -e PATTERN, -m NUM, and -h when it reads more than one file
// (else it prints each line's file name first) — and returns the files
// it reads, at least one; ok is false for any other option (a long one,
// one that prints counts, names, numbers or context, or writes; an option
// after an operand), for "-" or an operand sort may read as an obsolete
// key (+POS).
func selectionArgs(argv []string) (files []string, ok bool) {
	flags, valued := "bdfghiMnrRsuV", "kt"
	if argv[0] == "grep" {
		flags, valued = "EFGiyvwxsIh", "em"
	}
	pattern, noNames := argv[0] == "grep", false
	var ops []string
	args := argv[1:]
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			ops = append(ops, args[i+1:]...)
			i = len(args)
		case len(a) > 1 && a[0] == '-':
			if a[1] == '-' || len(ops) > 0 {
				// A long option, or an option after an operand: with
				// POSIXLY_CORRECT set that is a file, whose text this
				// did not read.
				return nil, false
			}
		cluster:
			for j := 1; j < len(a); j++ {
				c := a[j]
				switch {
				case strings.IndexByte(valued, c) >= 0:
					if c == 'e' {
						pattern = false
					}
					if j+1 == len(a) {
						if i+1 == len(args) {
							return nil, false
						}
						i++
					}
					break cluster
				case strings.IndexByte(flags, c) >= 0:
					if c == 'h' && argv[0] == "grep" {
						noNames = true
					}
				default:
					return nil, false
				}
			}
		default:
			ops = append(ops, a)
		}
	}
	if pattern {
		if len(ops) == 0 {
			return nil, false
		}
		ops = ops[1:]
	}
	if len(ops) == 0 || argv[0] == "grep" && len(ops) > 1 && !noNames {
		return nil, false
	}
	for _, o := range ops {
		if o == "" || o == "-" || o[0] == '+' {
			return nil, false
		}
	}
	return ops, true
}

// literalWriters are the programs literalWrite reads.
var literalWriters = map[string]bool{"echo": true, "printf": true}

// literalWrite reads a command that is exactly one echo or printf whose
// words are literal text (no expansion, glob, brace, tilde or backslash;
// echo with no option but -n, printf of a format alone without % or \), with one
// redirection of its standard output (> or >>) to a literal path: the
// path, the text the file gets, and whether it is appended.
func literalWrite(cmd string) (path, text string, appends, ok bool) {
	argv, path, appends, ok := redirectedCall(cmd)
	if !ok {
		return "", "", false, false
	}
	switch argv[0] {
	case "echo":
		args, newline := argv[1:], "\n"
		for len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "n") == "" {
			newline = ""
			args = args[1:]
		}
		if len(args) > 0 && len(args[0]) > 1 && args[0][0] == '-' && strings.Trim(args[0][1:], "neE") == "" {
			// -e: escapes are read; -E: sh, which runs the command where
			// there is no bash, prints it ("-E x").
			return "", "", false, false
		}
		text = strings.Join(args, " ")
		if strings.Contains(text, "\\") {
			return "", "", false, false // xpg_echo would read escapes
		}
		text += newline
	case "printf":
		if len(argv) != 2 || strings.HasPrefix(argv[1], "-") || strings.Contains(argv[1], "%") {
			return "", "", false, false
		}
		if text, ok = printfEscapes(argv[1]); !ok {
			return "", "", false, false
		}
	default:
		return "", "", false, false
	}
	return path, text, appends, true
}

// redirectedCall reads a command that is exactly one program call whose
// words are literal text (literalWord), with one redirection of its
// standard output (> or >>) to a literal path and no assignment: its
// words, the path, and whether it appends.
func redirectedCall(cmd string) (argv []string, path string, appends, ok bool) {
	if len(cmd) > 4096 || !strings.Contains(cmd, ">") {
		return nil, "", false, false
	}
	for i := 0; i < len(cmd); i++ {
		// The parser and bash split words at some control characters
		// differently (a carriage return is part of a word to bash).
		if c := cmd[i]; c < ' ' && c != '\t' && c != '\n' || c == 0x7f {
			return nil, "", false, false
		}
	}
	parser := shellParsers.Get().(*syntax.Parser)
	f, err := parser.Parse(strings.NewReader(cmd), "")
	shellParsers.Put(parser)
	if err != nil || len(f.Stmts) != 1 {
		return nil, "", false, false
	}
	st := f.Stmts[0]
	call, isCall := st.Cmd.(*syntax.CallExpr)
	if !isCall || st.Negated || st.Background || st.Coprocess || len(st.Redirs) != 1 || len(call.Assigns) > 0 || len(call.Args) < 2 {
		return nil, "", false, false
	}
	r := st.Redirs[0]
	if r.N != nil && r.N.Value != "1" || r.Op != syntax.RdrOut && r.Op != syntax.AppOut || r.Hdoc != nil {
		return nil, "", false, false
	}
	if path, ok = literalWord(r.Word); !ok || path == "" {
		return nil, "", false, false
	}
	argv = make([]string, len(call.Args))
	for i, w := range call.Args {
		if argv[i], ok = literalWord(w); !ok {
			return nil, "", false, false
		}
	}
	return argv, path, r.Op == syntax.AppOut, true
}

// printfEscapes is printf's output for a format without %: \n, \t and
// \\ read as printf reads them, any other escape refused.
func printfEscapes(format string) (string, bool) {
	if !strings.Contains(format, "\\") {
		return format, true
	}
	var b strings.Builder
	for i := 0; i < len(format); i++ {
		c := format[i]
		if c != '\\' {
			b.WriteByte(c)
			continue
		}
		if i+1 == len(format) {
			return "", false
		}
		i++
		switch format[i] {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case '\\':
			b.WriteByte('\\')
		default:
			return "", false
		}
	}
	return b.String(), true
}

// literalWord is the value of a word that is literal text: plain,
// single-quoted or double-quoted characters, none that bash would expand
// or unescape (a backslash only between single quotes, where it is
// itself).
func literalWord(w *syntax.Word) (string, bool) {
	if w == nil {
		return "", false
	}
	var b strings.Builder
	for _, part := range w.Parts {
		switch p := part.(type) {
		case *syntax.Lit:
			if strings.ContainsAny(p.Value, "\\*?[]{}~$`") {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.SglQuoted:
			if p.Dollar {
				return "", false
			}
			b.WriteString(p.Value)
		case *syntax.DblQuoted:
			if p.Dollar {
				return "", false
			}
			for _, q := range p.Parts {
				l, ok := q.(*syntax.Lit)
				if !ok || strings.ContainsAny(l.Value, "\\$`") {
					return "", false
				}
				b.WriteString(l.Value)
			}
		default:
			return "", false
		}
	}
	return b.String(), true
}
