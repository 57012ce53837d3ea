// Package redact takes the text of private notes out of what an action
// returns — a command's output, a file read, an HTTP body — before it
// reaches a prompt, the journal or an editor (DESIGN §12): each run of
// words that quotes a private note becomes [private].
//
// A private note's text (the headline line and body of every node that
// carries a privacy tag, itself, by inheritance or through #+FILETAGS:)
// is cut into words the way the privacy gate reads text — case folded,
// split at every rune that is neither a letter nor a digit — and indexed
// by overlapping 4-word shingles. A shingle of the output found in the
// index is verified word by word and grown to the left and right for as
// long as the output keeps following that note. A note whose body is
// shorter than a shingle (a PIN, a name) is found as that exact run of
// words. Shingles made only of common short words ("and it was the") are
// not indexed. Spacing, punctuation, case and line breaks do not hide a
// quote; a paraphrase does.
//
// The name of a file that is private as a whole is its file node's title
// when it has no #+title: — and a conversation's is its first question's
// words — so an output naming it (ls, find, an error of grep's) has the
// name replaced too, wherever it stands on its own (not inside a longer
// name: a private x.org hides no index.org).
//
// Invariant: Redact never returns a run of 4 or more words that follows a
// private note, nor a private body of fewer words, nor the name of a file
// private as a whole standing on its own, whatever surrounds it; it
// changes nothing else but joins what it cuts into one [private].
package redact

import (
	"path"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"
)

// Mark replaces each private run.
const Mark = "[private]"

// shingle is the number of words a shingle holds.
const shingle = 4

// Filter finds the private notes it was built from in any text. It is
// immutable and safe for concurrent use.
type Filter struct {
	notes    [][]uint64               // each note's word hashes
	shingles map[uint64][]notePos     // shingle hash → where it starts
	short    [shingle]map[uint64]bool // exact runs of 1..3 words, by length
	files    []string
	// names are the base names of the files private as a whole.
	names names
}

// notePos is a word of a note.
type notePos struct {
	note, word int32
}

// New indexes the private texts. Short are the texts to find as exact
// runs when they hold fewer than 4 words (private bodies).
func New(texts, short []string) *Filter {
	f := &Filter{shingles: map[uint64][]notePos{}}
	for _, t := range texts {
		ws := words(t)
		hs := make([]uint64, len(ws))
		for i, w := range ws {
			hs[i] = w.hash
		}
		n := int32(len(f.notes))
		f.notes = append(f.notes, hs)
		for i := 0; i+shingle <= len(ws); i++ {
			if allCommon(ws[i : i+shingle]) {
				continue
			}
			h := runHash(hs[i : i+shingle])
			f.shingles[h] = append(f.shingles[h], notePos{n, int32(i)})
		}
	}
	for _, t := range short {
		ws := words(t)
		if len(ws) == 0 || len(ws) >= shingle || allCommon(ws) {
			continue
		}
		hs := make([]uint64, len(ws))
		for i, w := range ws {
			hs[i] = w.hash
		}
		if f.short[len(ws)] == nil {
			f.short[len(ws)] = map[uint64]bool{}
		}
		f.short[len(ws)][runHash(hs)] = true
	}
	return f
}

// Empty reports whether the filter knows no private text.
func (f *Filter) Empty() bool {
	if f == nil {
		return true
	}
	if len(f.shingles) > 0 || len(f.names.set) > 0 {
		return false
	}
	for _, m := range f.short {
		if len(m) > 0 {
			return false
		}
	}
	return true
}

// Files are the files that hold the private notes (when the filter was
// made from a memex snapshot).
func (f *Filter) Files() []string {
	if f == nil {
		return nil
	}
	return slices.Clone(f.files)
}

// Redact returns s with every private run, and every name of a file
// private as a whole, replaced by Mark, and how many it replaced.
func (f *Filter) Redact(s string) (string, int) {
	if f.Empty() || s == "" {
		return s, 0
	}
	s, n := f.redactRuns(s)
	s, m := f.names.redact(s)
	return s, n + m
}

// redactRuns is Redact of the private runs alone.
func (f *Filter) redactRuns(s string) (string, int) {
	if s == "" {
		return s, 0
	}
	ws := words(s)
	var spans []span // word index ranges, inclusive
	hs := make([]uint64, len(ws))
	for i, w := range ws {
		hs[i] = w.hash
	}
	for i := 0; i+shingle <= len(ws); {
		next := i + 1
		if !allCommon(ws[i : i+shingle]) {
			for _, at := range f.shingles[runHash(hs[i:i+shingle])] {
				note := f.notes[at.note]
				p := int(at.word)
				if !slices.Equal(note[p:p+shingle], hs[i:i+shingle]) {
					continue // a hash collision
				}
				l, r := i, i+shingle-1
				for k := 1; l-1 >= 0 && p-k >= 0 && hs[l-1] == note[p-k]; k++ {
					l--
				}
				for k := shingle; r+1 < len(hs) && p+k < len(note) && hs[r+1] == note[p+k]; k++ {
					r++
				}
				spans = append(spans, span{l, r})
				next = max(next, r-shingle+2)
			}
		}
		i = next
	}
	for n := 1; n < shingle; n++ {
		if len(f.short[n]) == 0 {
			continue
		}
		for i := 0; i+n <= len(ws); i++ {
			if f.short[n][runHash(hs[i:i+n])] {
				spans = append(spans, span{i, i + n - 1})
			}
		}
	}
	if len(spans) == 0 {
		return s, 0
	}
	slices.SortFunc(spans, func(a, b span) int { return a.l - b.l })
	merged := spans[:1]
	for _, sp := range spans[1:] {
		last := &merged[len(merged)-1]
		if sp.l <= last.r+1 {
			last.r = max(last.r, sp.r)
			continue
		}
		merged = append(merged, sp)
	}
	var b strings.Builder
	b.Grow(len(s))
	prev := 0
	for _, sp := range merged {
		b.WriteString(s[prev:ws[sp.l].start])
		b.WriteString(Mark)
		prev = ws[sp.r].end
	}
	b.WriteString(s[prev:])
	return b.String(), len(merged)
}

// names are the base names of the files private as a whole, found in a
// text by their extensions (every memex file's is .org): each place an
// extension ends is looked at once per length of name.
type names struct {
	set  map[string]bool
	lens []int    // the lengths of the names, distinct, longest first
	exts []string // their extensions, distinct
}

func newNames(list []string) names {
	ns := names{set: map[string]bool{}}
	for _, n := range list {
		if n == "" || ns.set[n] {
			continue
		}
		ns.set[n] = true
		ns.lens = append(ns.lens, len(n))
		ns.exts = append(ns.exts, path.Ext(n))
	}
	slices.Sort(ns.lens)
	slices.Reverse(ns.lens)
	ns.lens = slices.Compact(ns.lens)
	slices.Sort(ns.exts)
	ns.exts = slices.Compact(ns.exts)
	return ns
}

// redact replaces in s each name that stands on its own: not after a
// letter, digit, "_" or "-", nor before a letter or digit (a backup's
// "~", an archive's "_archive" may follow it).
func (ns names) redact(s string) (string, int) {
	if len(ns.set) == 0 {
		return s, 0
	}
	var spans [][2]int
	for _, ext := range ns.exts {
		for off := 0; ; {
			i := strings.Index(s[off:], ext)
			if ext == "" || i < 0 {
				break
			}
			end := off + i + len(ext)
			off = off + i + 1
			if after, _ := utf8.DecodeRuneInString(s[end:]); end < len(s) && nameRune(after) {
				continue
			}
			for _, l := range ns.lens {
				start := end - l
				if start < 0 || !ns.set[s[start:end]] {
					continue
				}
				if before, _ := utf8.DecodeLastRuneInString(s[:start]); start > 0 && (nameRune(before) || before == '-' || before == '_') {
					continue
				}
				spans = append(spans, [2]int{start, end})
				break
			}
		}
	}
	if len(spans) == 0 {
		return s, 0
	}
	slices.SortFunc(spans, func(a, b [2]int) int { return a[0] - b[0] })
	var b strings.Builder
	b.Grow(len(s))
	prev, n := 0, 0
	for _, sp := range spans {
		if sp[0] < prev {
			continue // inside a name already replaced
		}
		b.WriteString(s[prev:sp[0]])
		b.WriteString(Mark)
		prev = sp[1]
		n++
	}
	b.WriteString(s[prev:])
	return b.String(), n
}

func nameRune(r rune) bool { return unicode.IsLetter(r) || unicode.IsDigit(r) }

// span is a run of words, first and last inclusive.
type span struct{ l, r int }

// word is one word of a text: the hash of its folded form, whether it is
// a common short word, and where it is.
type word struct {
	hash       uint64
	common     bool
	start, end int
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

// words splits text as the privacy gate does: runes lower-cased, words
// separated by every rune that is not a letter or a digit.
func words(text string) []word {
	var out []word
	var h uint64
	start, n := -1, 0
	var head [8]byte
	flush := func(end int) {
		if start < 0 {
			return
		}
		out = append(out, word{hash: h, common: n == 1 || n <= len(head) && stopwords[string(head[:n])], start: start, end: end})
		start, n = -1, 0
	}
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRuneInString(text[i:])
		}
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			if start < 0 {
				start, h = i, fnvOffset
			}
			var buf [utf8.UTFMax]byte
			for _, c := range buf[:utf8.EncodeRune(buf[:], unicode.ToLower(r))] {
				h = (h ^ uint64(c)) * fnvPrime
				if n < len(head) {
					head[n] = c
				}
				n++
			}
		} else {
			flush(i)
		}
		i += size
	}
	flush(len(text))
	return out
}

// runHash combines the hashes of a run of words, in order.
func runHash(hs []uint64) uint64 {
	h := uint64(len(hs))
	for _, x := range hs {
		h = h*0x9e3779b97f4a7c15 ^ x
		h ^= h >> 29
	}
	return h
}

func allCommon(ws []word) bool {
	for _, w := range ws {
		if !w.common {
			return false
		}
	}
	return true
}

// stopwords are the common short words: a run made only of them (or of
// one-letter words) is what ordinary text shares by chance. The privacy
// gate (gates/privacy.go) skips the same.
var stopwords = func() map[string]bool {
	m := map[string]bool{}
	for _, w := range strings.Fields("a an the and or but of to in on at for with by from is was are be been it this that i you we he she they my your our me as not do so if then there here have has had will s t all no yes up out about what") {
		m[w] = true
	}
	return m
}()
