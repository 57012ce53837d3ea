package orgast

import (
	"bytes"
	"fmt"
	"sort"
	"strings"
)

// linkTypes are the link types Org registers with org-id and the default
// org-modules loaded (org-link-types), which org-link-plain-re,
// org-link-angle-re and org-link-types-re are built from.
var linkTypes = [...]string{"bbdb", "bibtex", "docview", "doi", "elisp", "eww", "file", "file+emacs", "file+sys", "ftp", "gnus", "help", "http", "https", "id", "info", "irc", "mailto", "mhe", "news", "rmail", "shell", "w3m"}

// linkTypeAt returns the length of the longest registered link type
// written at q (ignoring case, as case-fold-search is t), or 0.
func (p *parser) linkTypeAt(q, end int) int {
	if q >= end {
		return 0
	}
	best := 0
	for _, lt := range linkTypesByLetter(p.t[q] | 0x20) {
		if len(lt) > best && q+len(lt) <= end && p.at(q, lt) {
			best = len(lt)
		}
	}
	return best
}

// linkTypeColon returns the length of the registered link type written
// at q and followed by ":", or 0. It first finds the run of characters a
// type can have and the colon after it, so ordinary words cost a few
// comparisons.
func (p *parser) linkTypeColon(q, end int) int {
	t := p.t
	j := q
	for j < end && j-q < 10 && (isAlnumASCII(t[j]) || t[j] == '+') {
		j++
	}
	if j >= end || t[j] != ':' {
		return 0
	}
	for _, lt := range linkTypesByLetter(t[q] | 0x20) {
		if len(lt) == j-q && p.at(q, lt) {
			return len(lt)
		}
	}
	return 0
}

// linkTypesByLetter returns the registered types starting with the
// lower-case letter c.
func linkTypesByLetter(c byte) []string {
	switch c {
	case 'b':
		return linkTypes[0:2]
	case 'd':
		return linkTypes[2:4]
	case 'e':
		return linkTypes[4:6]
	case 'f':
		return linkTypes[6:10]
	case 'g':
		return linkTypes[10:11]
	case 'h':
		return linkTypes[11:14]
	case 'i':
		return linkTypes[14:17]
	case 'm':
		return linkTypes[17:19]
	case 'n':
		return linkTypes[19:20]
	case 'r':
		return linkTypes[20:21]
	case 's':
		return linkTypes[21:22]
	case 'w':
		return linkTypes[22:23]
	}
	return nil
}

// typeRegistered reports whether s (compared without case) is a type.
func typeRegistered(s string) bool {
	for _, lt := range linkTypes {
		if strings.EqualFold(lt, s) {
			return true
		}
	}
	return false
}

// typeRegisteredBytes is typeRegistered without making a string.
func typeRegisteredBytes(b []byte) bool {
	if len(b) == 0 {
		return false
	}
	for _, lt := range linkTypesByLetter(b[0] | 0x20) {
		if len(lt) == len(b) && bytes.EqualFold([]byte(lt), b) {
			return true
		}
	}
	return false
}

// linkObject is org-element-link-parser at q.
func (p *parser) linkObject(rg *region, q int) (object, bool) {
	t := p.t
	// Type 1: text a radio target names.
	if p.radio != nil {
		s := q
		if !p.bolIn(rg, q) {
			_, n := p.runeBefore(q)
			s = q - n
		}
		// (A match ending at q, found from the line start just behind it,
		// would be an empty link that Emacs parses forever; it is none.)
		if m, ok := p.radio.matchAt(p, rg, s); ok && m.g1e > q {
			obj := object{kind: oLink, begin: q, cbeg: m.g1b, cend: m.g1e}
			obj.end = p.skipSpTab(m.g1e, rg.end)
			obj.link = Link{Format: LinkRadio, Type: "radio", Path: p.str(m.g1b, m.g1e), Range: Range{q, m.g1e}, DescRange: Range{m.g1b, m.g1e}}
			obj.link.Raw = obj.link.Path
			return obj, true
		}
	}
	// Type 2: [[link][description]].
	if q+1 < rg.end && t[q] == '[' && t[q+1] == '[' {
		if y, end, desc, ok := p.bracketLink(rg, q); ok {
			obj := object{kind: oLink, begin: q, end: p.skipSpTab(end, rg.end), cbeg: -1}
			raw := p.str(q+2, y)
			l := Link{Format: LinkBracket, Range: Range{q, end}}
			if desc.End > desc.Start {
				l.DescRange = desc
				obj.cbeg, obj.cend = desc.Start, desc.End
			}
			p.classifyBracket(&l, raw)
			obj.link = l
			return obj, true
		}
		return object{}, false
	}
	// Type 3: a plain link, https://example.org.
	if n := p.linkTypeColon(q, rg.end); n > 0 && p.wordStart(rg, q) {
		if pe := p.plainPathEnd(rg, q+n+1); pe > 0 {
			l := Link{Format: LinkPlain, Type: p.str(q, q+n), Path: p.str(q+n+1, pe), Raw: p.str(q, pe), Range: Range{q, pe}}
			p.fileLink(&l)
			return object{kind: oLink, begin: q, end: p.skipSpTab(pe, rg.end), cbeg: -1, link: l}, true
		}
	}
	// Type 4: <https://example.org>.
	if t[q] == '<' {
		if n := p.linkTypeAt(q+1, rg.end); n > 0 && q+1+n < rg.end && t[q+1+n] == ':' {
			if gt := p.anglePathEnd(rg, q+n+2); gt > 0 {
				path := p.str(q+n+2, gt)
				l := Link{Format: LinkAngle, Type: p.str(q+1, q+1+n), Path: removeLineBreaks(path, ""), Raw: p.str(q+1, gt), Range: Range{q, gt + 1}}
				p.fileLink(&l)
				return object{kind: oLink, begin: q, end: p.skipSpTab(gt+1, rg.end), cbeg: -1, link: l}, true
			}
		}
	}
	return object{}, false
}

// plainPathEnd matches the path of org-link-plain-re at c: one or more
// characters outside "][ \t\n()<>" or parenthesised groups (two levels),
// ending with a character that is neither punctuation nor blank, a "/",
// or a group. It returns where the path ends, or 0.
func (p *parser) plainPathEnd(rg *region, c int) int {
	t := p.t
	tokens, best := 0, 0
	for i := c; i < rg.end; {
		ch := t[i]
		if ch == '(' {
			e := p.parenGroup(rg, i)
			if e < 0 {
				break
			}
			tokens++
			if tokens >= 2 {
				best = e
			}
			i = e
			continue
		}
		if isPlainExcluded(ch) {
			break
		}
		r, n := p.runeAt(i)
		tokens++
		if tokens >= 2 && (r == '/' || !(isPunct(r) || r == ' ' || r == '\t' || r == '\n')) {
			best = i + n
		}
		i += n
	}
	return best
}

func isPlainExcluded(c byte) bool {
	switch c {
	case ']', '[', ' ', '\t', '\n', '(', ')', '<', '>':
		return true
	}
	return false
}

// parenGroup matches "(" (non-excluded characters | "(" non-excluded* ")")*
// ")" at i and returns the offset after it, or -1.
func (p *parser) parenGroup(rg *region, i int) int {
	t := p.t
	for j := i + 1; j < rg.end; j++ {
		switch c := t[j]; {
		case c == ')':
			return j + 1
		case c == '(':
			k := j + 1
			for k < rg.end && !isPlainExcluded(t[k]) {
				k++
			}
			if k >= rg.end || t[k] != ')' {
				return -1
			}
			j = k
		case isPlainExcluded(c):
			return -1
		}
	}
	return -1
}

// anglePathEnd matches the path of org-link-angle-re at c and returns the
// offset of the closing ">", or 0: no ">" in it, and every line break
// followed by indentation and then a character that is not ">" or blank.
func (p *parser) anglePathEnd(rg *region, c int) int {
	t := p.t
	gt := p.find(rg, cGreater, c)
	if gt < 0 {
		return 0
	}
	for i := c; i < gt; {
		j := bytes.IndexByte(t[i:gt], '\n')
		if j < 0 {
			break
		}
		k := p.skipSpTab(i+j+1, gt)
		if k >= gt || t[k] == '\n' {
			return 0
		}
		i = k
	}
	return gt
}

// bracketLink matches org-link-bracket-re at q. It returns the end of the
// path y (the "]" after it), the end of the link, the description's span.
//
// The path is one or more of: a character other than "[", "]", "\"; an odd
// run of backslashes and a bracket; backslashes and a non-bracket
// character. Among the places such a path can end at a "]", the farthest
// one the rest of the regexp accepts wins, as Emacs's greedy matcher
// finds it.
func (p *parser) bracketLink(rg *region, q int) (int, int, Range, bool) {
	t := p.t
	start := q + 2
	// Fast path: no backslash before the first bracket.
	k := start
	for k < rg.end && t[k] != '[' && t[k] != ']' && t[k] != '\\' {
		k++
	}
	if k >= rg.end || t[k] != '\\' {
		if k == start || k >= rg.end || t[k] != ']' {
			return 0, 0, Range{}, false
		}
		return p.bracketTail(rg, k)
	}
	// Slow path: which offsets can a path end at?
	reach := p.objs.reach[:0]
	mark := func(x int) {
		for len(reach) <= x-start {
			reach = append(reach, false)
		}
		reach[x-start] = true
	}
	furthest := start
	for x := start; x <= furthest && x < rg.end; x++ {
		if x != start && (x-start >= len(reach) || !reach[x-start]) {
			continue
		}
		switch c := t[x]; c {
		case '[', ']':
		case '\\':
			e := x
			for e < rg.end && t[e] == '\\' {
				e++
			}
			run := e - x
			for m := x + 2; m <= e; m++ {
				mark(m)
			}
			if e < rg.end {
				if t[e] == '[' || t[e] == ']' {
					if run%2 == 1 || run >= 3 {
						mark(e + 1)
					}
				} else {
					_, n := p.runeAt(e)
					mark(e + n)
				}
			}
			// The run's inner offsets reach nothing its start does not.
			if len(reach)-1+start > furthest {
				furthest = len(reach) - 1 + start
			}
			x = e - 1
			continue
		default:
			_, n := p.runeAt(x)
			mark(x + n)
		}
		if len(reach)-1+start > furthest {
			furthest = len(reach) - 1 + start
		}
	}
	p.objs.reach = reach
	for y := furthest; y > start; y-- {
		if y-start < len(reach) && reach[y-start] && y < rg.end && t[y] == ']' {
			if py, end, desc, ok := p.bracketTail(rg, y); ok {
				return py, end, desc, true
			}
		}
	}
	return 0, 0, Range{}, false
}

// bracketTail matches "]\(?:\[\(.+?\)]\)?]" at y.
func (p *parser) bracketTail(rg *region, y int) (int, int, Range, bool) {
	t := p.t
	if y+1 >= rg.end {
		return 0, 0, Range{}, false
	}
	if t[y+1] == '[' {
		if e := p.find(rg, cDoubleBracket, y+3); e >= 0 {
			return y, e + 2, Range{y + 2, e}, true
		}
		return 0, 0, Range{}, false
	}
	if t[y+1] == ']' {
		return y, y + 2, Range{}, true
	}
	return 0, 0, Range{}, false
}

// classifyBracket sets a bracket link's type and path from its raw text
// as org-element-link-parser does: line breaks become one space, escapes
// are undone, abbreviations expanded; then a file name, a registered
// type, a coderef "(ref)", a custom id "#id", or else fuzzy text.
func (p *parser) classifyBracket(l *Link, raw string) {
	raw = expandAbbrev(unescapeLink(removeLineBreaks(raw, " ")), p.set.abbrevs)
	l.Raw = raw
	switch {
	case fileNameAbsolute(raw) || strings.HasPrefix(raw, "./") || strings.HasPrefix(raw, "../"):
		l.Type, l.Path = "file", raw
	case registeredPrefix(raw) > 0:
		n := registeredPrefix(raw)
		l.Type, l.Path = raw[:n], raw[n+1:]
	case strings.HasPrefix(raw, "(") && strings.HasSuffix(raw, ")"):
		l.Type, l.Path = "coderef", raw[1:max(1, len(raw)-1)]
	case strings.HasPrefix(raw, "#"):
		l.Type, l.Path = "custom-id", raw[1:]
	default:
		l.Type, l.Path = "fuzzy", raw
	}
	p.fileLink(l)
}

// registeredPrefix returns the length of the registered type that s
// starts with, followed by ":" (org-link-types-re), or 0.
func registeredPrefix(s string) int {
	i := strings.IndexByte(s, ':')
	if i <= 0 || !typeRegistered(s[:i]) {
		return 0
	}
	return i
}

// fileNameAbsolute is Emacs 28's file-name-absolute-p for the names that
// can appear here: "/…", "~", "~/…", and "~user…" when that user exists.
// orgast reads no user database: it takes the users every Debian-based
// system has (base-passwd), which is what Emacs finds on such machines.
func fileNameAbsolute(s string) bool {
	if strings.HasPrefix(s, "/") || s == "~" || strings.HasPrefix(s, "~/") {
		return true
	}
	if !strings.HasPrefix(s, "~") {
		return false
	}
	user := s[1:]
	if i := strings.IndexByte(user, '/'); i >= 0 {
		user = user[:i]
	}
	switch user {
	case "root", "daemon", "bin", "sys", "sync", "games", "man", "lp", "mail", "news",
		"uucp", "proxy", "www-data", "backup", "list", "irc", "_apt", "nobody":
		return true
	}
	return false
}

// fileLink applies what Org does to "file" and "file+APP" links: the type
// becomes "file", "::…" at the end becomes the search option, and leading
// slashes of a URI are normalised.
func (p *parser) fileLink(l *Link) {
	lt := strings.ToLower(l.Type)
	if lt != "file" && !strings.HasPrefix(lt, "file+") {
		return
	}
	if lt != "file" {
		l.Application = l.Type[5:]
		if l.Application == "" { // "file+" alone is no file type
			return
		}
	}
	l.Type = "file"
	// "::\(.*\)\'": the first "::" with no line break after it.
	if i := strings.Index(l.Path, "::"); i >= 0 {
		for j := i; j >= 0; {
			if !strings.Contains(l.Path[j+2:], "\n") {
				l.Search, l.HasSearch = l.Path[j+2:], true
				l.Path = l.Path[:j]
				break
			}
			k := strings.Index(l.Path[j+1:], "::")
			if k < 0 {
				break
			}
			j += 1 + k
		}
	}
	l.Path = normaliseFileURI(l.Path)
}

// normaliseFileURI is (replace-regexp-in-string "\\`///*\\(.:\\)?/"
// "\\1/" path): "///x" → "/x", "//C:/x" → "C:/x".
func normaliseFileURI(path string) string {
	s := 0
	for s < len(path) && path[s] == '/' {
		s++
	}
	if s < 2 {
		return path
	}
	// The greedy "/*" takes s-2 slashes first, then gives them back.
	for k := s - 2; k >= 0; k-- {
		pos := 2 + k
		if pos+2 < len(path) && path[pos] != '\n' && path[pos+1] == ':' && path[pos+2] == '/' {
			return path[pos:pos+2] + "/" + path[pos+3:]
		}
		if pos < len(path) && path[pos] == '/' {
			return "/" + path[pos+1:]
		}
	}
	return path
}

// removeLineBreaks replaces each "[ \t]*\n[ \t]*" in s with repl.
func removeLineBreaks(s, repl string) string {
	if !strings.Contains(s, "\n") {
		return s
	}
	var b strings.Builder
	for {
		i := strings.IndexByte(s, '\n')
		if i < 0 {
			b.WriteString(s)
			return b.String()
		}
		b.WriteString(strings.TrimRight(s[:i], " \t"))
		b.WriteString(repl)
		s = strings.TrimLeft(s[i+1:], " \t")
	}
}

// unescapeLink is org-link-unescape: a run of backslashes before a bracket
// or the end of the string is halved.
func unescapeLink(s string) string {
	if !strings.Contains(s, `\`) {
		return s
	}
	var b strings.Builder
	for i := 0; i < len(s); {
		if s[i] != '\\' {
			b.WriteByte(s[i])
			i++
			continue
		}
		j := i
		for j < len(s) && s[j] == '\\' {
			j++
		}
		n := j - i
		if j == len(s) || s[j] == '[' || s[j] == ']' {
			n /= 2
		}
		b.WriteString(strings.Repeat(`\`, n))
		i = j
	}
	return b.String()
}

// expandAbbrev is org-link-expand-abbrev with the file's #+LINK: lines
// ("%(function)" replacements are never run: Org refuses unsafe ones, and
// orgast runs no code).
func expandAbbrev(link string, abbrevs []LinkAbbrev) string {
	if len(abbrevs) == 0 || strings.ContainsRune(link, '\n') {
		return link
	}
	key, tag, hasTag := link, "", false
	if i := strings.IndexByte(link, ':'); i >= 0 {
		key = link[:i]
		tag, hasTag = link[i+1:], true
		if strings.HasPrefix(tag, ":") {
			tag = tag[1:]
		}
	}
	// org-set-regexps-and-options reverses the #+LINK: lines, so the
	// last definition of a key wins.
	var rpl string
	found := false
	for i := len(abbrevs) - 1; i >= 0; i-- {
		if abbrevs[i].Key == key {
			rpl, found = abbrevs[i].Replacement, true
			break
		}
	}
	if !found {
		return link
	}
	if !hasTag {
		tag = ""
	}
	switch {
	case strings.Contains(rpl, "%("):
		return link
	case strings.Contains(rpl, "%s"):
		return strings.Replace(rpl, "%s", tag, 1)
	case strings.Contains(rpl, "%h"):
		return strings.Replace(rpl, "%h", urlHexify(tag), 1)
	}
	return rpl + tag
}

// urlHexify is url-hexify-string: every byte outside the unreserved set
// becomes %XX.
func urlHexify(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		c := s[i]
		if isAlnumASCII(c) || c == '-' || c == '_' || c == '.' || c == '~' {
			b.WriteByte(c)
		} else {
			fmt.Fprintf(&b, "%%%02X", c)
		}
	}
	return b.String()
}

// matchBracket returns the offset of the bracket closing the one at j
// ("[", "(" or "{"), counting only that kind, or -1. The matches of the
// whole text are computed once, on first use, with a stack: the first
// offset where the count returns to zero scanning forward from j is the
// bracket a stack pairs with j. Only the parser's window is paired.
func (p *parser) matchBracket(j int) int {
	var tab *[]bracketPair
	switch p.t[j] {
	case '[':
		tab = &p.brackets[0]
	case '(':
		tab = &p.brackets[1]
	case '{':
		tab = &p.brackets[2]
	default:
		return -1
	}
	if *tab == nil {
		*tab = p.pairBrackets(p.t[j])
	}
	pairs := *tab
	k := sort.Search(len(pairs), func(i int) bool { return pairs[i].open >= j })
	if k < len(pairs) && pairs[k].open == j {
		return pairs[k].close
	}
	return -1
}

type bracketPair struct{ open, close int }

func (p *parser) pairBrackets(open byte) []bracketPair {
	closeCh := byte(']')
	switch open {
	case '(':
		closeCh = ')'
	case '{':
		closeCh = '}'
	}
	pairs := []bracketPair{}
	var stack []int
	t := p.t
	// Only the window matters: every container lies inside it, and a
	// forward match does not depend on the text before the bracket.
	for i := p.lo; i < p.hi; i++ {
		switch t[i] {
		case open:
			stack = append(stack, len(pairs))
			pairs = append(pairs, bracketPair{i, -1})
		case closeCh:
			if len(stack) > 0 {
				pairs[stack[len(stack)-1]].close = i
				stack = stack[:len(stack)-1]
			}
		}
	}
	return pairs
}
