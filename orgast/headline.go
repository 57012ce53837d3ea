package orgast

import "strings"

// readHeadline reads headline i's line as org-element-headline-parser
// does, then its planning line and what follows it.
func (p *parser) readHeadline(i int) {
	hp := &p.heads[i]
	h := &p.hls[i]
	t := p.t
	b := hp.begin
	e := p.eol(b)
	h.Stars = hp.stars
	h.Level = hp.stars
	if p.set.oddLevels {
		h.Level = 1 + hp.stars/2
	}
	h.Parent = hp.parent
	h.Line = Range{b, e}
	h.End = hp.end
	h.Section = Range{min(p.nextLine(b), hp.firstChild), hp.firstChild}

	x := p.skipSpTab(b+hp.stars, e)
	// The TODO keyword must be followed by a space (case matters).
	for sp := x; sp < e; sp++ {
		if t[sp] == ' ' {
			if sp > x && p.set.todo.Has(string(t[x:sp])) {
				h.Todo = string(t[x:sp])
				h.TodoType = TodoOpen
				if p.set.todo.IsDone(h.Todo) {
					h.TodoType = TodoDone
				}
				x = p.skipSpTab(sp+1, e)
			}
			break
		}
	}
	// Priority: "\[#.\][ \t]*", any one character.
	if x+2 < e && t[x] == '[' && t[x+1] == '#' {
		r, n := p.runeAt(x + 2)
		if x+2+n < e && t[x+2+n] == ']' {
			h.Priority = r
			x = p.skipSpTab(x+3+n, e)
		}
	}
	if p.atExact(x, "COMMENT") {
		h.Commented = true
		x += 7
	}
	titleStart := x
	search := x
	if h.Todo == "" && h.Priority == 0 && !h.Commented {
		search = p.skipSpTabBack(x, b) // "* :tag:" has tags and no title
	}
	titleEnd := e
	if k, j, ok := p.headlineTags(search, e); ok {
		h.Tags = splitTags(p.str(k, j))
		titleEnd = p.skipSpTabBack(k, search)
		for _, tag := range h.Tags {
			if tag == "ARCHIVE" {
				h.Archived = true
			}
		}
	}
	lo, hi := titleStart, titleEnd
	if lo > hi {
		lo, hi = hi, lo
	}
	a, z := p.trimmed(lo, hi)
	h.Title = p.str(a, z)
	h.TitleRange = Range{a, z}
	// Objects are parsed in the title without surrounding spaces and tabs.
	oa, oz := p.skipSpTab(titleStart, e), p.skipSpTabBack(titleEnd, b)
	if oa > oz {
		oa, oz = oz, oa
	}
	hp.titleObj = Range{oa, oz}
	pl := p.planning(b)
	if pl != (Planning{}) {
		h.plan = &pl
	}
	if h.Drawer == nil {
		p.checkMissingDrawer(b, pl)
	}
}

// headlineTags finds "[ \t]+\(:[[:alnum:]_@#%:]+:\)[ \t]*$" searching from
// x on the line ending at e, and returns the tags' span.
func (p *parser) headlineTags(x, e int) (int, int, bool) {
	j := p.skipSpTabBack(e, x)
	if j-x < 4 || p.t[j-1] != ':' {
		return 0, 0, false
	}
	k := j
	for k > x {
		r, n := p.runeBefore(k)
		if !(r == '_' || r == '@' || r == '#' || r == '%' || r == ':' || isAlnum(r)) {
			break
		}
		k -= n
	}
	if j-k < 3 || p.t[k] != ':' || k-1 < x || (p.t[k-1] != ' ' && p.t[k-1] != '\t') {
		return 0, 0, false
	}
	return k, j, true
}

// splitTags is (org-split-string s ":"): separators at the ends are
// dropped, empty strings between two colons kept.
func splitTags(s string) []string {
	// Room for exactly the tags of ":a:b:" (one fewer than its colons):
	// the File keeps the slice.
	out := make([]string, 0, max(strings.Count(s, ":")-1, 1))
	start := 0
	if len(s) > 0 && s[0] == ':' {
		start = 1
	}
	for i := start; i < len(s); i++ {
		if s[i] == ':' {
			out = append(out, s[start:i])
			start = i + 1
		}
	}
	if start < len(s) {
		out = append(out, s[start:])
	}
	if len(out) == 0 {
		return nil
	}
	return out
}

// checkMissingDrawer explains why a :PROPERTIES: line where a property
// drawer belongs is not one.
func (p *parser) checkMissingDrawer(b int, pl Planning) {
	l := p.nextLine(b)
	if pl.Range.End > 0 {
		l = p.nextLine(l)
	}
	if l >= p.n {
		return
	}
	e := p.eol(l)
	j := p.skipSpTab(l, e)
	if !p.at(j, ":PROPERTIES:") || p.skipSpTab(j+12, e) != e {
		return
	}
	for m := p.nextLine(l); m < p.n && m > l; m = p.nextLine(m) {
		me := p.eol(m)
		k := p.skipSpTab(m, me)
		if p.at(k, ":END:") && p.skipSpTab(k+5, me) == me {
			return
		}
		if p.headlineLine(m) {
			break
		}
		if !p.propertyLine(k, me) {
			p.problem(m, me, SeverityError, "property-malformed", "This line is not a node property (:KEY: value), so Org ignores the whole property drawer.")
			return
		}
		if me >= p.n {
			break
		}
	}
	p.problem(l, e, SeverityError, "property-drawer-unclosed", "This property drawer has no :END: line, so Org ignores it.")
}

// headlineLine reports whether line l is a headline.
func (p *parser) headlineLine(l int) bool {
	k := l
	for k < p.n && p.t[k] == '*' {
		k++
	}
	return k > l && k < p.n && p.t[k] == ' '
}
