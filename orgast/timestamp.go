package orgast

// timestampEnd is org-element-timestamp-parser at x: it returns the end of
// the timestamp's raw value (before trailing blanks), or -1 when
// org-element--timestamp-regexp does not match at x. lim bounds the text
// (the narrowed container, or the line for planning).
func (p *parser) timestampEnd(x, lim int) int {
	t := p.t
	if x >= lim || !p.timestampLooking(x, lim) {
		return -1
	}
	// "\([<[]\(%%\)?.*?\)[]>]\(?:--\([<[].*?[]>]\)\)?"
	i := x + 1
	if i+1 < lim && t[i] == '%' && t[i+1] == '%' {
		i += 2
	}
	c := closerOnLine(t, i, lim)
	if c < 0 {
		return -1
	}
	end := c + 1
	if end+2 < lim && t[end] == '-' && t[end+1] == '-' && (t[end+2] == '<' || t[end+2] == '[') {
		if c2 := closerOnLine(t, end+3, lim); c2 >= 0 {
			end = c2 + 1
		}
	}
	return end
}

// closerOnLine returns the first "]" or ">" at or after i before the line
// end and lim, or -1.
func closerOnLine(t []byte, i, lim int) int {
	for ; i < lim; i++ {
		switch t[i] {
		case ']', '>':
			return i
		case '\n':
			return -1
		}
	}
	return -1
}

// timestampLooking matches org-element--timestamp-regexp at x.
func (p *parser) timestampLooking(x, lim int) bool {
	t := p.t
	if t[x] != '<' && t[x] != '[' {
		return false
	}
	// [[<]YYYY-MM-DD\(?: .*?\)?[]>]
	if d := digitsDate(t, x+1, lim, 4, 2, 2); d > 0 {
		if d < lim && (t[d] == ']' || t[d] == '>') {
			return true
		}
		if d < lim && t[d] == ' ' && closerOnLine(t, d+1, lim) >= 0 {
			return true
		}
	}
	if t[x] != '<' {
		return false
	}
	// <[0-9]+-[0-9]+-[0-9]+[^>\n]+?\+[0-9]+[dwmy]>
	if d := digitsDate(t, x+1, lim, 0, 0, 0); d > 0 && d < lim && t[d] != '>' && t[d] != '\n' {
		for i := d + 1; i < lim && t[i] != '>' && t[i] != '\n'; i++ {
			if t[i] != '+' {
				continue
			}
			j := i + 1
			for j < lim && t[j] >= '0' && t[j] <= '9' {
				j++
			}
			if j > i+1 && j+1 < lim && (t[j] == 'd' || t[j] == 'w' || t[j] == 'm' || t[j] == 'y') && t[j+1] == '>' {
				return true
			}
		}
	}
	// <%%\(?:([^>\n]+)\)>
	if x+4 < lim && t[x+1] == '%' && t[x+2] == '%' && t[x+3] == '(' {
		for i := x + 4; i < lim && t[i] != '\n'; i++ {
			if t[i] == '>' {
				return i > x+5 && t[i-1] == ')'
			}
		}
	}
	return false
}

// digitsDate matches N-M-K digit groups at i (a count of 0 means "one or
// more") and returns the offset after them, or 0.
func digitsDate(t []byte, i, lim int, n1, n2, n3 int) int {
	for g, n := range [3]int{n1, n2, n3} {
		if g > 0 {
			if i >= lim || t[i] != '-' {
				return 0
			}
			i++
		}
		j := i
		for j < lim && t[j] >= '0' && t[j] <= '9' && (n == 0 || j-i < n) {
			j++
		}
		if j == i || (n > 0 && j-i != n) {
			return 0
		}
		i = j
	}
	return i
}

// planning reads the planning line after the headline line starting at b
// (org-element--get-time-properties).
func (p *parser) planning(b int) Planning {
	var pl Planning
	l := p.nextLine(b)
	if l >= p.n || l == b || !p.planningLine(l) {
		return pl
	}
	e := p.eol(l)
	pl.Range = Range{l, e}
	for x := l; x < e; {
		kw, ke, ok := p.planningKeyword(x, e)
		if !ok {
			break
		}
		ts := p.skipSpTab(ke, e)
		var stamp Timestamp
		if te := p.timestampEnd(ts, e); te > 0 {
			stamp = Timestamp{Raw: p.str(ts, te), Range: Range{ts, te}}
		}
		switch p.str(kw, ke) {
		case "SCHEDULED:":
			pl.Scheduled = stamp
		case "DEADLINE:":
			pl.Deadline = stamp
		default:
			pl.Closed = stamp
		}
		x = ts
	}
	return pl
}

// planningKeyword finds org-keyword-time-not-clock-regexp from x before
// e: "\<\(\(?:CLOSED\|DEADLINE\|SCHEDULED\):\) *[[<]\([^]>]+\)[]>]",
// ignoring case. It returns the keyword's span.
func (p *parser) planningKeyword(x, e int) (int, int, bool) {
	t := p.t
	for k := x; k < e; k++ {
		c := t[k] | 0x20
		if c != 'c' && c != 'd' && c != 's' {
			continue
		}
		if !p.wordStartAt(k, 0) {
			continue
		}
		var kl int
		switch {
		case p.at(k, "CLOSED:"):
			kl = 7
		case p.at(k, "DEADLINE:"):
			kl = 9
		case p.at(k, "SCHEDULED:"):
			kl = 10
		default:
			continue
		}
		j := k + kl
		for j < e && t[j] == ' ' {
			j++
		}
		if j >= e || (t[j] != '[' && t[j] != '<') {
			continue
		}
		m := j + 1
		for m < e && t[m] != ']' && t[m] != '>' {
			m++
		}
		if m > j+1 && m < e {
			return k, k + kl, true
		}
	}
	return 0, 0, false
}
