// Package trigram is the memex's zero-dependency embedder: texts become
// 256-dimensional vectors of hashed character trigrams and words, so that
// texts sharing vocabulary — the same topic, the same names, the same
// code — score clearly above unrelated ones under cosine similarity,
// without a model, a network or a GPU.
//
// Invariant: Embed is a pure function of the text. The same text gives the
// same vector on every run and every machine (the feature hash is fixed,
// no map order enters), every vector is L2-normalised or, for a text with
// no features at all, all zeros (which the memex never stores), no value
// is NaN or infinite, and the cosine of two vectors is calibrated so that
// 0.75 separates related texts from unrelated ones (see Bias2).
//
// Features, all hashed into 255 signed buckets (a feature adds +w or -w to
// one bucket, so unrelated features cancel on average instead of piling up
// the way unsigned buckets do); dimension 0 holds the calibration:
//   - every word of two or more letters that is not an English stop word,
//     lower-cased, with weight 2;
//   - the character trigrams of those words, padded with a space at each
//     end ("cat" → " ca", "cat", "at "), with weight 1, so that inflections
//     and compounds ("embedding", "embeddings", "embedder") overlap;
//   - counts grow sub-linearly (1 + ln n), so a word repeated ten times
//     does not drown the rest of the text.
//
// Tokens that look like identifiers (hexadecimal runs such as UUIDs, long
// mixes of digits and letters) are skipped: they are what links and
// properties are made of, and match nothing but themselves.
package trigram

import (
	"context"
	"fmt"
	"math"
	"runtime"
	"strings"
	"sync"
	"unicode"
	"unicode/utf8"
)

// Dim is the dimension of every vector.
const Dim = 256

// version changes whenever the features change, so that vectors made by an
// older feature set are never compared with new ones (it is part of ID).
const version = "v3"

// Calibration. The memex's context rule calls a node related at cosine
// 0.75 or more (CONTEXT_SEMANTIC_THRESHOLD). Raw lexical cosines sit lower:
// on the public corpus, related pairs (a note and the notes it links to by
// ID, a page and its translation) have a median of 0.35–0.39, while only
// 0.5% of random pairs from different files reach 0.40 (details in the
// package tests). So every vector carries, in dimension 0, a constant
// component of squared weight Bias2, and the features fill the other 255
// dimensions with the rest of the unit length: the cosine of two vectors
// is then exactly Bias2 + (1-Bias2)·(cosine of their features), which maps
// a feature cosine of RawThreshold to 0.75 and keeps every ranking as it
// was.
const (
	// RawThreshold is the feature cosine that the calibration maps to 0.75.
	RawThreshold = 0.40
	// Bias2 is the squared weight of the constant component.
	Bias2 = (0.75 - RawThreshold) / (1 - RawThreshold)
)

// Bias is the constant component every non-zero vector has: dimension 0,
// value √Bias2. A sign-random-projection index should project vectors
// minus Bias, or the shared component decides most of the signs.
func Bias() []float32 {
	b := make([]float32, Dim)
	b[0] = float32(math.Sqrt(Bias2))
	return b
}

const (
	wordWeight    = 2.0
	trigramWeight = 1.0
)

// Embedder is the trigram embedder. It is safe for concurrent use.
type Embedder struct {
	stop map[string]bool
}

// New returns the trigram embedder.
func New() *Embedder {
	e := &Embedder{stop: map[string]bool{}}
	for _, w := range strings.Fields(stopWordList) {
		e.stop[w] = true
	}
	return e
}

// ID is "trigram:v1:256".
func (*Embedder) ID() string { return fmt.Sprintf("trigram:%s:%d", version, Dim) }

// Embed returns one vector per text, using every core for large batches.
// It fails only when ctx is done.
func (e *Embedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	out := make([][]float32, len(texts))
	workers := min(runtime.GOMAXPROCS(0), max(1, len(texts)/32))
	var wg sync.WaitGroup
	per := (len(texts) + workers - 1) / max(workers, 1)
	for lo := 0; lo < len(texts); lo += per {
		hi := min(lo+per, len(texts))
		wg.Go(func() {
			var sc scratch
			for i := lo; i < hi; i++ {
				if (i-lo)%64 == 0 && ctx.Err() != nil {
					return
				}
				out[i] = e.vector(texts[i], &sc)
			}
		})
	}
	wg.Wait()
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("trigram embedding: %w", err)
	}
	return out, nil
}

// Vector embeds one text.
func (e *Embedder) Vector(text string) []float32 {
	var sc scratch
	return e.vector(text, &sc)
}

// EmbedInto embeds text into out (Dim values; all zero for a text with no
// features), allocating nothing once its scratch has grown: the memex
// calls it with reused buffers for every node of a large memex.
func (e *Embedder) EmbedInto(text []byte, out []float32, sc *Scratch) {
	if sc == nil {
		sc = &Scratch{}
	}
	e.embed(text, out[:Dim], &sc.s)
}

// Scratch is reusable working memory for EmbedInto; one per goroutine.
type Scratch struct{ s scratch }

// scratch is reused across the texts of one Embed call.
type scratch struct {
	feats []uint64
	word  []byte // the current word, lower-cased UTF-8
	runes []int  // byte offset of each rune of word, and len(word) last
	// table counts features: open addressing on the feature hash, sized
	// to a power of two at least twice the number of features.
	keys   []uint64
	counts []int32
}

func (e *Embedder) vector(text string, sc *scratch) []float32 {
	out := make([]float32, Dim)
	e.embed([]byte(text), out, sc)
	return out
}

func (e *Embedder) embed(text []byte, out []float32, sc *scratch) {
	// feats collects every feature occurrence, in text order.
	sc.feats = sc.feats[:0]
	sc.word = sc.word[:0]
	sc.runes = sc.runes[:0]
	flush := func() {
		n := len(sc.runes)
		if n >= 2 && !skipToken(sc.word) && !e.stop[string(sc.word)] {
			sc.feats = append(sc.feats, hash(kindWord, sc.word))
			// Trigrams of " word ": the padding is the space byte.
			var tri [3 * utf8.UTFMax]byte
			for k := -1; k+3 <= n+1; k++ {
				t := tri[:0]
				for r := k; r < k+3; r++ {
					if r < 0 || r >= n {
						t = append(t, ' ')
						continue
					}
					end := len(sc.word)
					if r+1 < n {
						end = sc.runes[r+1]
					}
					t = append(t, sc.word[sc.runes[r]:end]...)
				}
				sc.feats = append(sc.feats, hash(kindTrigram, t))
			}
		}
		sc.word = sc.word[:0]
		sc.runes = sc.runes[:0]
	}
	for i := 0; i < len(text); {
		r, size := rune(text[i]), 1
		if r >= utf8.RuneSelf {
			r, size = utf8.DecodeRune(text[i:])
		}
		i += size
		if unicode.IsLetter(r) || unicode.IsDigit(r) {
			sc.runes = append(sc.runes, len(sc.word))
			sc.word = utf8.AppendRune(sc.word, unicode.ToLower(r))
			continue
		}
		if len(sc.word) > 0 {
			flush()
		}
	}
	flush()
	var acc [Dim]float64
	// Count each distinct feature in the table, then add them up in slot
	// order: the slots a text fills depend only on its features, so the
	// order of the sums — and the vector, bit for bit — never varies.
	size := 64
	for size < 2*len(sc.feats) {
		size <<= 1
	}
	if cap(sc.keys) < size {
		sc.keys, sc.counts = make([]uint64, size), make([]int32, size)
	}
	keys, counts := sc.keys[:size], sc.counts[:size]
	clear(counts)
	mask := uint64(size - 1)
	for _, h := range sc.feats {
		i := (h >> 20) & mask
		for counts[i] != 0 && keys[i] != h {
			i = (i + 1) & mask
		}
		keys[i] = h
		counts[i]++
	}
	// Sub-linear counts: a feature seen n times contributes w·(1+ln n),
	// w its kind's weight (the kind is the hash's low bit).
	for i, n := range counts {
		if n == 0 {
			continue
		}
		h := keys[i]
		unit := trigramWeight
		if h&1 == 1 {
			unit = wordWeight
		}
		v := unit * (1 + math.Log(float64(n)))
		if h>>63 == 1 {
			v = -v
		}
		acc[1+(h>>1)%(Dim-1)] += v
	}
	var norm float64
	for _, x := range acc {
		norm += x * x
	}
	if norm == 0 {
		clear(out)
		return
	}
	inv := math.Sqrt(1-Bias2) / math.Sqrt(norm)
	for i, x := range acc {
		out[i] = float32(x * inv)
	}
	out[0] = float32(math.Sqrt(Bias2))
}

const (
	kindWord    = 'w'
	kindTrigram = 't'
)

// hash is FNV-1a over the kind byte and b, finished with a mixer (FNV's
// low bits are weak for short inputs), with the kind in the low bit (1
// for words) so the weighting can tell the two apart.
func hash(kind byte, b []byte) uint64 {
	h := uint64(14695981039346656037)
	h ^= uint64(kind)
	h *= 1099511628211
	for _, c := range b {
		h ^= uint64(c)
		h *= 1099511628211
	}
	h ^= h >> 29
	h *= 0xbf58476d1ce4e5b9
	h ^= h >> 32
	h &^= 1
	if kind == kindWord {
		h |= 1
	}
	return h
}

// skipToken reports identifier-like tokens: hex digits mixing digits and
// letters, 4 or more of them (UUID groups such as "f81d", hashes), 8 or
// more hex digits with a digit, or a token of more than 6 runes mixing
// digits and letters. Short mixes ("mp3", "x86", "utf8") are words.
func skipToken(w []byte) bool {
	digits, hex := 0, true
	for _, c := range w {
		switch {
		case c >= '0' && c <= '9':
			digits++
		case c < 'a' || c > 'f':
			hex = false
		}
	}
	if digits == 0 {
		return false
	}
	if hex && (len(w) >= 8 || (len(w) >= 4 && digits < len(w))) {
		return true
	}
	return len(w) > 6 && digits < len(w)
}

// stopWordList holds the most frequent English function words, which
// every English text shares and which would make any two texts look
// related.
const stopWordList = `a an and are as at be been but by can do does for from has have he her
his i if in into is it its may more no not of on one or our she so some such than that the
their them then there these they this to use was we were what when which who will with would
you your also all any each other only just here how should could about don t s`
