package gates

import (
	"path/filepath"
	"slices"

	"mvdan.cc/sh/v3/syntax"
)

// Where a variable setting holds. The analysis follows a command in the
// order it is written, but bash does not run every part of it, nor keep
// every setting: a subshell's or a pipeline stage's settings end with it,
// a function's locals end with the call, a branch runs or not, a loop runs
// its body any number of times. A value the analysis cannot be sure of is
// made unknown (known only when it runs), which the vectors judge as the
// worst it could be: `x=/; (x=out/ok); rm -rf "$x"` removes /.
//
// The working directory is scoped the same way, by the same code: a
// change of it is a setting of the name cwdName on the trail, so that
// `(cd out); rm -rf ../x` is judged from where bash runs it.

// cwdName is the trail's name for the working directory. No shell
// variable can have it (it holds a NUL).
const cwdName = "\x00cwd"

// unknownCwd spells a working directory known only when the command runs.
// It lies below no root, so a relative path from it is judged outside the
// roots: a delete or write there is denied, a read is asked.
const unknownCwd = "/nonexistent-dynamic-cwd"

// setCwd changes the working directory as cd does, to the canonical
// directory dir ("" or unknownCwd: known only when it runs), on the trail
// like any setting, and with it $OLDPWD and $PWD, which cd sets to the
// logical path (through symlinks as written; "" when not known).
func (s *shellAnalyzer) setCwd(dir, logical string) {
	old := s.current("PWD")
	if dir == "" || dir == unknownCwd {
		s.setVar(cwdName, varVal{})
		logical = ""
	} else {
		s.setVar(cwdName, varVal{val: dir, ok: true})
	}
	s.setVar("OLDPWD", old)
	s.setVar("PWD", varVal{val: logical, ok: logical != ""})
}

// markChanged notes a path the command writes, deletes or moves onto
// (the disk's changes are not scoped: they last). It shares the memo's
// logged map of downloaded files, under a key no download has (a NUL).
func (s *shellAnalyzer) markChanged(abs string) {
	if abs != "" {
		s.addDownload("\x00changed" + abs)
	}
}

// changedAbove says whether the command may have written, deleted or
// replaced abs or a folder above it before this point: then what is
// there now (a folder, where a symlink leads) says nothing of what a cd
// into it enters (rm -rf notes; mv etc-link notes; cd notes).
func (s *shellAnalyzer) changedAbove(abs string) bool {
	for p := abs; ; p = filepath.Dir(p) {
		if s.downloadedAbs("\x00changed" + p) {
			return true
		}
		if p == "/" || p == "." {
			return false
		}
	}
}

// varChange is one setting of a variable (or positional parameter) and
// its value before, or, when fn is set, one declaration (or removal) of a
// function and its definition before: functions hold where variables hold.
type varChange struct {
	name   string
	old    varVal
	fn     bool
	oldDef funcDef
}

// current is a variable's value as lookup finds it, without logging the
// read.
func (s *shellAnalyzer) current(name string) varVal {
	if i, ok := positional(name); ok {
		return s.pos[i]
	}
	if name == cwdName {
		if s.cwd == unknownCwd {
			return varVal{}
		}
		return varVal{val: s.cwd, ok: true}
	}
	if v, ok := s.vars.get(name); ok {
		return v
	}
	if k, known := lookupKnown(s.known, name); known {
		return varVal{val: k, ok: true}
	}
	return s.neverSet()
}

// neverSet is the value of a variable the command has not set: empty when
// it runs (the action's environment is the one cleanEnv builds), unless a
// command that may set any variable ran (anySet).
func (s *shellAnalyzer) neverSet() varVal {
	return varVal{num: !s.anySet}
}

// declareLocal notes a variable local to the function body being
// analysed, with its value before, for the call's end (inline). Logged:
// a replayed body declares its locals too.
func (s *shellAnalyzer) declareLocal(name string) {
	s.logEffect(shellEffect{kind: logLocal, text: name})
	s.locals = append(s.locals, varChange{name: name, old: s.current(name)})
	s.localsTop = max(s.localsTop, len(s.locals))
}

// pushTrail adds a setting to the trail.
func (s *shellAnalyzer) pushTrail(c varChange) {
	s.trail = append(s.trail, c)
	s.trailTop = max(s.trailTop, len(s.trail))
}

// undoVars gives every variable set since mark its value from before.
func (s *shellAnalyzer) undoVars(mark int) {
	for i := len(s.trail) - 1; i >= mark; i-- {
		c := s.trail[i]
		switch {
		case c.fn:
			if s.funcs[c.name] != c.oldDef {
				s.declare(c.name, c.oldDef) // through declare: the memo logs it
			}
		default:
			if cur := s.current(c.name); cur != c.old {
				// Through setVar: the memo logs it. Not on the trail,
				// which is cut at mark below.
				s.setVarFrom(c.name, c.old, &cur, false)
			}
		}
	}
	// Every value is the one at mark again: for the constructs around,
	// nothing was set.
	s.trail = s.trail[:mark]
}

// changedSince lists the variables set and functions declared since mark
// whose value or definition now is not the one they had then, each once
// (with that value).
func (s *shellAnalyzer) changedSince(mark int) []varChange {
	span := s.trail[mark:]
	var out []varChange
	type key struct {
		name string
		fn   bool
	}
	var seen map[key]bool
	if len(span) > 16 {
		seen = make(map[key]bool, len(span))
	}
	for i, c := range span {
		if seen != nil {
			if seen[key{c.name, c.fn}] {
				continue
			}
			seen[key{c.name, c.fn}] = true
		} else if slices.ContainsFunc(span[:i], func(x varChange) bool { return x.name == c.name && x.fn == c.fn }) {
			continue
		}
		if c.fn && s.funcs[c.name] != c.oldDef || !c.fn && s.current(c.name) != c.old {
			out = append(out, c)
		}
	}
	return out
}

// branches gathers what the alternatives of one construct set: the
// variables, and for each function declared the definitions the
// alternatives ended with.
type branches struct {
	changed []string
	nonNum  []string // of changed, those some alternative left other than a number
	// numOnly are those of changed whose value stayed unknown, only
	// whether it is a number changed: that matters to arithmetic alone.
	numOnly []string
	funcs   []funcAlternatives
}

type funcAlternatives struct {
	name string
	defs []funcDef
}

// branch judges one alternative from the state before it, notes what it
// changed, and restores that state.
func (s *shellAnalyzer) branch(b *branches, judge func()) {
	mark := len(s.trail)
	judge()
	for _, c := range s.changedSince(mark) {
		if c.fn {
			b.addFunc(c.name, s.funcs[c.name])
			continue
		}
		b.changed = append(b.changed, c.name)
		end := s.current(c.name)
		if !isNumber(end) {
			b.nonNum = append(b.nonNum, c.name)
		}
		if !end.ok && !c.old.ok && end.val == c.old.val {
			b.numOnly = append(b.numOnly, c.name)
		}
	}
	s.undoVars(mark)
}

func (b *branches) addFunc(name string, def funcDef) {
	for i := range b.funcs {
		if b.funcs[i].name == name {
			b.funcs[i].defs = append(b.funcs[i].defs, def)
			return
		}
	}
	b.funcs = append(b.funcs, funcAlternatives{name: name, defs: []funcDef{def}})
}

// branchesEnd makes unknown what any alternative changed: whether it ran
// is known only when the command runs. A function an alternative declared
// or removed may or may not be there after (see mergeDefs).
func (s *shellAnalyzer) branchesEnd(b *branches) {
	for _, name := range b.changed {
		// A number in every alternative (and before) is a number after.
		cur := s.current(name)
		v := varVal{num: isNumber(cur) && !slices.Contains(b.nonNum, name)}
		if cur != v {
			s.setVarFrom(name, v, &cur, true)
		}
	}
	for _, f := range b.funcs {
		before := s.funcs[f.name]
		if def := mergeDefs(before, f.defs); def != before {
			s.declare(f.name, def)
		}
	}
}

// isNumber says whether a value is a number (or empty) when it runs.
func isNumber(v varVal) bool { return v.num || v.ok && numeric(v.val) }

// mergeDefs is what a function is after a construct whose alternatives
// left it as defs, or as before: one body, when only one is possible (a
// call runs it, or the program of that name too when some alternative had
// no function); unknown when two differ (a call of it is refused).
func mergeDefs(before funcDef, defs []funcDef) funcDef {
	var out funcDef
	absent := false
	for _, d := range append(defs, before) {
		switch {
		case d.unknown:
			return funcDef{unknown: true}
		case d.body == nil:
			absent = true
		case out.body == nil:
			out = d
		case out.body != d.body || out.src != d.src:
			return funcDef{unknown: true}
		}
		absent = absent || d.alsoProgram
	}
	if out.body != nil {
		out.alsoProgram = absent
	}
	return out
}

// ifClause judges an if: each clause from the state before it, after
// the conditions before it ran and failed (what they set is known only
// when it runs: a condition may fail part way, a failed cd stays where
// it was); after it, what any clause set is known only when it runs.
func (s *shellAnalyzer) ifClause(c *syntax.IfClause) {
	var b branches
	var failed []varChange // what the conditions before may have set
	for ic := c; ic != nil; ic = ic.Else {
		s.branch(&b, func() {
			s.forgetChanges(failed)
			mark := len(s.trail)
			for _, st := range ic.Cond {
				s.stmtThen(st, stdinSrc{})
			}
			failed = append(failed, s.changedSince(mark)...)
			s.stmts(ic.Then, stdinNone)
		})
	}
	s.branchesEnd(&b)
}

// andOr judges a && or || list. In a && b && c each command runs only
// when all before it succeeded: from the state they leave. In a || b, b
// runs only when a failed, maybe part way: from a state where what a set
// is known only when it runs. What a right side sets is known only when
// it runs, but after `a || exit` the shell goes on only when a succeeded.
func (s *shellAnalyzer) andOr(c *syntax.BinaryCmd, in stdinSrc) {
	var b branches
	if c.Op == syntax.AndStmt {
		chain := andChain(c, nil)
		s.stmtThen(chain[0], in)
		s.branch(&b, func() {
			for _, st := range chain[1:] {
				// The descriptors an exec opened stay, and literal text
				// the first did not read (textflow.go).
				s.stmtThen(st, stdinSrc{fds: in.fds, flow: in.flow})
			}
		})
		s.branchesEnd(&b)
		return
	}
	mark := len(s.trail)
	s.stmt(c.X, in)
	failed := s.changedSince(mark)
	s.branch(&b, func() {
		s.forgetChanges(failed)
		s.stmt(c.Y, stdinSrc{fds: in.fds, flow: in.flow})
	})
	if !s.exits(c.Y) {
		s.branchesEnd(&b)
	}
}

// stmtThen judges a statement the analysis goes on from as if it
// succeeded (a condition, a link of a && list). A negated one (! cmd)
// succeeds when its command fails, maybe part way: what it set is known
// only when it runs (! cd d && rm -rf ../x runs rm where cd failed).
func (s *shellAnalyzer) stmtThen(st *syntax.Stmt, in stdinSrc) {
	mark := len(s.trail)
	s.stmt(st, in)
	if st.Negated {
		s.forgetChanges(s.changedSince(mark))
	}
}

// forgetChanges makes unknown the variables of changes that may not have
// happened (a failed command's). A function declaration does not fail:
// it holds.
func (s *shellAnalyzer) forgetChanges(changes []varChange) {
	for _, c := range changes {
		if !c.fn {
			s.setVar(c.name, varVal{})
		}
	}
}

// andChain lists the commands of a && b && c in order.
func andChain(c *syntax.BinaryCmd, out []*syntax.Stmt) []*syntax.Stmt {
	if x, ok := c.X.Cmd.(*syntax.BinaryCmd); ok && x.Op == syntax.AndStmt && plainStmt(c.X) {
		out = andChain(x, out)
	} else {
		out = append(out, c.X)
	}
	return append(out, c.Y)
}

// plainStmt says whether a statement is its command alone: not negated,
// not in the background, not redirected.
func plainStmt(st *syntax.Stmt) bool {
	return !st.Negated && !st.Background && !st.Coprocess && len(st.Redirs) == 0
}

// exits says whether a statement always ends the shell: exit (the
// builtin, not a function of that name), or a { …; } block ending so.
func (s *shellAnalyzer) exits(st *syntax.Stmt) bool {
	if st == nil || st.Background || st.Coprocess {
		return false
	}
	switch c := st.Cmd.(type) {
	case *syntax.CallExpr:
		return len(c.Args) > 0 && c.Args[0].Lit() == "exit" && s.funcOf("exit").body == nil
	case *syntax.Block:
		return len(c.Stmts) > 0 && s.exits(c.Stmts[len(c.Stmts)-1])
	}
	return false
}

// loop judges a loop's body (and condition), which may run any number of
// times: once from the state before it; when that changed variables and
// read any of them, again with them unknown (a later round sees an
// earlier one's values); they stay unknown after it. A round that read
// none of them judges the same with them unknown: the analysis sees the
// state only through what it reads.
func (s *shellAnalyzer) loop(judge func()) {
	// Loops in loops are judged 2^depth times: past a bound, refused
	// (unjudged: the refusal is the verdict), not followed for minutes.
	s.loopRounds++
	if s.loopRounds > maxLoopRounds {
		if s.loopRounds == maxLoopRounds+1 {
			s.deny("loops nested too deeply to judge every round (more than %d rounds); failing closed", maxLoopRounds)
		}
		return
	}
	var b branches
	reads, arithReads := len(s.loopReads), len(s.loopArithReads)
	s.loops++
	s.branch(&b, judge)
	s.loops--
	again := false
	for _, name := range b.changed {
		// Every relative path reads the working directory: a round that
		// moves it is judged again from where it may leave it.
		read := slices.Contains(s.loopReads[reads:], name)
		if read && slices.Contains(b.numOnly, name) {
			// Still unknown, and no longer a number: only arithmetic
			// that read it judges differently.
			read = slices.Contains(s.loopArithReads[arithReads:], name)
		}
		if name == cwdName || read {
			again = true
			break
		}
	}
	if s.loops == 0 {
		s.loopReads, s.loopArithReads = s.loopReads[:0], s.loopArithReads[:0]
	}
	s.branchesEnd(&b)
	if again {
		s.branch(&b, judge)
		s.branchesEnd(&b)
	}
}

// maxLoopRounds bounds the loop bodies judged in one command: eight
// loops deep, each changing what the next round reads.
const maxLoopRounds = 256

// breaks says whether a loop body may leave the loop early.
func breaks(body []*syntax.Stmt) bool {
	found := false
	for _, st := range body {
		walkSyntax(st, func(n syntax.Node) bool {
			if c, ok := n.(*syntax.CallExpr); ok && len(c.Args) > 0 {
				if v := c.Args[0].Lit(); v == "break" || v == "return" || v == "exit" {
					found = true
				}
			}
			return !found
		})
	}
	return found
}
