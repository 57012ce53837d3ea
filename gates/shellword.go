package gates

import (
	"encoding/base64"
	"slices"
	"strconv"
	"strings"
	"unicode/utf8"

	"mvdan.cc/sh/v3/syntax"
)

// word is a shell word as bash would see it after quote removal: its
// static value, whether any part could not be known before it runs (a
// variable without a known value, a command substitution that is not a
// plain echo), and whether an unquoted expansion made it subject to field
// splitting.
type word struct {
	val   string
	dyn   bool
	split bool
}

// evalWord computes a word's value with the analyzer's known variables.
// Quoting is removed exactly as bash does (`r”m`, `r\m`, `"r"m`, $'\x72m'
// all give "rm"), and command substitutions are analysed as commands of
// their own while their output is computed when it is static.
func (s *shellAnalyzer) evalWord(w *syntax.Word) word {
	var b wordBuilder
	if w == nil {
		return b.w
	}
	for _, p := range w.Parts {
		s.evalPart(p, false, &b)
	}
	s.braceExpansion(w)
	return b.done()
}

// braceExpansion refuses a word whose brace expansion makes more words
// than the shell can hold (maxBraceWords).
func (s *shellAnalyzer) braceExpansion(w *syntax.Word) {
	// A group needs an unquoted { and, in some unquoted part, a , or a
	// .. (most words have neither): first a search for the { alone, then
	// one pass over each literal's bytes for the rest.
	open, sep := false, false
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok && strings.IndexByte(l.Value, '{') >= 0 {
			open = true
			break
		}
	}
	if !open {
		return
	}
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			v := l.Value
			for i := 0; i < len(v); i++ {
				switch v[i] {
				case '{':
					open = true
				case ',':
					sep = true
				case '.':
					sep = sep || i+1 < len(v) && v[i+1] == '.'
				}
			}
		}
	}
	if !open || !sep {
		return
	}
	var text strings.Builder
	for _, p := range w.Parts {
		if l, ok := p.(*syntax.Lit); ok {
			text.WriteString(l.Value)
		} else {
			text.WriteByte('x') // a quoted or expanded part: one piece of a word
		}
	}
	if n := braceWords(text.String()); n > maxBraceWords {
		s.deny("a brace expansion makes more than ten million words (%.3g), which the shell builds in memory before anything runs: it exhausts the machine", n)
	}
}

// wordBuilder gathers the pieces of a word's value and joins them once at
// the end: a word of many parts ("PID: $pid, $cmdline") would otherwise
// build a string per part.
type wordBuilder struct {
	w     word // dyn and split; val is set by done
	parts [8]string
	n     int
	more  []string
	size  int
}

func (b *wordBuilder) add(v string) {
	if v == "" {
		return
	}
	b.size += len(v)
	if b.n < len(b.parts) {
		b.parts[b.n] = v
		b.n++
		return
	}
	b.more = append(b.more, v)
}

// done returns the word, its value the pieces in order.
func (b *wordBuilder) done() word {
	switch {
	case b.n == 0:
	case b.n == 1:
		b.w.val = b.parts[0]
	default:
		var sb strings.Builder
		sb.Grow(b.size)
		for _, p := range b.parts[:b.n] {
			sb.WriteString(p)
		}
		for _, p := range b.more {
			sb.WriteString(p)
		}
		b.w.val = sb.String()
	}
	return b.w
}

func (s *shellAnalyzer) evalPart(p syntax.WordPart, quoted bool, out *wordBuilder) {
	switch x := p.(type) {
	case *syntax.Lit:
		if quoted {
			out.add(unescapeDouble(x.Value))
		} else {
			out.add(unescapeBare(x.Value))
		}
	case *syntax.SglQuoted:
		if x.Dollar {
			out.add(decodeANSIC(x.Value))
		} else {
			out.add(x.Value)
		}
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			s.evalPart(q, true, out)
		}
	case *syntax.ParamExp:
		v, ok := s.param(x)
		if !ok {
			out.w.dyn = true
			out.add(dynMarker)
			return
		}
		out.add(v)
		if !quoted {
			out.w.split = true
		}
	case *syntax.CmdSubst:
		v, ok := s.substitute(x.Stmts)
		if !ok {
			out.w.dyn = true
			out.add(dynMarker)
			return
		}
		out.add(v)
		if !quoted {
			out.w.split = true
		}
	case *syntax.ArithmExp:
		s.arith(x.X)
		out.w.dyn = true
		out.add("0")
	case *syntax.ProcSubst:
		s.subshell(x.Stmts)
		if x.Op == syntax.CmdIn {
			if what, endless := s.compoundEndless(&syntax.Block{Stmts: x.Stmts}, stdinSrc{}); endless {
				s.argEndless = what
			}
		}
		out.add("/dev/fd/63")
	case *syntax.ExtGlob:
		out.add(x.Op.String() + x.Pattern.Value + ")")
		out.w.dyn = true
	default:
		out.w.dyn = true
		out.add(dynMarker)
	}
}

// numeric says whether v is a (possibly empty) run of decimal digits,
// signed or not.
func numeric(v string) bool {
	for v != "" && (v[0] == '+' || v[0] == '-') {
		v = v[1:]
	}
	return v == "" || isDigits(v)
}

// wordIsNum says whether a word is a number when it runs (see
// varVal.num): digits, arithmetic, numeric parameters and variables,
// $(printf '%d' …).
func (s *shellAnalyzer) wordIsNum(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if !s.partIsNum(p) {
			return false
		}
	}
	return true
}

// unknownIsNum says whether every part of a word known only when it runs
// is a number (literal parts may be anything): such a word, used as a
// variable's name, can hold no subscript its unknown parts brought in.
func (s *shellAnalyzer) unknownIsNum(parts []syntax.WordPart) bool {
	for _, p := range parts {
		switch x := p.(type) {
		case *syntax.Lit, *syntax.SglQuoted:
		case *syntax.DblQuoted:
			if !s.unknownIsNum(x.Parts) {
				return false
			}
		case *syntax.ParamExp:
			if x.Param == nil {
				return false
			}
			plain := !x.Excl && !x.Length && !x.Width && x.Index == nil && x.Slice == nil && x.Repl == nil && x.Exp == nil
			known := plain && s.current(x.Param.Value).ok && !slices.Contains(s.namerefs, x.Param.Value)
			if !known && !s.paramIsNum(x) {
				return false
			}
		default:
			if !s.partIsNum(p) {
				return false
			}
		}
	}
	return true
}

func (s *shellAnalyzer) partIsNum(p syntax.WordPart) bool {
	switch x := p.(type) {
	case *syntax.Lit:
		return numeric(x.Value)
	case *syntax.SglQuoted:
		return !x.Dollar && numeric(x.Value)
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			if !s.partIsNum(q) {
				return false
			}
		}
		return true
	case *syntax.ParamExp:
		return s.paramIsNum(x)
	case *syntax.CmdSubst:
		return s.printsNumber(x.Stmts)
	case *syntax.ArithmExp:
		return true
	}
	return false
}

// printsNumber says whether statements are one printf whose format
// prints only numbers (%d, %i, %u, %o, with flags and widths) and digits,
// spaces or newlines: $(printf '%d' "'$c") is a number, whatever c is.
func (s *shellAnalyzer) printsNumber(stmts []*syntax.Stmt) bool {
	if len(stmts) != 1 {
		return false
	}
	call, ok := stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(call.Args) < 2 || len(stmts[0].Redirs) > 0 || call.Args[0].Lit() != "printf" {
		return false
	}
	f := s.peekWord(call.Args[1])
	if f.dyn || !strings.Contains(f.val, "%") {
		return false
	}
	format := strings.ReplaceAll(f.val, `\n`, "\n")
	for i := 0; i < len(format); i++ {
		c := format[i]
		switch {
		case c == '%':
			i++
			for i < len(format) && strings.IndexByte("0123456789 +-#.", format[i]) >= 0 {
				i++
			}
			if i >= len(format) || strings.IndexByte("diuo", format[i]) < 0 {
				return false
			}
		case c >= '0' && c <= '9', c == ' ', c == '\n':
		default:
			return false
		}
	}
	return true
}

// numericParams are bash's parameters whose value is always a number.
var numericParams = map[string]bool{
	"#": true, "?": true, "$": true, "!": true, "RANDOM": true, "SRANDOM": true, "SECONDS": true,
	"LINENO": true, "BASHPID": true, "PPID": true, "UID": true, "EUID": true, "OPTIND": true,
	"COLUMNS": true, "LINES": true, "SHLVL": true, "EPOCHSECONDS": true,
}

// paramIsNum says whether an expansion param left unknown is a number
// when it runs: ${#x}, a numeric parameter, a variable whose value is.
func (s *shellAnalyzer) paramIsNum(x *syntax.ParamExp) bool {
	if x.Param == nil {
		return false
	}
	if x.Length || numericParams[x.Param.Value] {
		return true
	}
	// A plain expansion, or an element (of an array of numbers, or of a
	// number), with or without a default.
	plain := !x.Excl && !x.Width && x.Slice == nil && x.Repl == nil && x.Names == 0
	if !plain {
		return false
	}
	if x.Exp != nil {
		// ${x:-0}: the variable's value or the word, both numbers.
		if x.Exp.Op != syntax.DefaultUnset && x.Exp.Op != syntax.DefaultUnsetOrNull || x.Exp.Word == nil {
			return false
		}
		return s.wordIsNum(x.Exp.Word) && isNumber(s.current(x.Param.Value)) &&
			!slices.Contains(s.namerefs, x.Param.Value)
	}
	if slices.Contains(s.namerefs, x.Param.Value) {
		return false
	}
	return isNumber(s.current(x.Param.Value))
}

// dynMarker stands in a word for a part whose value is unknown; it can
// never be part of a real path or command name.
const dynMarker = "\x00?"

// param resolves $name / ${name}; anything with an operation on it, an
// unknown variable or a positional parameter without a binding is unknown.
func (s *shellAnalyzer) param(x *syntax.ParamExp) (string, bool) {
	if x.Param == nil {
		return "", false
	}
	name := x.Param.Value
	if x.Excl || x.Length || x.Width || x.Index != nil || x.Slice != nil || x.Repl != nil || x.Exp != nil {
		s.paramOp(name, x)
		return "", false
	}
	if name == "IFS" {
		return " ", true
	}
	v := s.lookup(name)
	if !v.ok {
		return "", false
	}
	return v.val, true
}

// paramOp analyses what an expansion with an operation runs or sets: the
// substitutions in its words, its subscript and offsets (arithmetic), the
// assignment of ${x:=word}, and the prompt expansion of ${x@P}, which runs
// the command substitutions the value holds.
func (s *shellAnalyzer) paramOp(name string, x *syntax.ParamExp) {
	if x.Excl && x.Names == 0 && x.Index == nil {
		// ${!x} expands the variable x names, and the subscript in that
		// name: x='a[$(rm -rf ~)]' runs rm.
		switch v := s.lookup(name); {
		case v.ok:
			s.variableName(v.val, false)
		case !isNumber(v):
			s.deny("${!%s} expands a variable named only when it runs: a subscript in the name would run a command", name)
		}
	}
	s.subscript(name, x.Index)
	if x.Slice != nil {
		s.arith(x.Slice.Offset)
		s.arith(x.Slice.Length)
	}
	if x.Repl != nil {
		s.evalWord(x.Repl.Orig)
		s.evalWord(x.Repl.With)
	}
	if x.Exp == nil {
		return
	}
	var w word
	if x.Exp.Word != nil {
		w = s.evalWord(x.Exp.Word) // analyse substitutions inside ${x:-$(…)}
	}
	switch x.Exp.Op {
	case syntax.AssignUnset, syntax.AssignUnsetOrNull:
		// It assigns when the variable is unset (or, with :=, empty):
		// unknown unless it is known set (and not empty).
		if v := s.lookup(name); !v.ok || x.Exp.Op == syntax.AssignUnsetOrNull && v.val == "" {
			s.checkEnvVar(name, w)
			s.refAssigned(name, varVal{val: w.val, ok: v.ok && !w.dyn})
			s.setVar(name, varVal{val: w.val, ok: v.ok && !w.dyn})
		}
	case syntax.OtherParamOps:
		if x.Exp.Word == nil || x.Exp.Word.Lit() != "P" {
			return
		}
		switch v := s.lookup(name); {
		case !v.ok:
			s.deny("${%s@P} expands a value known only when it runs as a prompt, running the commands it holds", name)
		case mayHoldSubstitution(v.val):
			s.payload(v.val, "${"+name+"@P}")
		}
	}
}

// substitute analyses the statements of $(…) and returns their output when
// it is statically known: echo/printf of static words, optionally piped
// through base64 -d (the usual way to hide a verb).
func (s *shellAnalyzer) substitute(stmts []*syntax.Stmt) (string, bool) {
	if len(stmts) == 0 {
		s.deny("an empty command substitution $( ) is malformed; refusing to guess what runs")
		return "", false
	}
	s.subshell(stmts)
	if !s.quiet {
		if what, endless := s.substEndless(stmts); endless {
			s.deny("a command substitution captures an endless stream (%s), which bash holds in memory: it exhausts the machine", what)
		}
	}
	if len(stmts) != 1 {
		return "", false
	}
	st := stmts[0]
	var room [8]*syntax.Stmt
	stages := collectPipe(st, room[:0])
	text, ok := "", false
	for i, stg := range stages {
		call, isCall := stg.Cmd.(*syntax.CallExpr)
		if !isCall || len(call.Args) == 0 || len(stg.Redirs) > 0 {
			return "", false
		}
		argv := make([]string, 0, len(call.Args))
		for _, a := range call.Args {
			w := s.peekWord(a)
			if w.dyn {
				return "", false
			}
			argv = append(argv, w.val)
		}
		switch {
		case i == 0 && argv[0] == "echo":
			args := argv[1:]
			for len(args) > 0 && (args[0] == "-n" || args[0] == "-e" || args[0] == "-ne" || args[0] == "-en") {
				args = args[1:]
			}
			text, ok = strings.Join(args, " "), true
		case i == 0 && argv[0] == "printf" && len(argv) >= 2:
			if len(argv) == 2 {
				text = argv[1]
			} else {
				text = strings.Join(argv[2:], "")
			}
			ok = true
		case i > 0 && argv[0] == "base64" && hasFlag(argv[1:], "-d", "--decode", "-D"):
			dec, err := base64.StdEncoding.DecodeString(strings.TrimSpace(text))
			if err != nil {
				return "", false
			}
			text = string(dec)
		default:
			return "", false
		}
	}
	return strings.TrimRight(text, "\n"), ok
}

// peekWord evaluates a word without analysing its substitutions again.
func (s *shellAnalyzer) peekWord(w *syntax.Word) word {
	saved := s.quiet
	s.quiet = true
	v := s.evalWord(w)
	s.quiet = saved
	return v
}

func hasFlag(args []string, flags ...string) bool {
	for _, a := range args {
		for _, f := range flags {
			if a == f {
				return true
			}
		}
	}
	return false
}

// unescapeBare removes backslashes as bash does outside quotes: "\x" is x,
// and a backslash-newline joins lines.
func unescapeBare(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// unescapeDouble removes the backslashes that double quotes honour: before
// $ ` " \ and newline.
func unescapeDouble(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '\\' && i+1 < len(s) && strings.IndexByte("$`\"\\\n", s[i+1]) >= 0 {
			i++
			if s[i] == '\n' {
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// decodeANSIC decodes the body of $'…' as bash does.
func decodeANSIC(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c != '\\' || i+1 >= len(s) {
			b.WriteByte(c)
			continue
		}
		i++
		switch e := s[i]; e {
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'a':
			b.WriteByte('\a')
		case 'b':
			b.WriteByte('\b')
		case 'e', 'E':
			b.WriteByte(0x1b)
		case 'f':
			b.WriteByte('\f')
		case 'v':
			b.WriteByte('\v')
		case '\\', '\'', '"', '?':
			b.WriteByte(e)
		case 'x':
			j := i + 1
			for j < len(s) && j < i+3 && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteString(`\x`)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 8)
			b.WriteByte(byte(n))
			i = j - 1
		case 'u', 'U':
			max := 4
			if e == 'U' {
				max = 8
			}
			j := i + 1
			for j < len(s) && j < i+1+max && isHex(s[j]) {
				j++
			}
			if j == i+1 {
				b.WriteByte('\\')
				b.WriteByte(e)
				continue
			}
			n, _ := strconv.ParseUint(s[i+1:j], 16, 32)
			if n > utf8.MaxRune {
				n = utf8.RuneError
			}
			b.WriteRune(rune(n))
			i = j - 1
		case 'c':
			if i+1 < len(s) {
				i++
				b.WriteByte(s[i] & 0x1f)
			}
		default:
			if e >= '0' && e <= '7' {
				j := i
				for j < len(s) && j < i+3 && s[j] >= '0' && s[j] <= '7' {
					j++
				}
				n, _ := strconv.ParseUint(s[i:j], 8, 16)
				b.WriteByte(byte(n))
				i = j - 1
				continue
			}
			b.WriteByte('\\')
			b.WriteByte(e)
		}
	}
	return b.String()
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
