package orgast

import "bytes"

// parser holds one parse of one file. All offsets inside it are offsets in
// the normalised text (source.text); File converts them back to the file's
// bytes.
type parser struct {
	src *source
	t   []byte
	n   int
	// lo and hi bound the window parsed: the whole text for Parse, the
	// affected subtrees for Reparse. Headline lines start it (or the text
	// does) and end it (or the text does).
	lo, hi int
	enc    encoding
	ends   *endIndex
	depth  int
	// affRun is the last run of affiliated keyword lines found, searched
	// up to affLimit (see affiliated).
	affRun   Range
	affLimit int

	heads    []headPos
	zeroth   Range // the zeroth section's contents (Start >= End: none)
	kws      []Keyword
	hls      []Headline
	conts    []container
	problems []Problem
	file     *Drawer
	set      settings

	links   []Link
	targets []Target
	blocks  []Block
	names   []Named
	radio   *radioMatcher
	// mayHaveRadio: the text holds "<<<", so radio targets are looked for.
	mayHaveRadio bool
	// topLimit, when set, is where the subtrees of the window's outermost
	// headlines end at the latest: the contents end of their parent,
	// which Reparse's nested window leaves out (0: none).
	topLimit int
	// collecting: the object pass only collects radio targets.
	collecting bool
	objs       objScratch
	// lines is the file's line index when it is the text's too.
	lines *LineIndex
	// brackets pairs "[", "(" and "{" over the window, on first use.
	brackets [3][]bracketPair
}

// headPos is where a headline is, before its details are read.
type headPos struct {
	begin, stars     int
	parent           int
	end              int   // org-element :end
	cbeg, cend       int   // contents, cbeg < 0 when none
	secBeg, secEnd   int   // the section's contents, secBeg < 0 when none
	firstChild, next int   // start of the first child (or end) and of the next headline
	titleObj         Range // where org-element parses the title's objects
}

// container is a span whose objects org-element parses: a paragraph, a
// verse block, a table row, an item tag or a headline title.
type container struct {
	beg, end int
	kind     restriction
	node     int
	title    bool // the headline title of node: its span is known later
	// radioOnly marks a caption, searched for radio targets only.
	radioOnly bool
}

// Parse reads src, the whole content of an Org file, and returns its
// outline. It never fails: any bytes are some Org text.
func Parse(src []byte) *File {
	p := newParser(src)
	p.run()
	return p.result()
}

func newParser(src []byte) *parser {
	s := newSource(src)
	return &parser{src: s, t: s.text, n: len(s.text), hi: len(s.text), enc: s.enc, mayHaveRadio: bytes.Contains(s.text, []byte("<<<"))}
}

func (p *parser) run() {
	// When Emacs's buffer is the file's bytes (LF line ends, no
	// byte-order mark), one pass finds the lines for both the parser and
	// the File's line index.
	if p.src.bom == 0 && p.src.eol == EOLUnix {
		p.lines = newLineIndex(p.src.orig, p.src.eol, p.enc, p.src.bom)
	}
	p.presize()
	p.scanHeadlines()
	p.parseSections()
	p.set = computeSettings(p.kws)
	p.readHeadlines()
	p.objectPhase()
}

// presize sizes the slices once from rough counts over the window:
// paragraphs, rows and items come every few lines, most links have "[["
// (counted: a link-dense file's list then never grows by copies, each of
// which is garbage as large as the file's links).
func (p *parser) presize() {
	n := p.hi - p.lo
	p.conts = make([]container, 0, n/256+8)
	p.links = make([]Link, 0, bytes.Count(p.t[p.lo:p.hi], []byte("[["))+n/4096+8)
}

// scanHeadlines finds every headline: each line of stars and a space is one
// (org-element ends any block or drawer there), then computes where each
// subtree and section ends as org-element-headline-parser does.
func (p *parser) scanHeadlines() {
	t := p.t
	try := func(b int) {
		k := b
		for k < p.hi && t[k] == '*' {
			k++
		}
		if k > b && k < p.n && t[k] == ' ' {
			p.heads = append(p.heads, headPos{begin: b, stars: k - b})
		}
	}
	if p.lines != nil {
		// The line index of the whole text is at hand: its line starts
		// are where headlines can be.
		p.heads = make([]headPos, 0, 64)
		for i := range p.lines.starts.len() {
			if b := p.lines.starts.at(i); b < p.n && t[b] == '*' {
				try(b)
			}
		}
	} else {
		w := t[p.lo:p.hi]
		p.heads = make([]headPos, 0, bytes.Count(w, []byte("\n*"))+1)
		if len(w) > 0 && w[0] == '*' && (p.lo == 0 || t[p.lo-1] == '\n') {
			try(p.lo)
		}
		for i := 0; ; {
			j := bytes.Index(w[i:], []byte("\n*"))
			if j < 0 {
				break
			}
			i += j + 1
			try(p.lo + i)
		}
	}
	var stack []int
	for i := range p.heads {
		h := &p.heads[i]
		for len(stack) > 0 && p.heads[stack[len(stack)-1]].stars >= h.stars {
			p.heads[stack[len(stack)-1]].end = h.begin
			stack = stack[:len(stack)-1]
		}
		h.parent = -1
		if len(stack) > 0 {
			h.parent = stack[len(stack)-1]
		}
		stack = append(stack, i)
	}
	// What is still open ends where the window does: at the end of the
	// text, or at a headline with no more stars than any in the window.
	for _, i := range stack {
		p.heads[i].end = p.hi
	}
	for i := range p.heads {
		h := &p.heads[i]
		limit := p.n
		switch {
		case h.parent >= 0:
			limit = p.heads[h.parent].cend
		case p.topLimit > 0:
			limit = p.topLimit // the contents end of a nested window's parent
		}
		h.end = min(h.end, limit)
		h.next = p.hi
		if i+1 < len(p.heads) {
			h.next = p.heads[i+1].begin
		}
		h.cbeg, h.secBeg = -1, -1
		h.firstChild = h.end
		if i+1 < len(p.heads) && p.heads[i+1].begin < h.end {
			h.firstChild = p.heads[i+1].begin
		}
		cb := p.skipWS(p.nextLine(h.begin), h.end)
		if cb >= h.end {
			h.cend = h.begin
			continue
		}
		h.cbeg = p.bol(cb)
		h.cend = p.contentsEnd(h.end, 0)
		if h.cbeg != h.next {
			h.secBeg = h.cbeg
			h.secEnd = p.contentsEnd(h.next, h.cbeg)
		}
	}
	p.zeroth = Range{-1, -1}
	if p.lo > 0 {
		return
	}
	z := p.bol(p.skipWS(0, p.hi))
	if z < p.hi && (len(p.heads) == 0 || z != p.heads[0].begin) {
		end := p.hi
		if len(p.heads) > 0 {
			end = p.heads[0].begin
		}
		p.zeroth = Range{z, p.contentsEnd(end, 0)}
	}
}

// parseSections runs the element parser over the zeroth section and every
// headline's section, recording each headline title as a container in its
// place so that objects come out in document order.
func (p *parser) parseSections() {
	if p.zeroth.Start >= 0 {
		p.parseElements(p.zeroth.Start, p.zeroth.End, modeTopComment, nil, ctx{node: -1})
	}
	p.hls = make([]Headline, len(p.heads))
	for i := range p.heads {
		h := &p.heads[i]
		p.conts = append(p.conts, container{node: i, title: true})
		if h.secBeg >= 0 {
			p.parseElements(h.secBeg, h.secEnd, modePlanning, nil, ctx{node: i})
		}
	}
}

// addContainer records a span whose objects are parsed later.
func (p *parser) addContainer(beg, end int, k restriction, node int) {
	p.conts = append(p.conts, container{beg: beg, end: end, kind: k, node: node})
}

// problem records a Problem over [a, b).
func (p *parser) problem(a, b int, sev Severity, code, msg string) {
	p.problems = append(p.problems, Problem{Range: Range{a, b}, Severity: sev, Code: code, Message: msg})
}

// keyword records a keyword element.
func (p *parser) keyword(el *element, c ctx) {
	q := el.line
	e := p.eol(q)
	i := p.skipSpTab(q, e) + 2
	kw := Keyword{Range: Range{q, e}, Node: c.node}
	if colon := p.keywordColon(i); colon >= 0 {
		kw.Key = upperASCII(p.str(i, colon))
		a, b := p.trimmed(colon+1, e)
		kw.Value = p.str(a, b)
		kw.ValueRange = Range{a, b}
	} else {
		kw.ValueRange = Range{e, e}
	}
	p.kws = append(p.kws, kw)
}

// propertyDrawer records a property drawer and its node properties.
func (p *parser) propertyDrawer(el *element, c ctx) {
	d := &Drawer{Range: Range{el.line, p.eol(el.cend)}}
	if el.cbeg < 0 {
		d.Range.End = p.eol(p.nextLine(el.line))
	}
	for l := el.cbeg; l >= 0 && l < el.cend; l = p.nextLine(l) {
		e := p.eol(l)
		k := p.skipSpTab(l, e) + 1
		r := p.nonSpaceRunEnd(k, e) - 1 // the run ends with the key's closing colon
		prop := Property{Range: Range{l, e}, Key: p.str(k, r), KeyRange: Range{k, r}}
		v := p.skipSpTab(r+1, e)
		ve := p.skipSpTabBack(e, v)
		prop.Value = p.str(v, ve)
		prop.ValueRange = Range{v, ve}
		d.Properties = append(d.Properties, prop)
	}
	if c.node < 0 {
		if p.file == nil {
			p.file = d
		}
		return
	}
	if p.hls[c.node].Drawer == nil {
		p.hls[c.node].Drawer = d
	}
}

// readHeadlines reads each headline line now that the TODO keywords are
// known, and checks what follows it.
func (p *parser) readHeadlines() {
	for i := range p.heads {
		p.readHeadline(i)
	}
	for i := range p.conts {
		if c := &p.conts[i]; c.title {
			r := p.heads[c.node].titleObj
			c.beg, c.end, c.kind = r.Start, r.End, rsHeadline
		}
	}
}
