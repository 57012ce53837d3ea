package gates

import (
	"context"
	"fmt"
	"strings"
	"unicode"
	"unicode/utf8"
)

// privacyIndex finds quotations of private notes in outgoing text. Each
// private body is normalised (case folded, every run of non-letters and
// non-digits one space) and cut into overlapping 4-word shingles, each
// hashed. A text quotes a note when it shares two of that note's shingles
// (five words in a row, or two separate four-word runs) or, for a note of
// at most six words, one shingle. Shingles made only of common short words
// ("and it was the") are not indexed: they are what ordinary text shares
// by chance. Partial quotes, changed spacing, punctuation and case are all
// found; a word changed every third word is not (that is a paraphrase).
type privacyIndex struct {
	shingles map[uint64][]int32 // shingle → notes holding it
	sizes    []int              // shingles per note
	// filter has a bit set for every indexed shingle: most shingles of an
	// outgoing text are in no note, and one bit test rules them out.
	filter []uint64
}

const shingleWords = 4

// buildPrivacyIndex indexes the private texts.
func buildPrivacyIndex(ctx context.Context, texts []string) (*privacyIndex, error) {
	idx := &privacyIndex{shingles: map[uint64][]int32{}}
	for i, t := range texts {
		if i%256 == 0 {
			if err := ctx.Err(); err != nil {
				return nil, fmt.Errorf("privacy index: %w", err)
			}
		}
		n := 0
		seen := map[uint64]bool{}
		forShingles(t, func(h uint64) bool {
			if !seen[h] {
				seen[h] = true
				idx.shingles[h] = append(idx.shingles[h], int32(i))
				n++
			}
			return true
		})
		idx.sizes = append(idx.sizes, n)
	}
	words := 64
	for words*64 < 8*len(idx.shingles) {
		words *= 2
	}
	idx.filter = make([]uint64, words)
	for h := range idx.shingles {
		b := h & uint64(words*64-1)
		idx.filter[b/64] |= 1 << (b % 64)
	}
	return idx, nil
}

// mayHold says whether shingle h may be indexed (false: it is not).
// The filter's length in bits is a power of two: h's low bits pick the
// bit, without a division at every word of the text.
func (p *privacyIndex) mayHold(h uint64) bool {
	b := h & uint64(len(p.filter)*64-1)
	return p.filter[b/64]&(1<<(b%64)) != 0
}

// quotes reports whether text quotes a private note.
func (p *privacyIndex) quotes(text string) bool {
	if p == nil || len(p.shingles) == 0 {
		return false
	}
	// Only shingles found in the index count, each once: the maps hold
	// those, and stay empty for ordinary text.
	var hits map[int32]int
	var seen map[uint64]bool
	found := false
	forShingles(text, func(h uint64) bool {
		if !p.mayHold(h) {
			return true
		}
		notes, ok := p.shingles[h]
		if !ok || seen[h] {
			return true
		}
		if seen == nil {
			seen, hits = map[uint64]bool{}, map[int32]int{}
		}
		seen[h] = true
		for _, note := range notes {
			hits[note]++
			if hits[note] >= 2 || p.sizes[note] <= shingleWords-1 {
				found = true
			}
		}
		return !found
	})
	return found
}

// forShingles calls fn with the hash of every indexable 4-word shingle of
// the normalised text, in order, until fn returns false. The text is
// normalised as it is read: every rune lower-cased (unicode.ToLower, as
// strings.ToLower does), words split at every rune that is not a letter
// or a digit. Nothing is allocated. A run of ASCII letters and digits is
// hashed in one tight loop over a table (shingleBytes), its first bytes
// copied to the word's head after; a byte of a longer rune takes the
// rune's way, on the same word.
func forShingles(text string, fn func(uint64) bool) {
	var w shingler
	for i := 0; i < len(text); {
		k := shingleBytes[text[i]]
		if k == 0 {
			if w.n != 0 && !w.endWord(fn) {
				return
			}
			for i++; i < len(text) && shingleBytes[text[i]] == 0; i++ {
			}
			continue
		}
		if k < utf8.RuneSelf {
			start := i
			h := w.hash
			if w.n == 0 {
				h = fnvOffset
			}
			for ; i < len(text); i++ {
				k = shingleBytes[text[i]]
				if k == 0 || k >= utf8.RuneSelf {
					break
				}
				h = (h ^ uint64(k)) * fnvPrime
			}
			// The head is read only for a word of at most maxStopword
			// bytes: a longer one's is not kept.
			n0 := w.n
			if n := n0 + i - start; n <= maxStopword && n <= len(w.head) {
				for j := start; j < i; j++ {
					w.head[n0+j-start] = shingleBytes[text[j]]
				}
			}
			w.hash, w.n = h, n0+i-start
			continue
		}
		r, size := utf8.DecodeRuneInString(text[i:])
		i += size
		r = unicode.ToLower(r)
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			var b [utf8.UTFMax]byte
			for _, x := range b[:utf8.EncodeRune(b[:], r)] {
				w.addByte(x)
			}
		} else if !w.endWord(fn) {
			return
		}
	}
	w.endWord(fn)
}

// shingleBytes maps an ASCII letter or digit to its lower case, any other
// ASCII byte to 0 (it ends a word), and every byte 0x80 or more to 0x80
// (part of a longer rune, decoded).
var shingleBytes = func() (t [256]byte) {
	for c := 0; c < 256; c++ {
		switch b := byte(c); {
		case b >= utf8.RuneSelf:
			t[c] = utf8.RuneSelf
		case b >= 'A' && b <= 'Z':
			t[c] = b + 'a' - 'A'
		case b >= 'a' && b <= 'z' || b >= '0' && b <= '9':
			t[c] = b
		}
	}
	return t
}()

// shingler holds the word being read and the last four words' hashes.
type shingler struct {
	hash   uint64               // FNV-1a of the word so far
	n      int                  // its length in bytes
	head   [8]byte              // its first bytes: enough for any stopword
	words  [shingleWords]uint64 // hashes of the last words, oldest first
	common uint8                // which of them are stopwords: bit 0 the newest
	count  int
}

const (
	fnvOffset = 14695981039346656037
	fnvPrime  = 1099511628211
)

func (w *shingler) addByte(c byte) {
	if w.n == 0 {
		w.hash = fnvOffset
	}
	w.hash = (w.hash ^ uint64(c)) * fnvPrime
	if w.n < len(w.head) {
		w.head[w.n] = c
	}
	w.n++
}

// endWord closes the word being read, if any, and reports the shingle it
// completes; false means fn asked to stop.
func (w *shingler) endWord(fn func(uint64) bool) bool {
	if w.n == 0 {
		return true
	}
	common := w.n == 1 || w.n <= maxStopword && w.n <= len(w.head) && isStopword(w.head[:w.n], w.hash)
	w.words[0], w.words[1], w.words[2], w.words[3] = w.words[1], w.words[2], w.words[3], w.hash
	w.common <<= 1
	if common {
		w.common |= 1
	}
	w.n = 0
	if w.count++; w.count < shingleWords {
		return true
	}
	if w.common&(1<<shingleWords-1) == 1<<shingleWords-1 {
		return true
	}
	return fn(shingleHash(w.words))
}

// shingleHash combines the hashes of a shingle's words, in order: a
// multiply-xor chain, then one full mix.
func shingleHash(words [shingleWords]uint64) uint64 {
	const k = 0x9e3779b97f4a7c15
	return mix64(((words[0]*k^words[1])*k^words[2])*k ^ words[3])
}

// mix64 is the splitmix64 finaliser: every input bit reaches every output
// bit.
func mix64(x uint64) uint64 {
	x ^= x >> 30
	x *= 0xbf58476d1ce4e5b9
	x ^= x >> 27
	x *= 0x94d049bb133111eb
	return x ^ x>>31
}

// stopwords are the common short words: a shingle made only of them (or
// of one-letter words) is not indexed, being what ordinary text shares by
// chance.
var stopwords = [...]string{"a", "an", "the", "and", "or", "but", "of", "to", "in", "on", "at", "for", "with", "by", "from", "is", "was", "are", "be", "been", "it", "this", "that", "i", "you", "we", "he", "she", "they", "my", "your", "our", "me", "as", "not", "do", "so", "if", "then", "there", "here", "have", "has", "had", "will", "s", "t", "all", "no", "yes", "up", "out", "about", "what"}

// stopwordTable holds the stopwords by the FNV-1a hash the shingler
// computes anyway (open addressing, linear probing): a word is looked up
// without hashing it again.
var stopwordTable, maxStopword = func() (t [256]string, longest int) {
	for _, w := range stopwords {
		h := uint64(fnvOffset)
		for i := 0; i < len(w); i++ {
			h = (h ^ uint64(w[i])) * fnvPrime
		}
		i := h % uint64(len(t))
		for t[i] != "" {
			i = (i + 1) % uint64(len(t))
		}
		t[i] = w
		longest = max(longest, len(w))
	}
	return t, longest
}()

// isStopword says whether w, whose FNV-1a hash is h, is a stopword.
func isStopword(w []byte, h uint64) bool {
	for i := h % uint64(len(stopwordTable)); stopwordTable[i] != ""; i = (i + 1) % uint64(len(stopwordTable)) {
		if stopwordTable[i] == string(w) {
			return true
		}
	}
	return false
}

// privacyVector keeps private notes from any model (DESIGN §12): a shell
// or eval action that would read a private note is denied (what it prints
// cannot be filtered reliably), as is a file_read of a note private as a
// whole (one private in part is read with its private parts cut out); and
// text quoting a private note asks before it leaves — for a model
// provider, a recipient, the network, a program, or the log.
func (d *dispatcher) privacyVector(ctx context.Context, a Action, args []arg, env *Env) Result {
	for _, g := range args {
		switch g.role {
		case RoleCommand:
			cmd, cwd := g.command(a)
			if rep := shellOf(ctx, env, cmd, cwd); len(rep.private) > 0 {
				return Denied(strings.Join(limitList(rep.private, 2), "; ") + "; a command never reads a private note")
			}
		case RoleReadPath:
			p := a.Arg(g.name)
			if l := env.locate(p, "."); l.abs != "" && (l.class == pathInside || l.class == pathProtected) {
				if st := env.filePrivacy(l.abs); st.private && st.whole {
					return Denied(fmt.Sprintf("reads %s, a private note (%s)", p, st.why))
				}
			}
		case RoleCode:
			if why, ok := env.privateInCode(a.Arg(g.name)); ok {
				return Denied(why + "; code never reads a private note")
			}
		}
	}
	return Passed("")
}

// privacyQuotes is the privacy vector's ask: text quoting a private note
// is about to leave. It runs only when no vector denied the action.
func (d *dispatcher) privacyQuotes(_ context.Context, a Action, args []arg, env *Env) Result {
	if env.private == nil {
		return Passed("")
	}
	for _, g := range args {
		if env.private.quotes(a.Arg(g.name)) {
			return Asked(fmt.Sprintf("the %s %s quotes a note tagged private (%s); it would leave the memex", a.Tool, g.name, strings.Join(env.privacyTags, ", ")))
		}
	}
	return Passed("")
}
