package orgast

import (
	"slices"
	"sort"
)

// listItem is one entry of a list structure (org-list-struct): where the
// item starts, its indentation, its description tag (unordered items
// only) and where it ends.
type listItem struct {
	begin, ind, end int
	tag             Range // End == 0: no tag
}

// listStruct is every item of a list and of the lists nested in it,
// sorted by position, as org-element--list-struct computes it.
type listStruct struct {
	items []listItem
}

// find returns the index of the item starting at begin, or -1.
func (s *listStruct) find(begin int) int {
	i := sort.Search(len(s.items), func(i int) bool { return s.items[i].begin >= begin })
	if i < len(s.items) && s.items[i].begin == begin {
		return i
	}
	return -1
}

// itemAt matches (org-item-re) at line start q: "[ \t]*" then "-", "+" or
// digits and "." or ")", or blanks then "*"; then a blank or the line end.
func (p *parser) itemAt(q int) bool {
	t := p.t
	i := p.skipSpTab(q, p.n)
	if i >= p.n {
		return false
	}
	j := i
	switch {
	case t[i] == '-' || t[i] == '+':
		j++
	case t[i] == '*':
		if i == q {
			return false
		}
		j++
	default:
		for j < p.n && t[j] >= '0' && t[j] <= '9' {
			j++
		}
		if j == i || j >= p.n || (t[j] != '.' && t[j] != ')') {
			return false
		}
		j++
	}
	return j >= p.n || t[j] == ' ' || t[j] == '\t' || t[j] == '\n'
}

// itemMatch is org-list-full-item-re matched at an item's line start.
type itemMatch struct {
	bulletOrdered bool // the bullet has "." or ")"
	bulletStar    bool // the bullet is "-", "+" or "*"
	tag           Range
	hasTag        bool
	end           int // (match-end 0)
}

func (p *parser) matchItem(b int) itemMatch {
	t := p.t
	e := p.eol(b)
	i := p.skipSpTab(b, e)
	var m itemMatch
	j := i
	switch {
	case j < e && (t[j] == '-' || t[j] == '+' || t[j] == '*'):
		m.bulletStar = true
		j++
	default:
		k := j
		for k < e && t[k] >= '0' && t[k] <= '9' {
			k++
		}
		if k == j && k < e && (t[k] >= 'a' && t[k] <= 'z' || t[k] >= 'A' && t[k] <= 'Z') {
			k++
		}
		if k == j || k >= e || (t[k] != '.' && t[k] != ')') {
			m.end = i
			return m
		}
		m.bulletOrdered = true
		j = k + 1
	}
	if j < e && (t[j] == ' ' || t[j] == '\t') {
		j = p.skipSpTab(j, e)
	} else if j != e {
		m.end = i
		return m
	}
	// Counter: [@5] or [@start:5].
	if j+2 < e && t[j] == '[' && t[j+1] == '@' {
		k := j + 2
		if p.at(k, "start:") {
			k += 6
		}
		d := k
		for d < e && t[d] >= '0' && t[d] <= '9' {
			d++
		}
		if d == k && d < e && (t[d] >= 'a' && t[d] <= 'z' || t[d] >= 'A' && t[d] <= 'Z') {
			d++
		}
		if d > k && d < e && t[d] == ']' {
			j = p.skipSpTab(d+1, e)
		}
	}
	// Checkbox: [ ], [X], [-], then blanks or the line end.
	if j+3 <= e && t[j] == '[' && (t[j+1] == ' ' || t[j+1] == 'X' || t[j+1] == 'x' || t[j+1] == '-') && t[j+2] == ']' {
		k := j + 3
		if k == e {
			j = k
		} else if t[k] == ' ' || t[k] == '\t' {
			j = p.skipSpTab(k, e)
		}
	}
	m.end = j
	// Description tag: "\(.*\)[ \t]+::\(?:[ \t]+\|$\)", the last such "::".
	for k := e - 2; k > j; k-- {
		if t[k] == ':' && t[k+1] == ':' && (t[k-1] == ' ' || t[k-1] == '\t') &&
			(k+2 == e || t[k+2] == ' ' || t[k+2] == '\t') {
			m.hasTag = true
			m.tag = Range{j, k - 1}
			if k+2 == e {
				m.end = e
			} else {
				m.end = p.skipSpTab(k+2, e)
			}
			break
		}
	}
	return m
}

// column is (current-column) after the indentation of line l (tabs stop
// every 8 columns).
func (p *parser) indentColumn(l int) int {
	col := 0
	for i := l; i < p.n; i++ {
		switch p.t[i] {
		case ' ':
			col++
		case '\t':
			col = (col/8 + 1) * 8
		default:
			return col
		}
	}
	return col
}

// listEnd matches org-list-end-re "^[ \t]*\n[ \t]*\n" at line start l.
func (p *parser) listEnd(l int) bool {
	e := p.eol(l)
	if e >= p.n || p.skipSpTab(l, e) != e {
		return false
	}
	e2 := p.eol(e + 1)
	return e2 < p.n && p.skipSpTab(e+1, e2) == e2
}

// listStruct is org-element--list-struct from the item at q.
func (p *parser) listStruct(q, limit int) *listStruct {
	st := &listStruct{}
	var open []listItem
	finish := func(end int) {
		for i := range open {
			open[i].end = end
		}
		st.items = append(st.items, open...)
		open = open[:0]
		slices.SortFunc(st.items, func(a, b listItem) int { return a.begin - b.begin })
	}
	for pos := q; ; {
		switch {
		case pos >= limit:
			finish(p.nextLine(p.skipWSBack(pos, 0)))
			return st
		case p.listEnd(pos):
			finish(pos)
			return st
		case p.itemAt(pos):
			ind := p.indentColumn(pos)
			for len(open) > 0 && ind <= open[len(open)-1].ind {
				it := open[len(open)-1]
				it.end = pos
				st.items = append(st.items, it)
				open = open[:len(open)-1]
			}
			it := listItem{begin: pos, ind: ind}
			if m := p.matchItem(pos); m.hasTag && m.bulletStar {
				it.tag = m.tag
			}
			open = append(open, it)
			pos = p.nextLine(pos)
		case p.blankAt(pos):
			pos = p.nextLine(pos)
		default:
			ind := p.indentColumn(pos)
			end := p.nextLine(p.skipWSBack(pos, 0))
			for len(open) > 0 && ind <= open[len(open)-1].ind {
				it := open[len(open)-1]
				it.end = end
				st.items = append(st.items, it)
				open = open[:len(open)-1]
				if len(open) == 0 {
					finish(end)
					return st
				}
			}
			// Skip the contents of blocks and drawers.
			i := p.skipSpTab(pos, p.n)
			if p.atExact(i, "#+") && p.at(i+2, "BEGIN") && i+7 < p.n {
				var suffix string
				switch {
				case p.t[i+7] == ':':
					suffix = ":"
				case p.t[i+7] == '_' && p.nonSpaceRunEnd(i+8, p.n) > i+8:
					suffix = p.str(i+7, p.nonSpaceRunEnd(i+8, p.n))
				}
				if suffix != "" {
					if l := p.blockEnd(suffix, pos, limit); l >= 0 {
						pos = l
					}
				}
			} else if p.drawerLine(pos) {
				if l := p.drawerEnd(pos, limit); l >= 0 {
					pos = l
				}
			}
			pos = p.nextLine(pos)
		}
	}
}

// plainListElement is org-element-plain-list-parser at q.
func (p *parser) plainListElement(q, limit, begin int, st *listStruct) element {
	el := element{kind: kPlainList, begin: begin, line: q, cbeg: q, list: st}
	k := st.find(q)
	ind, pos := st.items[k].ind, st.items[k].end
	for {
		j := st.find(pos)
		if j < 0 || st.items[j].ind != ind {
			break
		}
		pos = st.items[j].end
	}
	el.cend = pos
	e := p.skipWS(pos, limit)
	if e == limit {
		el.end = limit
	} else {
		el.end = p.bol(e)
	}
	return el
}

// itemElement is org-element-item-parser at pos.
func (p *parser) itemElement(pos int, st *listStruct) element {
	b := p.bol(pos)
	el := element{kind: kItem, begin: b, line: b, cbeg: -1, list: st}
	k := -1
	if st != nil {
		k = st.find(b)
	}
	if k < 0 { // not an item of this structure: cannot happen in Org
		el.end = p.nextLine(b)
		return el
	}
	end := st.items[k].end
	if end != p.bol(end) {
		end = p.nextLine(end)
	}
	el.end = end
	m := p.matchItem(b)
	cb := m.end
	if m.hasTag && m.bulletOrdered {
		cb = m.tag.Start
	}
	cb = p.skipWS(cb, end)
	switch {
	case cb >= end:
	case p.bol(cb) == b:
		el.cbeg = cb
	default:
		el.cbeg = p.bol(cb)
	}
	if el.cbeg >= 0 {
		el.cend = p.contentsEnd(end, 0)
	}
	if m.hasTag && m.bulletStar {
		el.tag = m.tag
	}
	return el
}
