package gates

import (
	"slices"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// callArgs is what "$@" holds in the function body being analysed: a
// body whose command word is "$@" runs its call's arguments as a command,
// as a wrapper does (f(){ "$@"; }; f rm -rf ~ runs rm).
type callArgs struct {
	state argsState
	list  []string // argsListed: the call's arguments
}

type argsState uint8

const (
	argsUnknown    argsState = iota // outside a call, or changed in it (shift, set --)
	argsAtEachCall                  // where the function is declared: judged at each call
	argsListed                      // in an inlined call whose arguments are all known
)

// allArgs says whether a word is "$@" (or "${@}") alone.
func allArgs(w *syntax.Word) bool {
	if len(w.Parts) != 1 {
		return false
	}
	q, ok := w.Parts[0].(*syntax.DblQuoted)
	if !ok || len(q.Parts) != 1 {
		return false
	}
	x, ok := q.Parts[0].(*syntax.ParamExp)
	return ok && x.Param != nil && x.Param.Value == "@" && !x.Excl && !x.Length && !x.Width &&
		x.Index == nil && x.Slice == nil && x.Repl == nil && x.Exp == nil
}

// call analyses one simple command.
func (s *shellAnalyzer) call(c *syntax.CallExpr, st *syntax.Stmt, in stdinSrc) {
	// Its own words' process substitutions: the command around it keeps
	// its own.
	outer := s.argEndless
	s.argEndless = ""
	s.callWords(c, st, in)
	s.argEndless = outer
}

func (s *shellAnalyzer) callWords(c *syntax.CallExpr, st *syntax.Stmt, in stdinSrc) {
	words := c.Args
	var head []string // the call's arguments "$@" puts first
	if len(words) > 0 && s.args.state != argsUnknown && allArgs(words[0]) {
		// The analysis depends on the call's arguments, which the memo
		// of function bodies does not key on: not recorded.
		s.spoil()
		if s.args.state == argsAtEachCall {
			// Where the function is declared, what it runs is judged at
			// each call, as that call's arguments: here only what the
			// command itself does (its other words' substitutions, its
			// redirections).
			for _, as := range c.Assigns {
				if as.Value != nil {
					s.evalWord(as.Value)
				}
			}
			for _, w := range words[1:] {
				s.evalWord(w)
			}
			s.redirects(st, nil, in)
			return
		}
		head, words = s.args.list, words[1:]
	}
	if len(words) == 0 && len(head) == 0 {
		// No command: its assignments are the shell's own (f(){ x=1 "$@"; }; f).
		for _, as := range c.Assigns {
			s.assign(as, false)
		}
		s.redirects(st, nil, stdinSrc{})
		return
	}
	for _, as := range c.Assigns {
		var v word
		if as.Value != nil {
			v = s.evalWord(as.Value)
		}
		if as.Name != nil {
			s.exportVar(as.Name.Value, v)
		}
	}
	argv := make([]string, 0, len(head)+len(words))
	argv = append(argv, head...)
	// exact: argv[i] is c.Args[i]'s value.
	exact := head == nil && len(words) == len(c.Args)
	anyDyn := false
	// dynArgs: which of argv[1:10] are single words known only when they
	// run (a function call asks which of them are numbers); bit 0: some
	// argument may be any number of words.
	var dynArgs uint16
	passArgs := false // the caller's arguments, judged at each of its calls, are handed on whole
	for j, a := range words {
		i := len(head) + j // its place, when nothing before it was split
		if s.args.state == argsListed && allArgs(a) {
			// f(){ g "$@"; }: the call's arguments, each a word.
			s.spoil()
			argv = append(argv, s.args.list...)
			exact = false
			continue
		}
		if s.args.state == argsAtEachCall && j == 1 && len(words) == 2 && head == nil && allArgs(a) {
			// f(){ g "$@"; } where f is declared: g is given f's
			// arguments, judged at each call of f.
			s.spoil()
			passArgs = true
		}
		w := s.evalWord(a)
		anyDyn = anyDyn || w.dyn
		if w.dyn && !w.split && exact && i >= 1 && i <= 9 && len(argv) == i {
			dynArgs |= 1 << i
		}
		if w.dyn && w.split && i >= 1 {
			dynArgs |= 1
		}
		if w.split && !w.dyn && i > 0 {
			argv = append(argv, strings.Fields(w.val)...)
			continue
		}
		if w.split && !w.dyn && i == 0 {
			// A verb built from an expansion ($X, $(echo rm), ${IFS}
			// tricks) runs what it expands to, split into words.
			fs := strings.Fields(w.val)
			if len(fs) == 0 {
				fs = []string{""}
			}
			s.ask("the program name is computed when the command runs")
			argv = append(argv, fs...)
			continue
		}
		argv = append(argv, w.val)
	}
	if len(s.rep.cmds) >= maxShellCommands {
		s.spoil()
		s.deny("more than %d commands in one action; refusing to check it piecemeal", maxShellCommands)
		return
	}
	s.addCmd(shellCmd{argv: argv, dyn: anyDyn})
	s.execFdsOf(argv, st, in)
	s.endlessCopy(argv)
	// The endless checks read a substitution of literal text as what it
	// writes: cat $(echo /dev/zero) > f.
	eargv := argv
	if anyDyn && head == nil && !passArgs {
		eargv = s.literalSubstArgv(c, argv)
	}
	s.redirects(st, eargv, in)
	s.hoardsEndless(eargv, stdinOf(st, in))
	var here *string
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.Hdoc, syntax.DashHdoc:
			if r.Hdoc != nil {
				t := s.peekWord(r.Hdoc).val
				here = &t
			} else {
				t := ""
				here = &t
			}
		case syntax.WordHdoc:
			t := s.peekWord(r.Word).val
			here = &t
		}
	}
	s.editorTextInto(st, c, argv, in, anyDyn)
	s.mentions(argv)
	name := argv[0]
	def := s.funcOf(name)
	if def.unknown {
		s.deny("calls %s, a function declared differently in alternatives: which body runs is known only when it runs", printable(name))
		return
	}
	if def.body != nil && !s.inFuncHas(name) {
		numArgs := dynArgs & 1
		for i := 1; i <= 9 && i < len(c.Args); i++ {
			if dynArgs&(1<<i) != 0 && s.wordIsNum(c.Args[i]) {
				numArgs |= 1 << i
			}
		}
		if s.calls < maxInlineCalls {
			// A function that may not be there (declared in a branch,
			// removed by unset in one) runs or not: its settings are
			// judged as a branch's, and the program of that name too. A
			// special builtin is found before a function in POSIX mode.
			if !def.alsoProgram && !posixSpecialBuiltins[name] {
				s.inline(name, argv[1:], numArgs, passArgs)
				return
			}
			var b branches
			s.branch(&b, func() { s.inline(name, argv[1:], numArgs, passArgs) })
			s.branchesEnd(&b)
		} else {
			s.spoil()
		}
	}
	s.judge(argv, in, here)
	// Whether argv[i] is known only when it runs, as a number: asked only
	// by the builtins that take a variable's name.
	numeric := func(i int) bool {
		return exact && len(argv) == len(c.Args) && strings.Contains(argv[i], dynMarker) && s.unknownIsNum(c.Args[i].Parts)
	}
	s.builtin(argv, numeric) // what it changes holds after it
}

// inline analyses a call of a function declared in the same command with
// its positional parameters bound to the call's arguments.
//
// atEachCall: the arguments are those of the function being declared
// around this call ("$@"), whose own calls judge them.
func (s *shellAnalyzer) inline(name string, args []string, numArgs uint16, atEachCall bool) {
	s.calls++
	saved, savedArgs := s.pos, s.args
	for i := 1; i <= 9; i++ {
		switch {
		case i <= len(args) && !strings.Contains(args[i-1], dynMarker):
			s.bindPositional(i, varVal{val: args[i-1], ok: true})
		case i > len(args):
			// Unset (empty) when no argument may be several words.
			s.bindPositional(i, varVal{num: numArgs&1 == 0})
		default:
			s.bindPositional(i, varVal{num: numArgs&(1<<i) != 0})
		}
	}
	s.args = callArgs{}
	if atEachCall {
		s.args = callArgs{state: argsAtEachCall}
	} else if numArgs&1 == 0 && !slices.ContainsFunc(args, func(a string) bool { return strings.Contains(a, dynMarker) }) {
		s.args = callArgs{state: argsListed, list: args}
	}
	s.enterFunc(name)
	def, src := s.funcOf(name), s.src
	s.src = def.src
	locals, mark := len(s.locals), len(s.trail)
	s.calling++
	s.body(def.body)
	s.calling--
	// The call's positional parameters end with it: a setting of them in
	// it (shift, set --) is not undone by a construct around the call,
	// which would give them a value of the call's.
	s.trail = append(s.trail[:mark], slices.DeleteFunc(s.trail[mark:], func(c varChange) bool {
		_, pos := positional(c.name)
		return pos && !c.fn
	})...)
	// The call's locals end with it: the values before come back.
	for i := len(s.locals) - 1; i >= locals; i-- {
		s.setVar(s.locals[i].name, s.locals[i].old)
	}
	s.locals = s.locals[:locals]
	s.src = src
	delete(s.inFunc, name)
	for i := 1; i <= 9; i++ {
		s.bindPositional(i, saved[i])
	}
	s.args = savedArgs
}

// bindPositional sets $i for an inlined call (or back after it). Unlike
// setVar it leaves nothing on the trail: the call gives every parameter
// its value back at its end, so for the constructs around it nothing
// changed.
//
// What the call's end gives back is the value before it: for the memo of
// function bodies, a read of it (logPrior), or a body that calls a
// function would replay the value its first analysis gave back at every
// later one (g() { f 5; f "$1"; }; g 6; g 'a[$(rm -rf ~)]' judged f 6
// twice).
func (s *shellAnalyzer) bindPositional(i int, v varVal) {
	if s.pos[i] == v {
		return
	}
	if len(s.memo.recs) > 0 {
		s.logEffect(shellEffect{kind: logPrior, text: positionals[i], val: s.pos[i]})
	}
	s.logEffect(shellEffect{kind: logSet, text: positionals[i], val: v})
	s.pos[i] = v
}

// positionals are the names of the positional parameters.
var positionals = [10]string{"0", "1", "2", "3", "4", "5", "6", "7", "8", "9"}

// enterFunc marks a function as being analysed, so that a call of it
// from its own body is not followed again. Its entry is only ever true,
// and deleted when the analysis ends: body counts them by the map's
// length.
func (s *shellAnalyzer) enterFunc(name string) {
	if s.inFunc == nil {
		s.inFunc = map[string]bool{}
	}
	s.inFunc[name] = true
}

// mentions refuses any word that names a credential store, whatever the
// command: a path to ~/.ssh/id_rsa has no business in an agent's command.
func (s *shellAnalyzer) mentions(argv []string) {
	for _, w := range argv[1:] {
		cs := pathCandidates(w)
		for _, cand := range cs.list() {
			if !pathLike(cand) && !strings.HasPrefix(cand, "~") {
				continue
			}
			if strings.Contains(cand, dynMarker) {
				continue
			}
			l := s.env.locateFrom(cand, s.cwd)
			if l.class == pathCredential {
				s.deny("touches %s: %s", cand, l.why)
			}
		}
	}
}

// pathCandidates are the readings of a word that may name a file: the word,
// the value of --opt=value or key=value, a curl @file, a scp host:path.
func pathCandidates(w string) candidates {
	var c candidates
	c.add(w)
	if v, ok := optValue(w); ok {
		c.add(v)
		if strings.HasPrefix(v, "@") || strings.HasPrefix(v, "<") {
			c.add(v[1:])
		}
	}
	if strings.HasPrefix(w, "@") || strings.HasPrefix(w, "<") {
		c.add(w[1:])
	}
	if i := strings.IndexByte(w, ':'); i > 0 && !strings.Contains(w, "://") && i+1 < len(w) {
		c.add(w[i+1:])
	}
	return c
}

// candidates are the (at most five) readings of a word, kept in place
// rather than in a slice: every word of every command has them.
type candidates struct {
	words [5]string
	n     int
}

func (c *candidates) add(w string) { c.words[c.n] = w; c.n++ }

// list returns the readings in order.
func (c *candidates) list() []string { return c.words[:c.n] }

// unwrap removes the programs that only run another one (sudo, env,
// timeout, nice, nohup, stdbuf, command, exec, busybox…), returning the
// inner argv and what wrapped it.
func unwrap(argv []string) ([]string, []string) {
	var wrappers []string
	for len(argv) > 0 && len(wrappers) < 16 {
		next, w, ok := unwrapStep(argv)
		if !ok {
			break
		}
		wrappers = append(wrappers, w)
		argv = next
	}
	return argv, wrappers
}

// unwrapStep removes one wrapper program.
func unwrapStep(argv []string) ([]string, string, bool) {
	v := verbName(argv)
	rest := argv[1:]
	var next []string
	switch v {
	case "sudo", "doas", "pkexec", "run0":
		next = skipOpts(rest, sudoOpts)
	case "env":
		next = skipEnv(rest)
	case "timeout":
		next = skipOpts(rest, timeoutOpts)
		if len(next) > 0 {
			next = next[1:] // the duration
		}
	case "nice", "ionice", "chrt", "taskset":
		next = skipOpts(rest, niceOpts)
		if (v == "chrt" || v == "taskset") && len(next) > 0 {
			next = next[1:]
		}
	case "nohup", "builtin", "setsid", "unbuffer", "caffeinate", "time", "stdbuf", "exec", "command", "busybox", "catchsegv", "strace", "ltrace", "valgrind", "firejail", "proot", "fakeroot", "chroot", "flatpak-spawn":
		if v == "command" && len(rest) > 0 && (rest[0] == "-v" || rest[0] == "-V") {
			return argv, "", false // a lookup, not a run
		}
		next = skipOpts(rest, wrapperOpts)
		if v == "chroot" && len(next) > 0 {
			next = next[1:]
		}
	default:
		return argv, "", false
	}
	return next, v, true
}

// skipOpts drops leading options (and the arguments of those that take
// one) up to the first operand.
func skipOpts(args []string, withArg map[string]bool) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			return args[i+1:]
		}
		if len(a) < 2 || a[0] != '-' {
			return args[i:]
		}
		if strings.HasPrefix(a, "-o") && len(a) > 2 || strings.HasPrefix(a, "-i") && len(a) > 2 || strings.HasPrefix(a, "-e") && len(a) > 2 {
			continue // stdbuf -oL
		}
		if withArg[a] {
			i++
		}
	}
	return nil
}

func skipEnv(args []string) []string {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			return args[i+1:]
		case a == "-u" || a == "-C" || a == "--unset" || a == "--chdir" || a == "-S" || a == "--split-string":
			i++
		case strings.HasPrefix(a, "-"):
		case strings.Contains(a, "="):
		default:
			return args[i:]
		}
	}
	return nil
}

// judge analyses one command by what its program does: by its grammar
// when it has one (grammars.go), by what kind of program it is otherwise.
func (s *shellAnalyzer) judge(argv []string, in stdinSrc, here *string) {
	if len(argv) == 0 {
		return
	}
	verb := verbName(argv)
	raw := argv[0]
	local := false
	switch {
	case strings.Contains(raw, dynMarker) || raw != "[" && strings.ContainsAny(raw, "*?[") || raw == "":
		s.dynamicVerb(argv)
		return
	case strings.Contains(raw, "/") && !systemBinary(raw):
		local = true
		s.touch(raw, opExec, "runs")
		if s.downloaded(raw) {
			s.deny("runs %s, a file this command downloads", raw)
		}
		s.ask("runs the program %s", raw)
	}
	if why, bad := suspiciousName(raw); bad {
		s.deny("the program name %q %s", printable(raw), why)
		return
	}
	if !local {
		g, ok, err := grammarFor(verb)
		if err != nil {
			s.deny("the command grammars do not load (%v); failing closed", err)
			return
		}
		if ok {
			s.grammarCmd(verb, g, argv[1:], in, here)
			return
		}
	}
	args := argv[1:]
	kind := verbKinds[verb]
	named := judgedVerbs[verb]
	if kind&kindDelete == 0 && verb != "mv" && !noFileBuiltins[verb] {
		s.privateWords(verb, args)
	}
	switch {
	case kind&kindShell != 0:
		s.shellVerb(verb, args, in, here)
	case kind&kindInterpreter != 0:
		s.interpreter(verb, args, in, here)
	case kind&kindAwk != 0:
		s.awk(args)
	case named == judgeEval:
		s.evalText(strings.Join(args, " "), "eval")
	case named == judgeSource:
		if len(args) > 0 {
			s.touch(args[0], opExec, "sources")
			if s.downloaded(args[0]) {
				s.deny("sources %s, a file this command downloads", args[0])
			}
		}
		s.ask("sources a script into the shell")
		s.setCwd(unknownCwd, "") // the script may change directory
	case named == judgeAlias:
		for _, a := range args {
			if _, v, ok := strings.Cut(a, "="); ok {
				s.laterText(v, "alias")
			}
		}
		s.ask("defines an alias")
		s.setCwd(unknownCwd, "") // an alias of cd, or of a command, may move it (expand_aliases)
	case named == judgeTrap:
		if len(args) > 0 {
			s.laterText(args[0], "trap")
		}
	case named == judgeSed:
		s.sed(args)
	case kind&kindDelete != 0:
		s.deleteCmd(verb, args)
	case named == judgeCopy:
		s.copyCmd(verb, args)
	case named == judgeDd:
		s.dd(args)
	case named == judgeTee:
		_, files := splitOpts(args, nil)
		for _, f := range files {
			s.touch(f, opWrite, "writes")
			s.wrote = true
			if in.unbounded {
				s.deny("tee writes an endless stream (%s) to %s: it fills the disk", in.what, printable(f))
			}
		}
	case named == judgeTar:
		s.tar(args)
	case named == judgeSized:
		s.sizedWrite(verb, args)
	case kind&kindWrite != 0:
		_, files := splitOpts(args, writeVerbOpts)
		for _, f := range files {
			if verb == "chmod" || verb == "chown" || verb == "chgrp" {
				if !pathLike(f) && !strings.Contains(f, ".") {
					continue // the mode or owner operand
				}
			}
			s.touch(f, opWrite, "changes")
			s.wrote = true
		}
	case kind&kindDisk != 0:
		s.deny("%s formats, partitions or wipes a disk", verb)
	case kind&kindSystem != 0:
		s.deny("%s stops the machine or changes accounts or the system", verb)
	case named == judgeServices:
		if len(args) > 0 && strings.Contains(" poweroff reboot halt kexec emergency rescue 0 6 isolate ", " "+args[0]+" ") {
			s.deny("%s %s stops the machine", verb, args[0])
		}
		s.ask("manages system services")
	case named == judgeKill:
		s.kill(verb, args)
	case named == judgeCrontab:
		if hasShortFlag(args, 'r', "") {
			s.deny("crontab -r removes every scheduled job of the user")
		} else if !hasShortFlag(args, 'l', "") {
			s.deny("installs scheduled jobs (crontab): commands that run later, unchecked")
		}
	case named == judgeAt:
		s.deny("schedules commands to run later, unchecked (%s)", verb)
	case kind&kindNetwork != 0 || named == judgeOpenssl && indexOf(args, "s_client") >= 0:
		s.network(verb, args)
	case kind&kindReadOnly != 0:
		s.readOnly(verb, args)
	case named == judgeYes:
		s.ask("yes prints forever")
	default:
		// Unknown programs: the permissions gate asks; here only the
		// paths they are given are judged, as reads.
		for _, a := range args {
			cs := pathCandidates(a)
			for _, c := range cs.list() {
				if pathLike(c) {
					s.touch(c, opRead, verb+" uses")
					break
				}
			}
		}
		s.unknownWrapper(args)
	}
}

// maxUnknownStarts bounds the readings of an unknown program's words as
// the command it may run.
const maxUnknownStarts = 8

// unknownWrapper judges what a program without a table may run: it may be
// a wrapper (setarch, prlimit, faketime, numactl, chpst…) whose options
// are not known, so every word that names a program known here starts a
// command it may run, and the word after -c or --command is shell text it
// may run (sg GROUP -c CMD); a reading that is refused refuses the whole,
// as for a wrapper whose options its table does not know.
func (s *shellAnalyzer) unknownWrapper(args []string) {
	starts := 0
	for i, a := range args {
		if starts >= maxUnknownStarts || s.quiet {
			return
		}
		switch {
		case (a == "-c" || a == "--command") && i+1 < len(args):
			starts++
			s.denyingText(args[i+1])
		case a != "" && a[0] != '-' && knownProgram(a):
			starts++
			s.denyingReading(args[i:])
		}
	}
}

// knownProgram says whether a word names a program the analysis knows
// what it does with its words: one with a grammar, a kind, or a case of
// judge's own (judgedVerbs) — dd, tee, crontab… run by a wrapper it does
// not know are read as the command they start.
func knownProgram(w string) bool {
	v := verbName([]string{w})
	if _, ok, _ := grammarFor(v); ok {
		return true
	}
	return verbKinds[v] != 0 || judgedVerbs[v] != judgeNone
}

// denyingText is denyingReading of shell text: what refuses its reading
// refuses the whole; text that does not parse is no command.
func (s *shellAnalyzer) denyingText(text string) {
	if _, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(text), ""); err != nil {
		return
	}
	s.denyingReading([]string{"sh", "-c", text})
}

// mayExist says whether a word may name an existing file under the roots
// (see Env.mayName).
func (s *shellAnalyzer) mayExist(w string) bool { return s.env.mayName(w, s.cwd) }

// noFileBuiltins are bash builtins that open no file named by their
// words.
var noFileBuiltins = map[string]bool{
	"return": true, "exit": true, "break": true, "continue": true, "shift": true, "local": true, "export": true,
	"declare": true, "typeset": true, "readonly": true, "unset": true, "set": true, "let": true, "wait": true,
	"read": true, "getopts": true, "hash": true, "type": true, "ulimit": true, "umask": true, "jobs": true,
	"disown": true, "shopt": true, "caller": true, "dirs": true, "popd": true, "pushd": true, "times": true,
}

// privateWords refuses a command without a grammar that names a private
// note anywhere among its words (an operand, an option's value): what it
// does with the file cannot be told, and reading it is what it most likely
// does.
func (s *shellAnalyzer) privateWords(verb string, args []string) {
	if s.quiet {
		return
	}
	for _, a := range args {
		cs := pathCandidates(a)
		if len(a) > 2 && a[0] == '-' && a[1] != '-' {
			cs.add(a[2:]) // -fFILE
		}
		for _, c := range cs.list() {
			if c == "" || strings.Contains(c, dynMarker) || strings.Contains(c, "://") {
				continue
			}
			if s.cwd == unknownCwd && relativeWord(c) {
				// From a folder known only when it runs: any folder.
				if rel, st := s.privateAnywhere(c); st == anywherePrivate {
					s.privateRead("%s is given %s from a folder known only when it runs: it may be %s, a private note", verb, printable(c), rel)
				}
				continue
			}
			if !s.mayExist(c) {
				continue
			}
			for _, p := range s.expandGlob(c) {
				l := s.env.locateFrom(p, s.cwd)
				if l.abs == "" || l.class != pathInside && l.class != pathProtected {
					continue
				}
				if l.class == pathProtected && l.root == 0 && isPlanOrJournal(l.rel) {
					s.addText(logReadProtected, l.rel)
				}
				if l.class == pathProtected && unknownProgram(verb) {
					// ed, sqlite3, sponge, nano, gawk -i inplace: what it
					// does with the file cannot be told, and a protected
					// place is changed only by a human.
					s.deny("%s is given %s, which %s; pp-lsp does not know whether %s changes it", verb, printable(p), strings.TrimPrefix(l.why, l.rel+" "), verb)
				}
				if st := s.env.filePrivacy(l.abs); st.private {
					s.privateRead("%s is given %s, a private note (%s)", verb, printable(p), st.why)
				}
			}
		}
	}
}

// unknownProgram says whether pp-lsp knows nothing of what a program
// does with its words: not a builtin, and not knownProgram.
func unknownProgram(verb string) bool {
	if _, ok := bashBuiltins[verb]; ok {
		return false
	}
	return !knownProgram(verb)
}

// judgeCase is which of judge's own cases reads a program.
type judgeCase uint8

const (
	judgeNone judgeCase = iota
	judgeEval
	judgeSource
	judgeAlias
	judgeTrap
	judgeSed
	judgeCopy
	judgeDd
	judgeTee
	judgeTar
	judgeSized
	judgeServices
	judgeKill
	judgeCrontab
	judgeAt
	judgeOpenssl
	judgeYes
)

// judgedVerbs are the programs judge has a case of its own for, and
// which: the one list of their names (judge's switch reads it).
var judgedVerbs = map[string]judgeCase{
	"eval": judgeEval, "source": judgeSource, ".": judgeSource, "alias": judgeAlias, "trap": judgeTrap,
	"sed": judgeSed, "cp": judgeCopy, "install": judgeCopy, "mv": judgeCopy, "ln": judgeCopy, "link": judgeCopy,
	"rsync": judgeCopy, "scp": judgeCopy, "dd": judgeDd, "tee": judgeTee, "tar": judgeTar,
	"fallocate": judgeSized, "truncate": judgeSized, "systemctl": judgeServices, "init": judgeServices,
	"kill": judgeKill, "pkill": judgeKill, "killall": judgeKill, "killall5": judgeKill, "skill": judgeKill,
	"crontab": judgeCrontab, "at": judgeAt, "batch": judgeAt, "openssl": judgeOpenssl, "yes": judgeYes,
}

func indexOf(list []string, s string) int {
	for i, x := range list {
		if x == s {
			return i
		}
	}
	return -1
}

// dynamicVerb handles a command whose program is not known before it runs:
// it could be any program, rm included, so its paths are judged as
// deletes.
func (s *shellAnalyzer) dynamicVerb(argv []string) {
	s.ask("the program to run is known only when it runs")
	for _, a := range argv[1:] {
		if strings.HasPrefix(a, "-") {
			continue
		}
		if a == "/" || a == "~" || pathLike(a) {
			s.touch(a, opDelete, "may delete")
		}
	}
}

func (s *shellAnalyzer) downloaded(p string) bool {
	return s.downloadedAbs(s.env.locateFrom(p, s.cwd).abs)
}

func (s *shellAnalyzer) shellVerb(verb string, args []string, in stdinSrc, here *string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-o" || a == "+o" || a == "--rcfile" || a == "--init-file" || a == "-O" || a == "+O":
			i++
		case strings.HasPrefix(a, "-") && !strings.HasPrefix(a, "--") && strings.Contains(a, "c"):
			if i+1 < len(args) {
				s.payload(args[i+1], verb+" -c")
			} else {
				s.deny("%s -c without a command", verb)
			}
			return
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
		default:
			s.touch(a, opExec, verb+" runs")
			if s.downloaded(a) {
				s.deny("%s runs %s, a file this command downloads", verb, a)
			}
			s.ask("%s runs the script %s", verb, a)
			return
		}
	}
	switch {
	case here != nil:
		s.payload(*here, "a heredoc fed to "+verb)
	case in.kind == stdinLiteral:
		s.payload(in.text, "text piped into "+verb)
	case in.kind == stdinUntrusted:
		s.deny("%s piped into %s runs it unchecked", in.what, verb)
	default:
		s.ask("starts an interactive %s", verb)
	}
}

func (s *shellAnalyzer) interpreter(verb string, args []string, in stdinSrc, here *string) {
	lang := interpreters[verb]
	s.ask("runs %s code", lang)
	if verb == "emacs" {
		s.emacs(args)
		return
	}
	if lang == "perl" || lang == "ruby" {
		s.perlFiles(verb, args)
	}
	for i := 0; i < len(args); i++ {
		a := args[i]
		if codeFlags[a] && i+1 < len(args) {
			s.code(lang, args[i+1])
			return
		}
		if verb == "emacs" && (a == "--eval" || strings.HasPrefix(a, "--eval=")) {
			if v, ok := optValue(a); ok {
				s.code(lang, v)
			} else if i+1 < len(args) {
				s.code(lang, args[i+1])
			}
			return
		}
		if len(a) > 2 && a[0] == '-' && a[1] != '-' && codeFlags[a[:2]] && !strings.ContainsAny(a[2:], "-") && lang != "python" {
			s.code(lang, a[2:]) // perl -eCODE
			return
		}
		if a == "-m" || a == "-" {
			break
		}
		if !strings.HasPrefix(a, "-") {
			s.touch(a, opExec, verb+" runs")
			if s.downloaded(a) {
				s.deny("%s runs %s, a file this command downloads", verb, a)
			}
			return
		}
	}
	switch {
	case here != nil:
		s.code(lang, *here)
	case in.kind == stdinLiteral:
		s.code(lang, in.text)
	case in.kind == stdinUntrusted:
		s.deny("%s piped into %s runs it unchecked", in.what, verb)
	}
}

// perlFiles judges the files perl and ruby are given after their code
// (perl -ne CODE FILE…): read, and with -i edited in place.
func (s *shellAnalyzer) perlFiles(verb string, args []string) {
	inPlace, codeSeen := false, false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "--":
			codeSeen = true
		case strings.HasPrefix(a, "-") && len(a) > 1 && !codeSeen:
			letters := strings.TrimPrefix(a, "-")
			if j := strings.IndexAny(letters, "eE"); j >= 0 {
				inPlace = inPlace || strings.Contains(letters[:j], "i")
				if j == len(letters)-1 {
					i++ // the code is the next word
				}
				codeSeen = true
				continue
			}
			inPlace = inPlace || strings.HasPrefix(letters, "i") || strings.ContainsAny(letters, "i") && !strings.HasPrefix(letters, "-")
		case !codeSeen:
			codeSeen = true // the script file
		default:
			if inPlace {
				s.touch(a, opWrite, verb+" -i edits in place")
			}
		}
	}
}

// emacs judges an Emacs command line (emacs(1), GNU Emacs 28.2): the code
// of every --eval is judged, every -l file runs, and every file it visits
// may be changed and saved by that code.
func (s *shellAnalyzer) emacs(args []string) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		next := func() string {
			if i+1 < len(args) {
				i++
				return args[i]
			}
			return ""
		}
		switch {
		case a == "--eval" || a == "-eval" || a == "--execute" || a == "-execute":
			s.code("elisp", next())
		case strings.HasPrefix(a, "--eval=") || strings.HasPrefix(a, "--execute="):
			v, _ := optValue(a)
			s.code("elisp", v)
		case a == "-l" || a == "--load" || a == "-load" || a == "--script" || a == "-script":
			s.touch(next(), opExec, "emacs loads")
		case strings.HasPrefix(a, "--load=") || strings.HasPrefix(a, "--script="):
			v, _ := optValue(a)
			s.touch(v, opExec, "emacs loads")
		case a == "-f" || a == "--funcall" || a == "-funcall" || a == "-L" || a == "--directory" || a == "--chdir" || a == "-u" || a == "--user" || a == "--insert" || a == "--find-file" || a == "--file" || a == "--visit":
			v := next()
			switch a {
			case "--insert":
				s.readFile(v, "emacs inserts")
			case "--find-file", "--file", "--visit":
				s.touch(v, opWrite, "emacs visits and may save")
			}
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
		default:
			s.touch(a, opWrite, "emacs visits and may save")
		}
	}
}

// code hands a program in another language to the code-evaluation vector
// and adopts its findings.
func (s *shellAnalyzer) code(lang, text string) {
	if s.quiet {
		return
	}
	if what, ok := s.env.selfMention(text); ok {
		s.selfMod("the %s code names %s: code that reaches the Flight Plans, the journal or pp-lsp's own files could approve a plan", lang, what)
	}
	if why, ok := s.env.privateInCode(text); ok {
		s.privateRead("%s", why)
	}
	s.depth++
	r := analyzeCode(s.env, lang, text, s.depth)
	s.depth--
	for _, d := range r.denies {
		s.deny("%s", d)
	}
	for _, a := range r.asks {
		s.ask("%s", a)
	}
	for _, sh := range r.shell {
		s.payload(sh, lang+" runs a shell command")
	}
}

func (s *shellAnalyzer) awk(args []string) {
	prog := ""
	var files []string
	inplace := false
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-f":
			s.ask("awk runs a program file")
			i++
		case a == "-v" || a == "-F":
			i++
		case a == "-i" || a == "--include" || a == "-l" || a == "--load" || strings.HasPrefix(a, "-i") || strings.HasPrefix(a, "-l") ||
			strings.HasPrefix(a, "--include=") || strings.HasPrefix(a, "--load="):
			// gawk -i FILE includes awk source, -l loads a shared library;
			// -i inplace edits every file it is given in place.
			v := strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(strings.TrimPrefix(a, "--include="), "--load="), "-i"), "-l")
			if (v == "" || v == "nclude" || v == "oad") && i+1 < len(args) {
				i++
				v = args[i]
			}
			if strings.TrimSuffix(v, ".awk") == "inplace" {
				inplace = true
			}
			s.ask("awk loads %s, code or a library this command does not show", printable(v))
		case strings.HasPrefix(a, "-"):
		case prog == "":
			prog = a
		default:
			files = append(files, a)
		}
	}
	if what, ok := s.env.selfMention(prog); ok {
		s.selfMod("the awk program names %s: code that reaches the Flight Plans, the journal or pp-lsp's own files could approve a plan", what)
	}
	if strings.Contains(prog, "system") || strings.Contains(prog, "|") || strings.Contains(prog, ">") {
		s.ask("the awk program runs commands or writes files")
		for _, lit := range quotedStrings(prog) {
			s.payload(lit, "awk")
		}
		// print > "FILE" and >> "FILE" write the file the string names.
		for _, w := range awkRedirectTargets(prog) {
			s.touch(w, opWrite, "the awk program writes")
		}
	}
	for _, f := range files {
		switch {
		case inplace:
			s.touch(f, opWrite, "awk -i inplace edits in place")
		case pathLike(f):
			s.touch(f, opRead, "reads")
		}
	}
}

// awkRedirectTargets are the string literals an awk program writes to
// (print > "FILE", printf … >> "FILE").
func awkRedirectTargets(prog string) []string {
	var out []string
	for i := 0; i < len(prog); i++ {
		if prog[i] != '>' {
			continue
		}
		j := i + 1
		for j < len(prog) && (prog[j] == '>' || prog[j] == ' ' || prog[j] == '\t') {
			j++
		}
		if j < len(prog) && prog[j] == '"' {
			if lits := quotedStrings(prog[j:]); len(lits) > 0 {
				out = append(out, lits[0])
			}
		}
		i = j
	}
	return out
}

// quotedStrings returns the double-quoted string literals in a program.
func quotedStrings(prog string) []string {
	var out []string
	for i := 0; i < len(prog); i++ {
		if prog[i] != '"' {
			continue
		}
		var b strings.Builder
		j := i + 1
		for ; j < len(prog) && prog[j] != '"'; j++ {
			if prog[j] == '\\' && j+1 < len(prog) {
				j++
			}
			b.WriteByte(prog[j])
		}
		out = append(out, b.String())
		i = j
	}
	return out
}

func (s *shellAnalyzer) xargs(args []string) {
	s.ask("xargs runs a command on arguments read from its input")
	rest := skipOpts(args, xargsOpts)
	if len(rest) == 0 {
		return
	}
	// Its operands come from input: judge the inner command as if they
	// could be anything, so a delete or write is judged on unknown paths.
	inner := append(append([]string(nil), rest...), dynMarker)
	s.judgeNested(inner)
}

func (s *shellAnalyzer) judgeNested(argv []string) {
	if len(s.rep.cmds) >= maxShellCommands {
		s.spoil()
		return
	}
	s.addCmd(shellCmd{argv: argv})
	s.mentions(argv)
	mark := len(s.trail)
	s.judge(argv, stdinSrc{}, nil)
	s.undoVars(mark) // another process runs it: a cd it names holds there
}
