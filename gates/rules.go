package gates

import (
	"fmt"
	"path"
	"strings"
)

// rule is one permission rule: a tool and an optional argument pattern.
//
//	shell                      every shell action
//	shell(git log:*)           a command whose words start with "git log"
//	shell(make test)           exactly "make test"
//	file_read(**)              any path inside the roots
//	file_write(notes/**)       paths below notes/ in a root
//	file_write(~/drafts/*.md)  an absolute or ~ pattern matches outside the roots too
//	http(https://api.example.com/*)   URL pattern; "GET https://…" also fixes the method
//	send(email:*@example.com)  channel, then recipient pattern
//	eval(python)               language
//	memory_edit(*)             node id pattern
//	message                    every message
//
// Path patterns use / segments: * within one segment, ** across any number
// (including none). Other patterns use * for any run of characters.
type rule struct {
	text       string
	tool       Tool
	pattern    string
	hasPattern bool
	shellWords []string // shell: the words to match
	shellOpen  bool     // shell: more words may follow (":*")
}

// parseRule reads one rule. A pattern is read by the kind of the tool's
// arguments; a tool whose arguments no pattern kind is written for takes
// none (a pattern that could never match would make a deny or ask rule
// silently fail open).
func parseRule(text string, tools *Tools) (rule, error) {
	r := rule{text: text}
	name, rest, hasParen := strings.Cut(strings.TrimSpace(text), "(")
	if hasParen {
		if !strings.HasSuffix(rest, ")") {
			return r, fmt.Errorf("rule %q: missing the closing parenthesis", text)
		}
		r.pattern = strings.TrimSuffix(rest, ")")
		r.hasPattern = true
		if strings.TrimSpace(r.pattern) == "" {
			return r, fmt.Errorf("rule %q: empty pattern (write %s without parentheses for every action)", text, name)
		}
	}
	tool, ok := tools.Parse(name)
	if !ok {
		return r, fmt.Errorf("rule %q: unknown tool %q", text, name)
	}
	r.tool = tool
	if r.hasPattern && !patternTools[tool] {
		return r, fmt.Errorf("rule %q: %s takes no pattern (write %s alone for every action)", text, tool, tool)
	}
	if tool == ToolShell && r.hasPattern {
		p := strings.TrimSpace(r.pattern)
		switch {
		case p == "*":
			r.shellOpen = true
		case strings.HasSuffix(p, ":*"):
			r.shellOpen = true
			p = strings.TrimSuffix(p, ":*")
		case strings.HasSuffix(p, " *"):
			r.shellOpen = true
			p = strings.TrimSuffix(p, " *")
		}
		if p != "*" {
			r.shellWords = strings.Fields(p)
		}
	}
	if (tool == ToolFileRead || tool == ToolFileWrite) && r.hasPattern {
		if _, err := path.Match(strings.ReplaceAll(r.pattern, "**", "*"), "x"); err != nil {
			return r, fmt.Errorf("rule %q: bad pattern: %w", text, err)
		}
	}
	return r, nil
}

// patternTools are the tools whose rules may carry a pattern: the
// matchers below are written for them (matchShellCmd, matchPath,
// matchOther).
var patternTools = map[Tool]bool{ToolShell: true, ToolFileRead: true, ToolFileWrite: true, ToolHTTP: true,
	ToolSend: true, ToolEval: true, ToolMemoryEdit: true, ToolMessage: true}

// matchShellCmd matches one simple command's words.
func (r rule) matchShellCmd(argv []string) bool {
	if !r.hasPattern {
		return true
	}
	if len(argv) < len(r.shellWords) || !r.shellOpen && len(argv) != len(r.shellWords) {
		return false
	}
	for i, w := range r.shellWords {
		a := argv[i]
		if i == 0 {
			a = verbNameKeepRelative(a)
		}
		if a != w {
			return false
		}
	}
	return true
}

// verbNameKeepRelative strips the system directories from a program name
// (/usr/bin/ls is ls) but keeps any other path (./ls is not ls).
func verbNameKeepRelative(v string) string {
	if systemBinary(v) {
		return v[strings.LastIndexByte(v, '/')+1:]
	}
	return v
}

// matchPath matches a located path.
func (r rule) matchPath(l loc, home string) bool {
	if !r.hasPattern {
		return l.class == pathInside || l.class == pathProtected
	}
	p := r.pattern
	if strings.HasPrefix(p, "~/") {
		p = home + p[1:]
	}
	if strings.HasPrefix(p, "/") {
		return l.abs != "" && globPath(p, l.abs)
	}
	if l.root < 0 {
		return false
	}
	return globPath(p, l.rel)
}

// globPath matches slash-separated paths; ** matches any number of segments.
func globPath(pattern, name string) bool {
	return globSegs(strings.Split(strings.Trim(pattern, "/"), "/"), strings.Split(strings.Trim(name, "/"), "/"))
}

func globSegs(pat, segs []string) bool {
	for len(pat) > 0 {
		if pat[0] == "**" {
			if len(pat) == 1 {
				return true
			}
			for i := 0; i <= len(segs); i++ {
				if globSegs(pat[1:], segs[i:]) {
					return true
				}
			}
			return false
		}
		if len(segs) == 0 {
			return false
		}
		ok, err := path.Match(pat[0], segs[0])
		if err != nil || !ok {
			return false
		}
		pat, segs = pat[1:], segs[1:]
	}
	return len(segs) == 0
}

// wildcard matches s against a pattern where * is any run of characters.
func wildcard(pattern, s string) bool {
	parts := strings.Split(pattern, "*")
	if len(parts) == 1 {
		return pattern == s
	}
	if !strings.HasPrefix(s, parts[0]) {
		return false
	}
	s = s[len(parts[0]):]
	for i := 1; i < len(parts)-1; i++ {
		j := strings.Index(s, parts[i])
		if j < 0 {
			return false
		}
		s = s[j+len(parts[i]):]
	}
	return strings.HasSuffix(s, parts[len(parts)-1])
}

// matchOther matches the tools whose pattern is a plain wildcard.
func (r rule) matchOther(a Action) bool {
	if !r.hasPattern {
		return true
	}
	switch a.Tool {
	case ToolHTTP:
		m, u, hasMethod := strings.Cut(r.pattern, " ")
		if hasMethod && !strings.Contains(m, "/") {
			return strings.EqualFold(m, a.Arg("method")) && wildcard(u, a.Arg("url"))
		}
		return wildcard(r.pattern, a.Arg("url"))
	case ToolSend:
		ch, to, hasTo := strings.Cut(r.pattern, ":")
		if !strings.EqualFold(ch, a.Arg("channel")) && ch != "*" {
			return false
		}
		return !hasTo || wildcard(strings.ToLower(to), strings.ToLower(a.Arg("to")))
	case ToolEval:
		return evalLangs[strings.ToLower(r.pattern)] == evalLangs[strings.ToLower(a.Arg("lang"))] || wildcard(r.pattern, a.Arg("lang"))
	case ToolMemoryEdit:
		return wildcard(r.pattern, a.Arg("id"))
	case ToolMessage:
		return wildcard(r.pattern, a.Arg("text"))
	}
	return false
}
