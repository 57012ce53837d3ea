package foveal

import "unicode/utf8"

// CountTokens estimates how many tokens a language model's tokenizer makes
// of s. It is the one counter the context is budgeted with: View.Tokens,
// View.FullTokens and the budget are all in its units.
//
// It mimics the pre-tokenisation of the byte-level BPE tokenizers current
// models use (OpenAI's cl100k_base and o200k_base, and the Llama and Qwen
// families built the same way), then charges each piece what such a
// vocabulary usually needs for it, rounding up:
//
//   - a line end is one token;
//   - a run of blanks is one token, except a single blank before a word
//     or punctuation, which joins it;
//   - digits cost one token per three;
//   - an ASCII word is split where a lower-case letter meets an upper-case
//     one (camelCase); each part costs one token per five letters, or per
//     three when it is mostly capitals (PROPERTIES, acronyms);
//   - ASCII punctuation costs one token per two characters;
//   - other characters cost by their UTF-8 length: a 2-byte one (accented
//     Latin, Greek, Cyrillic, Hebrew, Arabic) one token, a run of 3-byte
//     ones (CJK, most symbols) three tokens per two, a 4-byte one (emoji,
//     rare ideographs) three.
//
// The rules are deliberately pessimistic, because the budget is a promise.
// Measured against cl100k_base and o200k_base on the paragraphs of the
// public corpus (TestCountTokensCalibration logs the figures), the
// estimate is below the real count for about 1% of paragraphs (mostly
// non-English Latin text, which BPE vocabularies split finely) and about
// 1.3 times the real total; on an outline of :ID: drawers, which is what
// rule 5 of a view is made of, it is 1.13 times the real count where
// counting bytes/4 would give half of it. A real tokenizer was weighed
// and left out: it is exact for one model family only while the cascade
// may send the same context to another, it adds megabytes of vocabulary
// to the binary, and it counts at about 3 MB/s where this counter makes
// one pass over the bytes without allocating — the full size of a 30 MB
// memex is counted in a fraction of a second, not ten.
//
// The count is additive over lines: for a and b where a ends with a line
// end, CountTokens(a+b) == CountTokens(a)+CountTokens(b). The renderer
// relies on that to budget a context line by line and have the total come
// out exactly.
func CountTokens(s string) int { return countTokens(s) }

// countTokens is CountTokens for the renderer's byte buffers as well.
func countTokens[T ~string | ~[]byte](s T) int {
	n := 0
	for i := 0; i < len(s); {
		c := s[i]
		switch {
		case c == '\n':
			n++
			i++
		case c == ' ' || c == '\t':
			j := i + 1
			for j < len(s) && (s[j] == ' ' || s[j] == '\t') {
				j++
			}
			if j-i > 1 || j == len(s) || s[j] == '\n' || isDigit(s[j]) || s[j] >= utf8.RuneSelf {
				n++
			}
			i = j
		case isDigit(c):
			j := i + 1
			for j < len(s) && isDigit(s[j]) {
				j++
			}
			n += (j - i + 2) / 3
			i = j
		case isLetter(c):
			j := i
			for j < len(s) && isLetter(s[j]) {
				k, upper := j+1, 0
				if isUpper(s[j]) {
					upper++
				}
				for k < len(s) && isLetter(s[k]) && !(isUpper(s[k]) && !isUpper(s[k-1])) {
					if isUpper(s[k]) {
						upper++
					}
					k++
				}
				if l := k - j; upper > 1 && 2*upper > l {
					n += (l + 2) / 3
				} else {
					n += (l + 4) / 5
				}
				j = k
			}
			i = j
		case c < utf8.RuneSelf:
			j := i + 1
			for j < len(s) && s[j] < utf8.RuneSelf && isPunct(s[j]) {
				j++
			}
			n += (j - i + 1) / 2
			i = j
		default:
			switch size := seqLen(s, i); size {
			case 3:
				j, k := i+3, 1
				for j < len(s) && seqLen(s, j) == 3 {
					j += 3
					k++
				}
				n += (3*k + 1) / 2
				i = j
			case 4:
				n += 3
				i += 4
			default:
				// 2-byte characters, and each byte of an invalid sequence.
				n++
				i += size
			}
		}
	}
	return n
}

// seqLen is the length of the UTF-8 sequence at s[i] (s[i] ≥ 0x80): 2, 3
// or 4 for a well-formed lead and continuation bytes, else 1. Overlong
// and surrogate forms are not told apart: they cost the same.
func seqLen[T ~string | ~[]byte](s T, i int) int {
	c := s[i]
	size := 1
	switch {
	case c >= 0xC2 && c <= 0xDF:
		size = 2
	case c >= 0xE0 && c <= 0xEF:
		size = 3
	case c >= 0xF0 && c <= 0xF4:
		size = 4
	}
	if i+size > len(s) {
		return 1
	}
	for k := i + 1; k < i+size; k++ {
		if s[k]&0xC0 != 0x80 {
			return 1
		}
	}
	return size
}

func isDigit(c byte) bool  { return c >= '0' && c <= '9' }
func isUpper(c byte) bool  { return c >= 'A' && c <= 'Z' }
func isLetter(c byte) bool { return c >= 'a' && c <= 'z' || isUpper(c) }

// isPunct reports whether an ASCII byte belongs to a punctuation run: not
// a letter, digit, blank or line end.
func isPunct(c byte) bool {
	return !isLetter(c) && !isDigit(c) && c != ' ' && c != '\t' && c != '\n'
}
