package gates

import (
	"context"
	"encoding/binary"
	"fmt"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// Limits of the shell analysis; past any of them the command is refused
// (fail closed) rather than half-checked.
const (
	maxShellCommands = 2000 // simple commands in one action, nested payloads included
	maxShellDepth    = 8    // bash -c inside eval inside sh -c …
	maxInlineCalls   = 64   // function calls followed into their bodies
)

// shellReport is what the analysis of one shell command found.
type shellReport struct {
	cmds   []shellCmd // every simple command, nested payloads included, in order
	denies []string
	asks   []string
	// private are the reads of private notes (the privacy vector denies
	// them), self the ways into the user's own editor or terminal (the
	// self-modification vector denies them).
	private []string
	self    []string
	// egress names the commands that reach another machine: a secret in
	// such a command is leaving.
	egress []string
	// writes are the paths inside the roots the command writes or
	// deletes, canonical, as found (see ShellWrites).
	writes []string
}

// shellCmd is one simple command as it would run: its argv after quote
// removal and known-variable expansion, with wrappers (sudo, env, timeout…)
// still in place.
type shellCmd struct {
	argv []string
	dyn  bool // some word could not be known statically
}

type varVal struct {
	val string
	ok  bool
	// num: known only when it runs, but a number or empty (an arithmetic
	// result, a variable never set): arithmetic that evaluates it runs
	// nothing. Any other value known only when it runs may hold a
	// subscript such as a[$(rm -rf ~)], which arithmetic runs.
	num bool
}

// stdin describes what a pipeline stage reads: nothing special, static
// text (echo/printf/here-string), or untrusted bytes (a download, a
// decoder, a file's contents).
type stdinKind int

const (
	stdinNone stdinKind = iota
	stdinLiteral
	stdinUntrusted
)

type stdinSrc struct {
	kind stdinKind
	text string
	what string
	// unbounded: the stream never ends (yes, /dev/zero), or is huge.
	unbounded bool
	// flow is the literal text it reads, for the editor-code check
	// (textflow.go).
	flow textFlow
	// fds are the endless devices the descriptors 0-9 read where it is
	// known ("" for anything else): the shell's own, set by exec, or a
	// compound command's redirections (nil: none known).
	fds *[10]string
}

// shellAnalyzer walks one parsed command, keeping the variables it can know.
type shellAnalyzer struct {
	env   *Env
	cwd   string     // absolute directory relative paths start from
	vars  varTable   // variables the command sets
	known []knownVar // the environment's known variables, read-only
	pos   [10]varVal // positional parameters $1…$9 of an inlined call
	funcs map[string]funcDef
	// execFds are the endless devices the shell's own descriptors read
	// since an exec opened them (exec 3</dev/zero), for the rest of the
	// command (endlessfds.go).
	execFds   [10]string
	src       string // the text the statements being analysed were parsed from
	calls     int
	depth     int
	quiet     bool
	rep       *shellReport
	downloads map[string]bool // files a download wrote, to catch "download then run"
	inFunc    map[string]bool
	// wrote: some command writes a file; readProtected: some command reads
	// flightplans.org or journal.org. Both together are refused: only a
	// human changes what those files say, and a copy edited and put back
	// is a change.
	wrote         bool
	readProtected []string
	// memo holds the recorded analyses of function bodies (shellmemo.go).
	memo bodyMemos
	// trail lists every variable setting with the value before it, so
	// that a construct whose settings may not happen (a branch, a loop)
	// or do not last (a subshell, a pipeline stage, a function's locals)
	// can be undone or made unknown after it (shellscope.go).
	trail []varChange
	// locals are the variables declared local by the calls being
	// inlined, with their values before, restored when the call returns.
	locals []varChange
	// trailTop and localsTop are the longest the two lists grew: the
	// entries the analysis wrote, which the room clears when the check
	// ends (shellRoom.reset).
	trailTop, localsTop int
	calling             int // function bodies being analysed
	// args is what "$@" holds in the function body being analysed.
	args callArgs
	// argEndless: a process substitution <(…) among the words of the
	// command being analysed prints an endless stream, and what (call
	// keeps it for its own words).
	argEndless string
	// loops counts the loops being judged for the first time; loopReads
	// lists the variables read meanwhile (see loop).
	loops     int
	loopReads []string
	// loopArithReads lists the variables arithmetic read meanwhile.
	loopArithReads []string
	loopRounds     int // loop bodies judged (see loop)
	flowDepth      int // function bodies and substitutions followed by the editor-code check (textflow.go)
	// flowMemo holds what a function's body writes, reading nothing,
	// while one flow is followed (textflow.go).
	flowMemo  map[*syntax.Stmt]textFlow
	flowSteps int
	// integers are the variables declared -i anywhere in the command
	// (whether or not that declaration ran): a value assigned to one is
	// evaluated as arithmetic.
	integers []string
	// namerefs are the variables declared -n anywhere in the command (see
	// markNameref); forgetting is set while forgetVars runs.
	namerefs   []string
	forgetting bool
	// anySet: a command that may set any variable ran (a sourced script, a
	// program known only when it runs): a variable not set by the command
	// may hold anything.
	anySet bool
	// assocs are the arrays declared -A anywhere in the command.
	assocs []string
	// endlessPlans are the statements' plans for the endless checks of
	// their commands (bodyEndless), one per statement met.
	endlessPlans smallMemo[*syntax.Stmt, []*syntax.Stmt]
	// walkBodies makes bodyEndless walk every body as compoundEndless
	// does (tests compare the two; the analysis never sets it).
	walkBodies bool
}

var shellParsers = sync.Pool{New: func() any {
	return syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(false))
}}

// ShellWrites lists the files inside the roots a shell action writes or
// deletes, as the shell vector finds them when it judges the action
// (canonical, each once, in the order found): what a Flight Plan shows in
// :WRITES:. It is nil for any other tool and for a command that writes
// nothing the analysis can name (a path known only when it runs is
// denied, not listed).
func ShellWrites(ctx context.Context, a Action, env *Env) []string {
	args, ok := a.Typed().(ShellArgs)
	if !ok {
		return nil
	}
	var out []string
	seen := map[string]bool{}
	for _, w := range analyzeShell(ctx, env, args.Cmd, args.Cwd).writes {
		if !seen[w] {
			seen[w] = true
			out = append(out, w)
		}
	}
	return out
}

// analyzeShell parses cmd as bash and analyses every command it would run.
func analyzeShell(ctx context.Context, env *Env, cmd, cwd string) *shellReport {
	return analyzeShellInto(ctx, env, cmd, cwd, 0, &shellReport{})
}

// analyzeShellDepth analyses shell text found at a nesting depth (inside
// code handed to another language).
func analyzeShellDepth(ctx context.Context, env *Env, cmd, cwd string, depth int) *shellReport {
	return analyzeShellInto(ctx, env, cmd, cwd, depth, &shellReport{})
}

// analyzeShellInto is analyzeShellDepth writing its report into rep,
// whose list of commands it reuses (emptied) when it has room.
func analyzeShellInto(ctx context.Context, env *Env, cmd, cwd string, depth int, rep *shellReport) *shellReport {
	return analyzeShellMemo(ctx, env, cmd, cwd, depth, rep, true)
}

// analyzeShellMemo is analyzeShellInto, with the memo of function bodies
// (shellmemo.go) or without it (the tests' oracle).
func analyzeShellMemo(ctx context.Context, env *Env, cmd, cwd string, depth int, rep *shellReport, memo bool) *shellReport {
	// Room for the commands a text this long usually holds (one per 24
	// bytes), so that the list is rarely copied as it grows.
	cmds := rep.cmds[:0]
	if want := min(64, 1+len(cmd)/24); cap(cmds) < want {
		cmds = make([]shellCmd, 0, want)
	}
	*rep = shellReport{cmds: cmds}
	// The check's own analysis records into the check's room: the
	// analyzer itself and the slices it grows are the last check's,
	// emptied (checkState.reset), so that a long script does not allocate
	// them afresh and copy them as they grow.
	recycled := env.check != nil && rep == &env.check.shellRep
	s := &shellAnalyzer{}
	if recycled {
		room := &env.check.shellRoom
		s = &room.an
		*s = shellAnalyzer{trail: room.trail[:0], locals: room.locals[:0], vars: varTable{entries: room.vars[:0]}}
	}
	s.depth = depth
	s.env, s.cwd, s.known = env, env.cwdDir(cwd), env.knownVars()
	s.rep = rep
	s.memo = bodyMemos{off: !memo}
	for i := 1; i <= 9; i++ {
		s.pos[i] = varVal{num: true} // bash -c CMD: none given, empty
	}
	if k, _ := lookupKnown(s.known, "PWD"); k != s.cwd {
		// bash sets $PWD to where it starts.
		s.vars.set("PWD", s.current(cwdName))
	}
	if recycled {
		s.memo = env.check.shellMemo
		s.memo.reset()
		s.memo.off = !memo
	}
	s.script(ctx, cmd)
	if env.check != nil && env.check.walksSpent {
		s.deny("the command names more folders and files to check for private notes than one check reads (%d entries); name fewer", maxCheckWalkEntries)
	}
	if s.wrote && len(s.readProtected) > 0 {
		s.deny("reads %s and writes files: only a human changes Flight Plans and the journal", strings.Join(s.readProtected, ", "))
	}
	if recycled {
		env.check.shellMemo = s.memo
		room := &env.check.shellRoom
		// (A payload analysed its locals in a list of its own, which
		// may have grown longer than this one can.)
		room.trail = s.trail[:min(s.trailTop, cap(s.trail))]
		room.locals = s.locals[:min(s.localsTop, cap(s.locals))]
		// The table's list only grows (a payload's own table aside,
		// which is not this one); moved to a map, it is nil.
		room.vars = s.vars.entries
	}
	return s.rep
}

// lookup returns a variable's value: set by the command, a positional
// parameter, or one the environment knows.
func (s *shellAnalyzer) lookup(name string) varVal {
	var v varVal
	if len(s.namerefs) > 0 && slices.Contains(s.namerefs, name) {
		// A name reference reads the variable it names: unknown.
	} else if i, ok := positional(name); ok {
		v = s.pos[i]
	} else if v, ok = s.vars.get(name); !ok {
		if k, known := lookupKnown(s.known, name); known {
			v = varVal{val: k, ok: true}
		} else {
			v = s.neverSet()
		}
	}
	s.logEffect(shellEffect{kind: logRead, text: name, val: v})
	if s.loops > 0 {
		s.loopReads = append(s.loopReads, name)
	}
	return v
}

// setVar records a variable the command sets.
func (s *shellAnalyzer) setVar(name string, v varVal) {
	s.setVarFrom(name, v, nil, true)
}

// setVarFrom is setVar for a caller that has just read the variable's
// value (cur, its current; nil: not read) and, when onTrail is false,
// that cuts the trail back to before this setting afterwards (undoVars):
// the same setting, without a second lookup or a trail entry dropped
// unread.
func (s *shellAnalyzer) setVarFrom(name string, v varVal, cur *varVal, onTrail bool) {
	if len(s.namerefs) > 0 && slices.Contains(s.namerefs, name) {
		// Assigning a name reference assigns the variable it names,
		// which may be any. One declared without a target takes the value
		// as its target (declare -n r; r=PATH; r=. sets PATH): a value
		// naming a variable bash or a program steers by is refused, and
		// so is a value known only when it runs, which may name one.
		// (A value known only when it runs is judged where it is
		// assigned, refAssigned: here it may be one made unknown.)
		if v.ok {
			s.namerefTarget(v.val)
		}
		s.forgetVars()
		cur = nil // forgetting changed it
	}
	var old varVal
	if cur != nil {
		old = *cur
	} else {
		old = s.current(name)
	}
	if len(s.memo.recs) > 0 {
		s.logEffect(shellEffect{kind: logPrior, text: name, val: old})
	}
	s.logEffect(shellEffect{kind: logSet, text: name, val: v})
	if onTrail {
		s.pushTrail(varChange{name: name, old: old})
	}
	if i, ok := positional(name); ok {
		s.pos[i] = v
		s.args = callArgs{} // shift, set --: "$@" is no longer the call's
		return
	}
	if name == cwdName {
		s.cwd = unknownCwd
		if v.ok {
			s.cwd = v.val
		}
		return
	}
	s.vars.set(name, v)
}

// positional says whether name is $1…$9 and which.
func positional(name string) (int, bool) {
	if len(name) == 1 && name[0] >= '1' && name[0] <= '9' {
		return int(name[0] - '0'), true
	}
	return 0, false
}

func (s *shellAnalyzer) deny(format string, a ...any) {
	if s.quiet {
		return
	}
	s.addText(logDeny, fmt.Sprintf(format, a...))
}

func (s *shellAnalyzer) ask(format string, a ...any) {
	if s.quiet {
		return
	}
	s.addText(logAsk, fmt.Sprintf(format, a...))
}

// script parses and analyses one piece of shell text (the action's cmd, or
// a payload found inside it).
func (s *shellAnalyzer) script(ctx context.Context, text string) {
	if s.depth > maxShellDepth {
		s.deny("shell commands nested more than %d levels deep", maxShellDepth)
		return
	}
	if bad, what := hiddenChars(text); bad {
		s.deny("the command hides characters (%s); refusing what cannot be read as it runs", what)
		// Analyse the visible reading too, for the reason's sake.
		text = stripHidden(text)
	}
	p := shellParsers.Get().(*syntax.Parser)
	f, err := p.Parse(strings.NewReader(text), "")
	shellParsers.Put(p)
	if err != nil {
		s.deny("the shell command does not parse (%v); failing closed", syntaxErr(err))
		return
	}
	saved := s.src
	s.src = text
	s.stmts(f.Stmts, stdinNone)
	s.src = saved
}

// funcDef is a function declared in the command, with the text it was
// parsed from. After a construct that may or may not have declared or
// removed it (a branch, a loop, unset), a call may run the body or the
// program of that name (alsoProgram), or, when the alternatives declared
// different bodies, which runs is known only when it runs (unknown).
type funcDef struct {
	body        *syntax.Stmt
	src         string
	alsoProgram bool
	unknown     bool
}

// source returns the text of a node of the statements being analysed,
// false when its offsets do not lie in that text.
func (s *shellAnalyzer) source(n syntax.Node) (string, bool) {
	start, end := int(n.Pos().Offset()), int(n.End().Offset())
	if !n.Pos().IsValid() || !n.End().IsValid() || start > end || end > len(s.src) {
		return "", false
	}
	return s.src[start:end], true
}

func syntaxErr(err error) string {
	msg := err.Error()
	if len(msg) > 120 {
		msg = msg[:120] + "…"
	}
	return msg
}

// subshell analyses statements bash runs in a subshell of their own (a
// command or process substitution): they see the state before them, and
// their settings stay in them.
func (s *shellAnalyzer) subshell(stmts []*syntax.Stmt) {
	mark := len(s.trail)
	s.stmts(stmts, stdinNone)
	s.undoVars(mark)
}

// payload analyses shell text that another shell process runs (bash -c,
// watch, a literal piped into sh, a program's shell command…): nested
// execution always needs a human. That shell starts where this one is and
// inherits only the environment: the command's own variables, positional
// parameters and functions are unknown or absent to it (x=out/ok; bash -c
// 'rm -rf "$x"/..' removes /), and nothing it sets, nor where it goes,
// comes back.
func (s *shellAnalyzer) payload(text, how string) {
	if s.quiet {
		return
	}
	mark, cwd := len(s.trail), s.cwd
	vars, funcs, pos, inFunc, locals, calling, args := s.vars, s.funcs, s.pos, s.inFunc, s.locals, s.calling, s.args
	// A recorded body replays its log in this analyzer's state: the other
	// shell's settings would be replayed into it.
	s.spoil()
	s.vars, s.funcs, s.pos, s.inFunc, s.locals, s.calling, s.args = varTable{}, nil, [10]varVal{}, nil, nil, 0, callArgs{}
	for _, name := range [...]string{"PWD", "OLDPWD"} { // exported by bash
		if v, ok := vars.get(name); ok {
			s.setVar(name, v)
		}
	}
	s.evalText(text, how)
	s.vars, s.funcs, s.pos, s.inFunc, s.locals, s.calling, s.args = vars, funcs, pos, inFunc, locals, calling, args
	s.trail, s.cwd = s.trail[:mark], cwd
}

// laterText analyses shell text this shell may run later, at any point,
// or never (a trap, an alias): from a state where every variable and the
// working directory are known only when it runs (trap 'rm -rf "$x"' EXIT
// runs with the last x), and what it sets is known only when it runs
// after it.
func (s *shellAnalyzer) laterText(text, how string) {
	mark := len(s.trail)
	s.forgetVars() // the analysis around is not kept: it depends on what is set
	s.setVar(cwdName, varVal{})
	inner := len(s.trail)
	s.evalText(text, how)
	// What it set is known only when it runs; a function it declared
	// may or may not be there.
	var b branches
	seen := map[varChange]bool{}
	for _, c := range s.trail[inner:] {
		k := varChange{name: c.name, fn: c.fn}
		if seen[k] {
			continue
		}
		seen[k] = true
		if c.fn {
			b.addFunc(c.name, s.funcs[c.name])
		} else {
			b.changed = append(b.changed, c.name)
		}
	}
	s.undoVars(mark)
	s.branchesEnd(&b)
}

// evalText analyses shell text this shell runs (eval, a mapfile
// callback): what it sets holds.
func (s *shellAnalyzer) evalText(text, how string) {
	if s.quiet {
		return
	}
	s.ask("%s runs a nested command", how)
	s.depth++
	s.script(context.Background(), text)
	s.depth--
}

func (s *shellAnalyzer) stmts(list []*syntax.Stmt, in stdinKind) {
	if s.quiet {
		return
	}
	for _, st := range list {
		s.stmt(st, stdinSrc{kind: in, fds: &s.execFds})
	}
}

func (s *shellAnalyzer) stmt(st *syntax.Stmt, in stdinSrc) {
	if st == nil || s.quiet {
		return
	}
	if st.Background {
		s.ask("runs a command in the background")
		// It runs in a subshell of its own: its settings stay in it.
		mark := len(s.trail)
		defer s.undoVars(mark)
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		s.call(c, st, in)
		return // call handles the statement's redirections with its argv
	case *syntax.BinaryCmd:
		if c.Op == syntax.Pipe || c.Op == syntax.PipeAll {
			s.pipeline(st, in.flow)
		} else {
			s.andOr(c, in)
		}
	case *syntax.Subshell:
		mark := len(s.trail)
		s.groupStmts(c.Stmts, s.groupInput(st, in))
		s.undoVars(mark) // a subshell's settings stay in it
	case *syntax.Block:
		s.groupStmts(c.Stmts, s.groupInput(st, in))
	case *syntax.IfClause:
		s.editorCompoundReads(st, in)
		s.ifClause(c)
	case *syntax.WhileClause:
		s.editorCompoundReads(st, in)
		if endless(c) {
			s.deny("an endless loop (%s true with no way out) exhausts the machine", map[bool]string{true: "until", false: "while"}[c.Until])
		}
		s.loop(func() {
			s.stmts(c.Cond, stdinNone)
			s.stmts(c.Do, stdinNone)
		})
	case *syntax.ForClause:
		s.editorCompoundReads(st, in)
		if wi, ok := c.Loop.(*syntax.WordIter); ok {
			if values, known := s.loopValues(wi); known {
				// A loop over a few words known now is judged once for
				// each, with its variable set: for f in notes/*.md reads
				// those files, not any file.
				mark := len(s.trail)
				for _, v := range values {
					s.setVar(wi.Name.Value, varVal{val: v, ok: true})
					s.stmts(c.Do, stdinNone)
				}
				s.setVar(wi.Name.Value, varVal{})
				if changed := s.changedSince(mark); len(changed) > 0 && breaks(c.Do) {
					// A break may leave any iteration's settings.
					for _, v := range changed {
						s.setVar(v.name, varVal{})
					}
				}
				break // on to the loop's redirections
			}
			s.refAssigned(wi.Name.Value, varVal{})
			s.setVar(wi.Name.Value, varVal{})
		} else {
			s.arith(c.Loop) // for ((…; …; …)): its assignments make unknown
		}
		s.loop(func() { s.stmts(c.Do, stdinNone) })
	case *syntax.CaseClause:
		s.editorCompoundReads(st, in)
		s.evalWord(c.Word)
		var b branches
		for _, it := range c.Items {
			s.branch(&b, func() { s.stmts(it.Stmts, stdinNone) })
		}
		s.branchesEnd(&b)
	case *syntax.FuncDecl:
		s.funcDecl(c)
	case *syntax.DeclClause:
		s.declClause(c)
	case *syntax.TimeClause:
		s.stmt(c.Stmt, in)
	case *syntax.CoprocClause:
		s.ask("starts a coprocess")
		name := "COPROC"
		if c.Name != nil {
			name = c.Name.Lit()
		}
		s.setVar(name, varVal{}) // its file descriptors
		s.setVar(name+"_PID", varVal{})
		mark := len(s.trail)
		s.stmt(c.Stmt, in)
		s.undoVars(mark) // it runs in a subshell of its own
	case *syntax.TestClause:
		if c.X == nil {
			s.deny("an empty test clause is malformed; failing closed")
		}
		s.walkNode(c)
		walkSyntax(c, func(n syntax.Node) bool {
			if u, ok := n.(*syntax.UnaryTest); ok && (u.Op == syntax.TsVarSet || u.Op == syntax.TsRefVar) {
				if w, ok := u.X.(*syntax.Word); ok {
					// [[ -v NAME ]] expands NAME's subscript, as test -v does.
					s.variableName(s.peekWord(w).val, s.unknownIsNum(w.Parts))
				}
			}
			if b, ok := n.(*syntax.BinaryTest); ok && b.Op >= syntax.TsEql && b.Op <= syntax.TsGtr {
				for _, x := range [...]syntax.TestExpr{b.X, b.Y} {
					if w, ok := x.(*syntax.Word); ok {
						s.arithWord(w)
					}
				}
			}
			return true
		})
	case *syntax.ArithmCmd:
		s.arith(c.X)
	case *syntax.LetClause:
		for _, e := range c.Exprs {
			s.arith(e)
		}
	default:
		if st.Cmd != nil {
			s.walkNode(st.Cmd)
		}
	}
	s.editorCompoundInto(st, in)
	s.redirects(st, nil, in)
}

// groupInput is what the commands of a group or subshell read on their
// standard input: the statement's (stdinOf), with the literal text its
// own redirections give it ({ cat | tee f; } <<EOF).
func (s *shellAnalyzer) groupInput(st *syntax.Stmt, in stdinSrc) stdinSrc {
	inner := stdinOf(st, in)
	if len(st.Redirs) > 0 {
		inner.flow = s.stmtInputs(st, inputFlows{in.flow})[0]
	}
	return inner
}

// groupStmts analyses the commands of a group or subshell, which share
// its input: any of them may read an endless stream piped into it (cat
// /dev/zero | { cat > f; }), or run the text piped into it ({ sh; }).
func (s *shellAnalyzer) groupStmts(list []*syntax.Stmt, in stdinSrc) {
	if s.quiet {
		return
	}
	for _, st := range list {
		s.stmt(st, in)
	}
}

// maxLoopValues bounds the values a for loop is judged for one by one.
const maxLoopValues = 16

// loopValues returns the words a for loop iterates over, globs expanded,
// when they are known now and few.
func (s *shellAnalyzer) loopValues(wi *syntax.WordIter) ([]string, bool) {
	var values []string
	for _, w := range wi.Items {
		v := s.evalWord(w)
		if v.dyn {
			return nil, false
		}
		words := []string{v.val}
		if v.split {
			words = strings.Fields(v.val)
		}
		for _, x := range words {
			if hasGlob(x) {
				matches, _ := s.env.expandGlobFrom(x, s.cwd)
				if len(matches) > 1 {
					words := matches[1:]
					for i, m := range words {
						if r, err := filepath.Rel(s.cwd, m); err == nil {
							words[i] = r
						}
					}
					values = append(values, words...)
					continue
				}
			}
			values = append(values, x)
		}
		if len(values) > maxLoopValues {
			return nil, false
		}
	}
	return values, len(wi.Items) > 0
}

// walkNode analyses every command substitution inside a node the analyzer
// has no special knowledge of (arithmetic, test expressions…).
func (s *shellAnalyzer) walkNode(n syntax.Node) {
	if n == nil {
		return
	}
	if text, ok := s.source(n); ok && !mayHoldSubstitution(text) {
		return // nothing in it runs
	}
	walkSyntax(n, func(n syntax.Node) bool { return !s.substitution(n) })
}

// substitution analyses a node of a walk that is a command or process
// substitution (and says so: the walk does not go into it).
func (s *shellAnalyzer) substitution(n syntax.Node) bool {
	switch x := n.(type) {
	case *syntax.CmdSubst:
		s.substitute(x.Stmts)
	case *syntax.ProcSubst:
		s.subshell(x.Stmts)
	default:
		return false
	}
	return true
}

// mayHoldSubstitution says whether shell text may hold a command or
// process substitution: every form of one ($(…), `…`, ${ …;}, <(…), >(…))
// starts with one of these.
func mayHoldSubstitution(text string) bool {
	for _, m := range [...]string{"$(", "`", "${", "<(", ">("} {
		if strings.Contains(text, m) {
			return true
		}
	}
	return false
}

// endless reports `while true`, `while :` and `until false` loops whose body
// has no break, exit or return.
func endless(c *syntax.WhileClause) bool {
	if len(c.Cond) != 1 {
		return false
	}
	call, ok := c.Cond[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) != 1 {
		return false
	}
	v := call.Args[0].Lit()
	if c.Until && v != "false" || !c.Until && v != "true" && v != ":" {
		return false
	}
	escapes := false
	for _, st := range c.Do {
		walkSyntax(st, func(n syntax.Node) bool {
			if ce, ok := n.(*syntax.CallExpr); ok && len(ce.Args) > 0 {
				switch ce.Args[0].Lit() {
				case "break", "exit", "return":
					escapes = true
				}
			}
			return !escapes
		})
	}
	return !escapes
}

// collectPipe appends the stages of the pipeline st to out.
func collectPipe(st *syntax.Stmt, out []*syntax.Stmt) []*syntax.Stmt {
	if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll) && len(st.Redirs) == 0 {
		return collectPipe(b.Y, collectPipe(b.X, out))
	}
	return append(out, st)
}

// pipeline analyses each stage knowing what feeds its stdin: text piped
// into a shell or an interpreter is run, so a literal is analysed as a
// payload and anything else (a download, a decoder, a file) is refused.
func (s *shellAnalyzer) pipeline(st *syntax.Stmt, flow textFlow) {
	// Room for the stages of most pipelines without allocating.
	var room [8]*syntax.Stmt
	stages := collectPipe(st, room[:0])
	// Every stage holds the descriptors an exec opened; each but the
	// first reads the pipe on its input.
	in := stdinSrc{fds: &s.execFds, flow: flow}
	piped := s.execFds
	piped[0] = ""
	for i, stg := range stages {
		// Each stage runs in a subshell of its own (bash(1), Pipelines):
		// its settings stay in it. The last one runs in this shell when
		// the command turns lastpipe on (shopt -s lastpipe, maybe by a
		// word known only when it runs): what it sets is known only when
		// it runs after it.
		if i == len(stages)-1 {
			var b branches
			s.branch(&b, func() { s.stmt(stg, in) })
			s.branchesEnd(&b)
			break
		}
		mark := len(s.trail)
		s.stmt(stg, in)
		s.undoVars(mark)
		var flow textFlow
		if s.flowNeeded(stages[i+1:]) {
			flow = s.stmtFlow(stg, inputFlows{in.flow})
		}
		in = s.describeOutput(stg, stdinOf(stg, in))
		in.fds = &piped
		in.flow = flow
	}
}

// stdinOf is what a statement reads on its standard input: its own
// redirection replaces what a pipe gives it (tr < /dev/zero never ends;
// yes | tr a b < file ends with the file).
func stdinOf(st *syntax.Stmt, in stdinSrc) stdinSrc {
	if in.fds != nil && in.fds[0] != "" && !in.unbounded {
		// The shell's own input, an endless device since exec </dev/zero.
		in.kind, in.what, in.unbounded = stdinUntrusted, "its input "+in.fds[0]+", which never ends", true
	}
	if len(st.Redirs) == 0 {
		return in
	}
	in.fds = endlessFdsOf(st, in.fds, func(fd int, dev string) {
		if fd != 0 {
			return
		}
		if dev != "" {
			in = stdinSrc{kind: stdinUntrusted, what: "its input " + dev + ", which never ends", unbounded: true}
		} else {
			in.unbounded = false
		}
	})
	return in
}

// endlessFdsOf reads a statement's redirections in order, from the
// descriptors it inherits (init, nil for none known), and calls set (when
// not nil) with each descriptor 0-9 they open or copy, and the endless
// device it then reads ("" for anything else); it returns what each
// descriptor reads after them.
func endlessFdsOf(st *syntax.Stmt, init *[10]string, set func(fd int, dev string)) *[10]string {
	var endlessFds [10]string // what each descriptor 0-9 reads, when it never ends
	if init != nil {
		endlessFds = *init
	}
	for _, r := range st.Redirs {
		fd := 0
		if r.N != nil {
			if len(r.N.Value) != 1 || r.N.Value[0] < '0' || r.N.Value[0] > '9' {
				continue
			}
			fd = int(r.N.Value[0] - '0')
		}
		switch r.Op {
		case syntax.RdrIn, syntax.RdrInOut:
			if dev, ok := endlessDevice(r.Word.Lit()); ok {
				endlessFds[fd] = dev
			} else {
				endlessFds[fd] = ""
			}
		case syntax.DplIn:
			// <&N: a copy of descriptor N (cat <&3 3</dev/zero).
			if src := r.Word.Lit(); len(src) == 1 && src[0] >= '0' && src[0] <= '9' {
				endlessFds[fd] = endlessFds[src[0]-'0']
			} else {
				endlessFds[fd] = ""
			}
		case syntax.Hdoc, syntax.DashHdoc, syntax.WordHdoc:
			endlessFds[fd] = ""
		default:
			continue
		}
		if set != nil {
			set(fd, endlessFds[fd])
		}
	}
	return &endlessFds
}

// endlessDevice says whether a path written as it is names a device that
// never ends, by any spelling the kernel reads the same (/dev//zero,
// /dev/./zero, /dev/../dev/zero), and which.
func endlessDevice(p string) (string, bool) {
	if endlessDevices[p] {
		return p, true
	}
	if !strings.HasPrefix(p, "/") || !strings.Contains(p, "dev") {
		return "", false
	}
	c := path.Clean(p)
	return c, endlessDevices[c]
}

// describeOutput says what a pipeline stage writes to stdout, given what
// it reads.
func (s *shellAnalyzer) describeOutput(st *syntax.Stmt, in stdinSrc) stdinSrc {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return stdinSrc{kind: stdinUntrusted, what: "the output of a compound command"}
	}
	argv, dyn := s.quietArgv(call)
	if len(argv) == 0 {
		return stdinSrc{kind: stdinUntrusted, what: "dynamic output"}
	}
	if what, endless := unboundedOutput(argv, in); endless {
		return stdinSrc{kind: stdinUntrusted, what: what, unbounded: true}
	}
	if def := s.funcOf(argv[0]); def.body != nil {
		// A function's output is its body's (f(){ cat /dev/zero; }; f | cat > out).
		if what, endless := s.bodyEndless(def.body, in); endless {
			return stdinSrc{kind: stdinUntrusted, what: what, unbounded: true}
		}
	}
	argv, _ = unwrap(argv)
	verb := verbName(argv)
	switch {
	case verb == "echo" && !dyn:
		args := argv[1:]
		for len(args) > 0 && strings.HasPrefix(args[0], "-") && strings.Trim(args[0], "-neE") == "" {
			args = args[1:]
		}
		return stdinSrc{kind: stdinLiteral, text: strings.Join(args, " ")}
	case verb == "printf" && !dyn && len(argv) >= 2:
		t := argv[1]
		if len(argv) > 2 {
			t = strings.Join(argv[2:], "\n")
		}
		return stdinSrc{kind: stdinLiteral, text: strings.ReplaceAll(t, `\n`, "\n")}
	case verbKinds[verb]&kindNetwork != 0:
		return stdinSrc{kind: stdinUntrusted, what: "a download (" + verb + ")"}
	case decoderVerb(verb, argv):
		return stdinSrc{kind: stdinUntrusted, what: "decoded text (" + verb + ")"}
	}
	return stdinSrc{kind: stdinUntrusted, what: "the output of " + verb}
}

func (s *shellAnalyzer) quietArgv(call *syntax.CallExpr) ([]string, bool) {
	dyn := false
	var argv []string
	for _, a := range call.Args {
		w := s.peekWord(a)
		dyn = dyn || w.dyn
		if w.split && !w.dyn {
			argv = append(argv, strings.Fields(w.val)...)
		} else {
			argv = append(argv, w.val)
		}
	}
	return argv, dyn
}

func decoderVerb(verb string, argv []string) bool {
	switch verb {
	case "base64", "base32", "basenc":
		return hasFlag(argv[1:], "-d", "--decode", "-D")
	case "xxd":
		return hasFlag(argv[1:], "-r", "-revert")
	case "openssl", "gpg", "gzip", "gunzip", "zcat", "bzcat", "xzcat", "zstdcat", "uudecode", "rev", "tr":
		return true
	}
	return false
}

func (s *shellAnalyzer) funcDecl(c *syntax.FuncDecl) {
	if c.Name == nil {
		s.deny("an unnamed or multi-named function declaration is not bash; failing closed")
		return
	}
	name := c.Name.Value
	if _, ok := c.Body.Cmd.(*syntax.BinaryCmd); ok {
		// f(){ …; } | cat: bash declares f in a pipeline's subshell (and
		// runs the rest after); the parser reads the pipeline as the body.
		s.deny("the function %s is declared in a pipeline or a list (|, &&, ||), which bash and pp-lsp's parser read differently; refusing", printable(name))
		return
	}
	s.declare(name, funcDef{body: c.Body, src: s.src})
	if text, ok := s.source(c.Body); (!ok || strings.Contains(text, name)) && recursesUnbounded(name, c.Body) {
		s.deny("the function %s calls itself in a pipe or in the background: a fork bomb", name)
	}
	// The body is analysed where it is declared (positional parameters
	// unknown), and again at each call with the call's arguments.
	// Whether it was being analysed is read (for the memo): declaring it
	// unmarks it after, which changes the calls of it that follow.
	s.inFuncHas(name)
	s.enterFunc(name)
	mark, locals := len(s.trail), len(s.locals)
	// Where it is declared, its arguments are unknown. Arithmetic on
	// them is judged at each call, with the call's arguments (num: no
	// finding here for what every call shows).
	// So is a command "$@" runs (callArgs).
	pos, args := s.pos, s.args
	for i := 1; i <= 9; i++ {
		s.bindPositional(i, varVal{num: true})
	}
	s.args = callArgs{state: argsAtEachCall}
	s.calling++
	s.body(c.Body)
	s.calling--
	s.undoVars(mark) // declaring runs nothing: its settings come with its calls
	for i := 1; i <= 9; i++ {
		s.bindPositional(i, pos[i])
	}
	s.args = args
	s.locals = s.locals[:locals]
	delete(s.inFunc, name)
}

// recursesUnbounded reports a function that calls itself from a pipeline or
// a background job: every call starts two more. One walk: a call of the
// function counts when a statement around it (or holding it) is
// backgrounded or a pipe.
func recursesUnbounded(name string, body *syntax.Stmt) bool {
	found := false
	var marked []bool // per node entered (and not yet left): is it a pipe or background statement
	inside := 0       // how many of them are
	syntax.Walk(body, func(n syntax.Node) bool {
		if n == nil {
			if marked[len(marked)-1] {
				inside--
			}
			marked = marked[:len(marked)-1]
			return true
		}
		if found {
			return false
		}
		mark := false
		switch x := n.(type) {
		case *syntax.Stmt:
			b, isBin := x.Cmd.(*syntax.BinaryCmd)
			mark = x.Background || isBin && (b.Op == syntax.Pipe || b.Op == syntax.PipeAll)
		case *syntax.CallExpr:
			if inside > 0 && len(x.Args) > 0 && x.Args[0].Lit() == name {
				found = true
				return false
			}
		}
		marked = append(marked, mark)
		if mark {
			inside++
		}
		return true
	})
	return found
}

func (s *shellAnalyzer) declClause(c *syntax.DeclClause) {
	exported := c.Variant.Value == "export"
	// In a function, local, declare and typeset make a variable its own
	// (bash(1), "local"; declare -g is the one exception). An option
	// known only when it runs may be -g: then the setting is taken to
	// last, the stricter reading.
	local := c.Variant.Value == "local" || c.Variant.Value == "declare" || c.Variant.Value == "typeset"
	integer := false // -i: its values are evaluated as arithmetic
	nameref := false // -n: see markNameref
	assoc := false   // -A: its subscripts are strings, not arithmetic
	options := func(w word) {
		if w.dyn || strings.HasPrefix(w.val, "-") && strings.Contains(w.val, "x") {
			exported = true
		}
		if w.dyn || strings.HasPrefix(w.val, "-") && strings.Contains(w.val, "g") {
			local = false
		}
		if local && (w.dyn || strings.HasPrefix(w.val, "-") && strings.Contains(w.val, "n")) {
			nameref = true
		}
		if w.dyn || strings.HasPrefix(w.val, "-") && strings.Contains(w.val, "i") {
			integer = true
		}
		if !w.dyn && strings.HasPrefix(w.val, "-") && strings.Contains(w.val, "A") {
			assoc = true
		}
	}
	declared := func(name string) {
		if local && s.calling > 0 {
			s.declareLocal(name)
		}
		if assoc && !slices.Contains(s.assocs, name) {
			s.assocs = append(s.assocs, name)
		}
		if integer && !slices.Contains(s.integers, name) {
			s.integers = append(s.integers, name)
			// Recorded bodies assigned it as a plain variable.
			s.spoil()
			s.memo.memos = s.memo.memos[:0]
		}
	}
	for _, as := range c.Args {
		switch {
		case as.Name == nil && as.Value != nil:
			// An option, or a quoted NAME=VALUE (declare "PATH=/tmp").
			w := s.evalWord(as.Value)
			nameText, value, isAssign := strings.Cut(w.val, "=")
			switch {
			case strings.Contains(nameText, dynMarker):
				options(w)
				s.deny("%s declares a variable whose name is known only when it runs (it could be PATH)", c.Variant.Value)
				s.forgetVars()
			case !isAssign && (strings.HasPrefix(w.val, "-") || strings.HasPrefix(w.val, "+")):
				options(w)
			default:
				name := s.variableName(strings.TrimSuffix(nameText, "+"), false)
				if name == "" {
					continue
				}
				declared(name)
				v := word{val: value, dyn: w.dyn}
				if exported {
					s.exportVar(name, v)
				} else {
					s.checkEnvVar(name, v)
				}
				if !isAssign {
					s.bareDeclaration(name, local)
					if nameref {
						s.markNameref(name)
					}
					continue
				}
				if slices.Contains(s.integers, name) {
					s.arithValue(name, varVal{val: value, ok: !w.dyn})
				}
				if nameref {
					s.namerefTarget(value)
				}
				s.setVar(name, varVal{val: value, ok: !w.dyn && !strings.HasSuffix(nameText, "+")})
				if nameref {
					// Its own value is its target, not an assignment
					// through it: marked a name reference once set.
					s.markNameref(name)
				}
			}
		case as.Name != nil:
			declared(as.Name.Value)
			if nameref && as.Value != nil {
				// The name it refers to is expanded at each use, subscript and all.
				if w := s.peekWord(as.Value); w.dyn && !s.unknownIsNum(as.Value.Parts) {
					s.deny("a name reference refers to a variable named only when it runs: a subscript in the name (a[$(…)]) would run a command at each use")
				} else {
					s.variableName(w.val, true)
					s.namerefTarget(w.val)
				}
			}
			if as.Value == nil && as.Array == nil && as.Index == nil && !as.Append {
				if exported {
					// export NAME hands its value, whatever it is or becomes.
					s.exportVar(as.Name.Value, word{val: s.lookup(as.Name.Value).val, dyn: !s.lookup(as.Name.Value).ok})
				} else {
					s.checkEnvVar(as.Name.Value, word{})
				}
				s.bareDeclaration(as.Name.Value, local)
				if nameref {
					// A variable's value becomes its target (r=PATH;
					// declare -n r).
					v := s.lookup(as.Name.Value)
					_, set := s.vars.get(as.Name.Value)
					s.markNameref(as.Name.Value)
					if v.ok {
						s.namerefTarget(v.val)
					} else if set {
						s.refAssigned(as.Name.Value, v)
					}
				}
				continue
			}
			s.assign(as, exported)
			if nameref {
				// Its own value is its target (judged above), not an
				// assignment through it: marked a name reference once set.
				s.markNameref(as.Name.Value)
			}
		}
	}
}

// bareDeclaration is a declaration of a name without a value: a local one
// in a function starts unset (empty); any other keeps its value.
func (s *shellAnalyzer) bareDeclaration(name string, local bool) {
	if local && s.calling > 0 {
		s.setVar(name, varVal{val: "", ok: true})
	}
}

// variableName is the variable a word naming one sets (read NAME, printf
// -v NAME, declare "NAME=…"): its name, "" when it is none. A subscript
// (NAME[SUB]) is expanded, so a command substitution in it runs
// (read 'a[$(rm -rf ~)]' runs rm); one known only when it runs may hold
// one: refused.
//
// A name known only when it runs is refused too, for the same reason,
// unless its unknown parts are numbers (numeric): x_$i can hold no
// subscript.
func (s *shellAnalyzer) variableName(w string, numeric bool) string {
	name, sub, hasSub := strings.Cut(w, "[")
	if strings.Contains(name, dynMarker) {
		if !numeric {
			s.deny("a variable is named by a value known only when it runs: a subscript in the name (a[$(…)]) would run a command")
		}
		return ""
	}
	if hasSub {
		switch {
		case strings.Contains(sub, dynMarker) && !numeric:
			s.deny("a variable's subscript is known only when it runs: a command substitution in it would run")
		case mayHoldSubstitution(sub):
			s.evalText(`: "`+strings.TrimSuffix(sub, "]")+`"`, "a variable's subscript")
		}
	}
	if !syntax.ValidName(name) {
		return ""
	}
	return name
}

// assign records NAME=VALUE. Variables that change how every later command
// is found or run (PATH, LD_PRELOAD, BASH_ENV…) are refused wherever set.
func (s *shellAnalyzer) assign(as *syntax.Assign, exported bool) {
	name := as.Name.Value
	var v word
	if as.Value != nil {
		v = s.evalWord(as.Value)
	} else if as.Array != nil {
		s.walkNode(as.Array)
		for _, e := range as.Array.Elems {
			if e.Value != nil {
				s.braceExpansion(e.Value)
			}
		}
		v.dyn = true
	}
	num := v.dyn && (as.Array != nil && s.numericArray(as.Array) || as.Value != nil && s.wordIsNum(as.Value))
	if exported {
		s.exportVar(name, v)
	} else {
		s.checkEnvVar(name, v)
	}
	if slices.Contains(s.integers, name) {
		// The value is evaluated as arithmetic, and the result is a number.
		s.arithValue(name, varVal{val: v.val, ok: !v.dyn, num: num})
		num = true
	}
	s.refAssigned(name, varVal{val: v.val, ok: !v.dyn && !as.Append && as.Index == nil})
	if as.Index != nil {
		s.subscript(name, as.Index)
		// An element: the array's value is its first. Numbers stay numbers.
		s.setVar(name, varVal{num: isNumber(s.lookup(name)) && isNumber(varVal{val: v.val, ok: !v.dyn, num: num})})
		return
	}
	if as.Append {
		prev := s.lookup(name)
		ok := prev.ok && !v.dyn
		s.setVar(name, varVal{val: prev.val + v.val, ok: ok, num: !ok && isNumber(prev) && isNumber(varVal{val: v.val, ok: !v.dyn, num: num})})
		return
	}
	s.setVar(name, varVal{val: v.val, ok: !v.dyn, num: num})
}

// numericArray says whether every element of an array literal is a
// number (declare -A m=([a]=0 [b]=1)).
func (s *shellAnalyzer) numericArray(a *syntax.ArrayExpr) bool {
	for _, e := range a.Elems {
		if e.Value == nil {
			continue
		}
		if !s.wordIsNum(e.Value) {
			return false
		}
	}
	return true
}

// hijackVars change which program runs or inject code into every program.
var hijackVars = map[string]bool{
	"PATH": true, "LD_PRELOAD": true, "LD_LIBRARY_PATH": true, "LD_AUDIT": true, "BASH_ENV": true, "ENV": true,
	"SHELLOPTS": true, "BASHOPTS": true, "PS4": true, "PROMPT_COMMAND": true, "IFS": true, "GCONV_PATH": true,
	"PYTHONPATH": true, "PYTHONSTARTUP": true, "PYTHONHOME": true, "PERL5OPT": true, "PERL5LIB": true, "PERLLIB": true,
	"RUBYOPT": true, "RUBYLIB": true, "NODE_OPTIONS": true, "NODE_PATH": true, "JAVA_TOOL_OPTIONS": true,
	"GIT_EXEC_PATH": true, "GIT_TEMPLATE_DIR": true, "GIT_CONFIG_GLOBAL": true, "GIT_CONFIG_SYSTEM": true,
	"GIT_CONFIG_PARAMETERS": true, "GIT_DIR": true, "GIT_WORK_TREE": true, "HOME": true, "XDG_CONFIG_HOME": true,
}

// refAssigned judges an assignment of a value known only when it runs
// to a name reference: declared without a target, it takes the value as
// its target, which may then be PATH.
func (s *shellAnalyzer) refAssigned(name string, v varVal) {
	if !v.ok && len(s.namerefs) > 0 && slices.Contains(s.namerefs, name) {
		s.deny("assigns the name reference %s a value known only when it runs: it may make it refer to PATH, and its next assignment set it", name)
	}
}

// namerefTarget judges the variable a name reference refers to: every
// assignment of the reference assigns it, with no assignment of its name
// to be seen (declare -n r=PATH; r=. made ls run ./ls), so a variable
// whose setting the analysis refuses or judges is refused as a target.
func (s *shellAnalyzer) namerefTarget(target string) {
	name, _, _ := strings.Cut(target, "[")
	if steeredVar(name) {
		s.deny("a name reference refers to %s: assigning it would set %s where no assignment names it", name, name)
	}
}

// steeredVar says whether assigning a variable is judged by more than the
// value it holds: it steers bash, a program, or what the sandbox hands on.
func steeredVar(name string) bool {
	return hijackVars[name] || bashSteerVars[name] != "" || gitStoreVars[name] || optionVars[name] != "" ||
		commandVars[name] || strings.HasPrefix(name, "GIT_") || strings.HasPrefix(name, "LD_") ||
		strings.HasPrefix(name, "DYLD_") || name == "SIMPLE_BACKUP_SUFFIX" || name == "CDPATH" ||
		name == cwdName || isExportedBySandbox(name)
}

// bashSteerVars are variables bash itself reads that change which
// program a name runs, how the rest of the command is read, or which file
// bash writes (bash(1), Shell Variables). A plain assignment is enough:
// BASH_CMDS[ls]=/bin/bash made the next ls run bash, and HISTFILE is where
// bash writes its history.
var bashSteerVars = map[string]string{
	"BASH_CMDS":           "makes a command name run another program (bash's table of the programs it found)",
	"BASH_ALIASES":        "defines aliases, which replace a command's words",
	"EXECIGNORE":          "changes which program a command name finds on PATH",
	"BASH_LOADABLES_PATH": "changes where bash loads builtins from",
	"HISTFILE":            "names the file bash writes its history to",
	"BASH_XTRACEFD":       "sends bash's trace of every command to another file",
	"POSIXLY_CORRECT":     "changes how bash reads the rest of the command (POSIX mode)",
	"BASH_COMPAT":         "changes how bash reads the rest of the command",
	"PS0":                 "is a prompt whose command substitutions run when it is shown",
	"PS1":                 "is a prompt whose command substitutions run when it is shown",
	"PS2":                 "is a prompt whose command substitutions run when it is shown",
	"PS3":                 "is a prompt whose command substitutions run when it is shown",
}

// gitStoreVars point git at another index or object store: git diff and
// git log would show files as that holds them, which the privacy rule
// does not read.
var gitStoreVars = map[string]bool{
	"GIT_INDEX_FILE": true, "GIT_OBJECT_DIRECTORY": true, "GIT_ALTERNATE_OBJECT_DIRECTORIES": true, "GIT_COMMON_DIR": true,
}

// optionVars give a program options the command line does not show: rg
// reads a file of them (RIPGREP_CONFIG_PATH holding --invert-match had
// 'rg DEADLINE' print every other line of every note), tar, unzip, zip
// and older greps a list.
var optionVars = map[string]string{
	"RIPGREP_CONFIG_PATH": "rg", "GREP_OPTIONS": "grep", "TAR_OPTIONS": "tar", "UNZIP": "unzip", "UNZIPOPT": "unzip", "ZIPOPT": "zip",
}

// commandVars hold a command line that a program runs.
var commandVars = map[string]bool{
	"GIT_SSH_COMMAND": true, "GIT_SSH": true, "GIT_PAGER": true, "GIT_EDITOR": true, "GIT_EXTERNAL_DIFF": true,
	"GIT_ASKPASS": true, "SSH_ASKPASS": true, "PAGER": true, "EDITOR": true, "VISUAL": true, "BROWSER": true,
	"MANPAGER": true, "LESSOPEN": true, "LESSCLOSE": true, "SUDO_ASKPASS": true,
}

// deniedEnvPrefix says whether name starts as the dynamic loaders'
// variables do.
func deniedEnvPrefix(name string) bool {
	return strings.HasPrefix(name, "DYLD_") || strings.HasPrefix(name, "LD_")
}

// hasLowerASCII says whether s holds a letter a–z.
func hasLowerASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if 'a' <= s[i] && s[i] <= 'z' {
			return true
		}
	}
	return false
}

// checkEnvVar judges an assignment: a variable the sandbox exports is
// handed to the programs after it.
func (s *shellAnalyzer) checkEnvVar(name string, v word) {
	s.checkEnvVarAs(name, v, isExportedBySandbox(name))
}

// exportVar judges a variable a command hands the programs it runs (a
// prefix assignment, export, declare -x, env NAME=VALUE).
func (s *shellAnalyzer) exportVar(name string, v word) {
	s.checkEnvVarAs(name, v, true)
}

func (s *shellAnalyzer) checkEnvVarAs(name string, v word, exported bool) {
	if hasLowerASCII(name) && !deniedEnvPrefix(name) && !strings.HasPrefix(name, "GIT_CONFIG_") {
		// Every name the cases below match whole is upper case
		// (TestEnvVarTablesAreUpperCase), and bash's names are case
		// sensitive (path=x is not PATH): a script's own variables
		// (data, result, i) skip the tables' lookups. The prefixes
		// match any name after them, lower case too.
		if exported {
			s.exportedVar(name, v)
		}
		return
	}
	switch {
	case hijackVars[name] || deniedEnvPrefix(name):
		s.deny("setting %s changes which program runs or injects code into it", name)
	case bashSteerVars[name] != "":
		s.deny("setting %s %s", name, bashSteerVars[name])
	case gitStoreVars[name]:
		s.deny("setting %s points git at another index or object store, whose files the privacy rule does not read", name)
	case optionVars[name] != "":
		s.deny("setting %s gives %s options the command line does not show", name, optionVars[name])
	case name == "SIMPLE_BACKUP_SUFFIX":
		// A prefix assignment is not seen by the copy that backs up
		// (backupSuffix): the name a backup gets would be unknown.
		s.deny("setting SIMPLE_BACKUP_SUFFIX renames the files cp, mv, ln and install back up (notes/.dir-locals to notes/.dir-locals.el); give --suffix instead")
	case name == "CDPATH" && (v.dyn || v.val != ""):
		// Every later relative cd searches its list (bash(1), cd): the
		// working directory would be known only when it runs.
		s.deny("setting CDPATH steers every later cd to a directory of its list")
	case commandVars[name] || strings.HasPrefix(name, "GIT_CONFIG_"):
		if v.dyn {
			s.deny("%s is set to a command that cannot be known before it runs", name)
			return
		}
		s.payload(v.val, name)
	case exported:
		s.exportedVar(name, v)
	}
}

// redirects checks a statement's redirections: where output is written,
// what input is read, and what a heredoc or here-string feeds. argv is the
// command the statement runs (nil for a compound one) and in its input: an
// endless stream written to a file fills the disk.
func (s *shellAnalyzer) redirects(st *syntax.Stmt, argv []string, in stdinSrc) {
	in = stdinOf(st, in)
	var fdFiles [10]string // the file each descriptor 0-9 writes, in this statement
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				s.evalWord(r.Hdoc) // substitutions in an unquoted heredoc run
			}
			continue
		case syntax.WordHdoc:
			s.evalWord(r.Word)
			continue
		}
		w := s.evalWord(r.Word)
		target := w.val
		if r.Op == syntax.DplOut || r.Op == syntax.DplIn {
			fd, moved := target, false
			if len(fd) == 2 && fd[1] == '-' {
				// N>&M-: M is moved to N, then closed (cat /dev/zero 3>f 1>&3-).
				fd, moved = fd[:1], true
			}
			if len(fd) == 1 && fd[0] >= '0' && fd[0] <= '9' {
				// N>&M: N writes where M does (cat /dev/zero 3>f >&3).
				file := fdFiles[fd[0]-'0']
				if moved {
					fdFiles[fd[0]-'0'] = ""
				}
				if n, ok := redirFd(r); ok {
					fdFiles[n] = file
					if n == 1 && file != "" && r.Op == syntax.DplOut {
						s.endlessInto(st, argv, in, file)
					}
				}
				continue
			}
			if target == "-" || isDigits(target) {
				continue
			}
		}
		if strings.HasPrefix(target, "/dev/tcp/") || strings.HasPrefix(target, "/dev/udp/") {
			s.deny("redirects to a raw network socket (%s)", target)
			continue
		}
		switch target {
		case "/dev/null", "/dev/stdout", "/dev/stderr", "/dev/tty", "/dev/zero", "/dev/random", "/dev/urandom":
			continue
		}
		if strings.HasPrefix(target, "/dev/fd/") {
			toStdout := r.Op != syntax.RdrIn && r.Op != syntax.RdrInOut && (r.Op == syntax.RdrAll || r.Op == syntax.AppAll || r.N == nil || r.N.Value == "1")
			file := ""
			if fd, ok := fdPath(target); ok {
				file = fdFiles[fd] // > /dev/fd/N writes where N does (cat /dev/zero 3>f >/dev/fd/3)
			} else if len(r.Word.Parts) == 1 {
				if ps, ok := r.Word.Parts[0].(*syntax.ProcSubst); ok && ps.Op == syntax.CmdOut {
					// What >(…) runs reads it: cat /dev/zero > >(cat > f).
					file = "a process substitution >(…)"
				}
			}
			if n, ok := redirFd(r); ok && r.Op != syntax.RdrIn {
				fdFiles[n] = file
			}
			if toStdout && file != "" {
				s.endlessInto(st, argv, in, file)
			}
			continue
		}
		if w.dyn {
			if r.Op == syntax.RdrIn {
				s.ask("reads from a file named only when it runs")
			} else {
				s.deny("writes to a file named only when it runs; cannot prove it stays inside the roots")
			}
			continue
		}
		switch r.Op {
		case syntax.RdrIn:
			s.readFile(target, "reads")
		case syntax.RdrInOut:
			s.readFile(target, "reads")
			s.touch(target, opWrite, "writes")
			s.wrote = true
			if r.N != nil && r.N.Value == "1" {
				s.endlessInto(st, argv, in, target) // cat /dev/zero 1<>f
			}
		default:
			s.touch(target, opWrite, "writes")
			s.wrote = true
			if r.Op == syntax.RdrAll || r.Op == syntax.AppAll || r.N == nil || r.N.Value == "1" {
				s.endlessInto(st, argv, in, target)
			}
			if n, ok := redirFd(r); ok {
				fdFiles[n] = target
			}
		}
	}
}

// redirFd is the descriptor 0-9 a redirection sets (1 for >, 0 for <
// when none is written).
func redirFd(r *syntax.Redirect) (int, bool) {
	if r.N == nil {
		switch r.Op {
		case syntax.RdrIn, syntax.DplIn, syntax.RdrInOut:
			return 0, true
		}
		return 1, true
	}
	if len(r.N.Value) == 1 && r.N.Value[0] >= '0' && r.N.Value[0] <= '9' {
		return int(r.N.Value[0] - '0'), true
	}
	return 0, false
}

// endlessInto refuses an endless stream written to a file: the output of
// a command (argv), or of any command inside a compound one ({ cat
// /dev/zero; } > f, a loop or subshell redirected as a whole).
func (s *shellAnalyzer) endlessInto(st *syntax.Stmt, argv []string, in stdinSrc, target string) {
	if argv != nil {
		if what, endless := unboundedOutput(argv, in); endless {
			s.deny("writes an endless stream (%s) to %s: it fills the disk", what, printable(target))
			return
		}
		if len(argv) > 0 {
			// A function's output is its body's (f(){ cat /dev/zero; }; f > f).
			if def := s.funcOf(argv[0]); def.body != nil {
				if what, endless := s.bodyEndless(def.body, in); endless {
					s.deny("writes an endless stream (%s) to %s: it fills the disk", what, printable(target))
					return
				}
			}
		}
		// cat /dev/fd/3 3</dev/zero: a descriptor the statement opened
		// (in is after its redirections), or the shell (exec 3</dev/zero);
		// cat <(cat /dev/zero) is argEndless's (/dev/fd/63).
		fds := in.fds
		if fds == nil {
			fds = &[10]string{}
		}
		for _, a := range argv[1:] {
			if s.argEndless != "" && a == "/dev/fd/63" {
				s.deny("writes an endless stream (%s, read through <(…)) to %s: it fills the disk", s.argEndless, printable(target))
				return
			}
			if fd, ok := fdPath(a); ok && fds[fd] != "" {
				s.deny("writes an endless stream (%s, read as %s) to %s: it fills the disk", fds[fd], a, printable(target))
				return
			}
		}
		return
	}
	if what, endless := s.bodyEndless(st, in); endless {
		s.deny("writes an endless stream (%s) to %s: it fills the disk", what, printable(target))
	}
}

// fdPath says whether a path names one of the process's own descriptors
// 0-9 (/dev/fd/N, /proc/self/fd/N, /dev/stdin), and which.
func fdPath(p string) (int, bool) {
	if p == "/dev/stdin" {
		return 0, true
	}
	for _, pre := range [...]string{"/dev/fd/", "/proc/self/fd/", "/proc/thread-self/fd/"} {
		if rest, ok := strings.CutPrefix(p, pre); ok && len(rest) == 1 && rest[0] >= '0' && rest[0] <= '9' {
			return int(rest[0] - '0'), true
		}
	}
	return 0, false
}

// compoundEndless says whether some command inside a compound command
// prints an endless stream (to its output, or to a pipe inside it).
func (s *shellAnalyzer) compoundEndless(cmd syntax.Command, in stdinSrc) (string, bool) {
	if cmd == nil {
		return "", false
	}
	if _, ok := cmd.(*syntax.CallExpr); ok {
		return "", false
	}
	what, endless := "", false
	walkSyntax(cmd, func(n syntax.Node) bool {
		st, ok := n.(*syntax.Stmt)
		if !ok || endless {
			return !endless
		}
		what, endless = s.stmtEndless(st, in)
		return !endless
	})
	return what, endless
}

// stmtEndless says whether one statement met by compoundEndless's walk
// prints an endless stream, given what the compound command reads.
func (s *shellAnalyzer) stmtEndless(st *syntax.Stmt, in stdinSrc) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) == 0 {
		return "", false
	}
	argv, _ := s.quietArgv(call)
	if len(argv) == 0 {
		return "", false
	}
	inner := stdinOf(st, in)
	if what, endless := unboundedOutput(argv, inner); endless {
		return what, true
	}
	return fdArgEndless(argv, inner.fds)
}

// bodyEndless is compoundEndless of a statement's command: a function's
// body at each call of the function (in $(f), f | …, f > file), a
// compound command captured, piped or redirected, each time the analysis
// meets it (a loop's rounds, a body analysed where declared and at each
// call). Its statements are judged against the shell's state there, but
// a statement whose words are all literal has the same answer every
// time: given a bounded input, the statements that can answer yes are
// listed once per statement judged (endlessPlanOf), and each time
// evaluates only those, in the order compoundEndless meets them — the
// same answer, without walking the body again nor evaluating what
// cannot change it.
func (s *shellAnalyzer) bodyEndless(body *syntax.Stmt, in stdinSrc) (string, bool) {
	if s.walkBodies || in.unbounded || in.fds != nil && *in.fds != ([10]string{}) {
		return s.compoundEndless(body.Cmd, in)
	}
	for _, st := range s.endlessPlanOf(body) {
		if what, endless := s.stmtEndless(st, in); endless {
			return what, true
		}
	}
	return "", false
}

// endlessPlanOf lists the statements inside a statement's command that
// compoundEndless must judge each time when they read a bounded input:
// those with a word known only from the shell's state (a variable, a
// parameter, a substitution…), and those whose literal words or
// redirections print an endless stream already. The others, all literal
// words and no endless device opened, answer no every time, whatever the
// state, and touch none of it. The list is read from the syntax alone,
// at the first time, and kept by the statement's node: a function
// declared again has another body, and another list.
func (s *shellAnalyzer) endlessPlanOf(body *syntax.Stmt) []*syntax.Stmt {
	if plan, ok := s.endlessPlans.get(body); ok {
		return plan
	}
	var plan []*syntax.Stmt
	if _, simple := body.Cmd.(*syntax.CallExpr); body.Cmd != nil && !simple {
		walkSyntax(body.Cmd, func(n syntax.Node) bool {
			st, ok := n.(*syntax.Stmt)
			if !ok {
				return true
			}
			call, ok := st.Cmd.(*syntax.CallExpr)
			if !ok || len(call.Args) == 0 {
				return true
			}
			if literalWords(call.Args) {
				// Its words evaluate the same in any state: judged
				// here, once, with a bounded input, as every time with
				// one would judge it.
				if _, endless := s.stmtEndless(st, stdinSrc{}); !endless {
					return true
				}
			}
			plan = append(plan, st)
			return true
		})
	}
	s.endlessPlans.put(body, plan)
	return plan
}

// literalWords says whether words hold only literal text, bare or quoted,
// whose value evalWord reads from the syntax alone.
func literalWords(words []*syntax.Word) bool {
	for _, w := range words {
		for _, p := range w.Parts {
			switch x := p.(type) {
			case *syntax.Lit, *syntax.SglQuoted:
			case *syntax.DblQuoted:
				for _, q := range x.Parts {
					if _, ok := q.(*syntax.Lit); !ok {
						return false
					}
				}
			default:
				return false
			}
		}
	}
	return true
}

// pathOp is what a command does to a path.
type pathOp int

const (
	opRead pathOp = iota
	opExec
	opWrite
	opDelete
)

// touch judges one path a command uses. A path with look-alike,
// invisible or control characters is refused; a glob is judged for every
// file it matches now, as well as for its own spelling.
func (s *shellAnalyzer) touch(raw string, op pathOp, verb string) {
	if raw == "" || s.quiet {
		return
	}
	if why, bad := suspiciousText(strings.ReplaceAll(raw, dynMarker, "")); bad {
		s.deny("%s a path that %s", verb, why)
		return
	}
	if op >= opWrite && hasGlob(raw) && !strings.Contains(raw, dynMarker) {
		for _, p := range s.expandGlob(raw)[1:] {
			s.touch1(p, op, verb)
		}
	}
	s.touch1(raw, op, verb)
}

// touch1 judges one path as written.
func (s *shellAnalyzer) touch1(raw string, op pathOp, verb string) {
	if op >= opWrite {
		s.wrote = true
	}
	if strings.Contains(raw, dynMarker) {
		if op >= opWrite {
			s.deny("%s a path known only when it runs (%s); cannot prove it stays inside the roots", verb, printable(raw))
		} else {
			s.ask("%s a path known only when it runs", verb)
		}
		return
	}
	// The endless devices by another spelling: /dev//zero, a glob,
	// /proc/self/root/dev/zero, a symlink in the roots (below, where it is
	// located). The spelling is what the endless-stream checks read, so
	// another one is taken for hiding it.
	if op == opRead && strings.HasPrefix(raw, "/") && !endlessDevices[raw] {
		if dev, ok := endlessSpelling(raw); ok {
			s.deny("%s %s, the endless device %s by another name: what reads it never ends", verb, printable(raw), dev)
			return
		}
	}
	if strings.HasPrefix(raw, "/dev/") {
		switch {
		case raw == "/dev/null" || raw == "/dev/stdout" || raw == "/dev/stderr" || raw == "/dev/tty":
			// Where a command's output goes anyway.
		case op >= opWrite && rawDisk(raw):
			s.deny("%s the raw device %s (destroys a disk)", verb, raw)
		case op >= opWrite:
			s.deny("%s the device %s", verb, raw)
		case strings.HasPrefix(raw, "/dev/fd/") && op == opExec:
			s.deny("runs the output of a process substitution as a script; cannot check what it runs")
		case strings.HasPrefix(raw, "/dev/fd/") || raw == "/dev/stdin" || raw == "/dev/null" || raw == "/dev/zero" || raw == "/dev/urandom" || raw == "/dev/random":
		default:
			s.ask("%s %s, outside the roots", verb, raw)
		}
		return
	}
	l := s.env.locateFrom(raw, s.cwd)
	if op >= opWrite {
		s.markChanged(l.abs)
	}
	switch l.class {
	case pathCredential:
		s.deny("%s %s: %s", verb, raw, l.why)
	case pathDynamic:
		if op >= opWrite {
			s.deny("%s %s, a path known only when it runs", verb, raw)
		} else {
			s.ask("%s %s, a path known only when it runs", verb, raw)
		}
	case pathOutside:
		dev, endless := "", false
		if op == opRead {
			dev, endless = endlessDevice(l.abs)
		}
		switch {
		case op >= opWrite:
			s.deny("%s %s, outside the roots", verb, raw)
		case op == opExec:
			s.ask("runs %s, outside the roots", raw)
		case endless:
			s.deny("%s %s, the endless device %s by another name: what reads it never ends", verb, printable(raw), dev)
		default:
			s.ask("%s %s, outside the roots", verb, raw)
		}
	case pathProtected:
		if op >= opWrite {
			s.deny("%s %s: %s", verb, raw, l.why)
		}
	case pathInside:
		if op == opDelete && l.rel == "." {
			s.deny("%s a whole root (%s)", verb, raw)
		}
		if op >= opWrite {
			s.addText(logWrite, l.abs)
		}
	}
}

// endlessSpelling says whether an absolute path read names an endless
// device though not spelt as one: cleaned, or matched as a glob. (Where
// its symlinks lead is judged where touch1 locates it.)
func endlessSpelling(raw string) (string, bool) {
	if dev, ok := endlessDevice(raw); ok {
		return dev, true
	}
	if hasGlob(raw) {
		for d := range endlessDevices {
			if ok, _ := path.Match(path.Clean(raw), d); ok {
				return d, true
			}
		}
	}
	return "", false
}

func rawDisk(p string) bool {
	b := strings.TrimPrefix(p, "/dev/")
	for _, pre := range []string{"sd", "hd", "vd", "xvd", "nvme", "mmcblk", "disk", "md", "dm-", "loop", "mapper/", "root"} {
		if strings.HasPrefix(b, pre) {
			return true
		}
	}
	return false
}

// locateFrom locates a path relative to an absolute directory.
func (e *Env) locateFrom(raw, dir string) loc {
	if !strings.HasPrefix(raw, "/") && !strings.HasPrefix(raw, "~") && !strings.HasPrefix(raw, "$") {
		if hasDotDot(raw) {
			raw = dir + "/" + raw // not cleaned: locate reads ".." as the kernel does
		} else {
			raw = filepath.Join(dir, raw)
		}
	}
	return e.locate(raw, ".")
}

func printable(s string) string { return strings.ReplaceAll(s, dynMarker, "$?") }

// hiddenChars finds characters that make a command read differently from
// how it runs: control characters other than tab and newline, invisible
// format characters (zero-width, joiners, BOM, bidi overrides) and
// fullwidth forms of ASCII.
func hiddenChars(s string) (bool, string) {
	// ASCII first: only its control characters can hide anything, and
	// most commands are ASCII through and through.
	if plainASCII(s) {
		return false, ""
	}
	for _, r := range s {
		switch {
		case r == '\t' || r == '\n':
		case r < 0x20 || r >= 0x7f && r <= 0x9f:
			return true, fmt.Sprintf("control character %U", r)
		case unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029:
			return true, fmt.Sprintf("invisible character %U", r)
		case r >= 0xFF01 && r <= 0xFF5E:
			return true, fmt.Sprintf("fullwidth character %U", r)
		}
	}
	return false, ""
}

// plainASCII says whether s is ASCII without control characters other
// than tab and newline. It reads eight bytes at a time: a word none of
// whose bytes is 0x80 or more, under 0x20 or 0x7f is passed at once; any
// other word is read byte by byte.
func plainASCII(s string) bool {
	const ones, highs = 0x0101010101010101, 0x8080808080808080
	i := 0
	for ; i+8 <= len(s); i += 8 {
		x := binary.LittleEndian.Uint64([]byte(s[i : i+8]))
		// A byte of x is 0x80 or more, under 0x20, or 0x7f (x+1 then
		// has its high bit: 0x7f+1 = 0x80, the high bits added per byte
		// without carries because x has none set).
		if x&highs == 0 && (x-0x20*ones)&^x&highs == 0 && (x+ones)&highs == 0 {
			continue
		}
		for _, c := range []byte(s[i : i+8]) {
			if c >= utf8.RuneSelf || c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
				return false
			}
		}
	}
	for _, c := range []byte(s[i:]) {
		if c >= utf8.RuneSelf || c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return false
		}
	}
	return true
}

// stripHidden is the visible reading of a command: invisible characters
// removed, fullwidth ASCII folded, carriage returns as line breaks.
func stripHidden(s string) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '\r':
			b.WriteByte('\n')
		case r == '\t' || r == '\n':
			b.WriteRune(r)
		case r < 0x20 || r >= 0x7f && r <= 0x9f || unicode.Is(unicode.Cf, r):
		case r >= 0xFF01 && r <= 0xFF5E:
			b.WriteRune(r - 0xFF01 + 0x21)
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}
