package orgast

import "unicode"

// radioMatcher is org-target-link-regexp: any radio target's text, in
// any letter case, its spaces matching any run of whitespace, with a
// line start, a non-alphanumeric or a line-breakable (CJK) character on
// either side.
type radioMatcher struct {
	targets [][]rune // in the order of the regexp's alternation
	first   map[rune]bool
}

// radioMatch is one match: the whole match starts at start and ends at
// end; the link text (group 1) is [g1b, g1e).
type radioMatch struct {
	start, g1b, g1e, end int
}

// newRadioMatcher builds the matcher from the radio targets' texts in
// document order; org-update-radio-target-regexp pushes each new text in
// front, so the last one is tried first.
func newRadioMatcher(names []string) *radioMatcher {
	m := &radioMatcher{first: map[rune]bool{}}
	seen := map[string]bool{}
	for _, n := range names {
		if seen[n] || n == "" {
			continue
		}
		seen[n] = true
		rs := []rune(n)
		m.targets = append([][]rune{rs}, m.targets...)
		m.first[unicode.ToLower(rs[0])] = true
		m.first[unicode.ToUpper(rs[0])] = true
	}
	if len(m.targets) == 0 {
		return nil
	}
	return m
}

// radioSeparator is "[^[:alnum:]]\|\c|".
func radioSeparator(r rune) bool { return !isAlnum(r) || isLineBreakable(r) }

// matchAt matches the regexp exactly at s (looking-at).
func (m *radioMatcher) matchAt(p *parser, rg *region, s int) (radioMatch, bool) {
	if p.bolIn(rg, s) {
		if mm, ok := m.group(p, rg, s, s); ok {
			return mm, true
		}
	}
	if s < rg.end {
		r, n := p.runeAt(s)
		if radioSeparator(r) {
			return m.group(p, rg, s, s+n)
		}
	}
	return radioMatch{}, false
}

// group tries each target at g1b, then the trailing context.
func (m *radioMatcher) group(p *parser, rg *region, s, g1b int) (radioMatch, bool) {
	if g1b >= rg.end {
		return radioMatch{}, false
	}
	if r, _ := p.runeAt(g1b); !m.first[r] && !m.first[unicode.ToLower(r)] {
		return radioMatch{}, false
	}
	for _, tg := range m.targets {
		e, ok := m.target(p, rg, tg, g1b)
		if !ok {
			continue
		}
		if e >= rg.end || p.t[e] == '\n' {
			return radioMatch{start: s, g1b: g1b, g1e: e, end: e}, true
		}
		if r, n := p.runeAt(e); radioSeparator(r) {
			return radioMatch{start: s, g1b: g1b, g1e: e, end: e + n}, true
		}
	}
	return radioMatch{}, false
}

// target matches one target's text at i, ignoring case, a run of spaces
// in it matching one or more whitespace characters.
func (m *radioMatcher) target(p *parser, rg *region, tg []rune, i int) (int, bool) {
	for k := 0; k < len(tg); {
		if tg[k] == ' ' {
			for k < len(tg) && tg[k] == ' ' {
				k++
			}
			j := i
			for j < rg.end {
				r, n := p.runeAt(j)
				if !isSpaceSyntax(r) {
					break
				}
				j += n
			}
			if j == i {
				return 0, false
			}
			i = j
			continue
		}
		if i >= rg.end {
			return 0, false
		}
		r, n := p.runeAt(i)
		if r != tg[k] && !equalFoldRune(r, tg[k]) {
			return 0, false
		}
		i += n
		k++
	}
	return i, true
}

func equalFoldRune(a, b rune) bool {
	if a == b {
		return true
	}
	return unicode.ToLower(a) == unicode.ToLower(b) || unicode.ToUpper(a) == unicode.ToUpper(b)
}

// search is re-search-forward from from to the end of the region.
func (m *radioMatcher) search(p *parser, rg *region, from int) (radioMatch, bool) {
	for s := from; s < rg.end; {
		if mm, ok := m.matchAt(p, rg, s); ok {
			return mm, true
		}
		_, n := p.runeAt(s)
		s += n
	}
	return radioMatch{}, false
}

// objectPhase parses the objects of every container. When the file may
// have radio targets it first collects them, as org-mode does on
// start-up, since their texts become links everywhere.
func (p *parser) objectPhase() {
	if p.mayHaveRadio {
		p.collecting = true
		p.objectsPass()
		p.collecting = false
		var names []string
		for _, tg := range p.targets {
			if tg.Radio {
				names = append(names, tg.Name)
			}
		}
		p.radio = newRadioMatcher(names)
		p.links, p.targets = p.links[:0], p.targets[:0]
	}
	p.objectsPass()
}

func (p *parser) objectsPass() {
	for _, c := range p.conts {
		if c.radioOnly && !p.collecting {
			continue
		}
		p.parseObjects(c.beg, c.end, c.kind.set(), c.node)
	}
}
