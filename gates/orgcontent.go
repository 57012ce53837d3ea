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

// editorTextInto judges the text a command statement is known to write
// into files, as a file_write of it: a heredoc's body or a here-string
// (any program reading it: cat, tee, or another that passes it on), the
// literal text piped in (echo '…' | tee f), or echo's and printf's own
// literal words; the files are the statement's output redirections (>,
// >>, &>, >|) and tee's operands. An appended text is judged also with
// the file's text before it (an eval: line added under a Local Variables:
// list already there). Text known only when it runs (a variable, a
// command's output) is not judged: asking for every such write would ask
// for most scripts, and the bytes come from files the gates let the
// command read anyway (a cp of a file with local variables is not judged
// either); the server's own writes are defused separately.
func (s *shellAnalyzer) editorTextInto(st *syntax.Stmt, argv []string, in stdinSrc, here *string, dyn bool) {
	if s.quiet || len(argv) == 0 {
		return
	}
	var text string
	switch {
	case here != nil:
		text = *here
	case in.kind == stdinLiteral && !in.unbounded:
		text = in.text
	case argv[0] == "echo" && !dyn:
		args := argv[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "-") && strings.Trim(args[0], "-neE") == "" {
			args = args[1:]
		}
		text = strings.ReplaceAll(strings.Join(args, " "), `\n`, "\n") // echo -e, xpg_echo
	case argv[0] == "printf" && !dyn && len(argv) >= 2:
		// The format, then the values each on a line of their own: a
		// -*- line counts only first, and printf '%s\n' '-*- … -*-'
		// prints it first.
		text = strings.ReplaceAll(argv[1], `\n`, "\n")
		if len(argv) > 2 {
			text = strings.ReplaceAll(strings.Join(argv[2:], "\n"), `\n`, "\n") + "\n" + text
		}
	default:
		return
	}
	if text == "" {
		return
	}
	judge := func(target string, appends bool) {
		if target == "" || strings.Contains(target, dynMarker) || strings.HasPrefix(target, "/dev/") {
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
		if why, ok := s.env.editorCodeIn(text, filepath.Dir(l.abs), what); ok {
			s.ask("%s", why)
			return
		}
		if appends {
			if cur, ok := s.env.currentText(l.abs); ok && len(cur) > 0 {
				if why, ok := s.env.editorCodeIn(string(cur)+text, filepath.Dir(l.abs), what); ok {
					s.ask("%s", why)
				}
			}
		}
	}
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.ClbOut:
			if r.N != nil && r.N.Value != "1" {
				continue
			}
		case syntax.RdrAll, syntax.AppAll:
		default:
			continue
		}
		w := s.peekWord(r.Word)
		if !w.dyn {
			judge(w.val, r.Op == syntax.AppOut || r.Op == syntax.AppAll)
		}
	}
	if argv[0] == "tee" {
		// tee's options (GNU coreutils tee(1)): -a/--append, -i, -p,
		// --output-error[=MODE], run together as -ai; after "--" every
		// word is a file.
		appends, files := false, []string{}
		for i, a := range argv[1:] {
			switch {
			case a == "--":
				files = append(files, argv[i+2:]...)
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
		for _, f := range files {
			judge(f, appends)
		}
	}
}
