package gates

import (
	"bytes"
	"context"
	"os"
	"os/exec"
	"regexp"
	"sort"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// The tables in grammars.go are held to the real programs installed here
// (Debian 12's coreutils 9.1, grep 3.8, diffutils 3.8, findutils 4.9,
// util-linux 2.38, file 5.44, tree 2.1.0, ripgrep 13.0.0, jq 1.6, git
// 2.39.5; .ci/deps installs them): every option their --help and manual
// document is in the table, every option in the table is documented, and
// getopt's abbreviations resolve in the table as the program resolves
// them.

// realProgram is how to ask one program for its documentation.
type realProgram struct {
	prog string   // the table's name
	bin  string   // the program to run
	help []string // the arguments that print its help
	man  string   // its manual page ("" for none)
	// alsoMan are manual pages whose options it takes too (git show takes
	// git log's).
	alsoMan []string
	// notDocumented are options the table knows that neither --help nor
	// the manual lists, each with why it is there.
	notDocumented map[string]string
	// leftUnknown are documented options the table leaves out on purpose
	// (they are then never allowed), each with why.
	leftUnknown map[string]string
}

// undocumented gives each of names the same reason.
func undocumented(reason string, names ...string) map[string]string {
	m := map[string]string{}
	for _, n := range names {
		m[n] = reason
	}
	return m
}

// gitUndocumented are options git 2.39's manuals do not list, which git
// takes (TestGrammarOptionsAreAccepted).
var gitUndocumented = undocumented("taken by git 2.39.5, not listed in its manual (TestGrammarOptionsAreAccepted)",
	"-NUM", "--dd", "--no-abbrev", "--root", "-r", "--stat-count", "--stat-graph-width", "--stat-name-width", "--stat-width")

// realPrograms are the programs a default rule allows, with their
// documentation.
var realPrograms = []realProgram{
	{prog: "cat", help: []string{"--help"}, man: "cat"},
	{prog: "tac", help: []string{"--help"}, man: "tac"},
	{prog: "nl", help: []string{"--help"}, man: "nl"},
	{prog: "head", help: []string{"--help"}, man: "head", notDocumented: map[string]string{"-NUM": "the obsolete -NUM form that coreutils still accepts (head -5)"}},
	{prog: "tail", help: []string{"--help"}, man: "tail", notDocumented: map[string]string{"-NUM": "the obsolete -NUM form that coreutils still accepts (head -5)"}},
	{prog: "wc", help: []string{"--help"}, man: "wc"},
	{prog: "sort", help: []string{"--help"}, man: "sort"},
	{prog: "uniq", help: []string{"--help"}, man: "uniq"},
	{prog: "cut", help: []string{"--help"}, man: "cut", leftUnknown: map[string]string{"-M": "a line of --help describing the range -M, not an option"}},
	{prog: "comm", help: []string{"--help"}, man: "comm"},
	{prog: "tr", help: []string{"--help"}, man: "tr"},
	{prog: "md5sum", help: []string{"--help"}, man: "md5sum"},
	{prog: "sha1sum", help: []string{"--help"}, man: "sha1sum"},
	{prog: "sha256sum", help: []string{"--help"}, man: "sha256sum"},
	{prog: "ls", help: []string{"--help"}, man: "ls"},
	{prog: "du", help: []string{"--help"}, man: "du"},
	{prog: "df", help: []string{"--help"}, man: "df"},
	{prog: "stat", help: []string{"--help"}, man: "stat"},
	{prog: "readlink", help: []string{"--help"}, man: "readlink"},
	{prog: "realpath", help: []string{"--help"}, man: "realpath"},
	{prog: "basename", help: []string{"--help"}, man: "basename"},
	{prog: "dirname", help: []string{"--help"}, man: "dirname"},
	{prog: "id", help: []string{"--help"}, man: "id"},
	{prog: "uname", help: []string{"--help"}, man: "uname"},
	{prog: "whoami", help: []string{"--help"}, man: "whoami"},
	{prog: "seq", help: []string{"--help"}, man: "seq"},
	{prog: "sleep", help: []string{"--help"}, man: "sleep"},
	{prog: "date", help: []string{"--help"}, man: "date", notDocumented: map[string]string{"--rfc-822": "an alias of --rfc-email in date 9.1's getopt table", "--rfc-2822": "an alias of --rfc-email in date 9.1's getopt table"}},
	{prog: "grep", help: []string{"--help"}, man: "grep", notDocumented: map[string]string{"-y": "the obsolete synonym of -i grep 3.8 still accepts"}},
	{prog: "diff", help: []string{"--help"}, man: "diff",
		notDocumented: mergeReasons(undocumented("hidden in diffutils 3.8's getopt table (its ambiguity messages name it)", "--binary", "--forward-ed", "--inhibit-hunk-merge", "--sdiff-merge-assist"), map[string]string{
			"--old-group-format": "GTYPE-group-format", "--new-group-format": "GTYPE-group-format", "--unchanged-group-format": "GTYPE-group-format",
			"--changed-group-format": "GTYPE-group-format", "--old-line-format": "LTYPE-line-format", "--new-line-format": "LTYPE-line-format",
			"--unchanged-line-format": "LTYPE-line-format"}),
		leftUnknown: map[string]string{"--GTYPE-group-format": "stands for the four below", "--LTYPE-line-format": "stands for the three below"}},
	{prog: "cmp", help: []string{"--help"}, man: "cmp", notDocumented: undocumented("hidden in diffutils 3.8's getopt table: an old name of --print-bytes", "--print-chars")},
	{prog: "column", help: []string{"--help"}, man: "column"},
	{prog: "file", help: []string{"--help"}, man: "file"},
	{prog: "tree", help: []string{"--help"}, man: "tree"},
	{prog: "rg", help: []string{"--help"}, man: "rg", notDocumented: undocumented("hidden by rg 13's --help, taken by rg (TestGrammarOptionsAreAccepted)",
		"--ignore", "--ignore-dot", "--ignore-exclude", "--ignore-files", "--ignore-global", "--ignore-messages", "--ignore-parent", "--ignore-vcs",
		"--messages", "--no-auto-hybrid-regex", "--no-binary", "--no-block-buffered", "--no-column", "--no-context-separator", "--no-crlf",
		"--no-encoding", "--no-fixed-strings", "--no-follow", "--no-glob-case-insensitive", "--no-hidden", "--no-ignore-file-case-insensitive",
		"--no-json", "--no-line-buffered", "--no-max-columns-preview", "--no-multiline", "--no-multiline-dotall", "--no-one-file-system",
		"--no-pcre2", "--no-pre", "--no-search-zip", "--no-sort-files", "--no-stats", "--no-text", "--no-trim", "--passthrough",
		"--pcre2-unicode", "--require-git", "--sort-files", "--trace", "--unicode")},
	{prog: "jq", help: []string{"--help"}, man: "jq", notDocumented: undocumented("in jq 1.6's main.c, not in jq(1)", "--debug-dump-disasm", "--debug-trace", "--stream-errors", "--help", "-h", "-V")},
	{prog: "git", help: []string{"--help"}, man: "git"},
	{prog: "git status", bin: "git", help: []string{"status", "-h"}, man: "git-status"},
	{prog: "git log", bin: "git", help: []string{"log", "-h"}, man: "git-log", notDocumented: gitUndocumented},
	{prog: "git show", bin: "git", help: []string{"show", "-h"}, man: "git-show", alsoMan: []string{"git-log"}, notDocumented: gitUndocumented},
	{prog: "git diff", bin: "git", help: []string{"diff", "-h"}, man: "git-diff", notDocumented: mergeReasons(gitUndocumented, undocumented("in git-diff(1)'s DESCRIPTION, not its OPTIONS", "--cached", "--staged", "--no-index"))},
	{prog: "git blame", bin: "git", help: []string{"blame", "-h"}, man: "git-blame", notDocumented: undocumented("git blame hands it to the revision parser (git-blame(1): \"also takes revision options\")", "--since")},
	{prog: "git shortlog", bin: "git", help: []string{"shortlog", "-h"}, man: "git-shortlog", alsoMan: []string{"git-log"}, notDocumented: gitUndocumented},
	{prog: "git ls-files", bin: "git", help: []string{"ls-files", "-h"}, man: "git-ls-files"},
	{prog: "git grep", bin: "git", help: []string{"grep", "-h"}, man: "git-grep"},
	{prog: "git rev-parse", bin: "git", help: []string{"rev-parse", "--parseopt", "-h"}, man: "git-rev-parse"},
	{prog: "git describe", bin: "git", help: []string{"describe", "-h"}, man: "git-describe"},
}

// grammarOf returns the table of a program or of a git subcommand
// ("git log").
func grammarOf(t testing.TB, prog string) *grammar {
	t.Helper()
	name, sub, _ := strings.Cut(prog, " ")
	g, ok, err := grammarFor(name)
	require.NoError(t, err)
	require.True(t, ok, "no grammar for %s", name)
	if sub != "" {
		sg := g.subs[sub]
		require.NotNil(t, sg, "no grammar for %s", prog)
		return sg
	}
	return g
}

// runDoc runs a program for its documentation, in the C locale.
func runDoc(t testing.TB, bin string, args ...string) string {
	t.Helper()
	ctx, cancel := context.WithTimeout(context.Background(), 20*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Env = append(os.Environ(), "LC_ALL=C", "MANWIDTH=200", "PAGER=cat", "GIT_PAGER=cat", "COLUMNS=200")
	cmd.Dir = t.TempDir()
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run() // git SUB -h exits 129 after printing its usage
	return reOverstrike.ReplaceAllString(out.String(), "")
}

var (
	// reOverstrike is the bold and underline of a manual page printed for
	// a terminal ("c\bc", "_\bc"): the character before the backspace goes.
	reOverstrike   = regexp.MustCompile(".\x08")
	reOptToken     = regexp.MustCompile(`^(-{1,2}[A-Za-z0-9.@][-A-Za-z0-9._]*)`)
	reNoBracket    = regexp.MustCompile(`^--\[no-\]([-A-Za-z0-9]+)`)
	reNoBracketAll = regexp.MustCompile(`--\[no-\]([-A-Za-z0-9]+)`)
)

// docOptions extracts the option names a help text or manual lists: on a
// line that starts (indented at most maxIndent) with '-', every option
// token up to the first word of the description.
func docOptions(text string, maxIndent int, exactIndent bool) map[string]bool {
	out := map[string]bool{}
	for _, line := range strings.Split(text, "\n") {
		trimmed := strings.TrimLeft(line, " \t")
		indent := len(line) - len(trimmed)
		for _, bullet := range []string{"○ ", "o ", "O "} { // jq(1)'s bullets
			if b, ok := strings.CutPrefix(trimmed, bullet); ok {
				trimmed = strings.TrimLeft(b, " ")
			}
		}
		trimmed = stripBrackets(reNoBracketAll.ReplaceAllString(trimmed, "--$1 --no-$1"))
		if !strings.HasPrefix(trimmed, "-") || indent > maxIndent || exactIndent && indent != maxIndent {
			continue
		}
		toks := strings.FieldsFunc(trimmed, func(r rune) bool { return r == ' ' || r == ',' || r == '\t' || r == '/' })
		for k, tok := range toks {
			tok = strings.TrimSuffix(tok, ":")
			if tok == "and" || tok == "or" {
				continue
			}
			if m := reNoBracket.FindStringSubmatch(tok); m != nil {
				out["--"+m[1]] = true
				out["--no-"+m[1]] = true
				continue
			}
			if !strings.HasPrefix(tok, "-") {
				if isPlaceholder(tok) || k+1 < len(toks) && strings.HasPrefix(toks[k+1], "--") {
					continue // a value's name, as in jq(1)'s "-f filename / --from-file filename"
				}
				break
			}
			if m := reOptToken.FindString(tok); m != "" && m != "-" && m != "--" && strings.Trim(m, "-") != "" {
				out[m] = true
			}
		}
	}
	return out
}

// stripBrackets removes the bracketed parts of an option line ([=WHEN],
// <file>, {a|b}, (x|y)), which name values, not options.
func stripBrackets(s string) string {
	var b strings.Builder
	depth := 0
	for _, r := range s {
		switch r {
		case '[', '<', '{', '(':
			depth++
			continue
		case ']', '>', '}', ')':
			if depth > 0 {
				depth--
				continue
			}
		}
		if depth == 0 {
			b.WriteRune(r)
		}
	}
	return b.String()
}

// isPlaceholder says whether a word of an option line names its value
// (FILE, <file>, [=WHEN], #) rather than starting its description.
func isPlaceholder(w string) bool {
	if strings.HasPrefix(w, "<") || strings.HasPrefix(w, "[") || strings.HasPrefix(w, "{") || strings.HasPrefix(w, "(") || w == "#" || w == "|" {
		return true
	}
	return strings.ToUpper(w) == w && strings.ToLower(w) != w
}

// tableOptions lists the option names of a table.
func tableOptions(g *grammar) map[string]bool {
	out := map[string]bool{}
	if g.numericOK {
		out["-NUM"] = true
	}
	for _, o := range g.opts {
		for _, n := range o.names {
			out[n] = true
		}
	}
	return out
}

func sortedKeys(m map[string]bool) []string {
	out := make([]string, 0, len(m))
	for k := range m {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// TestGrammarTablesMatchTheDocumentation: for every program a default rule
// allows, the options its --help lists are in its table, and every option
// of the table is in its --help or manual.
func TestGrammarTablesMatchTheDocumentation(t *testing.T) {
	for _, rp := range realPrograms {
		t.Run(rp.prog, func(t *testing.T) {
			bin := rp.bin
			if bin == "" {
				bin = rp.prog
			}
			testenv.NeedCommand(t, bin)
			g := grammarOf(t, rp.prog)
			help := docOptions(runDoc(t, bin, rp.help...), 8, false)
			doc := map[string]bool{}
			for k := range help {
				doc[k] = true
			}
			for _, man := range append([]string{rp.man}, rp.alsoMan...) {
				if man == "" {
					continue
				}
				testenv.NeedCommand(t, "man")
				page := runDoc(t, "man", "-P", "cat", man)
				if strings.Contains(page, "No manual entry") {
					if testenv.InCI() {
						t.Fatalf("CI=true: the manual page %s is not installed (.ci/deps installs man-db and the programs)", man)
					}
					t.Skipf("the manual page %s is not installed", man)
				}
				for k := range docOptions(page, 11, false) {
					doc[k] = true
				}
			}
			table := tableOptions(g)
			var missing, invented []string
			for _, o := range sortedKeys(help) {
				if !table[o] && rp.leftUnknown[o] == "" {
					missing = append(missing, o)
				}
			}
			for _, o := range sortedKeys(table) {
				if !doc[o] && rp.notDocumented[o] == "" {
					invented = append(invented, o)
				}
			}
			assert.Empty(t, missing, "%s: --help lists options its table does not know", rp.prog)
			assert.Empty(t, invented, "%s: the table has options neither --help nor the manual lists", rp.prog)
		})
	}
}

// reRejected is how the programs here say they do not take an option:
// glibc's getopt, git's parse-options and revision parser, clap (rg),
// jq and tree.
var reRejected = regexp.MustCompile(`(?i)unrecogni[sz]ed (option|argument)|invalid option|unknown (option|switch)|is ambiguous|ambiguous option|wasn't expected|unknown arguments|invalid argument .--|doesn't allow an argument|does not take an argument|takes no value|requires an argument|requires a value|no value given`)

// realDir makes a folder holding a small file (and, for git, a
// repository) for realRun.
func realDir(t testing.TB, git bool) string {
	t.Helper()
	dir := t.TempDir()
	require.NoError(t, os.WriteFile(dir+"/f.txt", []byte("b\na\n"), 0o644))
	if git {
		init := exec.Command("git", "init", "-q", ".")
		init.Dir = dir
		require.NoError(t, init.Run())
	}
	return dir
}

// realRun runs a program with args in dir (realDir), standard input
// empty, at most a few seconds, and returns what it printed. It never
// runs anything an option could turn against this machine: values are
// inert words ("1", or what optionValues gives), and the folder is the
// test's own.
func realRun(t testing.TB, dir, bin string, args ...string) string {
	t.Helper()
	// Parsing errors come at once; only tail --follow runs on, and is
	// cut short.
	ctx, cancel := context.WithTimeout(context.Background(), 2*time.Second)
	defer cancel()
	cmd := exec.CommandContext(ctx, bin, args...)
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin", "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat", "PAGER=cat", "RIPGREP_CONFIG_PATH="}
	var out bytes.Buffer
	cmd.Stdout, cmd.Stderr = &out, &out
	_ = cmd.Run()
	return out.String()
}

// optionValues are the values given to options whose "1" could do
// something to this machine (date --set=1 would set the clock).
var optionValues = map[string]string{"date --set": "not a date", "date -s": "not a date",
	"git shortlog --no-walk": "sorted", "git shortlog --ancestry-path": "", "git log --no-walk": "sorted", "git show --no-walk": "sorted"}

// spell returns the words that give option name of g with a value, as the
// program's rules read it: attached for short options and long ones with
// '=', the next words where the program takes them so.
func spell(prog string, g *grammar, o optionSpec, name string) []string {
	val := "1"
	if v, ok := optionValues[prog+" "+name]; ok {
		val = v
	}
	long := strings.HasPrefix(name, "--") || len(name) > 2
	switch {
	case o.arg == argNone, o.arg == argOptional && (val == "" || !long && !g.shortOptional[name[1]]):
		return []string{name}
	case g.rules == rulesExactPOSIX && !long:
		return []string{name, val}
	case o.arg == argTwo:
		return []string{name, "a", val}
	case prog == "jq" || g.rules == rulesTree && !long:
		return []string{name, val}
	case prog == "git" && name == "-C":
		return []string{name, "."}
	case prog == "git" && name == "-c":
		return []string{name, "a.b=1"}
	case long:
		return []string{name + "=" + val}
	}
	return []string{name + val}
}

// realArgs are the words around an option that make each program run
// quickly and harmlessly: the subcommand for git, an empty input for the
// filters.
func realArgs(prog string, opt []string) (string, []string) {
	name, sub, _ := strings.Cut(prog, " ")
	switch {
	case name == "git" && sub == "":
		return "git", append(opt, "rev-parse", "--is-inside-work-tree")
	case name == "git":
		return "git", append([]string{sub}, opt...)
	case name == "jq":
		return "jq", append(opt, ".", "/dev/null")
	case name == "rg":
		return "rg", append(opt, "--", "zzz-no-match", "f.txt")
	case name == "grep":
		return "grep", append(opt, "--", "zzz-no-match", "f.txt")
	case name == "tail" || name == "head" || name == "cat" || name == "tac" || name == "nl" || name == "wc" || name == "sort" || name == "uniq" || name == "cut" || name == "column" || name == "file" || name == "md5sum" || name == "sha1sum" || name == "sha256sum":
		return name, append(opt, "f.txt")
	case name == "comm" || name == "diff" || name == "cmp":
		return name, append(opt, "f.txt", "f.txt")
	case name == "tr":
		return name, append(opt, "a", "b")
	}
	return name, opt
}

// TestGrammarOptionsAreAccepted: every option of every table, spelt with
// its value as its table says it takes one, is accepted by the real
// program — the table invents nothing, and a value the table reads as
// attached or as the next word is so for the program too.
func TestGrammarOptionsAreAccepted(t *testing.T) {
	for _, rp := range realPrograms {
		t.Run(rp.prog, func(t *testing.T) {
			bin := rp.bin
			if bin == "" {
				bin = rp.prog
			}
			testenv.NeedCommand(t, bin)
			g := grammarOf(t, rp.prog)
			dir := realDir(t, bin == "git")
			// Every option under make test-long; one in four, in turn by the
			// day, under -short.
			step := testenv.Scale(1, 4)
			k := time.Now().YearDay()
			for _, o := range g.opts {
				if k++; k%step != 0 {
					continue
				}
				for _, n := range o.names {
					if n == "--help" || n == "-h" && rp.prog != "git grep" || rp.prog == "git" && (n == "-v" || n == "--version") {
						continue // they print and stop, whatever follows
					}
					b, args := realArgs(rp.prog, spell(rp.prog, g, o, n))
					out := realRun(t, dir, b, args...)
					assert.False(t, reRejected.MatchString(out), "%s %s: the program does not take it as the table says:\n%s", rp.prog, strings.Join(args, " "), firstLines(out, 3))
				}
			}
		})
	}
}

func mergeReasons(a, b map[string]string) map[string]string {
	m := map[string]string{}
	for k, v := range a {
		m[k] = v
	}
	for k, v := range b {
		m[k] = v
	}
	return m
}

func firstLines(s string, n int) string {
	lines := strings.SplitN(s, "\n", n+1)
	if len(lines) > n {
		lines = lines[:n]
	}
	return strings.Join(lines, "\n")
}

// TestGrammarAbbreviationsAsGetopt: where a program takes unique prefixes
// of its long options (glibc's getopt_long, git's parse-options), the
// shortest prefix the table resolves to an option is taken by the real
// program, and one letter less — ambiguous in the table — is refused by
// it as ambiguous. So an abbreviation such as sort --compress-prog=sh is
// read as the option it is.
func TestGrammarAbbreviationsAsGetopt(t *testing.T) {
	reAmbiguous := regexp.MustCompile(`(?i)ambiguous`)
	for _, rp := range realPrograms {
		g := grammarOf(t, rp.prog)
		if g.rules != rulesGNU && g.rules != rulesPOSIX && g.rules != rulesParseOpt {
			continue
		}
		t.Run(rp.prog, func(t *testing.T) {
			bin := rp.bin
			if bin == "" {
				bin = rp.prog
			}
			testenv.NeedCommand(t, bin)
			dir := realDir(t, bin == "git")
			step := testenv.Scale(1, 4) // every long option under make test-long
			k := time.Now().YearDay()
			for _, full := range g.longNames {
				if k++; k%step != 0 {
					continue
				}
				idx := g.long[full]
				if full == "help" || full == "version" || len(full) < 3 {
					continue
				}
				short := ""
				for n := 1; n < len(full); n++ {
					if j, _ := g.lookupLong(full[:n]); j >= 0 && g.opts[j].line == g.opts[idx].line {
						short = full[:n]
						break
					}
				}
				if short == "" {
					continue // only the full name is unique
				}
				b, args := realArgs(rp.prog, spell(rp.prog, g, g.opts[idx], "--"+short))
				out := realRun(t, dir, b, args...)
				assert.False(t, reRejected.MatchString(out), "%s: the table reads --%s as --%s, the program refuses it:\n%s", rp.prog, short, full, firstLines(out, 2))
				if len(short) > 1 {
					prev := short[:len(short)-1]
					if j, why := g.lookupLong(prev); j < 0 && why != "" {
						b, args := realArgs(rp.prog, []string{"--" + prev})
						out := realRun(t, dir, b, args...)
						assert.Regexp(t, reAmbiguous, out, "%s: the table finds --%s ambiguous, the program does not", rp.prog, prev)
					}
				}
			}
		})
	}
}
