package gates

import (
	"path/filepath"
	"strings"
	"unsafe"
)

// selfWords are what code that reaches pp-lsp's own governance names:
// the two files only a human changes, Org's way of changing a TODO state,
// the bridge's approval, and pp-lsp's own directories (added per Env).
var selfWords = []string{
	"flightplans.org", "journal.org", "org-todo", "passepartout.approve", "approvealways", ":approve",
	"passepartout/token", ".local/share/passepartout", ".config/passepartout", "passepartout_data_dir",
}

// selfWordsFor are selfWords and the environment's own directories and
// configuration file, lower-cased.
func (e *Env) selfWordsFor() []string {
	words := append([]string(nil), selfWords...)
	for _, own := range e.own {
		words = append(words, strings.ToLower(strings.TrimSuffix(own, "/")))
	}
	if e.configFile != "" {
		words = append(words, strings.ToLower(e.configFile))
	}
	return words
}

// selfMention says which of the self words a text names, if any, without
// regard to case.
func (e *Env) selfMention(text string) (string, bool) {
	if text == "" {
		return "", false
	}
	for _, w := range e.selfWords {
		if w != "" && containsFoldString(text, w) {
			return w, true
		}
	}
	return "", false
}

// containsFoldString is containsFold for a string.
func containsFoldString(hay, needle string) bool {
	return containsFold(unsafe.Slice(unsafe.StringData(hay), len(hay)), needle)
}

// literalsOf returns the string literals of code (codeLiterals and
// perlQuoted), found once per check whichever vectors ask.
func (e *Env) literalsOf(code string) []string {
	if e.check != nil && e.check.lits.ok && e.check.lits.code == code {
		return e.check.lits.lits
	}
	lits := codeLiterals(code)
	lits = append(lits, perlQuoted(code)...)
	if e.check != nil {
		e.check.lits = codeLits{code: code, lits: lits, ok: true}
	}
	return lits
}

// bridgeApproval spots the bridge's or the language server's approval in
// outgoing text: a plist (:ACTION :APPROVE …) or the LSP command.
func bridgeApproval(text string) (string, bool) {
	for _, w := range []string{":approve", "passepartout.approve"} {
		if containsLowerASCII(text, w) {
			return "an approval (" + w + ")", true
		}
	}
	return "", false
}

// lowerASCIIEqual says whether s, its ASCII letters lower-cased, is w.
func lowerASCIIEqual(s, w string) bool {
	for i := 0; i < len(w); i++ {
		if lowerASCII(s[i]) != w[i] {
			return false
		}
	}
	return true
}

// containsLowerASCII is strings.Contains(strings.ToLower(text), w) for a
// word w of lower-case ASCII letters and punctuation, without the
// lower-cased copy. The two agree: a match is ASCII, and the only runes
// that lower-case into ASCII are the Kelvin sign (to k) and the dotted
// capital I (to i and a combining dot), letters w must not hold.
func containsLowerASCII(text, w string) bool {
	lo, up := w[0], upperASCII(w[0])
	for i := 0; i+len(w) <= len(text); i++ {
		j := strings.IndexByte(text[i:len(text)-len(w)+1], lo)
		if lo != up {
			lim := len(text) - len(w) + 1
			if j >= 0 {
				lim = i + j
			}
			if k := strings.IndexByte(text[i:lim], up); k >= 0 {
				j = k
			}
		}
		if j < 0 {
			return false
		}
		i += j
		if len(text)-i >= len(w) && lowerASCIIEqual(text[i:i+len(w)], w) {
			return true
		}
	}
	return false
}

// privateInCode says whether code names a private note: a string literal
// that is the path of one (relative to the first root, ~ or absolute), a
// glob matching one, or a folder holding one when the code lists folders.
func (e *Env) privateInCode(code string) (string, bool) {
	if code == "" {
		return "", false
	}
	lits := e.literalsOf(code)
	walks := strings.Contains(code, "walk") || strings.Contains(code, "listdir") || strings.Contains(code, "glob") ||
		strings.Contains(code, "scandir") || strings.Contains(code, "readdir") || strings.Contains(code, "directory-files") ||
		strings.Contains(code, "iterdir") || strings.Contains(code, "opendir") || strings.Contains(code, "find-lisp")
	dir := e.firstRoot()
	for _, lit := range lits {
		if lit == "" || len(lit) > 4096 || strings.ContainsAny(lit, "\n\x00") || strings.Contains(lit, "://") || !e.mayName(lit, dir) {
			continue
		}
		paths, _ := e.expandGlobFrom(lit, dir)
		for _, p := range paths {
			l := e.locateFrom(p, dir)
			if l.abs == "" || l.class != pathInside && l.class != pathProtected {
				continue
			}
			st := e.filePrivacy(l.abs)
			switch {
			case st.private:
				return "the code names " + lit + ", a private note", true
			case st.dir && walks:
				if found, _ := e.privateBelow(l.abs, walkFilter{}, nil); len(found) > 0 {
					rel, err := filepath.Rel(dir, found[0])
					if err != nil {
						rel = found[0]
					}
					return "the code lists " + lit + ", which holds private notes (" + rel + ")", true
				}
			}
		}
	}
	return "", false
}
