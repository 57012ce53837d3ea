package gates

import (
	"fmt"
	"strings"
)

// The keyword prefilter: every keyword the scanners look for (a secret
// rule's prefix, a vendor's name, a code operation) is found in one pass
// over the text, by an Aho–Corasick automaton compiled into a dense DFA
// over byte classes, as gitleaks does before its regular expressions. The
// expensive checks then run only where their keywords occur: a rule whose
// keywords are absent costs nothing, and a per-line rule reads only the
// lines that hold one. Matching is linear in the text, whatever the number
// of keywords.

// kwID names one keyword of a kwMatcher.
type kwID uint16

// kwSpec is one keyword: its text and whether it matches the lower-cased
// text (fold) or the text exactly.
type kwSpec struct {
	text string
	fold bool
}

// kwMatcher is an immutable compiled keyword set, safe for concurrent use.
type kwMatcher struct {
	kws    []kwSpec
	class  [256]uint8 // byte → class; 0 is every byte no keyword holds
	nclass int
	// dense is the transition table, a row of nclass entries per state:
	// state*nclass + class → the next state. State 0 is the root, and
	// class 0 leads every state back to it.
	dense []uint16
	// rows is the same table when it holds at most 1<<16 entries (nil
	// otherwise): row + class → the next state's row (its number times
	// nclass), so that the scan adds instead of multiplying, indexed by a
	// uint16 into an array of 1<<16 entries, which the scan reads without
	// a bounds check; only the rows in use are ever written or read.
	rows *[1 << 16]uint16
	// The states where keywords end are numbered last, from outStart:
	// the scan tells one by comparing its row, not by reading a table at
	// every byte.
	outStart int
	outOff   []uint32 // state-outStart → its outputs: outs[outOff[i]:outOff[i+1]]
	outs     []kwID   // keywords ending at a state, suffix links included
	maxLen   int      // the longest keyword's length
}

// kwBuilder collects keywords and compiles them once.
type kwBuilder struct {
	kws []kwSpec
	ids map[kwSpec]kwID
}

func newKwBuilder() *kwBuilder { return &kwBuilder{ids: map[kwSpec]kwID{}} }

// add returns the id of a keyword, adding it on first use. Keywords are
// ASCII without a newline: a match then lies within one line, which is
// what the per-line rules rely on.
func (b *kwBuilder) add(text string, fold bool) kwID {
	if text == "" || strings.IndexByte(text, '\n') >= 0 {
		panic(fmt.Sprintf("gates: keyword %q is empty or spans lines", text))
	}
	for i := 0; i < len(text); i++ {
		if text[i] >= 0x80 {
			panic(fmt.Sprintf("gates: keyword %q is not ASCII", text))
		}
	}
	if fold && asciiLower(text) != text {
		// A folded keyword is matched against lower-cased text: written
		// with a capital it could never match, which is a bug to catch.
		panic(fmt.Sprintf("gates: folded keyword %q has upper-case letters", text))
	}
	k := kwSpec{text: text, fold: fold}
	if id, ok := b.ids[k]; ok {
		return id
	}
	id := kwID(len(b.kws))
	b.kws = append(b.kws, k)
	b.ids[k] = id
	return id
}

// group adds keywords of one kind and returns them as a set.
func (b *kwBuilder) group(fold bool, texts ...string) kwGroup {
	var ids []kwID
	for _, t := range texts {
		ids = append(ids, b.add(t, fold))
	}
	return newKwGroup(ids...)
}

// build compiles the automaton over the lower-cased keywords; exact
// keywords are verified against the original text when they match.
func (b *kwBuilder) build() *kwMatcher {
	m := &kwMatcher{kws: b.kws}
	m.nclass = 1
	for _, k := range b.kws {
		m.maxLen = max(m.maxLen, len(k.text))
		for i := 0; i < len(k.text); i++ {
			c := asciiLowerByte(k.text[i])
			if m.class[c] == 0 {
				m.class[c] = uint8(m.nclass)
				m.nclass++
			}
		}
	}
	// The trie, by class.
	type node struct {
		child map[uint8]int
		out   []kwID
	}
	nodes := []node{{child: map[uint8]int{}}}
	for id, k := range b.kws {
		s := 0
		for i := 0; i < len(k.text); i++ {
			c := m.class[asciiLowerByte(k.text[i])]
			nx, ok := nodes[s].child[c]
			if !ok {
				nx = len(nodes)
				nodes = append(nodes, node{child: map[uint8]int{}})
				nodes[s].child[c] = nx
			}
			s = nx
		}
		nodes[s].out = append(nodes[s].out, kwID(id))
	}
	if len(nodes) > 1<<16 || len(b.kws) > maxKeywords {
		panic("gates: too many keywords")
	}
	// Breadth first: failure links, the dense transition table, and each
	// state's outputs extended by its failure state's.
	nc := m.nclass
	dense := make([]uint16, len(nodes)*nc)
	fail := make([]int, len(nodes))
	outs := make([][]kwID, len(nodes))
	queue := []int{0}
	outs[0] = nodes[0].out
	for q := 0; q < len(queue); q++ {
		u := queue[q]
		for c := 1; c < nc; c++ {
			v, ok := nodes[u].child[uint8(c)]
			if !ok {
				if u != 0 {
					dense[u*nc+c] = dense[fail[u]*nc+c]
				}
				continue
			}
			dense[u*nc+c] = uint16(v)
			if u != 0 {
				fail[v] = int(dense[fail[u]*nc+c])
			}
			outs[v] = append(append([]kwID(nil), nodes[v].out...), outs[fail[v]]...)
			queue = append(queue, v)
		}
	}
	// Upper-case letters read as their lower-case class: the automaton
	// folds ASCII case itself, and exact keywords are verified on a match.
	for c := 'A'; c <= 'Z'; c++ {
		m.class[c] = m.class[c+'a'-'A']
	}
	// Renumber: the states without outputs first (the root, which has
	// none, stays 0), then those with; each part breadth first, so that
	// the shallow states, where a scan of ordinary text spends most
	// bytes, share the first rows of the table and its cache lines.
	order := make([]int, 0, len(nodes)) // new number → old
	for _, s := range queue {
		if len(outs[s]) == 0 {
			order = append(order, s)
		}
	}
	m.outStart = len(order)
	for _, s := range queue {
		if len(outs[s]) > 0 {
			order = append(order, s)
		}
	}
	renum := make([]uint16, len(nodes)) // old → new
	for n, s := range order {
		renum[s] = uint16(n)
	}
	m.dense = make([]uint16, len(dense))
	for n, s := range order {
		for c := 0; c < nc; c++ {
			m.dense[n*nc+c] = renum[dense[s*nc+c]]
		}
	}
	if len(m.dense) <= 1<<16 {
		m.rows = new([1 << 16]uint16)
		for i, s := range m.dense {
			m.rows[i] = s * uint16(nc)
		}
	}
	m.outOff = make([]uint32, len(nodes)-m.outStart+1)
	for i, s := range order[m.outStart:] {
		m.outs = append(m.outs, outs[s]...)
		m.outOff[i+1] = uint32(len(m.outs))
	}
	return m
}

func asciiLowerByte(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

// kwOcc is one occurrence of a keyword: its id and the offset just past
// its last byte.
type kwOcc struct {
	id  kwID
	end int32
}

// maxKeywords bounds a matcher's keywords, so that which occur fits in a
// fixed array (kwHits lives on the caller's stack).
const maxKeywords = 512

// kwHits is what one pass found: which keywords occur, and where.
type kwHits struct {
	seen [maxKeywords / 64]uint64
	occ  []kwOcc // ordered by end
}

// kwPairMin is the shortest text scanned as two interleaved halves: the
// pair takes about 40 % more instructions than one scan, and from a few
// kilobytes on half the time (a 21 KB mail: 53 → 28 µs); below, where
// keywords come every few dozen bytes, the time is about the same.
const kwPairMin = 4096

// scan finds every keyword in text, into h. Per byte it reads the
// byte's class and the next state, and compares that with outStart.
func (m *kwMatcher) scan(text string, h *kwHits) {
	if m.rows != nil && len(text) >= kwPairMin && m.maxLen <= kwPairMin/4 {
		m.scanPair(text, h)
		return
	}
	m.scanSerial(text, h)
}

// scanSerial is scan, one byte after the other.
func (m *kwMatcher) scanSerial(text string, h *kwHits) {
	h.seen = [maxKeywords / 64]uint64{}
	h.occ = h.occ[:0]
	nc, outStart, class := m.nclass, m.outStart, &m.class
	if rows := m.rows; rows != nil {
		outRow := outStart * nc
		s := 0
		for i := 0; i < len(text); i++ {
			if s = int(rows[uint16(s+int(class[text[i]]))]); s >= outRow {
				m.record(text, i, s/nc, h)
			}
		}
		return
	}
	next := m.dense
	s := 0
	for i := 0; i < len(text); i++ {
		if s = int(next[s*nc+int(class[text[i]])]); s >= outStart {
			m.record(text, i, s, h)
		}
	}
}

// scanPair is scan as two scans, of the first half and of the second,
// run in one loop: each byte's state depends on the one before, and two
// such chains, independent, keep the processor busy where one waits on
// its loads. The state after a byte is the longest suffix of the text
// read so far that begins a keyword (or is one), at most maxLen bytes:
// so the second scan, started from the root maxLen-1 bytes before the
// half, has read maxLen bytes at the half's first byte and is in the
// same state as the whole scan from there on. The first records the
// keywords ending in the first half as it goes; the second notes where
// and in which state it met keywords after the half, and they are
// recorded once the first is done, in order.
func (m *kwMatcher) scanPair(text string, h *kwHits) {
	h.seen = [maxKeywords / 64]uint64{}
	h.occ = h.occ[:0]
	nc, rows, class := m.nclass, m.rows, &m.class
	outRow := m.outStart * nc
	mid := len(text) / 2
	b0 := mid - (m.maxLen - 1)
	type pending struct{ j, s int32 }
	var pend [32]pending // on the stack; more only for a text full of keywords
	var more []pending
	np := 0
	ta, tb := text[:mid], text[b0:b0+mid]
	sa, sb := 0, 0
	for i := 0; ; i++ {
		// The tight loop holds no call: its values stay in registers.
		for ; i < len(ta); i++ {
			sa = int(rows[uint16(sa+int(class[ta[i]]))])
			sb = int(rows[uint16(sb+int(class[tb[i]]))])
			if sa >= outRow || sb >= outRow {
				break
			}
		}
		if i >= len(ta) {
			break
		}
		if sa >= outRow {
			m.record(text, i, sa/nc, h)
		}
		if j := b0 + i; sb >= outRow && j >= mid {
			if p := (pending{int32(j), int32(sb / nc)}); np < len(pend) {
				pend[np] = p
				np++
			} else {
				more = append(more, p)
			}
		}
	}
	for _, p := range pend[:np] {
		m.record(text, int(p.j), int(p.s), h)
	}
	for _, p := range more {
		m.record(text, int(p.j), int(p.s), h)
	}
	for j := b0 + mid; j < len(text); j++ {
		if sb = int(rows[uint16(sb+int(class[text[j]]))]); sb >= outRow {
			m.record(text, j, sb/nc, h)
		}
	}
}

// record notes the keywords ending at text[i], where the scan reached
// state s (one where keywords end).
func (m *kwMatcher) record(text string, i, s int, h *kwHits) {
	st := s - m.outStart
	for _, id := range m.outs[m.outOff[st]:m.outOff[st+1]] {
		k := m.kws[id]
		if !k.fold && text[i+1-len(k.text):i+1] != k.text {
			continue
		}
		h.seen[id/64] |= 1 << (id % 64)
		if h.occ == nil {
			h.occ = make([]kwOcc, 0, 16)
		}
		h.occ = append(h.occ, kwOcc{id: id, end: int32(i + 1)})
	}
}

// contains says whether any keyword occurs in text, without recording
// where.
func (m *kwMatcher) contains(text string) bool {
	nc, outStart, class := m.nclass, m.outStart, &m.class
	if rows := m.rows; rows != nil {
		outRow := outStart * nc
		s := 0
		for i := 0; i < len(text); i++ {
			if s = int(rows[uint16(s+int(class[text[i]]))]); s >= outRow && m.endsAt(text, i, s/nc) {
				return true
			}
		}
		return false
	}
	next := m.dense
	s := 0
	for i := 0; i < len(text); i++ {
		if s = int(next[s*nc+int(class[text[i]])]); s >= outStart && m.endsAt(text, i, s) {
			return true
		}
	}
	return false
}

// endsAt says whether a keyword of state s (one where keywords end) ends
// at text[i].
func (m *kwMatcher) endsAt(text string, i, s int) bool {
	st := s - m.outStart
	for _, id := range m.outs[m.outOff[st]:m.outOff[st+1]] {
		if k := m.kws[id]; k.fold || text[i+1-len(k.text):i+1] == k.text {
			return true
		}
	}
	return false
}

// has says whether keyword id occurs.
func (h *kwHits) has(id kwID) bool { return h.seen[id/64]&(1<<(id%64)) != 0 }

// kwGroup is a set of keywords that one check looks for together.
type kwGroup struct {
	ids []kwID
	set *[maxKeywords / 64]uint64 // the same keywords, as a bit set by id (nil: none)
}

func newKwGroup(ids ...kwID) kwGroup {
	g := kwGroup{ids: ids, set: new([maxKeywords / 64]uint64)}
	for _, id := range ids {
		g.set[id/64] |= 1 << (id % 64)
	}
	return g
}

// any says whether any keyword of g occurs.
func (h *kwHits) any(g kwGroup) bool {
	if g.set == nil {
		return false
	}
	for i, x := range g.set {
		if h.seen[i]&x != 0 {
			return true
		}
	}
	return false
}

func (g kwGroup) holds(id kwID) bool { return g.set != nil && g.set[id/64]&(1<<(id%64)) != 0 }

// forLines calls fn with the bounds of every line of text holding a
// keyword of g (the line without its newline), in order, once per line,
// until fn returns false. Only the lines around occurrences are read.
func (h *kwHits) forLines(text string, g kwGroup, fn func(start, end int) bool) {
	if !h.any(g) {
		return
	}
	done := -1 // end of the last line visited
	for _, o := range h.occ {
		last := int(o.end) - 1
		if last < done || !g.holds(o.id) {
			continue
		}
		start := strings.LastIndexByte(text[:last], '\n') + 1
		end := strings.IndexByte(text[last:], '\n')
		if end < 0 {
			end = len(text)
		} else {
			end += last
		}
		if !fn(start, end) {
			return
		}
		done = end
	}
}
