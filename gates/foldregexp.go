package gates

import (
	"regexp"
	"slices"
	"strings"
	"unicode/utf8"
)

// Faster ways to run the case-insensitive patterns of the per-line secret
// rules, each finding exactly what the pattern finds.

// submatcher is what the per-line rules ask of a pattern.
type submatcher interface {
	FindAllStringSubmatch(s string, n int) [][]string
}

// foldRegexp is a case-insensitive pattern ((?i)…, with its literals in
// lower case) compiled twice: as written, and case-sensitive for text
// that is ASCII and lower-cased first. On ASCII text the two find the
// same matches at the same offsets (lower-casing maps each byte to the
// one byte (?i) equates it with, and keeps word and space characters
// what they are), and the second runs several times faster, with no case
// folding in the matcher. Text with any other byte takes the first, as
// (?i) folds some of it (ſ to s, the Kelvin sign to k).
//
// A pattern \b(?:word|…)… whose every match starts with one of a few
// words is also compiled anchored (^(?:word|…)…): FindAllStringSubmatch
// then tries it only where one of the words starts a word of the text,
// the only places a match can start, instead of at every byte.
type foldRegexp struct {
	ci, lower *regexp.Regexp
	starts    *kwMatcher     // the words every match starts with, or nil
	anchored  *regexp.Regexp // lower, anchored at the start, without its \b
	need      byte           // a byte every match holds, or 0
	// pre, when set, says whether anchored can match low (ASCII, lower
	// case) at c, without running it; exactly, or at least whenever it
	// can.
	pre func(low string, c int) bool
}

// withPre sets f's test of a start before its anchored pattern runs.
func withPre(f *foldRegexp, pre func(low string, c int) bool) *foldRegexp { f.pre = pre; return f }

// withNeedByte sets a byte every match of f holds: a text without it is
// not searched.
func withNeedByte(f *foldRegexp, c byte) *foldRegexp { f.need = c; return f }

// mustCompileFold compiles "(?i)"+pattern both ways.
func mustCompileFold(pattern string) *foldRegexp {
	return &foldRegexp{ci: regexp.MustCompile("(?i)" + pattern), lower: regexp.MustCompile(pattern)}
}

// mustCompileFoldAt compiles a pattern \b(?:…)… whose matches all start
// with one of starts (lower case, each beginning with a word character).
func mustCompileFoldAt(pattern string, starts ...string) *foldRegexp {
	if !strings.HasPrefix(pattern, `\b`) {
		panic("gates: mustCompileFoldAt needs a pattern starting at a word boundary: " + pattern)
	}
	f := mustCompileFold(pattern)
	b := newKwBuilder()
	for _, w := range starts {
		if !isWordByte(w[0]) {
			panic("gates: a start word must begin with a word character: " + w)
		}
		b.add(w, true)
	}
	f.starts = b.build()
	f.anchored = regexp.MustCompile("^" + strings.TrimPrefix(pattern, `\b`))
	return f
}

// findAllAt is FindAllStringSubmatchIndex of f.lower on low (ASCII, lower
// case), found by trying the anchored pattern at each place a start word
// begins a word, left to right, from the end of the last match: where the
// unanchored search would find each match, and the same match there.
func (f *foldRegexp) findAllAt(low string, n int) [][]int {
	var hits kwHits
	f.starts.scan(low, &hits)
	if len(hits.occ) == 0 {
		return nil
	}
	var cands []int
	for _, o := range hits.occ {
		c := int(o.end) - len(f.starts.kws[o.id].text)
		if c > 0 && isWordByte(low[c-1]) {
			continue // no word boundary before it
		}
		cands = append(cands, c)
	}
	slices.Sort(cands)
	var out [][]int
	pos := 0
	for i, c := range cands {
		if c < pos || i > 0 && c == cands[i-1] || f.pre != nil && !f.pre(low, c) {
			continue
		}
		idx := f.anchored.FindStringSubmatchIndex(low[c:])
		if idx == nil {
			continue
		}
		for j := range idx {
			if idx[j] >= 0 {
				idx[j] += c
			}
		}
		out = append(out, idx)
		if pos = idx[1]; len(out) == n {
			break
		}
	}
	return out
}

func isASCII(s string) bool {
	for i := 0; i < len(s); i++ {
		if s[i] >= utf8.RuneSelf {
			return false
		}
	}
	return true
}

// FindAllStringSubmatch is the case-insensitive pattern's.
func (f *foldRegexp) FindAllStringSubmatch(s string, n int) [][]string {
	if f.need != 0 && strings.IndexByte(s, f.need) < 0 {
		return nil
	}
	if !isASCII(s) {
		return f.ci.FindAllStringSubmatch(s, n)
	}
	var idxs [][]int
	if f.starts != nil {
		idxs = f.findAllAt(asciiLower(s), n)
	} else {
		idxs = f.lower.FindAllStringSubmatchIndex(asciiLower(s), n)
	}
	var out [][]string
	for _, idx := range idxs {
		out = append(out, submatches(s, idx))
	}
	return out
}

// FindStringSubmatch is the case-insensitive pattern's.
func (f *foldRegexp) FindStringSubmatch(s string) []string {
	if f.need != 0 && strings.IndexByte(s, f.need) < 0 {
		return nil
	}
	if !isASCII(s) {
		return f.ci.FindStringSubmatch(s)
	}
	if idx := f.lower.FindStringSubmatchIndex(asciiLower(s)); idx != nil {
		return submatches(s, idx)
	}
	return nil
}

// submatches cuts a match's groups out of s, as regexp does ("" for a
// group that took no part).
func submatches(s string, idx []int) []string { return submatchesAt(s, 0, idx) }

// submatchesAt is submatches of a match found in s[off:].
func submatchesAt(s string, off int, idx []int) []string {
	out := make([]string, len(idx)/2)
	for i := range out {
		if idx[2*i] >= 0 {
			out[i] = s[off+idx[2*i] : off+idx[2*i+1]]
		}
	}
	return out
}
