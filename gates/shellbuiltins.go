package gates

import (
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// A builtin runs inside the shell itself, so unlike any other program it
// can change what the analysis holds: variables, positional parameters,
// functions, the working directory, which program a name runs. Every
// builtin bash has is listed below with what it may change, and call
// applies that change (or makes what it changes unknown) after judging the
// command as usual. A program the table does not name is not a builtin:
// it runs in a process of its own and changes nothing of the shell's.

// builtinEffect is what a builtin may change of the shell's state.
type builtinEffect uint8

const (
	changesNothing  builtinEffect = iota // of what the analysis holds
	setsNamedVars                        // the variables its options or operands name
	declaresVars                         // declare, typeset, local, export, readonly reached as a command
	unsetsNames                          // variables or functions
	setsPositionals                      // shift, set
	evaluatesArith                       // let reached as a command
	sourcesScript                        // runs a file's text in the shell: any setting
	changesCwd                           // judged and followed where its grammar is (cd, pushd, popd, dirs)
	runsHistory                          // fc re-runs commands from the shell's history
	changesBuiltins                      // enable loads or disables builtins
	changesLookup                        // hash -p makes a name run another program
	runsGiven                            // eval, trap, alias, exec, command, builtin: judged as what they run
)

// bashBuiltins are bash's builtin commands, from bash(1) 5.2, SHELL BUILTIN
// COMMANDS, and `enable -a` of bash 5.2 (TestBashBuiltinsAreListed holds
// the list to the bash installed).
var bashBuiltins = map[string]builtinEffect{
	":": changesNothing, "[": changesNothing, "test": changesNothing, "true": changesNothing,
	"false": changesNothing, "echo": changesNothing, "pwd": changesNothing, "type": changesNothing,
	"help": changesNothing, "jobs": changesNothing, "times": changesNothing, "caller": changesNothing,
	"kill": changesNothing, "return": changesNothing, "exit": changesNothing, "logout": changesNothing,
	"break": changesNothing, "continue": changesNothing, "suspend": changesNothing, "bg": changesNothing,
	"fg": changesNothing, "disown": changesNothing, "ulimit": changesNothing, "umask": changesNothing,
	"unalias": changesNothing, "shopt": changesNothing, "history": changesNothing, "wait": setsNamedVars,
	"bind": changesNothing, "complete": changesNothing, "compopt": changesNothing,
	"read": setsNamedVars, "mapfile": setsNamedVars, "readarray": setsNamedVars, "getopts": setsNamedVars,
	"printf": setsNamedVars, "compgen": setsNamedVars,
	"declare": declaresVars, "typeset": declaresVars, "local": declaresVars, "export": declaresVars,
	"readonly": declaresVars, "unset": unsetsNames, "shift": setsPositionals, "set": setsPositionals,
	"let": evaluatesArith, "source": sourcesScript, ".": sourcesScript,
	"cd": changesCwd, "pushd": changesCwd, "popd": changesCwd, "dirs": changesCwd,
	"fc": runsHistory, "enable": changesBuiltins, "hash": changesLookup,
	"eval": runsGiven, "trap": runsGiven, "alias": runsGiven, "exec": runsGiven, "command": runsGiven,
	"builtin": runsGiven,
}

// posixSpecialBuiltins are found before functions in POSIX mode (bash(1),
// SHELL BUILTIN COMMANDS; POSIX 2.14): a function of one of these names
// may not be what a call runs.
var posixSpecialBuiltins = map[string]bool{
	"break": true, ":": true, ".": true, "continue": true, "eval": true, "exec": true, "exit": true,
	"export": true, "readonly": true, "return": true, "set": true, "shift": true, "trap": true, "unset": true,
}

// builtinArgv strips the prefixes that run a builtin in the shell itself
// (builtin NAME, command NAME); false when what is left is not run (command
// -v looks a name up).
func builtinArgv(argv []string) ([]string, bool) {
	for len(argv) > 0 {
		switch argv[0] {
		case "builtin":
			argv = argv[1:]
		case "command":
			argv = argv[1:]
			for len(argv) > 0 && len(argv[0]) > 1 && argv[0][0] == '-' {
				if argv[0] == "--" {
					argv = argv[1:]
					break
				}
				if strings.ContainsAny(argv[0], "vV") {
					return nil, false
				}
				argv = argv[1:]
			}
		default:
			return argv, true
		}
	}
	return nil, false
}

// builtin applies what a command that may be a builtin changes of the
// shell's state.
//
// numeric says which words of argv are known only when they run, as
// numbers: a variable's name so made can hold no subscript.
func (s *shellAnalyzer) builtin(argv []string, numeric func(int) bool) {
	n := len(argv)
	argv, ok := builtinArgv(argv)
	if !ok || s.quiet {
		return
	}
	skipped := n - len(argv) + 1 // builtin, command and its options, the verb
	isNum := func(i int) bool { return numeric(i + skipped) }
	verb, args := argv[0], argv[1:]
	if strings.Contains(verb, dynMarker) {
		// Any builtin: read, source, unset, declare…
		s.forgetState()
		return
	}
	switch bashBuiltins[verb] {
	case changesNothing:
		if verb == "history" {
			s.historyWrites(args)
		}
		if verb == "test" || verb == "[" {
			for i, a := range args[:max(0, len(args)-1)] {
				if a == "-v" {
					s.variableName(args[i+1], isNum(i+1)) // test -v 'a[$(…)]' expands the subscript
				}
			}
		}
	case setsNamedVars:
		s.setsNamed(verb, args, isNum)
	case declaresVars:
		s.declares(verb, args)
	case unsetsNames:
		s.unset(args, isNum)
	case setsPositionals:
		if verb == "shift" {
			s.shift(args)
		} else {
			s.setPositionals(args)
		}
	case evaluatesArith:
		s.forgetVars() // let's expressions may assign any variable
	case sourcesScript:
		s.forgetState()
	case runsHistory:
		if !slices.ContainsFunc(args, func(a string) bool { return isShortOpt(a, 'l') }) {
			s.deny("fc runs commands again from the shell's history, known only when it runs")
		}
	case changesBuiltins:
		for _, a := range args {
			if !strings.HasPrefix(a, "-") || isShortOpt(a, 'f') || isShortOpt(a, 'd') || isShortOpt(a, 'n') {
				s.deny("enable changes which builtins the shell runs (or loads one from a library)")
				break
			}
		}
	case changesLookup:
		for _, a := range args {
			if isShortOpt(a, 'p') {
				s.deny("hash -p makes a name run another program")
				break
			}
		}
	}
}

// isShortOpt says whether a is an option cluster holding the letter c.
func isShortOpt(a string, c byte) bool {
	return len(a) > 1 && a[0] == '-' && a[1] != '-' && strings.IndexByte(a[1:], c) >= 0
}

// namedVarOpts are, per builtin that sets the variables it is given, its
// options that take a value (bash(1) 5.2), which of those name a variable
// it sets, and the variables it sets when given none.
var namedVarOpts = map[string]struct {
	withValue, naming string
	operands          bool // its operands (after the first for getopts) are variables too
	sets              []string
}{
	"read":      {withValue: "adinNptu", naming: "a", operands: true, sets: []string{"REPLY"}},
	"mapfile":   {withValue: "dnOsuCc", operands: true, sets: []string{"MAPFILE"}},
	"readarray": {withValue: "dnOsuCc", operands: true, sets: []string{"MAPFILE"}},
	"getopts":   {operands: true, sets: []string{"OPTARG", "OPTIND"}},
	"wait":      {withValue: "p", naming: "p"},
	"printf":    {withValue: "v", naming: "v"},
	"compgen":   {withValue: "AGWXPSFCoV", naming: "V"},
}

// mapfileCallbackArgs stand for the words a mapfile callback is given
// (the index and the line): variables made unknown before it is judged.
var mapfileCallbackArgs = [2]string{"MAPFILE_CALLBACK_INDEX", "MAPFILE_CALLBACK_LINE"}

// setsNamed makes unknown the variables read, mapfile, getopts, wait -p,
// printf -v and compgen -V set; a mapfile callback (-C) and a compgen
// command (-C) run.
func (s *shellAnalyzer) setsNamed(verb string, args []string, isNum func(int) bool) {
	spec := namedVarOpts[verb]
	// names are the words naming a variable, with whether their unknown
	// parts are numbers.
	type named struct {
		text    string
		numeric bool
	}
	var names []named
	runsFunction := false // compgen -F: any setting may change
	i := 0
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" {
			i++
			break
		}
		if len(a) < 2 || a[0] != '-' {
			break
		}
		for j := 1; j < len(a); j++ {
			c := a[j]
			if strings.IndexByte(spec.withValue, c) < 0 {
				continue
			}
			val := a[j+1:]
			if val == "" && i+1 < len(args) {
				i++
				val = args[i]
			}
			switch {
			case strings.IndexByte(spec.naming, c) >= 0:
				names = append(names, named{val, isNum(i)})
			case c == 'C' && (verb == "mapfile" || verb == "readarray"):
				// Called with the index and the line: known only then.
				for _, v := range mapfileCallbackArgs {
					s.setVar(v, varVal{})
				}
				s.evalText(val+` "$`+mapfileCallbackArgs[0]+`" "$`+mapfileCallbackArgs[1]+`"`, verb+" -C")
			case c == 'C' && verb == "compgen":
				s.payload(val, "compgen -C")
			case c == 'F' && verb == "compgen":
				runsFunction = true
			}
			break
		}
	}
	first, operands := i, args[i:]
	if verb == "getopts" && len(operands) > 0 {
		first, operands = first+1, operands[1:2] // OPTSTRING NAME [ARGS]
	}
	if verb == "mapfile" || verb == "readarray" {
		operands = operands[:min(1, len(operands))]
	}
	if spec.operands {
		for k, o := range operands {
			names = append(names, named{o, isNum(first + k)})
		}
	}
	if len(names) == 0 || verb == "getopts" {
		for _, v := range spec.sets {
			names = append(names, named{text: v})
		}
	}
	for _, nm := range names {
		n := nm.text
		name := s.variableName(n, nm.numeric) // an array element sets the array
		if strings.Contains(n, dynMarker) {
			s.forgetVars() // a name known only when it runs: refused above, and any may be set
			return
		}
		if name == "" {
			continue
		}
		s.checkEnvVar(name, word{dyn: true})
		if slices.Contains(s.integers, name) {
			s.arithValue(name, varVal{})
		}
		s.refAssigned(name, varVal{})
		s.setVar(name, varVal{})
	}
	if runsFunction {
		s.forgetVars()
	}
}

// declares is declare, typeset, local, export or readonly run as a
// command (builtin declare x=/): the variables it names are unknown after
// it; options known only when it runs are refused.
func (s *shellAnalyzer) declares(verb string, args []string) {
	nameref, integer := false, false
	exported := verb == "export"
	for _, a := range args {
		switch {
		case strings.Contains(a, dynMarker) && (strings.HasPrefix(a, dynMarker) || strings.HasPrefix(a, "-")):
			s.deny("%s is given options or names known only when it runs; refusing to guess what it declares", verb)
			s.forgetVars()
			return
		case strings.HasPrefix(a, "-") || strings.HasPrefix(a, "+"):
			nameref = nameref || a[0] == '-' && strings.IndexByte(a, 'n') >= 0 && verb != "export"
			integer = integer || a[0] == '-' && strings.IndexByte(a, 'i') >= 0
			exported = exported || a[0] == '-' && strings.IndexByte(a, 'x') >= 0
		default:
			name, v, hasValue := strings.Cut(a, "=")
			if strings.Contains(name, dynMarker) {
				s.deny("%s declares a variable whose name is known only when it runs (it could be PATH)", verb)
				s.forgetVars()
				return
			}
			if name = s.variableName(strings.TrimSuffix(name, "+"), false); name == "" {
				continue
			}
			if nameref && hasValue {
				// The name it refers to is expanded at each use, subscript and all.
				if strings.Contains(v, dynMarker) {
					s.deny("a name reference refers to a variable named only when it runs: a subscript in the name (a[$(…)]) would run a command at each use")
				} else {
					s.variableName(v, false)
					s.namerefTarget(v)
				}
			}
			if exported {
				s.exportVar(name, word{val: v, dyn: !hasValue || strings.Contains(v, dynMarker)})
			} else {
				s.checkEnvVar(name, word{val: v, dyn: !hasValue || strings.Contains(v, dynMarker)})
			}
			if integer && hasValue {
				s.arithValue(name, varVal{val: v, ok: !strings.Contains(v, dynMarker)})
			}
			s.setVar(name, varVal{})
			if nameref {
				s.markNameref(name)
			}
		}
	}
}

// historyWrites judges the files history writes: -a and -w write the
// shell's history list — any text, put there by history -s — to the file
// named, or to $HISTFILE (~/.bash_history in a shell that did not set it:
// setting it is refused). history -s '* APPROVED'; history -w
// flightplans.org wrote the plans.
func (s *shellAnalyzer) historyWrites(args []string) {
	writes := false
	var file string
	for i, a := range args {
		if a == "--" {
			if i+1 < len(args) {
				file = args[i+1]
			}
			break
		}
		if len(a) > 1 && a[0] == '-' {
			if strings.Contains(a, dynMarker) || strings.ContainsAny(a, "aw") {
				writes = true
			}
			if strings.ContainsAny(a, "ps") {
				return // -p and -s take the rest as text
			}
			continue
		}
		file = a
		break
	}
	if !writes {
		return
	}
	if file == "" {
		file = "~/.bash_history"
	}
	s.touch(file, opWrite, "history writes its list to")
}

// markNameref notes a name reference (declare -n r=x): reading it reads
// the variable it names, assigning it assigns that variable. For the rest
// of the command it reads as unknown, and assigning it makes every
// variable unknown. Recorded bodies are dropped, and those being recorded
// not kept, as for declare -i: what a body's analysis made of the name
// as a plain variable is not always a read the replay asks again (local
// -n A in a function analysed where declared, then called: the call's
// analysis finds A already a reference, set, and refuses it).
func (s *shellAnalyzer) markNameref(name string) {
	if !slices.Contains(s.namerefs, name) {
		s.namerefs = append(s.namerefs, name)
		s.spoil()
		s.memo.memos = s.memo.memos[:0]
	}
}

// unset removes variables (-v, or no option) or functions (-f; with no
// option, a name with no variable is a function's, bash(1) unset).
func (s *shellAnalyzer) unset(args []string, isNum func(int) bool) {
	funcs, vars := false, false
	for i, a := range args {
		switch {
		case strings.Contains(a, dynMarker):
			if !funcs {
				s.variableName(a, isNum(i)) // refused unless a number: unset 'a[$(…)]' runs the subscript
			}
			s.forgetState()
			return
		case a == "--":
		case strings.HasPrefix(a, "-"):
			funcs = funcs || strings.IndexByte(a, 'f') >= 0
			vars = vars || strings.ContainsAny(a, "vn")
		default:
			if !funcs {
				name := a
				if n := s.variableName(a, false); n != "" {
					name = n // an element: the array changes
				}
				s.setVar(name, varVal{})
			}
			if vars {
				continue
			}
			def := s.funcOf(a)
			switch {
			case funcs:
				if def != (funcDef{}) {
					s.declare(a, funcDef{})
				}
			case def.body != nil && !def.alsoProgram:
				def.alsoProgram = true // gone when no variable had the name
				s.declare(a, def)
			}
		}
	}
}

// shift moves the positional parameters down by its operand (1 when none).
func (s *shellAnalyzer) shift(args []string) {
	n := 1
	if len(args) > 0 {
		v, err := strconv.Atoi(args[0])
		if err != nil || v < 0 {
			s.forgetPositionals()
			return
		}
		n = v
	}
	for i := 1; i <= 9; i++ {
		v := varVal{}
		if i+n <= 9 {
			v = s.lookup(positionals[i+n]) // logged: a recorded body depends on it
		}
		s.setVar(positionals[i], v)
	}
}

// setPositionals is set: its operands (after its options, or after -- or
// -) become the positional parameters.
func (s *shellAnalyzer) setPositionals(args []string) {
	i := 0
	given := false
	for ; i < len(args); i++ {
		a := args[i]
		if a == "--" || a == "-" {
			i++
			given = true
			break
		}
		if strings.Contains(a, dynMarker) {
			given = true
			break
		}
		if len(a) < 2 || a[0] != '-' && a[0] != '+' {
			given = true
			break
		}
		if a == "-o" || a == "+o" {
			i++
		}
	}
	if !given {
		return
	}
	operands := args[min(i, len(args)):]
	unknownFrom := 10
	for k, a := range operands {
		if strings.Contains(a, dynMarker) {
			unknownFrom = k + 1 // it may be any number of words
			break
		}
	}
	for p := 1; p <= 9; p++ {
		var v varVal
		switch {
		case p >= unknownFrom:
		case p <= len(operands):
			v = varVal{val: operands[p-1], ok: true}
		default:
			v = varVal{val: "", ok: true}
		}
		s.setVar(positionals[p], v)
	}
}

// forgetVars makes every variable and positional parameter unknown. What
// is forgotten depends on which variables are set, which an analysis
// replayed from the memo does not ask: an analysis that forgets is not
// kept.
func (s *shellAnalyzer) forgetVars() {
	if s.forgetting {
		return
	}
	s.forgetting = true
	defer func() { s.forgetting = false }()
	s.spoil()
	if !s.anySet {
		// Recorded bodies read variables never set as empty.
		s.anySet = true
		s.memo.memos = s.memo.memos[:0]
	}
	names := s.vars.appendKeys(make([]string, 0, s.vars.len()+len(s.known)))
	for _, k := range s.known {
		names = append(names, k.name)
	}
	slices.Sort(names)
	for _, n := range slices.Compact(names) {
		if s.current(n) != (varVal{}) {
			s.setVar(n, varVal{})
		}
	}
	s.forgetPositionals()
}

func (s *shellAnalyzer) forgetPositionals() {
	s.args = callArgs{}
	for i := 1; i <= 9; i++ {
		if s.pos[i] != (varVal{}) {
			s.setVar(positionals[i], varVal{})
		}
	}
}

// forgetState is forgetVars for a command that may set anything (a
// sourced script, a program known only when it runs): every function it
// may have redeclared is unknown too, and where the shell is.
func (s *shellAnalyzer) forgetState() {
	s.forgetVars()
	s.setCwd(unknownCwd, "")
	names := make([]string, 0, len(s.funcs))
	for n, def := range s.funcs {
		if def != (funcDef{}) && !def.unknown {
			names = append(names, n)
		}
	}
	slices.Sort(names)
	for _, n := range names {
		s.declare(n, funcDef{unknown: true})
	}
}

// arith analyses an arithmetic expression (of $((…)), ((…)), let, an
// array subscript, a substring's offset): a variable it assigns is
// unknown after it (one whose name is known only when it runs makes every
// variable unknown); a variable's value is itself evaluated as
// arithmetic, so a known value that holds an assignment, a subscript or a
// command substitution is refused (v='a[$(rm -rf ~)]'; (( v )) runs rm).
func (s *shellAnalyzer) arith(n syntax.Node) {
	if n == nil {
		return
	}
	walkSyntax(n, func(n syntax.Node) bool {
		if s.substitution(n) {
			return false
		}
		switch x := n.(type) {
		case *syntax.BinaryArithm:
			if x.Op == syntax.Assgn || x.Op >= syntax.AddAssgn && x.Op <= syntax.PowAssgn {
				s.arithAssigns(x.X, x.Op != syntax.Assgn)
			}
		case *syntax.UnaryArithm:
			if x.Op == syntax.Inc || x.Op == syntax.Dec {
				s.arithAssigns(x.X, true)
			}
		case *syntax.Word:
			// A name, or an element a[i] (its subscript is arithmetic too).
			if lit := x.Lit(); syntax.ValidName(lit) {
				s.arithValue(lit, s.lookup(lit))
			} else {
				for _, name := range arithNames(lit) {
					s.arithValue(name, s.lookup(name))
				}
			}
		case *syntax.ParamExp:
			if x.Param == nil {
				return false
			}
			v, ok := s.param(x)
			s.arithValue(x.Param.Value, varVal{val: v, ok: ok, num: !ok && s.paramIsNum(x)})
			return false
		}
		return true
	})
}

// subscript analyses an array subscript: arithmetic, except for an
// associative array's (declared -A), a string.
func (s *shellAnalyzer) subscript(array string, index syntax.ArithmExpr) {
	if index == nil {
		return
	}
	if slices.Contains(s.assocs, array) {
		s.walkNode(index)
		return
	}
	s.arith(index)
}

// arithNames are the variable names an arithmetic operand's text reads:
// NAME, or NAME[SUBSCRIPT] and the names in the subscript.
func arithNames(lit string) []string {
	if syntax.ValidName(lit) {
		return []string{lit}
	}
	if strings.IndexByte(lit, '[') < 0 {
		return nil // a number, or not a name
	}
	var names []string
	for _, f := range strings.FieldsFunc(lit, func(r rune) bool {
		return !(r == '_' || r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9')
	}) {
		if syntax.ValidName(f) {
			names = append(names, f)
		}
	}
	return names
}

// arithAssigns makes the variable an arithmetic assignment sets a number
// known only when it runs; reads says the assignment evaluates its value
// first (+=, ++).
func (s *shellAnalyzer) arithAssigns(target syntax.ArithmExpr, reads bool) {
	w, ok := target.(*syntax.Word)
	if !ok {
		s.forgetVars()
		return
	}
	lit := w.Lit()
	name, _, _ := strings.Cut(lit, "[")
	if !syntax.ValidName(name) {
		s.forgetVars()
		return
	}
	if reads {
		s.arithValue(name, s.lookup(name))
	}
	s.checkEnvVar(name, word{dyn: true})
	s.setVar(name, varVal{num: true})
}

// arithValue refuses a value evaluated as arithmetic that may do more than
// name a number or a variable: a known one holding an assignment, a
// subscript or a command, or one known only when it runs that is not
// known to be a number (read from a file, printed by a command, a
// function's argument): v='a[$(rm -rf ~)]' runs rm.
func (s *shellAnalyzer) arithValue(name string, v varVal) {
	if s.loops > 0 {
		s.loopArithReads = append(s.loopArithReads, name)
	}
	switch {
	case v.ok && !plainArith(v.val):
		s.deny("the value of %s is evaluated as arithmetic and holds an assignment, a subscript or a command", name)
	case !v.ok && !v.num && !numericParams[name]:
		s.deny("arithmetic evaluates %s, known only when it runs: a value such as a[$(…)] would run a command", name)
	}
}

// plainArith says whether a value evaluated as arithmetic only computes:
// no assignment, increment, subscript or substitution.
func plainArith(v string) bool {
	for _, cmp := range [...]string{"==", "!=", "<=", ">="} {
		v = strings.ReplaceAll(v, cmp, "")
	}
	return !strings.ContainsAny(v, "=[`$") && !strings.Contains(v, "++") && !strings.Contains(v, "--")
}

// arithWord is an operand [[ evaluates as arithmetic (-eq, -lt…): its
// value, and the value of the variable it names, are evaluated too.
func (s *shellAnalyzer) arithWord(w *syntax.Word) {
	v := s.peekWord(w)
	if v.dyn {
		if !s.wordIsNum(w) {
			s.deny("[[ evaluates %s as arithmetic, known only when it runs: a value such as a[$(…)] would run a command", printable(strings.ReplaceAll(v.val, dynMarker, "$?")))
		}
		return
	}
	if !plainArith(v.val) {
		s.deny("%s is evaluated as arithmetic and holds an assignment, a subscript or a command", printable(v.val))
		return
	}
	if syntax.ValidName(v.val) {
		s.arithValue(v.val, s.lookup(v.val))
	}
}
