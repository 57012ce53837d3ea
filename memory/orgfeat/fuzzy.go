package orgfeat

import (
	"strings"
	"unicode"
	"unicode/utf8"
)

// A fuzzy pattern matches a text when its characters appear in the text in
// order, without regard to case. Among the matches, the score prefers what
// a person typing means: characters that follow one another, that start
// words, that start the text, and matches that leave fewer characters
// out. A forward scan first checks that the pattern fits at all (most
// texts fail there); then a dynamic program finds the best-scoring way to
// place the pattern (see best) — what finds "st" in "the stack" rather
// than in "Gates and the", and "ws" at the word starts of
// "workspace/symbol".

// Score parts.
const (
	scoreMatch    = 16
	scoreGapStart = -3
	// scoreGapExtension is -1: best's running maximum relies on it.
	scoreGapExtension = -1
	bonusBoundary     = 8
	bonusConsecutive  = 8
	bonusFirstChar    = 8
	// bonusPrefix breaks ties for a match at the very start of the text.
	bonusPrefix = 4
)

// Pattern is a compiled fuzzy pattern: lower-cased runes, with an ASCII
// fast path. A Pattern keeps scratch space between matches: one goroutine
// uses it at a time.
type Pattern struct {
	runes   []rune
	ascii   bool
	scratch *[]int
}

// CompilePattern compiles p, ignoring its surrounding blanks and case.
func CompilePattern(p string) Pattern {
	p = strings.ToLower(strings.TrimSpace(p))
	rs := []rune(p)
	ascii := true
	for _, r := range rs {
		if r >= utf8.RuneSelf {
			ascii = false
		}
	}
	return Pattern{runes: rs, ascii: ascii, scratch: new([]int)}
}

// Empty reports whether the pattern matches everything.
func (p Pattern) Empty() bool { return len(p.runes) == 0 }

// Match scores text; ok is false when the pattern does not fit in it.
func (p Pattern) Match(text string) (score int, ok bool) {
	if len(p.runes) == 0 {
		return 0, true
	}
	if p.ascii && isASCII(text) {
		return p.matchASCII(text)
	}
	return p.matchRunes([]rune(text))
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

func lowerASCII(c byte) byte {
	if 'A' <= c && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func (p Pattern) matchASCII(t string) (int, bool) {
	pr := p.runes
	if len(pr) == 0 {
		return 0, true
	}
	// Does the pattern fit at all? (Most texts fail here, cheaply.)
	pi := 0
	for i := 0; i < len(t) && pi < len(pr); i++ {
		if lowerASCII(t[i]) == byte(pr[pi]) {
			pi++
		}
	}
	if pi < len(pr) {
		return 0, false
	}
	return p.best(len(t), func(i int) bool { return boundaryASCII(t, i) }, func(i, j int) bool { return lowerASCII(t[i]) == byte(pr[j]) }), true
}

// negInf marks a cell no match reaches.
const negInf = -1 << 30

// best is the highest score of any way to match the pattern in a text of
// n characters (at says whether text character i is pattern character j;
// boundary whether text character i starts a word). A dynamic program
// over (text position, pattern position): a character either follows the
// previous match directly (bonusConsecutive) or after a gap of g
// characters (scoreGapStart + (g-1)·scoreGapExtension), and scores
// scoreMatch plus its boundary bonuses. A gap's cost grows by one per
// character, so the best predecessor across a gap is a running maximum of
// score+position: the whole program is O(n·m).
func (p Pattern) best(n int, boundary func(i int) bool, at func(i, j int) bool) int {
	m := len(p.runes)
	bonus := func(i, j int) int {
		b := scoreMatch
		if boundary(i) {
			b += bonusBoundary
			if j == 0 {
				b += bonusFirstChar
			}
		}
		if i == 0 && j == 0 {
			b += bonusPrefix
		}
		return b
	}
	if m == 1 { // the common first keystroke: no table needed
		out := negInf
		for i := range n {
			if at(i, 0) {
				out = max(out, bonus(i, 0))
			}
		}
		return out
	}
	if cap(*p.scratch) < 2*n {
		*p.scratch = make([]int, 2*n)
	}
	prev, cur := (*p.scratch)[:n], (*p.scratch)[n:2*n]
	for i := range n {
		prev[i] = negInf
		if at(i, 0) {
			prev[i] = bonus(i, 0)
		}
	}
	for j := 1; j < m; j++ {
		run := negInf // max over k <= i-2 of prev[k]+k
		for i := range n {
			cur[i] = negInf
			if i >= 2 && prev[i-2] > negInf {
				run = max(run, prev[i-2]+i-2)
			}
			if i < j || !at(i, j) {
				continue
			}
			from := negInf
			if prev[i-1] > negInf {
				from = prev[i-1] + bonusConsecutive
			}
			if run > negInf {
				// After a match at k, a gap of g = i-k-1 characters costs
				// scoreGapStart + (g-1)·scoreGapExtension, which with an
				// extension of -1 is scoreGapStart + k - i + 2.
				from = max(from, run+scoreGapStart-i+2)
			}
			if from > negInf {
				cur[i] = from + bonus(i, j)
			}
		}
		prev, cur = cur, prev
	}
	out := negInf
	for _, v := range prev {
		out = max(out, v)
	}
	return out
}

// boundaryASCII reports whether t[i] starts a word: the first character,
// after a non-alphanumeric one, or an upper-case letter after a lower-case
// one.
func boundaryASCII(t string, i int) bool {
	if i == 0 {
		return true
	}
	prev, c := t[i-1], t[i]
	alnum := func(b byte) bool {
		return 'a' <= b && b <= 'z' || 'A' <= b && b <= 'Z' || '0' <= b && b <= '9'
	}
	if !alnum(prev) {
		return alnum(c)
	}
	return 'a' <= prev && prev <= 'z' && 'A' <= c && c <= 'Z'
}

func (p Pattern) matchRunes(t []rune) (int, bool) {
	pr := p.runes
	if len(pr) == 0 {
		return 0, true
	}
	low := make([]rune, len(t))
	for i, r := range t {
		low[i] = unicode.ToLower(r)
	}
	pi := 0
	for i := 0; i < len(low) && pi < len(pr); i++ {
		if low[i] == pr[pi] {
			pi++
		}
	}
	if pi < len(pr) {
		return 0, false
	}
	return p.best(len(t), func(i int) bool { return boundaryRunes(t, i) }, func(i, j int) bool { return low[i] == pr[j] }), true
}

func boundaryRunes(t []rune, i int) bool {
	if i == 0 {
		return true
	}
	prev, c := t[i-1], t[i]
	alnum := func(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }
	if !alnum(prev) {
		return alnum(c)
	}
	return unicode.IsLower(prev) && unicode.IsUpper(c)
}
