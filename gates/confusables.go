package gates

import (
	"fmt"
	"unicode"
	"unicode/utf8"

	"golang.org/x/text/unicode/norm"
)

// Look-alike, invisible and control characters in a program name or a path
// make an action read one way to the human approving it and run another
// way: "саt" with a Cyrillic а is not cat, "𝗿𝗺" is not rm, a file name with
// a right-to-left override shows its extension backwards. Such names are
// refused outright (UTS #39's checks, narrowed to what can matter here):
//
//   - a control character (C0 other than tab and newline, DEL, C1), a
//     format character (zero-width, joiners, bidi embeddings, overrides
//     and isolates U+202A–U+202E, U+2066–U+2069), or a line or paragraph
//     separator;
//   - a form that Unicode compatibility folding (NFKC) changes: fullwidth
//     letters, mathematical alphanumerics, ligatures, superscripts…;
//   - letters of two scripts within one run of letters ("pаypal" with a
//     Cyrillic а); a name all in one script, or with its scripts separated
//     by punctuation ("заметки.org"), is fine.
//
// A program name must in addition be ASCII: program names are, and one
// that is not can only be a disguise.

// suspiciousName says why a program name is refused, if it is.
func suspiciousName(name string) (string, bool) {
	for i := 0; i < len(name); i++ {
		if name[i] >= utf8.RuneSelf {
			if why, bad := suspiciousText(name); bad {
				return why, true
			}
			return "is not ASCII: a program name that is not can only be a disguise", true
		}
	}
	return "", false
}

// suspiciousText says why a path or name with characters beyond ASCII
// is refused, if it is. Pure ASCII is checked for control characters only.
func suspiciousText(s string) (string, bool) {
	ascii := true
	for i := 0; i < len(s); i++ {
		c := s[i]
		if c >= utf8.RuneSelf {
			ascii = false
			break
		}
		if c < 0x20 && c != '\t' && c != '\n' || c == 0x7f {
			return fmt.Sprintf("holds the control character %U", rune(c)), true
		}
	}
	if ascii {
		return "", false
	}
	var prevScript *unicode.RangeTable
	for _, r := range s {
		switch {
		case r == utf8.RuneError:
			return "is not valid UTF-8", true
		case r < 0x20 && r != '\t' && r != '\n' || r >= 0x7f && r <= 0x9f:
			return fmt.Sprintf("holds the control character %U", r), true
		case unicode.Is(unicode.Cf, r) || r == 0x2028 || r == 0x2029:
			return fmt.Sprintf("holds the invisible or direction-changing character %U", r), true
		}
		if !unicode.IsLetter(r) {
			prevScript = nil
			continue
		}
		sc := scriptOf(r)
		if sc == nil {
			continue // Common or Inherited: shared by every script
		}
		if prevScript != nil && sc != prevScript {
			return fmt.Sprintf("mixes letters of two scripts in one word (%U)", r), true
		}
		prevScript = sc
	}
	if !norm.NFKC.IsNormalString(s) {
		if f := norm.NFKC.String(s); f != norm.NFC.String(s) {
			return fmt.Sprintf("uses look-alike characters (it reads as %q once folded)", f), true
		}
	}
	return "", false
}

// letterScripts are the scripts a letter is checked against, the common
// ones first.
var letterScripts = []*unicode.RangeTable{
	unicode.Latin, unicode.Cyrillic, unicode.Greek, unicode.Armenian, unicode.Hebrew, unicode.Arabic,
	unicode.Han, unicode.Hiragana, unicode.Katakana, unicode.Hangul, unicode.Devanagari, unicode.Thai,
	unicode.Georgian, unicode.Cherokee, unicode.Ethiopic, unicode.Bengali, unicode.Tamil, unicode.Coptic,
}

// scriptOf returns a letter's script among letterScripts, or nil. Han,
// Hiragana and Katakana are one writing system (Japanese mixes them in
// one word), and are reported as Han.
func scriptOf(r rune) *unicode.RangeTable {
	for _, t := range letterScripts {
		if unicode.Is(t, r) {
			if t == unicode.Hiragana || t == unicode.Katakana {
				return unicode.Han
			}
			return t
		}
	}
	for _, t := range unicode.Scripts {
		if unicode.Is(t, r) {
			if t == unicode.Common || t == unicode.Inherited {
				return nil
			}
			return t
		}
	}
	return nil
}
