package gates

import (
	"strings"
)

// A variable a command hands the programs it runs (a prefix assignment,
// export, declare -x, env NAME=VALUE, or a plain assignment of a name the
// sandbox already exports) can change what they do as much as an option:
// git writes its trace to the file GIT_TRACE names (flightplans.org
// included), file reads the magic file MAGIC names and prints its lines.
// So the variables a program may be handed are an allow-list:
// exportedVars are those known harmless, each with what its value does;
// every other one asks. The deny-lists of checkEnvVar (hijackVars,
// commandVars, optionVars…) are judged first, for every assignment.

// envUse is what a program does with an exported variable's value.
type envUse uint8

const (
	envHarmless  envUse = iota // formatting, colours, sizes, names
	envName                    // a locale, terminal or zone name: harmless unless it is a path, which the program then reads
	envTraceFile               // git's trace targets: a number or a boolean, or a file git appends to
	envReadFiles               // files the program reads (MAGIC: a colon-separated list of magic files)
	envTempDir                 // the folder programs make their temporary files in
)

// exportedVars are the variables a command may hand the programs it runs,
// by name; exportedPrefixes by the start of their name.
var exportedVars = map[string]envUse{
	"LANG": envName, "LANGUAGE": envName, "TERM": envName, "TZ": envName,
	"COLUMNS": envHarmless, "LINES": envHarmless, "NO_COLOR": envHarmless, "CLICOLOR": envHarmless,
	"CLICOLOR_FORCE": envHarmless, "GREP_COLOR": envHarmless, "GREP_COLORS": envHarmless, "LS_COLORS": envHarmless,
	"TIME_STYLE": envHarmless, "QUOTING_STYLE": envHarmless, "BLOCK_SIZE": envHarmless, "BLOCKSIZE": envHarmless,
	"DF_BLOCK_SIZE": envHarmless, "DU_BLOCK_SIZE": envHarmless, "LS_BLOCK_SIZE": envHarmless,
	"POSIXLY_CORRECT": envHarmless, "TABSIZE": envHarmless, "JQ_COLORS": envHarmless, "PWD": envHarmless,
	"OLDPWD": envHarmless, "GIT_TERMINAL_PROMPT": envHarmless, "GIT_OPTIONAL_LOCKS": envHarmless,
	"GIT_CONFIG_NOSYSTEM": envHarmless, "GIT_FLUSH": envHarmless, "GIT_LITERAL_PATHSPECS": envHarmless,
	"MAGIC": envReadFiles, "TMPDIR": envTempDir,
}

var exportedPrefixes = []struct {
	prefix string
	use    envUse
}{
	{"LC_", envName}, {"GIT_AUTHOR_", envHarmless}, {"GIT_COMMITTER_", envHarmless}, {"GIT_TRACE", envTraceFile},
}

// sandboxExported are the variables every command's environment holds
// (server/actuate/sandbox's env): assigning one, exported or not, changes
// what the programs after it see.
var sandboxExported = map[string]bool{
	"PATH": true, "HOME": true, "TMPDIR": true, "PWD": true, "TERM": true, "PAGER": true, "GIT_PAGER": true,
	"NO_COLOR": true, "LANG": true, "LANGUAGE": true, "TZ": true,
}

// exportedUse looks a variable up in the allow-list.
func exportedUse(name string) (envUse, bool) {
	if u, ok := exportedVars[name]; ok {
		return u, true
	}
	for _, p := range exportedPrefixes {
		if strings.HasPrefix(name, p.prefix) {
			return p.use, true
		}
	}
	return 0, false
}

// isExportedBySandbox says whether the programs a command runs see name
// without an export.
func isExportedBySandbox(name string) bool {
	return sandboxExported[name] || strings.HasPrefix(name, "LC_")
}

// exportedVar judges a variable handed to the programs a command runs,
// once checkEnvVar's deny-lists passed it.
func (s *shellAnalyzer) exportedVar(name string, v word) {
	use, ok := exportedUse(name)
	if !ok {
		s.ask("hands %s to the programs it runs: pp-lsp does not know what %s makes them do", name, name)
		return
	}
	switch use {
	case envName:
		// A locale, terminal or zone name with a slash is a file the
		// program reads (TZ=:/etc/…, LC_ALL=/path, TERM=../x).
		val := strings.TrimPrefix(v.val, ":")
		if v.dyn || strings.Contains(val, "..") || strings.HasPrefix(val, "/") || name != "TZ" && strings.Contains(val, "/") {
			s.ask("hands %s a value that may name a file the programs it runs read", name)
		}
	case envTraceFile:
		switch {
		case v.dyn:
			s.deny("%s: git writes its trace to a file named only when it runs; cannot prove it stays inside the roots", name)
		case gitTraceOff(v.val):
		case strings.HasPrefix(v.val, "af_unix:"):
			s.ask("%s: git sends its trace to a socket", name)
		default:
			s.touch(v.val, opWrite, name+": git writes its trace to")
			s.wrote = true
			s.ask("%s: git appends its trace to %s", name, printable(v.val))
		}
	case envReadFiles:
		if v.dyn {
			s.ask("%s names files known only when it runs, which the programs it runs read", name)
			return
		}
		for _, f := range strings.Split(v.val, ":") {
			s.readFile(f, name+": the programs it runs read")
		}
	case envTempDir:
		if v.dyn {
			s.deny("%s: the programs it runs write temporary files into a folder named only when it runs", name)
			return
		}
		s.touch(v.val, opWrite, name+": the programs it runs write temporary files into")
		s.ask("%s: the programs it runs write temporary files into %s", name, printable(v.val))
	}
}

// gitTraceOff says whether a GIT_TRACE* value writes no file: empty, a
// boolean, or a number (a file descriptor, a depth, a level).
func gitTraceOff(val string) bool {
	switch strings.ToLower(val) {
	case "", "true", "false", "yes", "no", "on", "off":
		return true
	}
	return isDigits(val)
}
