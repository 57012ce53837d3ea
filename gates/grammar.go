package gates

import (
	"fmt"
	"sort"
	"strings"
	"sync"
)

// A grammar says how one program reads its command line: which options it
// knows, how each takes its value, and what each option and operand does
// (reads a file, writes one, runs a program…). The tables themselves are
// data, in grammars.go, each citing its source; this file is the engine
// that reads them and parses a command's words the way the program does.
//
// The gates allow a program outright only when every word of its command
// is accounted for by its grammar: an option the table does not know, or
// an abbreviation that is ambiguous, is never allowed (ask), and every file
// an option or operand names is judged by the paths, protected-places and
// privacy rules as a read or a write of it.

// argKind is how an option takes its value.
type argKind uint8

const (
	argNone     argKind = iota // a flag
	argRequired                // attached (-oFILE, --output=FILE) or the next word
	argOptional                // attached only (-i.bak, --color=auto); never the next word
	argTwo                     // the next two words (jq --arg NAME VALUE)
)

// effect is what an option or an operand does, as far as the gates care.
// An option's effects combine: a value role (what its value names) and
// modes (how it changes the program's reading of its operands).
type effect uint32

const (
	effRead         effect = 1 << iota // its value names a file whose content the program reads
	effMeta                            // its value names a path whose name or metadata alone is used
	effWrite                           // its value names a file the program creates or replaces
	effRun                             // its value names a program the program runs
	effShell                           // its value is shell text the program runs
	effReadNames                       // its value names a file listing more files to read
	effAsk                             // a human must see it (why says why)
	effCwd                             // its value is a directory the program works in
	effRecurse                         // operands are read recursively (grep -r)
	effPattern                         // the pattern comes from this option: no operand is the pattern
	effNamesOnly                       // reads no file's content, only names (rg --files)
	effContent                         // the output shows file content (git log -p)
	effDirs                            // grep -d ACTION: "recurse" makes operands recursive
	effProgFile                        // jq -f: the first operand names the program file (read)
	effNoFiles                         // jq --args: the operands after the filter are not files
	effSelf                            // runs code inside the user's editor or terminal (self-approval)
	effDeny                            // never to be run by an agent (why says why)
	effNoContent                       // the output shows no content (git show -s, --stat)
	effOperandNames                    // the operands are files that list more files to read (md5sum -c)
	effCode                            // the value is code for the program (vim -c): judged for what it names
	effHistory                         // what the output shows of files is as the index or a commit holds them (git diff --cached)
	effWorktree                        // the operands are files of the working tree, never revisions (git diff --no-index)
	effReadTree                        // its value names a file, or a folder every file below which the program reads (diff --from-file=DIR)
	effFollow                          // a recursive read follows the symbolic links it meets (grep -R, rg -L)
	effNoFollow                        // a recursive read follows none (diff --no-dereference)
)

// valueRoles are the effects that say what an option's value names.
const valueRoles = effRead | effMeta | effWrite | effRun | effShell | effReadNames | effCwd | effReadTree

// effectNames are the words the tables use for effects.
var effectNames = map[string]effect{
	"read": effRead, "meta": effMeta, "write": effWrite, "run": effRun, "shell": effShell,
	"readnames": effReadNames, "ask": effAsk, "cwd": effCwd, "recurse": effRecurse,
	"pattern": effPattern, "namesonly": effNamesOnly, "content": effContent, "dirs": effDirs,
	"progfile": effProgFile, "nofiles": effNoFiles, "self": effSelf, "deny": effDeny,
	"nocontent": effNoContent, "opsnames": effOperandNames, "code": effCode,
	"history": effHistory, "worktree": effWorktree, "readtree": effReadTree, "follow": effFollow, "nofollow": effNoFollow,
}

// grammarTable compiles programTable once, on first use. A malformed table
// is a programming error: the shell analysis then refuses every command
// (TestGrammarTablesCompile keeps it from ever shipping).
var grammarTable = sync.OnceValues(func() (map[string]*grammar, error) {
	m := map[string]*grammar{}
	for _, spec := range programTable {
		g, err := compileGrammar(spec)
		if err != nil {
			return nil, err
		}
		for _, n := range strings.Fields(spec.names) {
			if _, dup := m[n]; dup {
				return nil, fmt.Errorf("two grammars for %s", n)
			}
			m[n] = g
		}
	}
	return m, nil
})

// grammarFor returns the grammar of a program, by its name.
func grammarFor(prog string) (*grammar, bool, error) {
	m, err := grammarTable()
	if err != nil {
		return nil, false, err
	}
	g, ok := m[prog]
	return g, ok, nil
}

// optionSpec is one option of a program: every name it answers to (the
// aliases of one table line), how it takes its value, what it does.
type optionSpec struct {
	names []string
	arg   argKind
	eff   effect
	why   string
	line  int // its index in the table: aliases share it (getopt's ambiguity rule)
	// exact: only its full name is taken, even where the program takes
	// prefixes of its own options (git blame hands its revision options
	// to a parser that does not).
	exact bool
}

// operandRole is what an operand names.
type operandRole uint8

const (
	opdRead     operandRole = iota // a file whose content is read
	opdMeta                        // a path whose name or metadata alone is used
	opdText                        // not a file (a string, a number, a name)
	opdWrite                       // a file created or replaced
	opdPattern                     // the pattern, unless an option gave it (then a read)
	opdFilter                      // jq's filter, unless -f made it the program file (then a read)
	opdDate                        // date's operand: +FORMAT prints, anything else sets the clock
	opdCommand                     // the rest of the words are a command the program runs
	opdCwd                         // a directory to work in (cd)
	opdRev                         // git: a revision, REV:PATH, or a path
	opdEdit                        // a file an editor opens: read, and maybe written
	opdReadTree                    // a file read, or a folder every file below which is read (diff DIR1 DIR2, diff FILE DIR)
	opdEditCmd                     // as edit, but +CMD is an editor command the editor runs (vim '+%s/a/b/|wq')
)

// parseRules are how a program reads its options.
type parseRules uint8

const (
	rulesGNU        parseRules = iota // getopt_long: clusters, attached values, unique prefixes of long options, options after operands
	rulesPOSIX                        // getopt_long with "+": as GNU, but the first operand ends the options (wrappers)
	rulesExact                        // long options only by their full name; clusters and attached short values; options after operands (clap, jq, git's revision options)
	rulesExactPOSIX                   // as rulesExact, but the first operand ends the options (git's global options)
	rulesTree                         // tree(1): full long names; a cluster's letters that take values take the next words in turn
	rulesParseOpt                     // git's parse-options: unique prefixes, --no-OPT negates, optional values attached only
	rulesWords                        // no options at all: every word is an operand (test, true)
	rulesBuiltin                      // a bash builtin: single-letter options first, "--" ends them
)

// grammar is one program's parsed table.
type grammar struct {
	prog   string
	source string
	rules  parseRules
	opts   []optionSpec
	short  map[byte]int // option letter → index in opts
	// shortOptional are the letters whose short form takes the line's
	// optional value attached (date -I[FMT]); the others of an
	// optional-value line take none (sort -c, but --check[=HOW]).
	shortOptional map[byte]bool
	long          map[string]int // long name without "--" → index in opts
	longNames     []string       // sorted, for prefix search
	// negs are git parse-options' negations (no-OPT, and OPT of an
	// option named no-OPT), negNames them sorted.
	negs       map[string]int
	negNames   []string
	operands   []operandRole
	repeatLast bool                // the last operand role repeats
	dflt       string              // the operand used when there is none ("." for rg)
	numeric    effect              // -NUM (head -5, grep -3) is accepted; effAsk when it may end in f (tail -5f)
	numericOK  bool                // whether -NUM is accepted at all
	subs       map[string]*grammar // git's subcommands
}

// programSpec is a program's table as written in grammars.go.
type programSpec struct {
	names    string // the program's names, space-separated (grep egrep fgrep)
	source   string // where the table comes from: the manual and version it was checked against
	rules    parseRules
	operands string // operand roles, space-separated; "*" after the last repeats it; "dflt=." gives the default operand
	opts     string // one option per line: names, value (=X, [=X], =X =Y), effects, ": why"
	subs     []programSpec
	// merged tables are made of several lists (git shortlog's own options,
	// then the revision and diff options it hands on): a name's first
	// line wins, as the program's first parser does.
	merged bool
	// exactOpts are more options, taken only by their full names: those a
	// program hands to a second parser (git blame's revision options).
	exactOpts string
}

// compileGrammar builds a grammar from its spec. A malformed spec is a
// programming error, reported as such.
func compileGrammar(s programSpec) (*grammar, error) {
	g := &grammar{source: s.source, rules: s.rules, short: map[byte]int{}, long: map[string]int{}}
	names := strings.Fields(s.names)
	if len(names) == 0 {
		return nil, fmt.Errorf("grammar without a program name (source %q)", s.source)
	}
	g.prog = names[0]
	for _, w := range strings.Fields(s.operands) {
		if v, ok := strings.CutPrefix(w, "dflt="); ok {
			g.dflt = v
			continue
		}
		rep := strings.HasSuffix(w, "*")
		w = strings.TrimSuffix(w, "*")
		r, ok := operandRoleNames[w]
		if !ok {
			return nil, fmt.Errorf("grammar %s: unknown operand role %q", g.prog, w)
		}
		g.operands = append(g.operands, r)
		if rep {
			g.repeatLast = true
		}
	}
	lines := strings.Split(s.opts, "\n")
	nOwn := len(lines)
	if s.exactOpts != "" {
		lines = append(lines, strings.Split(s.exactOpts, "\n")...)
	}
	for i, raw := range lines {
		line := strings.TrimSpace(raw)
		if line == "" || strings.HasPrefix(line, "#") {
			continue
		}
		o, err := parseOptionLine(line)
		if err != nil {
			return nil, fmt.Errorf("grammar %s, line %d %q: %w", g.prog, i+1, line, err)
		}
		if len(o.names) == 1 && o.names[0] == "-NUM" {
			if !g.numericOK {
				g.numericOK, g.numeric = true, o.eff
			}
			continue
		}
		o.line = len(g.opts)
		o.exact = i >= nOwn
		idx := len(g.opts)
		for k, n := range o.names {
			if len(n) == 3 && n[0] == '-' && n[2] == '=' {
				if o.arg != argOptional {
					return nil, fmt.Errorf("grammar %s: %s on a line without an optional value", g.prog, n)
				}
				if g.shortOptional == nil {
					g.shortOptional = map[byte]bool{}
				}
				g.shortOptional[n[1]] = true
				o.names[k] = n[:2]
			}
		}
		if s.merged {
			// A name an earlier line of a merged table has is that line's.
			kept := o.names[:0]
			for _, n := range o.names {
				_, dupLong := g.long[strings.TrimPrefix(n, "--")]
				_, dupShort := g.short[n[len(n)-1]]
				if strings.HasPrefix(n, "--") && dupLong || len(n) == 2 && dupShort {
					continue
				}
				kept = append(kept, n)
			}
			if len(kept) == 0 {
				continue
			}
			o.names = kept
		}
		g.opts = append(g.opts, o)
		for _, n := range o.names {
			switch {
			case strings.HasPrefix(n, "--"):
				if _, dup := g.long[n[2:]]; dup {
					if s.merged {
						continue
					}
					return nil, fmt.Errorf("grammar %s: %s twice", g.prog, n)
				}
				g.long[n[2:]] = idx
			case len(n) == 2 && n[0] == '-':
				if _, dup := g.short[n[1]]; dup {
					if s.merged {
						continue
					}
					return nil, fmt.Errorf("grammar %s: %s twice", g.prog, n)
				}
				g.short[n[1]] = idx
			case len(n) > 2 && n[0] == '-' && (s.rules == rulesExact || s.rules == rulesWords):
				// A long option with one dash (find's -name, jq's none): kept
				// with its dash in long.
				g.long[n] = idx
			default:
				return nil, fmt.Errorf("grammar %s: bad option name %q", g.prog, n)
			}
		}
	}
	for n := range g.long {
		g.longNames = append(g.longNames, n)
	}
	sort.Strings(g.longNames)
	if g.rules == rulesParseOpt {
		g.negs = map[string]int{}
		for _, n := range g.longNames {
			idx := g.long[n]
			if g.opts[idx].exact {
				continue
			}
			neg := "no-" + n
			if pos, ok := strings.CutPrefix(n, "no-"); ok {
				neg = pos
			}
			if _, taken := g.long[neg]; !taken {
				g.negs[neg] = idx
				g.negNames = append(g.negNames, neg)
			}
		}
		sort.Strings(g.negNames)
	}
	for _, sub := range s.subs {
		sg, err := compileGrammar(sub)
		if err != nil {
			return nil, fmt.Errorf("grammar %s: %w", g.prog, err)
		}
		if g.subs == nil {
			g.subs = map[string]*grammar{}
		}
		for _, n := range strings.Fields(sub.names) {
			g.subs[n] = sg
		}
	}
	return g, nil
}

var operandRoleNames = map[string]operandRole{
	"read": opdRead, "meta": opdMeta, "text": opdText, "write": opdWrite, "pattern": opdPattern,
	"filter": opdFilter, "date": opdDate, "command": opdCommand, "cwd": opdCwd, "rev": opdRev, "edit": opdEdit,
	"readtree": opdReadTree, "editcmd": opdEditCmd,
}

// parseOptionLine reads one line of a table.
func parseOptionLine(line string) (optionSpec, error) {
	var o optionSpec
	body, why, _ := strings.Cut(line, ":")
	o.why = strings.TrimSpace(why)
	for _, w := range strings.Fields(body) {
		switch {
		case strings.HasPrefix(w, "[="):
			if o.arg != argNone {
				return o, fmt.Errorf("two values")
			}
			o.arg = argOptional
		case strings.HasPrefix(w, "="):
			switch o.arg {
			case argNone:
				o.arg = argRequired
			case argRequired:
				o.arg = argTwo
			default:
				return o, fmt.Errorf("three values")
			}
		case strings.HasPrefix(w, "-"):
			o.names = append(o.names, w)
		default:
			e, ok := effectNames[w]
			if !ok {
				return o, fmt.Errorf("unknown effect %q", w)
			}
			o.eff |= e
		}
	}
	if len(o.names) == 0 {
		return o, fmt.Errorf("no option name")
	}
	if o.eff&(effAsk|effDeny) != 0 && o.why == "" {
		return o, fmt.Errorf("ask or deny without a reason")
	}
	if o.eff&valueRoles != 0 && o.arg == argNone && o.eff&(effRun|effShell) == 0 {
		return o, fmt.Errorf("a value role without a value")
	}
	return o, nil
}

// use is one thing a parsed command does with a word: the file it reads or
// writes, the program it runs, the question it raises.
type use struct {
	eff  effect // exactly one value role, or effAsk, effDeny, effSelf or effCode
	word string // the file, program or shell text ("" for a plain ask)
	opt  string // the option that named it, or "" for an operand
	why  string
}

// parsedCmd is a command's words as its program reads them.
type parsedCmd struct {
	g        *grammar
	uses     []use      // files, programs, questions, in order
	modes    effect     // the union of the options' modes (recurse, pattern, namesonly…)
	operands []operand  // the operands with their roles
	unknown  []string   // options the table does not know, or ambiguous abbreviations
	command  []string   // a wrapper's command, to be judged as what runs
	values   []givenOpt // every option given, with its value ("" for a flag)
	// dashAt is the index of the first operand after "--" (git: the
	// words after it are paths, never revisions), or -1 when none ends
	// the options.
	dashAt int
}

// operand is one operand and its role.
type operand struct {
	word string
	role operandRole
}

// parse reads args (the words after the program name) with g's rules.
func (g *grammar) parse(args []string) parsedCmd {
	pc := parsedCmd{g: g, dashAt: -1}
	var ops []string
	optsDone := g.rules == rulesWords
	stopAtOperand := g.rules == rulesPOSIX || g.rules == rulesExactPOSIX || g.rules == rulesBuiltin
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case optsDone:
			ops = append(ops, a)
		case a == "--":
			optsDone = true
			pc.dashAt = len(ops)
		case strings.HasPrefix(a, dynMarker):
			// Known only when it runs: it could be any option.
			pc.unknown = append(pc.unknown, a)
			ops = append(ops, a)
			optsDone = stopAtOperand
		case len(a) < 2 || a[0] != '-':
			ops = append(ops, a)
			optsDone = stopAtOperand
		case g.numericOK && isNumericOption(a):
			if g.numeric&effAsk != 0 && strings.ContainsAny(a, "fF") {
				pc.uses = append(pc.uses, use{eff: effAsk, opt: a, why: "follows the file forever"})
			}
		case strings.HasPrefix(a, "--"):
			i = g.parseLong(&pc, args, i)
		case g.hasLong(a):
			// A one-dash long option (vim's -es).
			i = g.takeValue(&pc, g.long[a], a, "", false, args, i)
		default:
			i = g.parseShort(&pc, args, i)
		}
	}
	g.assignOperands(&pc, ops)
	return pc
}

func (g *grammar) hasLong(name string) bool { _, ok := g.long[name]; return ok }

// isNumericOption reports -NUM with an optional unit and f suffix (head -5,
// tail -20f, grep -3, nice -10).
func isNumericOption(a string) bool {
	if len(a) < 2 || a[0] != '-' || a[1] < '0' || a[1] > '9' {
		return false
	}
	i := 1
	for i < len(a) && a[i] >= '0' && a[i] <= '9' {
		i++
	}
	return strings.Trim(a[i:], "bcklmKMGTPEZYf") == ""
}

// parseLong reads a --long option at args[i] and returns the index of the
// last word it used.
func (g *grammar) parseLong(pc *parsedCmd, args []string, i int) int {
	a := args[i]
	name, val, hasVal := strings.Cut(a[2:], "=")
	idx, negated, why := g.lookupLongNeg(name)
	switch {
	case idx < 0:
		pc.unknown = append(pc.unknown, a+why)
		return i
	case negated && hasVal:
		pc.unknown = append(pc.unknown, a+" (a negation takes no value)")
		return i
	case negated:
		return i // --no-OPT turns OPT off
	}
	shown := "--" + name
	if full := g.opts[idx].longName(); full != "" && full != shown {
		shown += " (" + full + ")"
	}
	return g.takeValue(pc, idx, shown, val, hasVal, args, i)
}

// longName is the option's first long name ("" when it has none).
func (o optionSpec) longName() string {
	for _, n := range o.names {
		if strings.HasPrefix(n, "--") {
			return n
		}
	}
	return ""
}

// lookupLong finds a long option by its name or, where the program allows
// it, a unique prefix (getopt_long: several matches are ambiguous unless
// they are the same option).
func (g *grammar) lookupLong(name string) (int, string) {
	idx, negated, why := g.lookupLongNeg(name)
	if negated {
		return -1, " (a negation)"
	}
	return idx, why
}

// lookupLongNeg is lookupLong with git's negations: in parse-options every
// option OPT also answers to --no-OPT (and an option named no-OPT to
// --OPT), which turn it off; they count for the ambiguity of a prefix as
// names of their own.
func (g *grammar) lookupLongNeg(name string) (idx int, negated bool, why string) {
	if idx, ok := g.long[name]; ok {
		return idx, false, ""
	}
	if idx, ok := g.negs[name]; ok {
		return idx, true, ""
	}
	if g.rules != rulesGNU && g.rules != rulesPOSIX && g.rules != rulesParseOpt || name == "" {
		return -1, false, ""
	}
	found, foundNeg, line := -1, false, -1
	try := func(names []string, table map[string]int, neg bool) bool {
		j := sort.SearchStrings(names, name)
		for ; j < len(names) && strings.HasPrefix(names[j], name); j++ {
			idx := table[names[j]]
			if g.opts[idx].exact {
				continue
			}
			switch {
			case found < 0:
				found, foundNeg, line = idx, neg, g.opts[idx].line
			case g.opts[idx].line != line || neg != foundNeg:
				return false
			}
		}
		return true
	}
	if !try(g.longNames, g.long, false) || !try(g.negNames, g.negs, true) {
		return -1, false, " (ambiguous)"
	}
	return found, foundNeg, ""
}

// takeValue records option opts[idx], named as written, with its value
// (attached or the next words), and returns the index of the last word
// used.
func (g *grammar) takeValue(pc *parsedCmd, idx int, name, val string, attached bool, args []string, i int) int {
	o := g.opts[idx]
	switch o.arg {
	case argNone:
		if attached {
			pc.unknown = append(pc.unknown, name+"="+val+" (takes no value)")
			return i
		}
	case argRequired:
		if !attached {
			if i+1 >= len(args) {
				pc.unknown = append(pc.unknown, name+" (no value)")
				return i
			}
			i++
			val = args[i]
			g.checkSeparateValue(pc, name, val)
		}
	case argTwo:
		if i+2 >= len(args) {
			pc.unknown = append(pc.unknown, name+" (no value)")
			return len(args) - 1
		}
		val = args[i+2]
		i += 2
	}
	g.record(pc, o, name, val, attached || o.arg == argRequired || o.arg == argTwo)
	return i
}

// checkSeparateValue flags a value taken from the next word that looks
// like an option: whether the program reads it as this option's value or
// as an option of its own is exactly what an attacker would play with.
func (g *grammar) checkSeparateValue(pc *parsedCmd, name, val string) {
	if len(val) > 1 && val[0] == '-' && (val[1] < '0' || val[1] > '9') {
		pc.uses = append(pc.uses, use{eff: effAsk, opt: name, why: fmt.Sprintf("the value %q of %s looks like an option", val, name)})
	}
}

// givenOpt is one option as given: its canonical name (the table's first
// name for it) and its value.
type givenOpt struct{ opt, val string }

// record adds what one option does.
func (g *grammar) record(pc *parsedCmd, o optionSpec, name, val string, hasVal bool) {
	for _, n := range o.names {
		pc.values = append(pc.values, givenOpt{n, val})
	}
	pc.modes |= o.eff &^ (valueRoles | effAsk | effDeny | effSelf | effCode)
	if o.eff&effDirs != 0 && strings.HasPrefix(val, "rec") {
		pc.modes |= effRecurse
	}
	for _, r := range []effect{effRead, effMeta, effWrite, effRun, effShell, effReadNames, effCwd, effReadTree} {
		if o.eff&r == 0 {
			continue
		}
		if !hasVal && r&(effRun|effShell) != 0 {
			// A flag that runs a fixed program (diff --paginate runs pr).
			pc.uses = append(pc.uses, use{eff: r, opt: name, why: o.why})
			continue
		}
		if hasVal {
			pc.uses = append(pc.uses, use{eff: r, word: val, opt: name, why: o.why})
		}
	}
	for _, r := range []effect{effAsk, effDeny, effSelf, effCode} {
		if o.eff&r != 0 {
			pc.uses = append(pc.uses, use{eff: r, word: val, opt: name, why: o.why})
		}
	}
}

// parseShort reads a cluster of short options at args[i] and returns the
// index of the last word it used.
func (g *grammar) parseShort(pc *parsedCmd, args []string, i int) int {
	a := args[i]
	next := i // tree: the values of a cluster's letters are the next words, in turn
	for j := 1; j < len(a); j++ {
		c := a[j]
		idx, ok := g.short[c]
		if !ok {
			if j == 1 {
				pc.unknown = append(pc.unknown, a)
			} else {
				pc.unknown = append(pc.unknown, fmt.Sprintf("-%c (in %s)", c, a))
			}
			return max(i, next)
		}
		o := g.opts[idx]
		name := "-" + string(c)
		if full := o.longName(); full != "" {
			name += " (" + full + ")"
		}
		switch o.arg {
		case argNone:
			g.record(pc, o, name, "", false)
			continue
		case argOptional:
			if g.rules == rulesTree || !g.shortOptional[c] {
				g.record(pc, o, name, "", false)
				continue
			}
			rest := a[j+1:]
			g.record(pc, o, name, rest, rest != "")
			return max(i, next)
		case argRequired, argTwo:
			if g.rules == rulesTree {
				if next+1 >= len(args) {
					pc.unknown = append(pc.unknown, name+" (no value)")
					return len(args) - 1
				}
				next++
				g.checkSeparateValue(pc, name, args[next])
				g.record(pc, o, name, args[next], true)
				continue
			}
			if rest := a[j+1:]; rest != "" {
				if g.rules == rulesExactPOSIX {
					// git -c NAME=VALUE, -C PATH: the next word only.
					pc.unknown = append(pc.unknown, a)
					return i
				}
				if g.rules == rulesExact && strings.HasPrefix(rest, "=") {
					rest = rest[1:] // clap reads -g=GLOB as -g GLOB
				}
				g.record(pc, o, name, rest, true)
				return i
			}
			if i+1 >= len(args) {
				pc.unknown = append(pc.unknown, name+" (no value)")
				return i
			}
			g.checkSeparateValue(pc, name, args[i+1])
			g.record(pc, o, name, args[i+1], true)
			return i + 1
		}
	}
	return max(i, next)
}

// assignOperands gives each operand its role.
func (g *grammar) assignOperands(pc *parsedCmd, ops []string) {
	roles, repeat := g.operands, g.repeatLast
	if len(roles) > 0 && roles[0] == opdPattern && pc.modes&effPattern != 0 {
		// -e PATTERN or -f FILE gave the pattern: every operand is a file.
		roles = roles[1:]
		if len(roles) == 0 && repeat {
			roles = []operandRole{opdRead}
		}
	}
	if pc.operands == nil {
		pc.operands = make([]operand, 0, len(ops))
	}
	for n, w := range ops {
		r := opdText
		switch {
		case n < len(roles):
			r = roles[n]
		case repeat && len(roles) > 0:
			r = roles[len(roles)-1]
		}
		switch r {
		case opdCommand:
			pc.command = append([]string(nil), ops[n:]...)
			return
		case opdPattern:
			r = opdText
		case opdFilter:
			if pc.modes&effProgFile != 0 {
				r = opdRead
			}
			if pc.modes&effNoFiles != 0 {
				// jq --args: every operand after the filter is a string.
				pc.operands = append(pc.operands, operand{w, r})
				for _, rest := range ops[n+1:] {
					pc.operands = append(pc.operands, operand{rest, opdText})
				}
				return
			}
		}
		pc.operands = append(pc.operands, operand{w, r})
	}
}
