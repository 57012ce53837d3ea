package orgfeat

import (
	"cmp"
	"slices"
	"sort"
	"strings"
	"unicode"
	"unicode/utf8"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// Unlinked references: the places that mention a node's title or one of
// its aliases — as whole words, without regard to case, white space runs
// as one — without linking to it (org-roam's "Unlinked references"). A
// mention is looked for only in text a person wrote as prose: not in a
// link, a property or other drawer, a keyword line, a planning line, a
// headline's stars, keyword or tags, nor a src, example, export or
// comment block; not in the node's own subtree; not in the hidden files.
//
// Each file's prose is indexed once per outline as words (fileWords): a
// word's positions are found by binary search, and a name is looked for
// only where its rarest word is, then checked against the text. So a
// query costs the occurrences of one word, not the memex's size.

// MaxUnlinked bounds the mentions Unlinked returns.
const MaxUnlinked = 1000

// fileWords is one outline's prose as words.
type fileWords struct {
	hash  []uint32 // word k's hash (wordHash of its folded text)
	start []uint32 // its byte range
	end   []uint32
	// byHash lists the word indexes ordered by (hash, index).
	byHash []uint32
}

// wordHash is FNV-1a over the case-folded runes of a word.
func wordHash(w string) uint32 {
	h := uint32(2166136261)
	for _, r := range w {
		r = unicode.ToLower(r)
		var buf [utf8.UTFMax]byte
		n := utf8.EncodeRune(buf[:], r)
		for _, b := range buf[:n] {
			h ^= uint32(b)
			h *= 16777619
		}
	}
	return h
}

func isWordRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// proseGaps are the ranges of org that are not prose, sorted.
func proseGaps(org *orgast.File) []orgast.Range {
	var gaps []orgast.Range
	if d := org.FileDrawer; d != nil {
		gaps = append(gaps, d.Range)
	}
	for i := range org.Headlines {
		h := &org.Headlines[i]
		gaps = append(gaps, orgast.Range{Start: h.Line.Start, End: h.TitleRange.Start}, orgast.Range{Start: h.TitleRange.End, End: h.Line.End})
		if h.Planning().Range.End > h.Planning().Range.Start {
			gaps = append(gaps, h.Planning().Range)
		}
		if h.Drawer != nil {
			gaps = append(gaps, h.Drawer.Range)
		}
	}
	for _, k := range org.Keywords {
		gaps = append(gaps, k.Range)
	}
	for _, b := range org.Blocks {
		switch b.Type {
		case "src-block", "example-block", "export-block", "comment-block", "drawer":
			gaps = append(gaps, b.Range)
		}
	}
	for i := range org.Links {
		gaps = append(gaps, org.Links[i].Range)
	}
	for _, t := range org.Targets {
		gaps = append(gaps, t.Range)
	}
	slices.SortFunc(gaps, func(a, b orgast.Range) int { return cmp.Compare(a.Start, b.Start) })
	return gaps
}

// wordsOf indexes an outline's prose.
func wordsOf(org *orgast.File) *fileWords {
	src := org.Src
	fw := &fileWords{}
	gaps := proseGaps(org)
	g := 0
	for i := 0; i < len(src); {
		for g < len(gaps) && gaps[g].End <= i {
			g++
		}
		if g < len(gaps) && gaps[g].Start <= i {
			i = max(i+1, gaps[g].End)
			continue
		}
		r, n := utf8.DecodeRune(src[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(src) {
			r, n := utf8.DecodeRune(src[j:])
			if !isWordRune(r) {
				break
			}
			j += n
		}
		fw.hash = append(fw.hash, wordHash(string(src[i:j])))
		fw.start = append(fw.start, uint32(i))
		fw.end = append(fw.end, uint32(j))
		i = j
	}
	fw.byHash = make([]uint32, len(fw.hash))
	for k := range fw.byHash {
		fw.byHash[k] = uint32(k)
	}
	slices.SortFunc(fw.byHash, func(a, b uint32) int {
		return cmp.Or(cmp.Compare(fw.hash[a], fw.hash[b]), cmp.Compare(a, b))
	})
	return fw
}

// occurrences are the indexes of the words hashing to h, in order.
func (fw *fileWords) occurrences(h uint32) []uint32 {
	i := sort.Search(len(fw.byHash), func(k int) bool { return fw.hash[fw.byHash[k]] >= h })
	j := i
	for j < len(fw.byHash) && fw.hash[fw.byHash[j]] == h {
		j++
	}
	return fw.byHash[i:j]
}

// words returns the prose index of nf, made once.
func (nf *noteFile) prose() *fileWords {
	nf.wordsOnce.Do(func() { nf.words = wordsOf(nf.org) })
	return nf.words
}

// namePattern is a name to look for: its words' hashes, and the text
// around them that must match too.
type namePattern struct {
	name   string
	hashes []uint32
	// lead is the name's text before its first word ("" mostly).
	lead string
}

func compileName(name string) (namePattern, bool) {
	name = strings.Join(strings.Fields(name), " ")
	p := namePattern{name: name}
	first := -1
	for i := 0; i < len(name); {
		r, n := utf8.DecodeRuneInString(name[i:])
		if !isWordRune(r) {
			i += n
			continue
		}
		j := i + n
		for j < len(name) {
			r, n := utf8.DecodeRuneInString(name[j:])
			if !isWordRune(r) {
				break
			}
			j += n
		}
		if first < 0 {
			first = i
		}
		p.hashes = append(p.hashes, wordHash(name[i:j]))
		i = j
	}
	if first < 0 {
		return p, false
	}
	p.lead = name[:first]
	return p, true
}

// matchText reports whether src, from at, spells name (case folded, any
// run of white space for a space), and where the match ends.
func matchText(src []byte, at int, name string) (int, bool) {
	i, j := at, 0
	for j < len(name) {
		if i >= len(src) {
			return 0, false
		}
		if name[j] == ' ' {
			if !isSpaceByte(src[i]) {
				return 0, false
			}
			for i < len(src) && isSpaceByte(src[i]) {
				i++
			}
			j++
			continue
		}
		a, n := utf8.DecodeRune(src[i:])
		b, m := utf8.DecodeRuneInString(name[j:])
		if a != b && unicode.ToLower(a) != unicode.ToLower(b) {
			return 0, false
		}
		i += n
		j += m
	}
	return i, true
}

func isSpaceByte(c byte) bool { return c == ' ' || c == '\t' || c == '\n' || c == '\r' }

// find calls fn with each mention of p in the words of one file, in
// order.
func (fw *fileWords) find(src []byte, p namePattern, fn func(r orgast.Range) bool) {
	k := len(p.hashes)
	// The rarest word of the name leads.
	lead, occ := 0, fw.occurrences(p.hashes[0])
	for j := 1; j < k && len(occ) > 0; j++ {
		if o := fw.occurrences(p.hashes[j]); len(o) < len(occ) {
			lead, occ = j, o
		}
	}
	for _, w := range occ {
		s := int(w) - lead
		if s < 0 || s+k > len(fw.hash) {
			continue
		}
		ok := true
		for m := 0; m < k && ok; m++ {
			ok = fw.hash[s+m] == p.hashes[m]
		}
		if !ok {
			continue
		}
		at := int(fw.start[s]) - len(p.lead)
		if at < 0 {
			continue
		}
		end, ok := matchText(src, at, p.name)
		if !ok || end < int(fw.end[s+k-1]) {
			continue
		}
		// A whole word: nothing of a word right before or after.
		if r, _ := utf8.DecodeLastRune(src[:at]); at > 0 && isWordRune(r) {
			continue
		}
		if r, _ := utf8.DecodeRune(src[end:]); end < len(src) && isWordRune(r) {
			continue
		}
		if !fn(orgast.Range{Start: at, End: end}) {
			return
		}
	}
}

// Mention is one unlinked reference: Range of the file File, in the node
// In, naming the node by Name (its title or an alias).
type Mention struct {
	File  memory.Node
	In    memory.Node
	Range orgast.Range
	Name  string
}

// Unlinked returns the unlinked references of n (see the comment above),
// in memex order, at most MaxUnlinked.
func (x *NoteIndex) Unlinked(snap *memory.Snapshot, n memory.Node) []Mention {
	if snap == nil || !n.Valid() || n.Loose() {
		return nil
	}
	t := x.tables(snap)
	names := append([]string{n.Title()}, x.NodeAliases(n)...)
	var pats []namePattern
	for _, name := range names {
		if p, ok := compileName(name); ok {
			pats = append(pats, p)
		}
	}
	own := n.Range()
	var out []Mention
	for _, nf := range t.files {
		if nf.hidden {
			continue
		}
		fw := nf.prose()
		var found []Mention
		for _, p := range pats {
			fw.find(nf.org.Src, p, func(r orgast.Range) bool {
				if nf.path == n.Path() && r.Start < own.End && r.End > own.Start {
					return true
				}
				found = append(found, Mention{Range: r, Name: p.name})
				return true
			})
		}
		if len(found) == 0 {
			continue
		}
		file, ok := nodeOf(snap, nf.path, nf.org, 0)
		if !ok {
			continue
		}
		slices.SortFunc(found, func(a, b Mention) int { return cmp.Compare(a.Range.Start, b.Range.Start) })
		last := -1
		for _, m := range found {
			if m.Range.Start < last { // two names overlapping: the first one
				continue
			}
			last = m.Range.End
			m.File = file
			m.In, _ = nodeOf(snap, nf.path, nf.org, int32(nf.org.NodeAt(m.Range.Start)+1))
			out = append(out, m)
			if len(out) == MaxUnlinked {
				return out
			}
		}
	}
	return out
}

// MentionAt returns the nodes whose title or alias the prose at off in
// file mentions, without linking to them, and the mention's range: what
// "Link this mention" offers. At most a few nodes, titles first.
func (x *NoteIndex) MentionAt(snap *memory.Snapshot, file memory.Node, off int) ([]memory.Node, orgast.Range) {
	if snap == nil || !file.Valid() || file.Loose() || file.InServerFile() {
		return nil, orgast.Range{}
	}
	t := x.tables(snap)
	x.mu.Lock()
	nf := x.files[file.Org()]
	x.mu.Unlock()
	if nf == nil {
		return nil, orgast.Range{}
	}
	fw := nf.prose()
	src := nf.org.Src
	// The word at off (or just before it).
	w := sort.Search(len(fw.start), func(k int) bool { return int(fw.end[k]) >= off })
	if w >= len(fw.start) || int(fw.start[w]) > off {
		return nil, orgast.Range{}
	}
	const maxWords = 8
	names := t.names()
	here := nf.org.NodeAt(off) + 1
	// The longest span of words around the cursor that is a name wins.
	for span := maxWords; span >= 1; span-- {
		for s := max(0, w-span+1); s <= w && s+span <= len(fw.start); s++ {
			e := s + span - 1
			r := orgast.Range{Start: int(fw.start[s]), End: int(fw.end[e])}
			nns := names[nameKey(string(src[r.Start:r.End]))]
			var out []memory.Node
			for _, nn := range nns {
				n, ok := t.node(nn)
				if !ok {
					continue
				}
				if own := n.Range(); n.Path() == file.Path() && (nn.node == 0 || (r.Start < own.End && r.End > own.Start) || int32(here) == nn.node) {
					continue
				}
				// The words must be one run of prose: no gap between them.
				if end, ok := matchText(src, r.Start, strings.Join(strings.Fields(string(src[r.Start:r.End])), " ")); !ok || end != r.End {
					continue
				}
				out = append(out, n)
				if len(out) == 3 {
					break
				}
			}
			if len(out) > 0 {
				return out, r
			}
		}
	}
	return nil, orgast.Range{}
}

// ContextLine is the line of org holding r as a person reads it — each
// bracket link shown as its description (or its target, without one) —
// trimmed, at most about 160 characters around r.
func ContextLine(org *orgast.File, r orgast.Range) string {
	lr := org.Lines.LineRange(org.Lines.Line(r.Start))
	var b strings.Builder
	at, mark := lr.Start, -1
	i := sort.Search(len(org.Links), func(k int) bool { return org.Links[k].Range.End > lr.Start })
	for ; i < len(org.Links) && org.Links[i].Range.Start < lr.End; i++ {
		l := &org.Links[i]
		if l.Format != orgast.LinkBracket || l.Range.Start < at {
			continue
		}
		if mark < 0 && l.Range.Start >= r.Start {
			mark = b.Len() + r.Start - at
		}
		b.Write(org.Src[at:l.Range.Start])
		if l.Range.Start <= r.Start && r.Start < l.Range.End {
			mark = b.Len()
		}
		if l.DescRange.Len() > 0 {
			b.Write(org.Src[l.DescRange.Start:l.DescRange.End])
		} else {
			b.WriteString(l.Raw)
		}
		at = l.Range.End
	}
	if mark < 0 {
		mark = b.Len() + max(0, r.Start-at)
	}
	b.Write(org.Src[at:max(at, lr.End)])
	line := strings.TrimRight(strings.ReplaceAll(b.String(), "\n", " "), "\r ")
	const maxLen = 160
	if len(line) <= maxLen {
		return strings.TrimSpace(line)
	}
	from := max(0, min(mark-maxLen/3, len(line)-maxLen))
	to := min(len(line), from+maxLen)
	for from > 0 && !utf8.RuneStart(line[from]) {
		from--
	}
	for to < len(line) && !utf8.RuneStart(line[to]) {
		to++
	}
	out := strings.TrimSpace(line[from:to])
	if from > 0 {
		out = "…" + out
	}
	if to < len(line) {
		out += "…"
	}
	return out
}
