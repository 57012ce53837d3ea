package gates

import (
	"path/filepath"
	"strings"

	"mvdan.cc/sh/v3/syntax"

	"pp-lsp/internal/editorcode"
)

// A file's own text can make the editor that opens it run code: an Emacs
// -*- line or Local Variables list with eval:, a Vim modeline, Org's
// #+BIND:, a #+SETUPFILE: from outside the roots, a #+CALL:, header
// arguments that run on export, an elisp: link. The server breaks every
// such form in the text it writes itself (server/internal/orgtext.Defuse);
// a model's proposed text is judged by the same table
// (internal/editorcode): what the table's allow-lists do not know to be
// inert is never written without a human.

// editorCodeAsk says why a content argument may make the editor run code
// or take settings when the file it is written into is opened, if it may.
// A path a #+SETUPFILE: or #+INCLUDE: names is located from the folder of
// the file written (file_write) or of the node's file (memory_edit).
func (e *Env) editorCodeAsk(a Action, g arg) (string, bool) {
	content := a.Arg(g.name)
	if content == "" {
		return "", false
	}
	dir := ""
	if p, ok := g.with(a, RoleWritePath); ok {
		if l := e.locate(p, "."); l.abs != "" {
			dir = filepath.Dir(l.abs)
		}
	} else if id, ok := g.with(a, RoleNodeID); ok && e.world.Memex != nil {
		if file, ok := e.world.Memex.FileOfID(id); ok {
			dir = filepath.Dir(file)
		}
	}
	return e.editorCodeIn(content, dir, "the "+g.name)
}

// editorCodeIn judges text bound for a file in the folder dir ("": not
// known), named what in the reason.
func (e *Env) editorCodeIn(text, dir, what string) (string, bool) {
	inside := func(p string) bool {
		return dir != "" && e.locate(p, dir).class == pathInside
	}
	f, found := editorcode.Judge(text, inside)
	if !found {
		return "", false
	}
	return what + " carries " + f.Reason() + ": opened in Emacs or Neovim it may run code or change settings, so a human reads it first", true
}

// editorTextInto judges the text a simple command is known to write
// into files, as a file_write of it (textflow.go follows it): echo's and
// printf's literal words, a heredoc or a here-string or literal text
// piped in, passed on by cat or tee, or a function's body; the files are
// where the statement's output goes after its redirections (>, >>, &>,
// >|, 1<>, >&N, /dev/fd/N) and tee's operands. Literal text through a
// program the gates do not follow is asked for. Text known only when it
// runs (a variable, a command's output) is not judged: asking for every
// such write would ask for most scripts, and the bytes come from files
// the gates let the command read anyway (a cp of a file with local
// variables is not judged either); the server's own writes are defused
// separately.
func (s *shellAnalyzer) editorTextInto(st *syntax.Stmt, c *syntax.CallExpr, argv []string, in stdinSrc, dyn bool) {
	if s.quiet || len(argv) == 0 {
		return
	}
	targv, _ := unwrap(argv) // nice tee f, env tee f, stdbuf -o0 tee f
	tee := len(targv) > 0 && verbName(targv) == "tee"
	var r route
	if len(st.Redirs) > 0 {
		r = s.stdoutRoute(st)
	}
	if r.file == "" && !tee {
		return // no file its output reaches
	}
	inputs := inputFlows{in.flow}
	if in.flow.kind == flowNone && in.kind == stdinLiteral && !in.unbounded {
		inputs[0] = literalFlow(in.text, false)
	}
	if len(st.Redirs) > 0 {
		inputs = s.stmtInputs(st, inputs)
	}
	if r.file != "" {
		var words []*syntax.Word
		if c != nil {
			words = c.Args
		}
		if f := s.callFlow(argv, words, dyn, inputs); f.kind != flowNone {
			s.editorFlowTo(f, r)
		}
	}
	if tee && inputs[0].kind != flowNone {
		// tee's options (GNU coreutils tee(1)): -a/--append, -i, -p,
		// --output-error[=MODE], run together as -ai; after "--" every
		// word is a file.
		appends, files := false, []string{}
		for i, a := range targv[1:] {
			switch {
			case a == "--":
				files = append(files, targv[i+2:]...)
			case a == "--append" || strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.ContainsRune(a, 'a'):
				appends = true
				continue
			case strings.HasPrefix(a, "-") && a != "-":
				continue
			default:
				files = append(files, a)
				continue
			}
			break
		}
		for _, file := range files {
			s.editorFlowTo(inputs[0], route{file: file, appends: appends})
		}
	}
}

// editorCompoundInto judges what a compound command (a group, a
// subshell, a loop…) writes into the file its redirections send its
// output to: { cat <<EOF; } > f.
func (s *shellAnalyzer) editorCompoundInto(st *syntax.Stmt, in stdinSrc) {
	if s.quiet || len(st.Redirs) == 0 {
		return
	}
	fds := s.routes(st)
	var f textFlow
	computed := false
	for n, r := range fds {
		if r.file == "" || n == 0 {
			continue
		}
		if !computed {
			f, computed = s.cmdFlow(st, s.stmtInputs(st, inputFlows{in.flow})), true
		}
		if f.kind == flowNone {
			return
		}
		// Descriptors other than the output too: a command inside may
		// write its text there ({ echo … >&3; } 3>f).
		s.editorFlowTo(f, r)
	}
}

// editorCompoundReads asks for a branch or a loop that reads literal text
// (while read l; do …; done <<EOF) and writes a file inside it: which of
// its commands reads the text, and what they make of it, is known only
// when it runs.
func (s *shellAnalyzer) editorCompoundReads(st *syntax.Stmt, in stdinSrc) {
	if s.quiet || len(st.Redirs) == 0 && in.flow.kind == flowNone {
		return
	}
	if inputs := s.stmtInputs(st, inputFlows{in.flow}); !inputs.any() {
		return
	}
	file := ""
	syntax.Walk(st.Cmd, func(n syntax.Node) bool {
		if inner, ok := n.(*syntax.Stmt); ok && file == "" {
			if r := s.stdoutRoute(inner); r.file != "" {
				file = r.file
			} else if c, ok := inner.Cmd.(*syntax.CallExpr); ok && len(c.Args) > 0 && c.Args[0].Lit() == "tee" {
				file = "a file tee writes"
			}
		}
		return file == ""
	})
	if file != "" {
		s.ask("a branch or a loop reads literal text and writes %s: what it makes of the text is known only when it runs, and opened in Emacs or Neovim it may run code or change settings, so a human reads it first", printable(file))
	}
}

// editorFlowTo judges a flow written into the file r names.
func (s *shellAnalyzer) editorFlowTo(f textFlow, r route) {
	target := r.file
	if target == "" || strings.Contains(target, dynMarker) || strings.HasPrefix(target, "/dev/") || f.kind == flowNone {
		return
	}
	l := s.env.locate(target, s.cwd)
	if l.abs == "" {
		return
	}
	name := l.rel
	if name == "" {
		name = target
	}
	what := "the text written to " + printable(name)
	if f.kind == flowOpaque {
		s.ask("%s is %s, which the gates cannot read ahead: opened in Emacs or Neovim it may run code or change settings, so a human reads it first", what, f.what)
		return
	}
	text := f.text
	if text == "" {
		return
	}
	if why, ok := s.env.editorCodeIn(text, filepath.Dir(l.abs), what); ok {
		s.ask("%s", why)
		return
	}
	if !r.appends && !r.inOut {
		return
	}
	cur, ok := s.env.currentText(l.abs)
	if !ok {
		// Too large to read whole (or unreadable): the new text may end
		// a Local Variables list at its end, or finish a line there.
		s.ask("%s is added to a file too large to read whole: with the text at its end it may make Emacs or Neovim run code or change settings, so a human reads it first", what)
		return
	}
	if len(cur) == 0 {
		return
	}
	whole := string(cur) + text
	if r.inOut {
		// 1<> writes over the first bytes and keeps the rest.
		whole = text
		if len(cur) > len(text) {
			whole += string(cur[len(text):])
		}
	}
	if why, ok := s.env.editorCodeIn(whole, filepath.Dir(l.abs), what); ok {
		s.ask("%s", why)
	}
}
