package gates

import (
	"fmt"
	"math"
	"slices"
	"strconv"
	"strings"

	"mvdan.cc/sh/v3/syntax"
)

// Resource abuse: a command that fills the disk (an endless stream written
// to a file, a multi-gigabyte allocation) is refused; fork bombs and
// endless loops are refused by the shell analysis itself. The sandbox
// bounds CPU time, file size and process count as well; the gates refuse
// what would only ever hit those bounds.

// maxWriteBytes is the most one command may set out to write to a file.
const maxWriteBytes = 1 << 30

// endlessDevices produce bytes forever (the terminal as long as someone
// types: a character device that is not known to end). Any other device a
// command reads is outside the roots and asks.
var endlessDevices = map[string]bool{"/dev/zero": true, "/dev/urandom": true, "/dev/random": true, "/dev/full": true, "/dev/tty": true}

// unboundedOutput says whether a command writes an endless (or huge)
// stream to its standard output, and what it is. in is what its standard
// input is: a filter of an endless stream is endless too, unless it stops
// early (head, sed q…).
func unboundedOutput(argv []string, in stdinSrc) (string, bool) {
	argv, _ = unwrap(argv)
	if len(argv) == 0 {
		return "", false
	}
	verb := verbName(argv)
	args := argv[1:]
	switch verb {
	case "yes":
		return "yes prints forever", true
	case "head":
		if n, ok := headLimit(args); ok {
			return "head of more than a gigabyte", n > maxWriteBytes
		}
		return "", false
	case "dd":
		return "", false // judged by dd itself
	case "seq":
		if n, ok := seqCount(args); ok && n > 1e8 {
			return "seq of more than a hundred million numbers", true
		}
	case "openssl":
		if len(args) >= 2 && args[0] == "rand" {
			if n, ok := parseSize(args[len(args)-1]); ok && n > maxWriteBytes {
				return "openssl rand of more than a gigabyte", true
			}
		}
	}
	if what, huge := amplifiedOutput(verb, args); huge {
		return what, true
	}
	for _, a := range args {
		if wordPrinters[verb] {
			break
		}
		if endlessDevices[a] || endlessDevices[strings.TrimPrefix(a, "if=")] {
			return verb + " of " + a + ", which never ends", true
		}
	}
	if in.unbounded {
		return in.what, true
	}
	return "", false
}

// streamingVerbs read an endless stream in bounded memory: each byte is
// passed on or counted and forgotten (measured on /dev/zero, which has no
// line end: a few MB each). What any other program the grammars know does
// with an endless stream is not known to be bounded: sort, tail, uniq,
// nl, column, sed, cut -d, grep -a and jq keep the line they are in, or
// every line, and grew to gigabytes in seconds (sort /dev/zero: 1.2 GB
// in 3 s); the sandbox bounds time, not memory.
var streamingVerbs = map[string]bool{
	"cat": true, "tr": true, "head": true, "base64": true, "base32": true, "basenc": true, "od": true,
	"xxd": true, "hexdump": true, "fold": true, "strings": true, "wc": true, "cmp": true, "md5sum": true,
	"sha1sum": true, "sha224sum": true, "sha256sum": true, "sha384sum": true, "sha512sum": true,
	"b2sum": true, "cksum": true, "sum": true, "dd": true, "tee": true,
}

// wordPrinters print their words and open none of them: echo /dev/zero
// prints a name.
var wordPrinters = map[string]bool{"echo": true, "printf": true}

// hoardingBuiltins are the builtins that read their input into variables.
var hoardingBuiltins = map[string]bool{"read": true, "mapfile": true, "readarray": true}

// hoardsEndless refuses a program the grammars know, not one that
// streams, given an endless stream: as an operand (sort /dev/zero) or as
// its input (cat /dev/zero | sort, seq inf | tail -1).
func (s *shellAnalyzer) hoardsEndless(argv []string, in stdinSrc) {
	if s.quiet || len(argv) < 2 && !in.unbounded {
		return
	}
	what := ""
	if in.unbounded {
		what = in.what
	}
	for _, a := range argv[1:] {
		if wordPrinters[verbName(argv)] {
			break
		}
		if dev, ok := endlessDevice(strings.TrimPrefix(a, "if=")); ok {
			what = dev
		}
	}
	if what == "" {
		return
	}
	argv, _ = unwrap(argv)
	if len(argv) == 0 {
		return
	}
	verb := verbName(argv)
	if streamingVerbs[verb] {
		return
	}
	if hoardingBuiltins[verb] {
		// read -r x < /dev/urandom, mapfile < /dev/zero: the line read
		// into the variable may never end. read -n N / -N N stop.
		if verb == "read" && slices.ContainsFunc(argv[1:], func(a string) bool {
			return len(a) > 1 && a[0] == '-' && strings.ContainsAny(a, "nN")
		}) {
			return
		}
		s.deny("%s reads an endless stream (%s) into a variable, which holds it in memory: it exhausts the machine", verb, what)
		return
	}
	if _, known, _ := grammarFor(verb); !known {
		return // asked as a program the gates do not know, or judged by its own rules
	}
	s.deny("%s is given an endless stream (%s), which it holds in memory: it exhausts the machine", verb, what)
}

// maxFieldWidth is the widest field a format may pad one value to: a
// command that pads a value to more than a megabyte (printf
// '%2000000000s', date +%2000000000Y, nl -w 2000000000, stat --printf,
// find -printf, seq -f) writes gigabytes from a few bytes of input.
const maxFieldWidth = 1 << 20

// amplifiedOutput says whether a program's options or operands make it
// write far more than it reads: a format's field width or precision, a
// number's width, a jq program that never ends or repeats a string
// without bound.
func amplifiedOutput(verb string, args []string) (string, bool) {
	var formats []string
	numberWidth := ""
	switch verb {
	case "printf":
		return printfOutput(args)
	case "find":
		for i, a := range args {
			if (a == "-printf" || a == "-fprintf") && i+1 < len(args) {
				formats = append(formats, args[i+1])
				if a == "-fprintf" && i+2 < len(args) {
					formats = append(formats, args[i+2])
				}
			}
		}
	case "nl", "seq", "date", "stat", "jq":
		g, ok, _ := grammarFor(verb)
		if !ok {
			return "", false
		}
		pc := g.parse(args)
		for _, v := range pc.values {
			switch v.opt {
			case "-w", "--number-width":
				if verb == "nl" {
					numberWidth = v.val
				}
			case "-f", "--format", "-c", "--printf":
				if verb != "jq" {
					formats = append(formats, v.val)
				}
			}
		}
		for _, o := range pc.operands {
			switch {
			case verb == "date" && strings.HasPrefix(o.word, "+"):
				formats = append(formats, o.word[1:])
			case verb == "jq" && o.role == opdFilter:
				if what, ok := jqEndless(o.word); ok {
					return what, true
				}
			}
		}
		if verb == "seq" {
			if n, ok := seqCount(args); ok {
				width := 0.0
				for _, f := range formats {
					w, _ := formatWidth(f)
					width = math.Max(width, w)
				}
				sep := 1.0
				for _, v := range pc.values {
					if v.opt == "-s" || v.opt == "--separator" {
						sep = float64(len(v.val))
					}
				}
				if n*(width+sep) > maxWriteBytes {
					return "seq of more than a gigabyte", true
				}
			}
		}
	}
	if n, err := strconv.ParseFloat(numberWidth, 64); err == nil && n > maxFieldWidth {
		return verb + " numbering in a field more than a megabyte wide", true
	}
	for _, f := range formats {
		if w, _ := formatWidth(f); w > maxFieldWidth {
			return verb + " padding a field to more than a megabyte", true
		}
	}
	return "", false
}

// printfOutput judges printf FORMAT ARGS: its format is used again while
// arguments remain, each field padded to its width, a * width taken from
// the arguments.
func printfOutput(args []string) (string, bool) {
	if len(args) > 0 && args[0] == "--" {
		args = args[1:]
	}
	if len(args) > 0 && args[0] == "-v" {
		args = args[min(2, len(args)):]
	}
	if len(args) == 0 {
		return "", false
	}
	width, star := formatWidth(args[0])
	rest := args[1:]
	if star {
		for _, a := range rest {
			if n, err := strconv.ParseFloat(a, 64); err == nil && math.Abs(n) > maxFieldWidth {
				return "printf padding a field to more than a megabyte", true
			}
		}
	}
	convs := float64(max(1, strings.Count(args[0], "%")-2*strings.Count(args[0], "%%")))
	passes := math.Max(1, math.Ceil(float64(len(rest))/convs))
	if width > maxFieldWidth || width*passes > maxWriteBytes {
		return "printf padding a field to more than a megabyte", true
	}
	return "", false
}

// formatWidth returns the widest field width or precision a printf-style
// format (printf, seq -f, stat --printf, find -printf, date +FORMAT)
// pads to, and whether one is taken from the arguments (*).
func formatWidth(f string) (float64, bool) {
	widest, star := 0.0, false
	for i := 0; i < len(f); i++ {
		if f[i] != '%' {
			continue
		}
		i++
		if i < len(f) && f[i] == '%' {
			continue
		}
		for i < len(f) && strings.IndexByte("-+ #0'_^:", f[i]) >= 0 {
			i++
		}
		for part := 0; part < 2; part++ {
			j := i
			for j < len(f) && f[j] >= '0' && f[j] <= '9' {
				j++
			}
			if j > i {
				n, _ := strconv.ParseFloat(f[i:j], 64)
				widest = math.Max(widest, n)
			} else if j < len(f) && f[j] == '*' {
				star = true
				j++
			}
			i = j
			if part == 0 && i < len(f) && f[i] == '.' {
				i++
				continue
			}
			break
		}
		i--
	}
	return widest, star
}

// jqEndless says whether a jq program writes without end or repeats a
// string without bound: repeat and infinite never end, and range, limit
// or a string multiplied by a number of more than a million make more
// than a megabyte from nothing. A program that only may not end (while,
// until, recursion) is left to the sandbox's bound on a file's size.
func jqEndless(prog string) (string, bool) {
	for i := 0; i < len(prog); i++ {
		c := prog[i]
		switch {
		case c == '_' || c >= 'a' && c <= 'z' || c >= 'A' && c <= 'Z':
			j := i
			for j < len(prog) && (prog[j] == '_' || prog[j] >= 'a' && prog[j] <= 'z' || prog[j] >= 'A' && prog[j] <= 'Z' || prog[j] >= '0' && prog[j] <= '9') {
				j++
			}
			if w := prog[i:j]; (w == "repeat" || w == "infinite") && (i == 0 || prog[i-1] != '.' && prog[i-1] != '$') {
				return "jq's " + w + ", which never ends", true
			}
			i = j - 1
		case c >= '0' && c <= '9':
			j := i
			for j < len(prog) && (prog[j] >= '0' && prog[j] <= '9' || prog[j] == '.' || prog[j] == 'e' || prog[j] == 'E' || (prog[j] == '+' || prog[j] == '-') && (prog[j-1] == 'e' || prog[j-1] == 'E')) {
				j++
			}
			n, err := strconv.ParseFloat(prog[i:j], 64)
			if err == nil && n > maxFieldWidth {
				before := strings.TrimRight(prog[:i], " \t\n")
				after := strings.TrimLeft(prog[j:], " \t\n")
				if strings.HasSuffix(before, "*") || strings.HasPrefix(after, "*") || strings.HasSuffix(before, "range(") || strings.HasSuffix(before, "limit(") || strings.HasSuffix(before, ";") && strings.Contains(before, "range(") {
					return "jq making more than a million values or bytes", true
				}
			}
			i = j - 1
		}
	}
	return "", false
}

// headLimit returns how many bytes (or lines, counted as bytes: at least
// one each) head passes on, when it is given a count.
func headLimit(args []string) (float64, bool) {
	for i := 0; i < len(args); i++ {
		a := args[i]
		v := ""
		switch {
		case a == "-c" || a == "-n" || a == "--bytes" || a == "--lines":
			if i+1 < len(args) {
				v = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--bytes=") || strings.HasPrefix(a, "--lines="):
			v, _ = optValue(a)
		case strings.HasPrefix(a, "-c") || strings.HasPrefix(a, "-n"):
			v = a[2:]
		case isNumericOption(a):
			v = a[1:]
		default:
			continue
		}
		if strings.HasPrefix(v, "-") {
			return 0, false // all but the last N: as long as the input
		}
		if n, ok := parseSize(v); ok {
			return n, true
		}
	}
	return 10, true // head's default: ten lines
}

// seqCount returns how many numbers seq prints.
func seqCount(args []string) (float64, bool) {
	var nums []float64
	for _, a := range args {
		if strings.HasPrefix(a, "-") && len(a) > 1 && (a[1] < '0' || a[1] > '9') && a[1] != '.' {
			continue
		}
		f, err := strconv.ParseFloat(a, 64)
		if err != nil {
			if strings.EqualFold(strings.TrimLeft(a, "+-"), "inf") || strings.EqualFold(strings.TrimLeft(a, "+-"), "infinity") {
				return math.Inf(1), true
			}
			continue
		}
		nums = append(nums, f)
	}
	first, step, last := 1.0, 1.0, 0.0
	switch len(nums) {
	case 1:
		last = nums[0]
	case 2:
		first, last = nums[0], nums[1]
	case 3:
		first, step, last = nums[0], nums[1], nums[2]
	default:
		return 0, false
	}
	if step == 0 {
		return math.Inf(1), true
	}
	return math.Max(0, (last-first)/step+1), true
}

// parseSize reads a size as coreutils do: a number with an optional
// suffix (K M G T P E, powers of 1024; KB MB GB…, powers of 1000; KiB…).
func parseSize(s string) (float64, bool) {
	s = strings.TrimSpace(s)
	i := 0
	for i < len(s) && (s[i] >= '0' && s[i] <= '9' || s[i] == '.' || s[i] == '+' || i == 0 && s[i] == '-') {
		i++
	}
	n, err := strconv.ParseFloat(s[:i], 64)
	if err != nil {
		return 0, false
	}
	suffix := strings.ToUpper(s[i:])
	if suffix == "" {
		return n, true
	}
	mult := 1024.0
	switch {
	case strings.HasSuffix(suffix, "IB"):
		suffix = strings.TrimSuffix(suffix, "IB")
	case strings.HasSuffix(suffix, "B") && len(suffix) == 2:
		mult = 1000
		suffix = suffix[:1]
	case suffix == "B":
		return n * 512, true // dd and du: 512-byte blocks
	case suffix == "C" || suffix == "W":
		return n, true
	}
	exp := strings.Index("KMGTPEZY", suffix)
	if exp < 0 || len(suffix) != 1 {
		return 0, false
	}
	return n * math.Pow(mult, float64(exp+1)), true
}

// sizedWrite judges fallocate and truncate: a file of more than a
// gigabyte fills the disk.
func (s *shellAnalyzer) sizedWrite(verb string, args []string) {
	size := ""
	var files []string
	for i := 0; i < len(args); i++ {
		a := args[i]
		switch {
		case a == "-l" || a == "--length" || a == "-s" || a == "--size":
			if i+1 < len(args) {
				size = args[i+1]
				i++
			}
		case strings.HasPrefix(a, "--length=") || strings.HasPrefix(a, "--size="):
			size, _ = optValue(a)
		case (strings.HasPrefix(a, "-l") || strings.HasPrefix(a, "-s")) && len(a) > 2:
			size = a[2:]
		case a == "-o" || a == "--offset" || a == "-r" || a == "--reference":
			i++
		case strings.HasPrefix(a, "-"):
		default:
			files = append(files, a)
		}
	}
	if n, ok := parseSize(strings.TrimLeft(size, "+<>/%")); ok && n > maxWriteBytes {
		s.deny("%s makes a file of %s: it fills the disk", verb, humanBytes(n))
	}
	for _, f := range files {
		s.touch(f, opWrite, verb+" changes")
		s.wrote = true
	}
}

func humanBytes(n float64) string {
	switch {
	case n >= 1<<40:
		return fmt.Sprintf("%.0f TiB", n/(1<<40))
	case n >= 1<<30:
		return fmt.Sprintf("%.0f GiB", n/(1<<30))
	}
	return fmt.Sprintf("%.0f bytes", n)
}

// maxBraceWords is the most words one brace expansion may make: bash
// builds them all in memory before the command runs (echo
// {1..1000000000} exhausts the machine's memory, {a,b}{a,b}… thirty
// times makes a billion words).
const maxBraceWords = 1e7

// braceWords returns how many words bash's brace expansion makes of a
// word's text (its quoted parts given as plain letters): the product of
// its groups, a group's count the sum of its alternatives', a sequence's
// {X..Y[..STEP]} its length. The braces are matched once, in one pass.
func braceWords(s string) float64 {
	match := make([]int32, len(s))
	var open []int32
	for i := 0; i < len(s); i++ {
		match[i] = -1
		switch s[i] {
		case '\\':
			if i+1 < len(s) {
				i++
				match[i] = -1
			}
		case '{':
			open = append(open, int32(i))
		case '}':
			if n := len(open); n > 0 {
				match[open[n-1]] = int32(i)
				open = open[:n-1]
			}
		}
	}
	return braceRange(s, match, 0, len(s))
}

// braceRange counts the words of s[lo:hi]: the product of its groups.
func braceRange(s string, match []int32, lo, hi int) float64 {
	n := 1.0
	for i := lo; i < hi && n <= maxBraceWords; i++ {
		switch {
		case s[i] == '\\':
			i++
		case s[i] == '{' && match[i] >= 0 && int(match[i]) < hi:
			j := int(match[i])
			n *= braceGroup(s, match, i+1, j)
			i = j
		}
	}
	return n
}

// braceGroup counts the words of one {…} group's inside, s[lo:hi].
func braceGroup(s string, match []int32, lo, hi int) float64 {
	if n, ok := braceSequence(s[lo:hi]); ok {
		return n
	}
	sum, start, parts := 0.0, lo, 0
	for i := lo; i < hi; i++ {
		switch {
		case s[i] == '\\':
			i++
		case s[i] == '{' && match[i] >= 0 && int(match[i]) < hi:
			i = int(match[i])
		case s[i] == ',':
			sum += braceRange(s, match, start, i)
			start, parts = i+1, parts+1
		}
	}
	if parts == 0 {
		return braceRange(s, match, lo, hi) // {abc} is no group, but what it holds may be
	}
	return sum + braceRange(s, match, start, hi)
}

// braceSequence reads X..Y or X..Y..STEP, X and Y integers or single
// letters.
func braceSequence(inner string) (float64, bool) {
	f := strings.Split(inner, "..")
	if len(f) != 2 && len(f) != 3 {
		return 0, false
	}
	var a, b float64
	if x, err := strconv.ParseFloat(f[0], 64); err == nil && !strings.ContainsAny(f[0], ".eEnNiI") {
		y, err := strconv.ParseFloat(f[1], 64)
		if err != nil || strings.ContainsAny(f[1], ".eEnNiI") {
			return 0, false
		}
		a, b = x, y
	} else if len(f[0]) == 1 && len(f[1]) == 1 {
		a, b = float64(f[0][0]), float64(f[1][0])
	} else {
		return 0, false
	}
	step := 1.0
	if len(f) == 3 {
		st, err := strconv.ParseFloat(f[2], 64)
		if err != nil || strings.ContainsAny(f[2], ".eEnNiI") {
			return 0, false
		}
		if st = math.Abs(st); st > 0 {
			step = st
		}
	}
	return math.Floor(math.Abs(b-a)/step) + 1, true
}

// substEndless says whether what a command substitution captures never
// ends, and what it is: bash holds $(…)'s whole output in memory (x=$(cat
// /dev/urandom) grows until the machine runs out; /dev/zero's NULs are
// dropped, but reading them never ends). A pipeline's last stage is what
// is captured, given what the stages before it write; a stage whose
// standard output is redirected writes elsewhere (judged there).
func (s *shellAnalyzer) substEndless(stmts []*syntax.Stmt) (string, bool) {
	return s.outputEndless(stmts, stdinSrc{})
}

// outputEndless says whether what a list of statements writes on its
// standard output never ends, each reading first (a substitution's
// statements, a function's body).
func (s *shellAnalyzer) outputEndless(stmts []*syntax.Stmt, first stdinSrc) (string, bool) {
	for _, st := range stmts {
		if b, ok := st.Cmd.(*syntax.BinaryCmd); ok && (b.Op == syntax.AndStmt || b.Op == syntax.OrStmt) && len(st.Redirs) == 0 {
			if what, endless := s.outputEndless([]*syntax.Stmt{b.X, b.Y}, first); endless {
				return what, true
			}
			continue
		}
		var room [8]*syntax.Stmt
		stages := collectPipe(st, room[:0])
		in := first
		for i, stg := range stages {
			inner := stdinOf(stg, in)
			if i < len(stages)-1 {
				// Only whether the stage's output ends matters here.
				what, endless := s.stageEndless(stg, inner)
				in = stdinSrc{kind: stdinUntrusted, what: what, unbounded: endless}
				continue
			}
			if stdoutRedirected(stg) && s.stdoutRoute(stg).fd != 1 {
				// Written elsewhere (judged there); >/dev/stdout, 1>&1,
				// 3>&1 >&3 and >/dev/fd/1 are still the capture.
				break
			}
			if what, endless := s.stageEndless(stg, inner); endless {
				return what, true
			}
		}
	}
	return "", false
}

// stageEndless says whether one statement's output never ends, given what
// it reads: a program's (unboundedOutput, a descriptor it reads), a
// function's body's, a compound command's.
func (s *shellAnalyzer) stageEndless(st *syntax.Stmt, in stdinSrc) (string, bool) {
	call, ok := st.Cmd.(*syntax.CallExpr)
	if st.Cmd == nil || ok && len(call.Args) == 0 {
		// $(< /dev/zero): bash reads the file into the substitution.
		if in.unbounded {
			return in.what, true
		}
		return "", false
	}
	if !ok {
		return s.bodyEndless(st, in)
	}
	argv := s.substArgv(call)
	if len(argv) == 0 {
		return "", false
	}
	if what, endless := unboundedOutput(argv, in); endless {
		return what, true
	}
	if what, endless := fdArgEndless(argv, in.fds); endless {
		return what, true
	}
	if def := s.funcOf(argv[0]); def.body != nil {
		what, endless := s.bodyEndless(def.body, in)
		if !endless {
			return "", false
		}
		// Some command in the body prints an endless stream: whether
		// the body's output is, as a substitution's statements read
		// it (f(){ cat /dev/zero | head -c 5; } ends).
		var body []*syntax.Stmt
		switch c := def.body.Cmd.(type) {
		case *syntax.Block:
			body = c.Stmts
		case *syntax.Subshell:
			body = c.Stmts
		}
		if body == nil || len(def.body.Redirs) > 0 || s.flowDepth >= maxFlowDepth {
			return what, true
		}
		s.flowDepth++
		what, endless = s.outputEndless(body, in)
		s.flowDepth--
		return what, endless
	}
	return "", false
}

// stdoutRedirected says whether a statement's standard output goes to a
// file or descriptor its redirections name.
func stdoutRedirected(st *syntax.Stmt) bool {
	for _, r := range st.Redirs {
		switch r.Op {
		case syntax.RdrOut, syntax.AppOut, syntax.ClbOut, syntax.DplOut, syntax.RdrInOut:
			if r.N == nil && r.Op != syntax.RdrInOut || r.N != nil && r.N.Value == "1" {
				return true
			}
		case syntax.RdrAll, syntax.AppAll:
			return true
		}
	}
	return false
}

// substArgv is a call's words as quietArgv reads them, but a word holding
// a command or process substitution is known only when it runs, not
// evaluated again: every substitution is analysed once where it stands
// (and its own capture judged there), and evaluating a nested one again
// at each level cost the scripts that nest them a fifth of their
// analysis.
func (s *shellAnalyzer) substArgv(call *syntax.CallExpr) []string {
	argv := make([]string, 0, len(call.Args))
	for _, a := range call.Args {
		if wordHasSubst(a) {
			if fs, ok := s.substLiteral(a); ok {
				argv = append(argv, fs...) // $(echo /dev/zero)
			} else {
				argv = append(argv, dynMarker)
			}
			continue
		}
		w := s.peekWord(a)
		if w.split && !w.dyn {
			argv = append(argv, strings.Fields(w.val)...)
		} else {
			argv = append(argv, w.val)
		}
	}
	return argv
}

// substLiteral is what a word that is one command substitution, quoted
// or not, expands to when what it runs writes literal text ($(echo
// /dev/zero), "$(printf …)"): bash drops the trailing newlines, and
// splits an unquoted one into fields.
func (s *shellAnalyzer) substLiteral(w *syntax.Word) ([]string, bool) {
	parts, quoted := w.Parts, false
	if len(parts) == 1 {
		if dq, ok := parts[0].(*syntax.DblQuoted); ok {
			parts, quoted = dq.Parts, true
		}
	}
	if len(parts) != 1 {
		return nil, false
	}
	cs, ok := parts[0].(*syntax.CmdSubst)
	if !ok || len(cs.Stmts) != 1 {
		return nil, false
	}
	// Only a program's own literal words ($(echo …), $(printf …)): a
	// function's body is not followed here, nor a pipeline.
	c, ok := cs.Stmts[0].Cmd.(*syntax.CallExpr)
	if !ok || len(c.Args) == 0 {
		return nil, false
	}
	switch c.Args[0].Lit() {
	case "echo", "printf":
	default:
		return nil, false
	}
	f := s.seqFlowNested(cs.Stmts)
	if f.kind != flowLiteral || !f.exact {
		return nil, false
	}
	t := strings.TrimRight(f.text, "\n")
	if quoted {
		return []string{t}, true
	}
	fs := strings.Fields(t)
	return fs, len(fs) > 0
}

// wordHasSubst says whether a word holds a command or process
// substitution: read from its parts, the quoted ones and a bare $x at
// once, any other (${x:-…}, $((…)), a glob…) by walking it.
func wordHasSubst(w *syntax.Word) bool {
	for _, p := range w.Parts {
		if partHasSubst(p) {
			return true
		}
	}
	return false
}

func partHasSubst(p syntax.WordPart) bool {
	switch x := p.(type) {
	case *syntax.Lit, *syntax.SglQuoted:
		return false
	case *syntax.CmdSubst, *syntax.ProcSubst:
		return true
	case *syntax.DblQuoted:
		for _, q := range x.Parts {
			if partHasSubst(q) {
				return true
			}
		}
		return false
	case *syntax.ParamExp:
		if x.Short && x.Index == nil && x.NestedParam == nil {
			return false // $x, $1: a name, nothing inside
		}
	}
	found := false
	walkSyntax(p, func(n syntax.Node) bool {
		switch n.(type) {
		case *syntax.CmdSubst, *syntax.ProcSubst:
			found = true
		}
		return !found
	})
	return found
}
