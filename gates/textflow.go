package gates

import (
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// The literal text a command writes into a file is judged by the
// editor-code check as a file_write's (editorTextInto). The text can
// reach the file by many routes — a heredoc read by cat, a group's or a
// subshell's output redirected as a whole ({ cat <<EOF; } > f), a
// pipeline into tee or cat (cat <<EOF | tee f), a function's body, a
// descriptor (cat <&3 3<<EOF, echo … 3>f >&3), a process substitution
// (cat <(echo …) > f) — so it is followed as a flow: what each command
// writes on its standard output, made of what it reads. The routes known
// to keep the text as it is (echo, printf, cat, tee, a sequence of
// commands that each write whole text) are followed; literal text through
// anything else (sed, tr, sort, a branch, a loop, read…) may come out as
// any text, and a file it reaches is asked for (allow-list: what is not
// understood is never allowed).

// flowKind is what a textFlow holds.
type flowKind uint8

const (
	// flowNone: no literal text — a file's bytes, a program's own output.
	// Not judged: the bytes come from files the gates let the command
	// read (see editorTextInto).
	flowNone flowKind = iota
	// flowLiteral: text known now.
	flowLiteral
	// flowOpaque: made from literal text by a route the gates do not
	// follow (what says which).
	flowOpaque
)

// textFlow is what a command writes on a descriptor, as the editor-code
// check reads it.
type textFlow struct {
	kind flowKind
	text string
	what string
	// exact: text is the bytes written, so that it can be joined with
	// what comes before or after it (echo's own words, a heredoc); an
	// inexact text (escapes that are read only when it runs, a printf
	// format the gates approximate) is judged alone, and joined to other
	// text it is opaque.
	exact bool
}

func literalFlow(text string, exact bool) textFlow {
	return textFlow{kind: flowLiteral, text: text, exact: exact}
}

func opaqueFlow(what string) textFlow { return textFlow{kind: flowOpaque, what: what} }

// then is f's text followed by g's.
func (f textFlow) then(g textFlow) textFlow {
	switch {
	case f.kind == flowOpaque:
		return f
	case g.kind == flowOpaque:
		return g
	case f.kind == flowNone:
		return g
	case g.kind == flowNone:
		return f
	case !f.exact || !g.exact:
		return opaqueFlow("literal text written in pieces whose bytes are known only when it runs")
	}
	return literalFlow(f.text+g.text, true)
}

// unfollowed is f passed through a route the gates do not follow.
func (f textFlow) unfollowed(what string) textFlow {
	if f.kind == flowLiteral {
		return opaqueFlow(what)
	}
	return f
}

// maxFlowDepth bounds the function bodies followed inside one another,
// and maxFlowSteps the calls of functions followed for one flow.
const (
	maxFlowDepth = 8
	maxFlowSteps = 64
)

// inputFlows are what the descriptors 0-9 of a command read, as flows.
type inputFlows [10]textFlow

func (in *inputFlows) any() bool {
	for _, f := range in {
		if f.kind != flowNone {
			return true
		}
	}
	return false
}

// stmtInputs are the flows a statement's descriptors read after its
// input redirections, from the ones it inherits.
func (s *shellAnalyzer) stmtInputs(st *syntax.Stmt, fds inputFlows) inputFlows {
	for _, r := range st.Redirs {
		n, ok := redirFd(r)
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.N == nil {
				n, ok = 0, true
			}
			t := ""
			if r.Hdoc != nil {
				w := s.peekWord(r.Hdoc)
				t = w.val
				if ok {
					fds[n] = literalFlow(t, !w.dyn)
					if w.dyn {
						fds[n] = fds[n].then(s.substsFlow(r.Hdoc))
					}
				}
				continue
			}
			if ok {
				fds[n] = literalFlow(t, true)
			}
		case syntax.WordHdoc:
			if r.N == nil {
				n, ok = 0, true
			}
			if ok {
				w := s.peekWord(r.Word)
				fds[n] = literalFlow(w.val+"\n", !w.dyn) // bash ends a here-string with a newline
				if w.dyn {
					fds[n] = fds[n].then(s.substsFlow(r.Word))
				}
			}
		case syntax.RdrIn, syntax.RdrInOut:
			if ok {
				fds[n] = textFlow{}
			}
		case syntax.DplIn:
			if !ok {
				continue
			}
			if src := r.Word.Lit(); len(src) >= 1 && src[0] >= '0' && src[0] <= '9' && (len(src) == 1 || src[1:] == "-") {
				fds[n] = fds[src[0]-'0']
			} else {
				fds[n] = textFlow{}
			}
		}
	}
	return fds
}

// route is where a statement's standard output goes after its
// redirections.
type route struct {
	// fd: the descriptor of the command around it that it writes (1 for
	// its own output), -1 when it is none of them (a file, /dev/null, a
	// closed descriptor).
	fd      int
	file    string // the file it writes, when it is one known now
	appends bool   // >> or &>>
	inOut   bool   // 1<> writes over the file's first bytes, keeping the rest
}

// stdoutRoute follows a statement's output redirections in order.
func (s *shellAnalyzer) stdoutRoute(st *syntax.Stmt) route {
	fds := s.routes(st)
	return fds[1]
}

// routes follows a statement's output redirections in order: where each
// of its descriptors 0-9 writes after them.
func (s *shellAnalyzer) routes(st *syntax.Stmt) [10]route {
	var fds [10]route
	for i := range fds {
		fds[i] = route{fd: i}
	}
	for _, r := range st.Redirs {
		n, ok := redirFd(r)
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.RdrAll, syntax.AppAll, syntax.RdrInOut:
			w := s.peekWord(r.Word)
			to := route{fd: -1, appends: r.Op == syntax.AppOut || r.Op == syntax.AppAll, inOut: r.Op == syntax.RdrInOut}
			if !w.dyn {
				fd, isFd := fdPath(w.val)
				switch w.val {
				case "/dev/stdout":
					fd, isFd = 1, true
				case "/dev/stderr":
					fd, isFd = 2, true
				}
				if isFd && r.Op != syntax.RdrInOut {
					to = fds[fd] // > /dev/fd/3 writes where 3 does
					if to.file != "" {
						to.appends = true // the file is open already: it is written after what was written
					}
				} else if !strings.HasPrefix(w.val, "/dev/") {
					to.file = w.val
				}
			}
			if r.Op == syntax.RdrAll || r.Op == syntax.AppAll {
				fds[1], fds[2] = to, to
			} else if ok {
				fds[n] = to
			}
		case syntax.DplOut:
			if !ok {
				continue
			}
			src := r.Word.Lit()
			if len(src) >= 1 && src[0] >= '0' && src[0] <= '9' && (len(src) == 1 || src[1:] == "-") {
				fds[n] = fds[src[0]-'0']
				if len(src) == 2 {
					fds[src[0]-'0'] = route{fd: -1}
				}
			} else {
				// >&- closes it; >&file (no number before it) writes
				// both outputs to the file, as &> does.
				to := route{fd: -1}
				if w := s.peekWord(r.Word); !w.dyn && src != "-" && !strings.HasPrefix(w.val, "/dev/") {
					to.file = w.val
				}
				if r.N == nil && src != "-" {
					fds[2] = to
				}
				fds[n] = to
			}
		}
	}
	return fds
}

// stmtFlow is what a statement writes on the standard output of the
// command around it, its descriptors reading in.
func (s *shellAnalyzer) stmtFlow(st *syntax.Stmt, in inputFlows) textFlow {
	if st == nil || st.Cmd == nil {
		return textFlow{}
	}
	var f textFlow
	if len(st.Redirs) == 0 {
		f = s.cmdFlow(st, in)
	} else {
		f = s.cmdFlow(st, s.stmtInputs(st, in))
		switch r := s.stdoutRoute(st); {
		case r.fd == 1:
		case r.fd < 0:
			return textFlow{} // judged where it is written (editorFlowInto)
		default:
			return f.unfollowed("literal text written to another descriptor")
		}
	}
	if st.Background {
		return f.unfollowed("literal text written by a command in the background")
	}
	return f
}

// cmdFlow is what a statement's command writes on its standard output,
// its descriptors reading in.
func (s *shellAnalyzer) cmdFlow(st *syntax.Stmt, in inputFlows) textFlow {
	if st.Cmd == nil { // a statement of redirections alone (>f) runs no command
		return textFlow{}
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		if len(c.Args) == 0 {
			return textFlow{}
		}
		argv, dyn := s.quietArgv(c)
		return s.callFlow(argv, c.Args, dyn, in)
	case *syntax.Block:
		return s.seqFlow(c.Stmts, in)
	case *syntax.Subshell:
		return s.seqFlow(c.Stmts, in)
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			var room [8]*syntax.Stmt
			for _, stg := range collectPipe(c.Y, collectPipe(c.X, room[:0])) {
				in[0] = s.stmtFlow(stg, in)
			}
			return in[0]
		}
		// && and ||: whether the second runs is known only when it runs.
		return s.stmtFlow(c.X, in).then(s.stmtFlow(c.Y, in)).unfollowed("literal text written by a command that may not run (&&, ||)")
	case *syntax.TimeClause:
		return s.stmtFlow(c.Stmt, in)
	case *syntax.FuncDecl, *syntax.DeclClause, *syntax.ArithmCmd, *syntax.LetClause, *syntax.TestClause:
		return textFlow{}
	}
	// A branch, a loop, a coprocess…: what runs, how often and in what
	// order is known only when it runs.
	if in.any() {
		return opaqueFlow("literal text read by a compound command")
	}
	f := textFlow{}
	syntax.Walk(st.Cmd, func(n syntax.Node) bool {
		if f.kind == flowOpaque {
			return false
		}
		if inner, ok := n.(*syntax.Stmt); ok {
			f = f.then(s.stmtFlow(inner, inputFlows{}).unfollowed("literal text written inside a branch or a loop"))
			return false
		}
		return true
	})
	return f
}

// seqFlow is what a list of statements run one after another writes,
// each reading in (a group's or a subshell's descriptors).
func (s *shellAnalyzer) seqFlow(list []*syntax.Stmt, in inputFlows) textFlow {
	f := textFlow{}
	for _, st := range list {
		if call, ok := st.Cmd.(*syntax.CallExpr); ok && len(call.Args) > 0 {
			switch call.Args[0].Lit() {
			case "exit", "return", "break", "continue", "set", "shopt", "exec", "eval", "source", ".", "trap":
				// What runs after it, and whether, is known only when
				// it runs (set -e, exec > f…).
				if f.kind != flowNone || in.any() {
					return opaqueFlow("literal text in a list that " + call.Args[0].Lit() + " may end or change")
				}
			}
		}
		f = f.then(s.stmtFlow(st, in))
	}
	return f
}

// callFlow is what a simple command writes on its standard output, its
// descriptors reading in: echo's and printf's literal words, cat's and
// tee's input passed on. Literal text read by any other program comes
// out as it makes it: opaque.
func (s *shellAnalyzer) callFlow(argv []string, words []*syntax.Word, dyn bool, in inputFlows) textFlow {
	// Process substitutions among its words: <(…) is read as a file.
	var procs []textFlow
	for _, w := range words {
		if len(w.Parts) == 1 {
			if ps, ok := w.Parts[0].(*syntax.ProcSubst); ok && ps.Op == syntax.CmdIn {
				procs = append(procs, s.seqFlowNested(ps.Stmts))
			}
		}
	}
	anyIn := in.any()
	for _, p := range procs {
		anyIn = anyIn || p.kind != flowNone
	}
	wrapped := argv
	argv, _ = unwrap(argv)
	if len(argv) == 0 {
		return textFlow{}
	}
	if !anyIn {
		switch verbName(argv) {
		case "echo", "printf":
		default:
			if s.funcOf(argv[0]).body == nil {
				return textFlow{} // no literal text in, none out
			}
		}
	}
	if len(wrapped) == len(argv) {
		if def := s.funcOf(argv[0]); def.body != nil {
			if s.flowDepth >= maxFlowDepth {
				return opaqueFlow("literal text through functions nested too deep")
			}
			for _, f := range in {
				if f.kind == flowOpaque {
					return f // whatever it makes of it is opaque too
				}
			}
			if s.flowSteps++; s.flowSteps > maxFlowSteps {
				return opaqueFlow("literal text through more function calls than the gates follow")
			}
			// A body reading nothing writes the same at each call of one
			// reading (the variables do not change meanwhile): once.
			memo := !anyIn
			if memo {
				if f, ok := s.flowMemo[def.body]; ok {
					return f
				}
				if s.flowMemo == nil {
					s.flowMemo = map[*syntax.Stmt]textFlow{}
				}
				s.flowMemo[def.body] = opaqueFlow("literal text through a function that calls itself")
			}
			s.flowDepth++
			f := s.stmtFlow(def.body, in)
			s.flowDepth--
			if memo {
				s.flowMemo[def.body] = f
			}
			if s.flowDepth == 0 {
				s.flowMemo, s.flowSteps = nil, 0
			}
			return f
		}
	}
	verb := verbName(argv)
	switch verb {
	case "echo":
		if dyn {
			return s.wordsSubstsFlow(words)
		}
		return echoFlow(argv[1:])
	case "printf":
		if len(argv) < 2 || argv[1] == "-v" {
			return textFlow{}
		}
		if dyn {
			return s.wordsSubstsFlow(words)
		}
		return printfFlow(argv[1:])
	case "cat":
		// cat(1): it copies its files in order, "-" (or none) being its
		// input; an option (-n, -A, -s…) changes the text.
		ops := argv[1:]
		f := textFlow{}
		files, endOpts, pi, fromFile := 0, false, 0, false
		for _, a := range ops {
			switch {
			case !endOpts && a == "--":
				endOpts = true
				continue
			case !endOpts && a == "-u":
				continue
			case !endOpts && strings.HasPrefix(a, "-") && a != "-":
				return opaqueFlow("literal text through cat " + a)
			}
			files++
			switch fd, isFd := fdPath(a); {
			case a == "-":
				f = f.then(in[0])
			case isFd:
				f = f.then(in[fd])
			case a == "/dev/fd/63" && pi < len(procs):
				f = f.then(procs[pi])
				pi++
			default:
				fromFile = true // a file's bytes, known only when it runs
			}
		}
		if files == 0 {
			return in[0]
		}
		if fromFile && f.kind == flowLiteral {
			// Judged alone, and never joined: the file's bytes are
			// around it.
			f.exact = false
		}
		return f
	case "tee":
		return in[0]
	case ":", "true", "false":
		return textFlow{}
	}
	for _, f := range append(in[:], procs...) {
		if f.kind != flowNone {
			return opaqueFlow("the output of " + verb + ", made from literal text")
		}
	}
	return textFlow{}
}

// seqFlowNested is what a substitution's statements write, reading
// nothing.
func (s *shellAnalyzer) seqFlowNested(list []*syntax.Stmt) textFlow {
	if s.flowDepth >= maxFlowDepth {
		return opaqueFlow("literal text through substitutions nested too deep")
	}
	s.flowDepth++
	f := s.seqFlow(list, inputFlows{})
	s.flowDepth--
	if s.flowDepth == 0 {
		s.flowMemo, s.flowSteps = nil, 0
	}
	return f
}

// flowNeeded says whether the stages after a pipeline's stage may write
// what it writes into a file: a redirection, tee, a function, a compound
// command. Only then is its flow followed.
func (s *shellAnalyzer) flowNeeded(later []*syntax.Stmt) bool {
	for _, st := range later {
		c, ok := st.Cmd.(*syntax.CallExpr)
		if !ok || len(st.Redirs) > 0 {
			return true
		}
		for _, w := range c.Args {
			lit := w.Lit()
			if lit == "" || lit == "tee" || s.funcOf(lit).body != nil {
				return true // a word known only when it runs may be tee
			}
		}
	}
	return false
}

// echoFlow is the text echo writes with these arguments: its words
// joined by spaces and a newline, unless -n. A backslash may be an
// escape (echo -e, shopt -s xpg_echo): a text whose only ones are \n is
// read with them as line breaks, and is not exact; any other escape
// (\x41, \0101, \u, \c…) can spell any text, so it is opaque.
func echoFlow(args []string) textFlow {
	newline := true
	for len(args) > 0 && strings.HasPrefix(args[0], "-") && len(args[0]) > 1 && strings.Trim(args[0], "-neE") == "" && !strings.HasPrefix(args[0], "--") {
		if strings.ContainsRune(args[0], 'n') {
			newline = false
		}
		args = args[1:]
	}
	text := strings.Join(args, " ")
	exact := !strings.ContainsRune(text, '\\')
	if !exact {
		if strings.ContainsRune(strings.ReplaceAll(text, `\n`, ""), '\\') {
			return opaqueFlow("text echo spells with escapes")
		}
		text = strings.ReplaceAll(text, `\n`, "\n")
	}
	if newline {
		text += "\n"
	}
	return literalFlow(text, exact)
}

// printfFlow is the text printf writes with these arguments (the format
// first), as bash's printf builtin writes it, the format reused until the
// values run out: plain text, the escapes \n, \t, \\, \", \', and %s,
// %%, %b of a value without a backslash, %d and %i of a plain number.
// Any other escape or directive (\x41, %c, %.5s, %b of escapes…) can
// spell text its words do not show: opaque.
func printfFlow(args []string) textFlow {
	if args[0] == "--" {
		args = args[1:]
		if len(args) == 0 {
			return textFlow{}
		}
	}
	format, values := args[0], args[1:]
	opaque := opaqueFlow("text printf spells with escapes or directives")
	var b strings.Builder
	for {
		used := 0
		for i := 0; i < len(format); i++ {
			c := format[i]
			switch {
			case c == '\\':
				if i+1 >= len(format) {
					return opaque
				}
				i++
				switch format[i] {
				case 'n':
					b.WriteByte('\n')
				case 't':
					b.WriteByte('\t')
				case '\\', '"', '\'':
					b.WriteByte(format[i])
				default:
					return opaque
				}
			case c == '%':
				if i+1 >= len(format) {
					return opaque
				}
				i++
				// A width pads with spaces, which spell nothing: %10s,
				// %-10s.
				left, width := false, 0
				if format[i] == '-' && i+1 < len(format) {
					left, i = true, i+1
				}
				for i+1 < len(format) && format[i] >= '0' && format[i] <= '9' && width < 1<<20 {
					width, i = width*10+int(format[i]-'0'), i+1
				}
				v := ""
				if d := format[i]; d != '%' {
					if used < len(values) {
						v = values[used]
					}
					used++
				}
				if width > len(v) && format[i] != '%' {
					pad := strings.Repeat(" ", width-len(v))
					if left {
						v += pad
					} else {
						v = pad + v
					}
				}
				switch format[i] {
				case '%':
					if width > 0 || left {
						return opaque
					}
					b.WriteByte('%')
				case 's':
					b.WriteString(v)
				case 'b':
					if strings.ContainsRune(v, '\\') {
						return opaque
					}
					b.WriteString(v)
				case 'd', 'i':
					if strings.TrimSpace(v) == "" {
						v = strings.Repeat(" ", max(width-1, 0)) + "0"
					}
					if !plainNumber(strings.TrimSpace(v)) {
						return opaque
					}
					b.WriteString(v)
				default:
					return opaque
				}
			default:
				b.WriteByte(c)
			}
			if b.Len() > 1<<20 {
				return opaque
			}
		}
		if used == 0 || used >= len(values) {
			break
		}
		values = values[used:]
	}
	return literalFlow(b.String(), true)
}

// plainNumber says whether printf's %d prints a value as it is written:
// digits with no leading zero, maybe after a minus.
func plainNumber(v string) bool {
	d := strings.TrimPrefix(v, "-")
	if d == "" || len(d) > 1 && d[0] == '0' {
		return false
	}
	for i := 0; i < len(d); i++ {
		if d[i] < '0' || d[i] > '9' {
			return false
		}
	}
	return true
}

// literalSubstArgv is a call's words with each command substitution of
// literal text read as what it writes (substArgv), when one is; argv
// otherwise.
func (s *shellAnalyzer) literalSubstArgv(c *syntax.CallExpr, argv []string) []string {
	for _, a := range c.Args {
		if _, ok := s.substLiteral(a); ok {
			return s.substArgv(c)
		}
	}
	return argv
}

// substsFlow is what the command substitutions in a word add to the text
// it expands to: literal text written by one ("$(printf '%s' …)") comes
// out where the gates do not join it with the rest — opaque; a program's
// own output ($(date)) is not judged.
func (s *shellAnalyzer) substsFlow(w *syntax.Word) textFlow {
	f := textFlow{}
	syntax.Walk(w, func(n syntax.Node) bool {
		if f.kind == flowOpaque {
			return false
		}
		switch x := n.(type) {
		case *syntax.CmdSubst:
			if g := s.seqFlowNested(x.Stmts); g.kind != flowNone {
				f = opaqueFlow("literal text through a command substitution")
			}
			return false
		case *syntax.ProcSubst:
			return false
		}
		return true
	})
	return f
}

// wordsSubstsFlow is substsFlow over a command's words.
func (s *shellAnalyzer) wordsSubstsFlow(words []*syntax.Word) textFlow {
	for _, w := range words {
		if f := s.substsFlow(w); f.kind != flowNone {
			return f
		}
	}
	return textFlow{}
}
