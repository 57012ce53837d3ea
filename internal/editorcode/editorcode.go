// Package editorcode is the one table of what, in a text file's own
// content, makes the editor that opens it run code or take settings: an
// Emacs "-*-" line and "Local Variables:" list, a Vim or Neovim modeline,
// and Org's keywords, header arguments, inline calls and links that run
// code on opening, on export or on a click. Each form cites where its
// behaviour is documented (Forms).
//
// Two callers read it: the server, which writes text a model or a command
// produced into Org files and breaks every marker of it there
// (server/internal/orgtext.Defuse reads Markers and LinkTypes), and the
// gates, which judge the text a model proposes to write (Judge): a form
// holding only what an allow-list knows to be inert passes, any other is
// a finding.
//
// Invariant: pure — text in, a finding out, in time linear in the text;
// no file is read (the caller says which paths lie inside the roots).
package editorcode

import (
	"regexp"
	"strings"
)

// Form is one way file content steers the editor.
type Form struct {
	// Name says what it is, for a reason: "an Emacs -*- line".
	Name string
	// Source is where its behaviour is documented.
	Source string
	// Marker is the regular expression of the text that starts it in a
	// line (RE2, matched case-insensitively and multi-line), which Defuse
	// breaks; "" when the server's own escaping of Org text already
	// keeps it from being one (Paragraph's comma before "#+", Block's).
	Marker string
}

// The forms, indexes into Forms.
const (
	EmacsFirstLine = iota
	EmacsLocalVariables
	VimModeline
	OrgBracketLink
	OrgPlainLink
	OrgBind
	OrgSetupFile
	OrgStartup
	OrgCall
	OrgHeaderArgs
	OrgInline
	OrgMacroEval
	numForms
)

// Forms is the table.
var Forms = [numForms]Form{
	EmacsFirstLine: {
		Name:   "an Emacs -*- line",
		Source: `Emacs manual, "Specifying File Variables" (the first line, or the second after "#!"; eval: runs code, mode: calls NAME-mode)`,
		Marker: `-\*-`,
	},
	EmacsLocalVariables: {
		Name:   "an Emacs Local Variables list",
		Source: `Emacs manual, "Specifying File Variables" (read from the last 3000 characters; eval: runs code, a variable marked safe is set without asking)`,
		Marker: `local variables:`,
	},
	VimModeline: {
		Name:   "a Vim or Neovim modeline",
		Source: `Vim ":help modeline" (vi:, vim:, Vim:, ex: after a blank, in the first or last 5 lines; Neovim the same)`,
		Marker: `(?:^|[ \t])(?:vi|vim[<=>]?[0-9]*|ex):`,
	},
	OrgBracketLink: {
		Name:   "an Org link of a type that is not known to be inert",
		Source: `Org manual, "External Links" (elisp: and shell: run code on a click, file+sys: hands the file to the system, a type a package adds runs its own function)`,
		Marker: `(?:\[\[|<)[a-z][a-z0-9+_-]*:`,
	},
	OrgPlainLink: {
		Name:   "a plain Org link that runs code",
		Source: `Org manual, "External Links" (elisp:, shell:, file+sys:; eshell: from ol-eshell)`,
		Marker: `\b(?:elisp|shell|eshell|file\+sys):\S`,
	},
	OrgBind: {
		Name:   "an Org #+BIND: keyword",
		Source: `Org manual, "Export Settings" (org-export-allow-bind-keywords: sets a variable during export)`,
	},
	OrgSetupFile: {
		Name:   "an Org #+SETUPFILE: or #+INCLUDE: outside the roots",
		Source: `Org manual, "In-buffer Settings" and "Include Files" (the named file's settings, #+BIND: and macros included, are read as the note's own; a URL is fetched)`,
	},
	OrgStartup: {
		Name:   "an Org #+STARTUP: option that is not known to be inert",
		Source: `Org manual, "In-buffer Settings" (latexpreview runs LaTeX when the file is opened)`,
	},
	OrgCall: {
		Name:   "an Org #+CALL: line",
		Source: `Org manual, "Evaluating Code Blocks" (runs a named code block, on export too)`,
	},
	OrgHeaderArgs: {
		Name:   "Org code-block header arguments that run code",
		Source: `Org manual, "Evaluating Code Blocks" and "Exporting Code Blocks" (:eval other than no/never/query, :exports results or both run on export; a value in parentheses is Emacs Lisp)`,
	},
	OrgInline: {
		Name:   "an Org inline code block or call",
		Source: `Org manual, "Structure of Code Blocks" and "Evaluating Code Blocks" (src_LANG{…} and call_NAME(…) are run on export by default)`,
		// A zero-width space Defuse put before the bracket ends the name.
		Marker: `\b(?:src_[^\s\[{\x{200b}]+[\[{]|call_[^\s()\[\]\x{200b}]+[\[(])`,
	},
	OrgMacroEval: {
		Name:   "an Org #+MACRO: that evaluates Emacs Lisp",
		Source: `Org manual, "Macro Replacement" (a macro whose body is (eval …) runs it on export)`,
	},
}

// LinkTypes are the Org link types that run nothing: they visit a node, a
// file in Emacs, a web page or a reference.
var LinkTypes = map[string]bool{
	"id": true, "file": true, "file+emacs": true, "http": true, "https": true, "ftp": true,
	"mailto": true, "news": true, "doi": true, "info": true, "help": true,
	"attachment": true, "roam": true, "cite": true,
}

// Markers is the alternation of every form's Marker, in the table's
// order, for a (?im) regular expression.
func Markers() string {
	var parts []string
	for _, f := range Forms {
		if f.Marker != "" {
			parts = append(parts, f.Marker)
		}
	}
	return strings.Join(parts, "|")
}

// Finding is a form found in a text.
type Finding struct {
	Form *Form
	// Line is the 1-based line it is on.
	Line int
	// What is the piece that is not known to be inert: "eval", "mode:
	// server", ":exports both".
	What string
}

// Reason is the finding as a sentence's clause.
func (f Finding) Reason() string {
	return f.Form.Name + " (" + f.What + ", line " + itoa(f.Line) + "; " + f.Form.Source + ")"
}

func itoa(n int) string {
	if n == 0 {
		return "0"
	}
	var b [20]byte
	i := len(b)
	for n > 0 {
		i--
		b[i] = byte('0' + n%10)
		n /= 10
	}
	return string(b[i:])
}

// Judge returns the first form in text (the whole content of a file, or
// a part of one — every form is looked for wherever it could stand once
// the part is placed) that holds anything an allow-list does not know to
// be inert. inside says whether a path a #+SETUPFILE: or #+INCLUDE:
// names, as written, lies inside the roots; nil takes every path for one
// outside.
func Judge(text string, inside func(path string) bool) (Finding, bool) {
	lines := strings.Split(text, "\n")
	for i, l := range lines {
		lines[i] = strings.TrimSuffix(l, "\r")
	}
	find := func(form, line int, what string) (Finding, bool) {
		return Finding{Form: &Forms[form], Line: line + 1, What: what}, true
	}
	// Emacs's -*- line: the first, or the second after "#!" or '\".
	for i := 0; i < len(lines) && i < 2; i++ {
		if what, bad := judgePropLine(lines[i]); bad {
			return find(EmacsFirstLine, i, what)
		}
		if !strings.HasPrefix(lines[i], "#!") && !strings.HasPrefix(lines[i], `'\"`) {
			break
		}
	}
	// Modelines: the first and the last five lines.
	for i, l := range lines {
		if i >= 5 && i < len(lines)-5 {
			continue
		}
		if what, bad := judgeModeline(l); bad {
			return find(VimModeline, i, what)
		}
	}
	for i := 0; i < len(lines); i++ {
		l := lines[i]
		if j := indexFold(l, "local variables:"); j >= 0 && strings.IndexByte(l, ':') >= 0 {
			if what, bad := judgeLocalVariables(l[:j], l[j+len("local variables:"):], lines[i+1:]); bad {
				return find(EmacsLocalVariables, i, what)
			}
		}
		if form, what, bad := judgeOrgLine(l, inside); bad {
			return find(form, i, what)
		}
	}
	return Finding{}, false
}

// indexFold is strings.Index of an ASCII lower-case needle, ignoring
// ASCII case; only the places its first letter stands are compared.
func indexFold(s, needle string) int {
	first := string([]byte{needle[0], needle[0] - 'a' + 'A'})
	for i := 0; i+len(needle) <= len(s); i++ {
		j := strings.IndexAny(s[i:], first)
		if j < 0 {
			return -1
		}
		i += j
		if i+len(needle) <= len(s) && asciiEqualFold(s[i:i+len(needle)], needle) {
			return i
		}
	}
	return -1
}

// asciiEqualFold is strings.EqualFold for an ASCII lower-case w.
func asciiEqualFold(s, w string) bool {
	for i := 0; i < len(w); i++ {
		c := s[i]
		if 'A' <= c && c <= 'Z' {
			c += 'a' - 'A'
		}
		if c != w[i] {
			return false
		}
	}
	return true
}

// safeModes are the major modes a file may name: each calls NAME-mode,
// which runs only the user's own hooks. Any other name could be any
// function ending in -mode (mode: server starts an Emacs server).
var safeModes = map[string]bool{
	"org": true, "text": true, "outline": true, "fundamental": true, "markdown": true, "gfm": true,
	"emacs-lisp": true, "lisp-data": true, "python": true, "sh": true, "go": true, "c": true, "c++": true,
	"conf": true, "conf-unix": true, "yaml": true, "json": true, "js": true, "latex": true, "tex": true,
	"makefile": true, "rst": true, "html": true, "css": true, "rust": true, "ruby": true, "perl": true,
}

// safeVariables are the file variables a file may set, each with the test
// of its value: settings of the buffer's look that run nothing.
var safeVariables = map[string]func(string) bool{
	"mode":                      func(v string) bool { return safeModes[strings.ToLower(strings.TrimSuffix(v, "-mode"))] },
	"coding":                    isToken,
	"fill-column":               isNumber,
	"tab-width":                 isNumber,
	"indent-tabs-mode":          isBool,
	"lexical-binding":           isBool,
	"truncate-lines":            isBool,
	"sentence-end-double-space": isBool,
	"require-final-newline":     isBool,
	"buffer-read-only":          isBool,
}

func isBool(v string) bool   { return v == "t" || v == "nil" }
func isNumber(v string) bool { return v != "" && strings.Trim(v, "0123456789") == "" && len(v) < 6 }
func isToken(v string) bool {
	return v != "" && len(v) < 40 && strings.Trim(strings.ToLower(v), "abcdefghijklmnopqrstuvwxyz0123456789-_") == ""
}

// judgePropLine judges a line as Emacs's -*- line: what is between its
// first two "-*-" is a mode name, or "VAR: VALUE" pairs separated by ";".
func judgePropLine(l string) (string, bool) {
	i := strings.Index(l, "-*-")
	if i < 0 {
		return "", false
	}
	rest := l[i+3:]
	j := strings.Index(rest, "-*-")
	if j < 0 {
		return "", false
	}
	inner := strings.TrimSpace(rest[:j])
	if !strings.Contains(inner, ":") {
		if inner == "" || safeModes[strings.ToLower(strings.TrimSuffix(inner, "-mode"))] {
			return "", false
		}
		return "mode " + inner, true
	}
	for _, pair := range strings.Split(inner, ";") {
		if strings.TrimSpace(pair) == "" {
			continue
		}
		if what, bad := judgeVariable(pair); bad {
			return what, true
		}
	}
	return "", false
}

// judgeVariable judges one "VAR: VALUE" of a file-variable list.
func judgeVariable(pair string) (string, bool) {
	name, value, ok := strings.Cut(pair, ":")
	name, value = strings.ToLower(strings.TrimSpace(name)), strings.TrimSpace(value)
	if !ok || name == "" {
		return strings.TrimSpace(pair), true
	}
	if test, known := safeVariables[name]; known && test(value) {
		return "", false
	}
	return name + ": " + cut(value, 40), true
}

// judgeLocalVariables judges a Local Variables list: each following line
// that starts with prefix and ends with suffix holds "VAR: VALUE", up to
// "End:". A list that never ends is a finding too (what Emacs reads of it
// cannot be told here).
func judgeLocalVariables(prefix, suffix string, rest []string) (string, bool) {
	suffix = strings.TrimSpace(suffix)
	for _, l := range rest {
		body, ok := strings.CutPrefix(l, prefix)
		if !ok {
			body = strings.TrimLeft(l, " \t")
		}
		if suffix != "" {
			body = strings.TrimSuffix(strings.TrimRight(body, " \t"), suffix)
		}
		body = strings.TrimSpace(body)
		if strings.EqualFold(body, "end:") {
			return "", false
		}
		if body == "" {
			continue
		}
		if what, bad := judgeVariable(body); bad {
			return what, true
		}
	}
	return "a list with no End:", true
}

// safeVimOptions are the options a modeline may set: how the text looks
// and is indented. Values may hold only letters, digits and ",.-_+".
var safeVimOptions = map[string]bool{
	"ft": true, "filetype": true, "syntax": true, "syn": true, "ts": true, "tabstop": true,
	"sw": true, "shiftwidth": true, "sts": true, "softtabstop": true, "et": true, "expandtab": true,
	"tw": true, "textwidth": true, "ai": true, "autoindent": true, "fdm": true, "foldmethod": true,
	"fdl": true, "foldlevel": true, "spell": true, "spl": true, "spelllang": true, "wrap": true,
	"lbr": true, "linebreak": true, "list": true, "nu": true, "number": true, "fenc": true,
	"fileencoding": true, "ff": true, "fileformat": true, "cc": true, "colorcolumn": true,
}

// reModeline finds where Vim reads a modeline (chk_modeline): "vi:" or
// "vim:" (with an optional version) at a line's start or after a blank,
// "ex:" after a blank, "Vim:" as "vim:".
var reModeline = regexp.MustCompile(`(?:^|[ \t])(?:(?:vi|[vV]im[<=>]?[0-9]*):|[ \t]ex:)`)

// judgeModeline judges a line as Vim reads a modeline: "[text]{white}vim:
// OPTIONS" (options separated by blanks or ":") or "… vim: set OPTIONS:
// [text]".
func judgeModeline(l string) (string, bool) {
	if !modelineMaybe(l) {
		return "", false
	}
	loc := reModeline.FindStringIndex(l)
	if loc == nil {
		return "", false
	}
	rest := strings.TrimLeft(l[loc[1]:], " \t")
	var opts []string
	if r, ok := cutSet(rest); ok {
		end := strings.IndexByte(r, ':')
		if end < 0 {
			end = len(r)
		}
		opts = strings.Fields(r[:end])
	} else {
		opts = strings.FieldsFunc(rest, func(r rune) bool { return r == ' ' || r == '\t' || r == ':' })
	}
	for _, o := range opts {
		name, value, _ := strings.Cut(o, "=")
		name = strings.TrimPrefix(name, "no")
		if !safeVimOptions[name] && !safeVimOptions["no"+name] || strings.Trim(strings.ToLower(value), "abcdefghijklmnopqrstuvwxyz0123456789,.-_+") != "" {
			return "vim: " + cut(o, 40), true
		}
	}
	return "", false
}

// modelineMaybe says whether a colon in l follows "vi", "vim" (and a
// version), "Vim" or "ex": where reModeline can match.
func modelineMaybe(l string) bool {
	for i := 2; i < len(l); i++ {
		j := strings.IndexByte(l[i:], ':')
		if j < 0 {
			return false
		}
		i += j
		k := i
		for k > 0 && (l[k-1] >= '0' && l[k-1] <= '9' || l[k-1] == '<' || l[k-1] == '=' || l[k-1] == '>') {
			k--
		}
		if k >= 2 && (l[k-2:k] == "vi" || l[k-2:k] == "ex" || k >= 3 && (l[k-3:k] == "vim" || l[k-3:k] == "Vim")) {
			return true
		}
	}
	return false
}

// cutSet cuts "set " or "se " off a modeline's options.
func cutSet(s string) (string, bool) {
	for _, p := range []string{"set ", "se ", "set\t", "se\t"} {
		if r, ok := strings.CutPrefix(s, p); ok {
			return r, true
		}
	}
	return s, false
}

// startupInert are the #+STARTUP: options that change only how the file
// shows and what is logged (Org 9.5, org-startup-options), latexpreview
// left out: it runs LaTeX.
var startupInert = func() map[string]bool {
	m := map[string]bool{}
	for _, o := range strings.Fields(`overview content showall show2levels show3levels show4levels show5levels
		showeverything fold nofold indent noindent num nonum inlineimages noinlineimages nolatexpreview
		logdone lognotedone nologdone logrepeat lognoterepeat nologrepeat lognoteclock-out nolognoteclock-out
		logreschedule lognotereschedule nologreschedule logredeadline lognoteredeadline nologredeadline
		logrefile lognoterefile nologrefile logdrawer nologdrawer logstatesreversed nologstatesreversed
		hidestars showstars odd oddeven customtime constcgs constsi fninline nofninline fnlocal fnprompt
		fnauto fnconfirm fnplain fnadjust nofnadjust fnsort nofnsort hideblocks nohideblocks hidedrawers
		nohidedrawers entitiespretty entitiesplain align noalign shrink beamer`) {
		m[o] = true
	}
	return m
}()

// keyword reads an Org keyword line, "#+KEY: VALUE" (KEY a letter or _
// then letters, digits, _ and -), its value trimmed.
func keyword(l string) (key, value string, ok bool) {
	t, ok := strings.CutPrefix(strings.TrimLeft(l, " \t"), "#+")
	if !ok || t == "" || !isLetter(t[0]) && t[0] != '_' {
		return "", "", false
	}
	k := 1
	for k < len(t) && (isLetter(t[k]) || t[k] >= '0' && t[k] <= '9' || t[k] == '_' || t[k] == '-') {
		k++
	}
	if k >= len(t) || t[k] != ':' {
		return "", "", false
	}
	return t[:k], strings.TrimSpace(t[k+1:]), true
}

// reBeginSrc is a code block's first line.
var reBeginSrc = regexp.MustCompile(`(?i)^[ \t]*#\+begin_src(?:[ \t]+\S+)?(.*)$`)

// reHeaderProp is a header-args property in a drawer.
var reHeaderProp = regexp.MustCompile(`(?i)^[ \t]*:header-args(?::\S+)?\+?:[ \t]*(.*)$`)

// reInline is an inline code block or call (org-babel-inline-src-block-regexp,
// org-babel-inline-lob-one-liner-regexp): the table's marker.
var reInline = regexp.MustCompile(Forms[OrgInline].Marker)

// linkNotInert finds a bracket or angle link ("[[TYPE:", "<TYPE:", TYPE a
// letter then letters, digits, "+_-") whose type is not in LinkTypes.
func linkNotInert(l string) (string, bool) {
	for i := 0; i < len(l); i++ {
		j := strings.IndexAny(l[i:], "[<")
		if j < 0 {
			return "", false
		}
		i += j
		start := i + 1
		if l[i] == '[' {
			if start >= len(l) || l[start] != '[' {
				continue
			}
			start++
		}
		k := start
		for k < len(l) && (isLetter(l[k]) || k > start && (l[k] >= '0' && l[k] <= '9' || l[k] == '+' || l[k] == '_' || l[k] == '-')) {
			k++
		}
		if k > start && k < len(l) && l[k] == ':' && !LinkTypes[strings.ToLower(l[start:k])] {
			return l[start:k], true
		}
	}
	return "", false
}

func isLetter(c byte) bool { return 'a' <= c && c <= 'z' || 'A' <= c && c <= 'Z' }

// rePlainRun is a plain link of a type that runs something.
var rePlainRun = regexp.MustCompile(`(?i)\b(?:elisp|shell|eshell|file\+sys):\S`)

// judgeOrgLine judges one line for Org's own forms.
func judgeOrgLine(l string, inside func(string) bool) (int, string, bool) {
	t := strings.TrimLeft(l, " \t")
	if strings.HasPrefix(t, "#+") {
		if form, what, bad := judgeOrgKeyword(l, inside); bad {
			return form, what, true
		}
	}
	if strings.HasPrefix(t, ":") && len(t) > 12 && asciiEqualFold(t[1:12], "header-args") {
		if m := reHeaderProp.FindStringSubmatch(l); m != nil {
			if what, bad := judgeHeaderArgs(m[1]); bad {
				return OrgHeaderArgs, what, true
			}
		}
	}
	if strings.Contains(l, "src_") || strings.Contains(l, "call_") {
		if m := reInline.FindString(l); m != "" {
			return OrgInline, strings.TrimLeft(m, " \t([{"), true
		}
	}
	if typ, ok := linkNotInert(l); ok {
		return OrgBracketLink, typ + ":", true
	}
	if plainRunMaybe(l) {
		if m := rePlainRun.FindString(l); m != "" {
			return OrgPlainLink, m[:len(m)-1], true
		}
	}
	return 0, "", false
}

// plainRunMaybe says whether a colon in l follows "lisp", "hell" or
// "+sys" (any case): where rePlainRun can match.
func plainRunMaybe(l string) bool {
	for i := 4; i < len(l); i++ {
		j := strings.IndexByte(l[i:], ':')
		if j < 0 {
			return false
		}
		i += j
		w := l[i-4 : i]
		if asciiEqualFold(w, "lisp") || asciiEqualFold(w, "hell") || asciiEqualFold(w, "+sys") {
			return true
		}
	}
	return false
}

// judgeOrgKeyword judges a line starting with "#+": a keyword, or a
// code block's first line.
func judgeOrgKeyword(l string, inside func(string) bool) (int, string, bool) {
	if key, value, ok := keyword(l); ok {
		key = strings.ToUpper(key)
		switch key {
		case "BIND":
			return OrgBind, "#+BIND: " + cut(value, 40), true
		case "SETUPFILE", "INCLUDE":
			p := value
			if strings.HasPrefix(p, `"`) {
				if end := strings.IndexByte(p[1:], '"'); end >= 0 {
					p = p[1 : end+1]
				}
			} else if f := strings.Fields(p); len(f) > 0 {
				p = f[0]
			}
			if p == "" || strings.Contains(p, "://") || inside == nil || !inside(p) {
				return OrgSetupFile, "#+" + key + ": " + cut(p, 60), true
			}
		case "STARTUP":
			for _, o := range strings.Fields(value) {
				if !startupInert[strings.ToLower(o)] {
					return OrgStartup, "#+STARTUP: " + cut(o, 40), true
				}
			}
		case "CALL":
			return OrgCall, "#+CALL: " + cut(value, 40), true
		case "HEADER", "HEADERS":
			if what, bad := judgeHeaderArgs(value); bad {
				return OrgHeaderArgs, what, true
			}
		case "PROPERTY":
			if name, rest, _ := strings.Cut(value, " "); strings.HasPrefix(strings.ToLower(name), "header-args") {
				if what, bad := judgeHeaderArgs(rest); bad {
					return OrgHeaderArgs, what, true
				}
			}
		case "MACRO":
			if _, body, _ := strings.Cut(value, " "); strings.HasPrefix(strings.TrimSpace(body), "(eval") {
				return OrgMacroEval, "#+MACRO: " + cut(value, 40), true
			}
		}
	}
	if t := strings.TrimLeft(l, " \t"); len(t) < 11 || !asciiEqualFold(t[:11], "#+begin_src") {
		return 0, "", false
	}
	if m := reBeginSrc.FindStringSubmatch(l); m != nil {
		if what, bad := judgeHeaderArgs(m[1]); bad {
			return OrgHeaderArgs, what, true
		}
	}
	return 0, "", false
}

// judgeHeaderArgs judges a code block's header arguments: ":eval" may only
// hold a value that runs nothing unasked, ":exports" only code or none, and
// no value may be Emacs Lisp (a word starting with "(", or "NAME=(" in :var).
func judgeHeaderArgs(s string) (string, bool) {
	fields := strings.Fields(s)
	for i, f := range fields {
		if strings.HasPrefix(f, "(") || strings.Contains(f, "=(") || strings.HasPrefix(f, "'(") {
			return "Emacs Lisp in a header argument: " + cut(f, 40), true
		}
		if !strings.HasPrefix(f, ":") {
			continue
		}
		value := ""
		if i+1 < len(fields) {
			value = strings.ToLower(fields[i+1])
		}
		switch strings.ToLower(f) {
		case ":eval":
			switch value {
			case "no", "never", "no-export", "never-export", "query", "query-export":
			default:
				return ":eval " + cut(value, 20), true
			}
		case ":exports":
			switch value {
			case "code", "none":
			default:
				return ":exports " + cut(value, 20), true
			}
		}
	}
	return "", false
}

// cut shortens s to at most n bytes, not splitting a UTF-8 character.
func cut(s string, n int) string {
	if len(s) <= n {
		return s
	}
	for n > 0 && s[n]&0xC0 == 0x80 {
		n--
	}
	return s[:n] + "…"
}
