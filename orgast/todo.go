package orgast

import (
	"strings"
	"unicode/utf8"
)

// TodoConfig is the TODO keyword set-up in effect for a whole file, as
// org-set-regexps-and-options computes it from every #+TYP_TODO:, #+TODO:
// and #+SEQ_TODO: keyword (in that order: all TYP_TODO lines, then all TODO
// lines, then all SEQ_TODO lines), or Org's default TODO | DONE when the
// file has none.
type TodoConfig struct {
	// Sequences in the order Org reads them.
	Sequences []TodoSequence
	// Keywords are all keyword names in order (org-todo-keywords-1).
	Keywords []string
	// Done are the done states (org-done-keywords).
	Done []string
	// Default reports that no keyword line set anything up.
	Default bool
}

// TodoSequence is one #+TODO: line.
type TodoSequence struct {
	// Type is "sequence" (#+TODO:, #+SEQ_TODO:) or "type" (#+TYP_TODO:).
	Type string
	// Words are the line's words as written: "WAIT(w@/!)", "|".
	Words []string
	// Todo and Done are the state names before and after "|" (without a
	// "|", the last name is the only done state).
	Todo, Done []string
	// Keyword is the index in File.Keywords of the line (-1 for the default).
	Keyword int
}

// Has reports whether kw is one of the file's TODO keywords.
func (c *TodoConfig) Has(kw string) bool {
	for _, k := range c.Keywords {
		if k == kw {
			return true
		}
	}
	return false
}

// IsDone reports whether kw is a done state.
func (c *TodoConfig) IsDone(kw string) bool {
	for _, k := range c.Done {
		if k == kw {
			return true
		}
	}
	return false
}

// settings are the file-wide options keyword lines set.
type settings struct {
	todo      TodoConfig
	oddLevels bool
	abbrevs   []LinkAbbrev
}

// isSettingKey reports whether a keyword changes how the rest of the file
// parses, so that editing one forces a full parse.
func isSettingKey(key string) bool {
	switch key {
	case "TODO", "SEQ_TODO", "TYP_TODO", "STARTUP", "LINK":
		return true
	}
	return false
}

// computeSettings reads the setting keywords as org-set-regexps-and-options
// does (#+SETUPFILE is never followed: orgast reads one file).
func computeSettings(kws []Keyword) settings {
	var s settings
	var typ, seq []int
	for i := range kws {
		switch kws[i].Key {
		case "TYP_TODO":
			typ = append(typ, i)
		case "TODO", "SEQ_TODO":
			// All TODO lines come before all SEQ_TODO lines.
		case "STARTUP":
			for _, opt := range splitEmacsWhitespace(kws[i].Value) {
				switch strings.ToLower(opt) {
				case "odd":
					s.oddLevels = true
				case "oddeven":
					s.oddLevels = false
				}
			}
		case "LINK":
			if k, r, ok := parseLinkAbbrev(kws[i].Value); ok {
				s.abbrevs = append(s.abbrevs, LinkAbbrev{Key: k, Replacement: r})
			}
		}
	}
	for i := range kws {
		if kws[i].Key == "TODO" {
			seq = append(seq, i)
		}
	}
	for i := range kws {
		if kws[i].Key == "SEQ_TODO" {
			seq = append(seq, i)
		}
	}
	t := &s.todo
	if len(typ)+len(seq) == 0 {
		t.Default = true
		t.Sequences = []TodoSequence{{Type: "sequence", Words: []string{"TODO", "|", "DONE"}, Todo: []string{"TODO"}, Done: []string{"DONE"}, Keyword: -1}}
		t.Keywords = []string{"TODO", "DONE"}
		t.Done = []string{"DONE"}
		return s
	}
	add := func(kind string, i int) {
		words := splitEmacsWhitespace(kws[i].Value)
		sq := TodoSequence{Type: kind, Words: words, Keyword: i}
		sep := -1
		var names []string
		for j, w := range words {
			if w == "|" {
				if sep < 0 {
					sep = j
				}
				continue
			}
			names = append(names, todoKeywordName(w))
		}
		var done []string
		if sep >= 0 {
			for _, w := range words[sep+1:] {
				done = append(done, todoKeywordName(w))
			}
		} else if len(names) > 0 {
			done = names[len(names)-1:]
		}
		sq.Done = done
		for _, n := range names {
			if !contains(done, n) {
				sq.Todo = append(sq.Todo, n)
			}
		}
		t.Sequences = append(t.Sequences, sq)
		t.Keywords = append(t.Keywords, names...)
		t.Done = append(t.Done, done...)
	}
	for _, i := range typ {
		add("type", i)
	}
	for _, i := range seq {
		add("sequence", i)
	}
	if len(t.Done) == 0 && len(t.Keywords) > 0 {
		t.Done = t.Keywords[len(t.Keywords)-1:]
	}
	return s
}

// todoKeywordName strips a trailing "(…)" fast-access and logging spec from
// a keyword word ("WAIT(w@/!)" → "WAIT"), as Org's "^\(.*?\)\(?:(…)\)?$"
// does: the shortest prefix followed by nothing or by "(" … ")".
func todoKeywordName(w string) string {
	if strings.HasSuffix(w, ")") {
		if i := strings.IndexByte(w, '('); i >= 0 && i <= len(w)-2 {
			return w[:i]
		}
	}
	return w
}

// parseLinkAbbrev splits a #+LINK: value "KEY REPLACEMENT" as Org's
// "\\`\\(\\S-+\\)[ \t]+\\(.+\\)" does.
func parseLinkAbbrev(v string) (key, repl string, ok bool) {
	i := 0
	for i < len(v) {
		r, n := utf8.DecodeRuneInString(v[i:])
		if isSpaceSyntax(r) {
			break
		}
		i += n
	}
	if i == 0 || i >= len(v) || (v[i] != ' ' && v[i] != '\t') {
		return "", "", false
	}
	j := i
	for j < len(v) && (v[j] == ' ' || v[j] == '\t') {
		j++
	}
	if j >= len(v) {
		return "", "", false
	}
	return v[:i], v[j:], true
}

// splitEmacsWhitespace is split-string with its default separators
// "[ \f\t\n\r\v]+", dropping empty strings.
func splitEmacsWhitespace(s string) []string {
	return strings.FieldsFunc(s, func(r rune) bool {
		switch r {
		case ' ', '\f', '\t', '\n', '\r', '\v':
			return true
		}
		return false
	})
}

// splitFileTags splits a #+FILETAGS: value as org-outline.el does:
// (split-string v ":" t "[ \t]+").
func splitFileTags(v string) []string {
	var out []string
	for _, p := range strings.Split(v, ":") {
		p = strings.Trim(p, " \t")
		if p != "" {
			out = append(out, p)
		}
	}
	return out
}

func contains(list []string, s string) bool {
	for _, x := range list {
		if x == s {
			return true
		}
	}
	return false
}

// equalFoldASCII compares two strings, folding ASCII case only (Org's
// property names are ASCII in practice; others compare exactly).
func equalFoldASCII(a, b string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := 0; i < len(a); i++ {
		x, y := a[i], b[i]
		if 'a' <= x && x <= 'z' {
			x -= 'a' - 'A'
		}
		if 'a' <= y && y <= 'z' {
			y -= 'a' - 'A'
		}
		if x != y {
			return false
		}
	}
	return true
}
