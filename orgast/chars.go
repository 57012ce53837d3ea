package orgast

//go:generate go run ./internal/mkchartab -o emacs_tables.go

import (
	"sort"
	"unicode/utf8"
)

// charClass is what Org's regexps can ask of a character: its syntax class
// in Org's syntax table (low four bits) and its membership in [[:alnum:]],
// [[:alpha:]], the category \c| and [[:blank:]]. The values come from
// Emacs itself (emacs_tables.go), so Unicode and syntax-table details are
// Emacs's, not Go's.
type charClass uint8

// Syntax classes as Emacs numbers them (syntax-class).
const (
	synWhitespace charClass = 0
	synPunct      charClass = 1
	synWord       charClass = 2
	synSymbol     charClass = 3
	synOpen       charClass = 4
	synClose      charClass = 5
	synQuote      charClass = 6
	synString     charClass = 7
)

const (
	synMask  charClass = 0x0f
	ccAlnum  charClass = 0x10
	ccAlpha  charClass = 0x20
	ccBreak  charClass = 0x40 // \c| : a line may break after it (CJK)
	ccBlank  charClass = 0x80
	rawByte0           = 0x3FFF00 // Emacs holds raw byte b (>= 0x80) as rune 0x3FFF00+b
)

// charRange is one run of characters sharing a charClass.
type charRange struct {
	lo    rune
	class charClass
}

// classOf returns Emacs's charClass of r.
func classOf(r rune) charClass {
	if r >= 0 && r < 128 {
		return emacsASCII[r]
	}
	i := sort.Search(len(emacsRanges), func(i int) bool { return emacsRanges[i].lo > r })
	if i == 0 {
		return synPunct
	}
	return emacsRanges[i-1].class
}

func syntaxOf(r rune) charClass { return classOf(r) & synMask }

// isSpaceSyntax is [[:space:]] and \s- : whitespace syntax in Org's table.
func isSpaceSyntax(r rune) bool { return syntaxOf(r) == synWhitespace }

// isWord is \w : word syntax.
func isWord(r rune) bool { return syntaxOf(r) == synWord }

func isAlnum(r rune) bool { return classOf(r)&ccAlnum != 0 }

func isAlpha(r rune) bool { return classOf(r)&ccAlpha != 0 }

func isBlank(r rune) bool { return classOf(r)&ccBlank != 0 }

func isLineBreakable(r rune) bool { return classOf(r)&ccBreak != 0 }

// isPunct is Emacs's [[:punct:]]: the ASCII punctuation characters, and for
// any other character anything without word syntax.
func isPunct(r rune) bool {
	if r < 128 {
		return r > ' ' && r < 127 && !(r >= '0' && r <= '9') && !(r >= 'a' && r <= 'z') && !(r >= 'A' && r <= 'Z')
	}
	return !isWord(r)
}

// encoding is how Emacs decoded the file's bytes into characters.
type encoding uint8

const (
	encUTF8   encoding = iota // valid UTF-8 (stray invalid bytes become raw bytes)
	encLatin1                 // not UTF-8, every high byte >= 0xA0: ISO-8859-1
	encRaw                    // neither (or a NUL byte): every byte its own raw character
)

// runeAt decodes the character at byte i of t under enc; it never fails:
// an invalid byte is one raw-byte character, as in Emacs.
func runeAt(t []byte, i int, enc encoding) (rune, int) {
	b := t[i]
	if b < 0x80 {
		return rune(b), 1
	}
	switch enc {
	case encLatin1:
		return rune(b), 1
	case encRaw:
		return rawByte0 + rune(b), 1
	}
	r, n := utf8.DecodeRune(t[i:])
	if r == utf8.RuneError && n <= 1 {
		return rawByte0 + rune(b), 1
	}
	return r, n
}

// runeBefore decodes the character ending at byte i (i > 0) under enc.
func runeBefore(t []byte, i int, enc encoding) (rune, int) {
	b := t[i-1]
	if b < 0x80 || enc != encUTF8 {
		return runeAt(t, i-1, enc)
	}
	r, n := utf8.DecodeLastRune(t[:i])
	if r == utf8.RuneError && n <= 1 {
		return rawByte0 + rune(b), 1
	}
	return r, n
}

// wordRange is one run of characters sharing a script and categories.
type wordRange struct {
	lo     rune
	script uint8
	cats   uint8
}

// categoryRule is one (CAT1 . CAT2) pair of word-combining-categories or
// word-separating-categories, as category bits (0 matches anything).
type categoryRule struct {
	c1, c2 uint8
}

func wordInfo(r rune) (script, cats uint8) {
	i := sort.Search(len(emacsWords), func(i int) bool { return emacsWords[i].lo > r })
	if i == 0 {
		return 0, 0
	}
	return emacsWords[i-1].script, emacsWords[i-1].cats
}

// wordBoundary is Emacs's word_boundary_p for two adjacent word
// characters: characters of different scripts are separate words unless
// a word-combining-categories pair joins them; characters of one script
// form one word unless a word-separating-categories pair splits them.
func wordBoundary(c1, c2 rune) bool {
	if c1 < 128 && c2 < 128 {
		return false // one script (latin)
	}
	s1, k1 := wordInfo(c1)
	s2, k2 := wordInfo(c2)
	rules, def := wordCombining[:], true
	if s1 == s2 {
		rules, def = wordSeparating[:], false
	}
	for _, r := range rules {
		// A pair applies when the first character has CAT1 and the second
		// lacks it, and the second has CAT2 and the first lacks it.
		if (r.c1 == 0 || k1&r.c1 != 0 && k2&r.c1 == 0) && (r.c2 == 0 || k2&r.c2 != 0 && k1&r.c2 == 0) {
			return !def
		}
	}
	return def
}
