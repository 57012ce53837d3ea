package gates

import (
	"context"
	"fmt"
	"hash/fnv"
	"strings"
	"unicode"
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
		forShingles(t, func(h uint64) {
			if seen[h] {
				return
			}
			seen[h] = true
			idx.shingles[h] = append(idx.shingles[h], int32(i))
			n++
		})
		idx.sizes = append(idx.sizes, n)
	}
	return idx, nil
}

// quotes reports whether text quotes a private note.
func (p *privacyIndex) quotes(text string) bool {
	if p == nil || len(p.shingles) == 0 {
		return false
	}
	hits := map[int32]int{}
	found := false
	seen := map[uint64]bool{}
	forShingles(text, func(h uint64) {
		if found || seen[h] {
			return
		}
		seen[h] = true
		for _, note := range p.shingles[h] {
			hits[note]++
			if hits[note] >= 2 || p.sizes[note] <= shingleWords-1 {
				found = true
			}
		}
	})
	return found
}

// forShingles calls fn with the hash of every indexable 4-word shingle of
// the normalised text.
func forShingles(text string, fn func(uint64)) {
	words := normWords(text)
	if len(words) < shingleWords {
		return
	}
	for i := 0; i+shingleWords <= len(words); i++ {
		common := 0
		h := fnv.New64a()
		for j := 0; j < shingleWords; j++ {
			w := words[i+j]
			if stopword(w) {
				common++
			}
			h.Write([]byte(w))
			h.Write([]byte{0})
		}
		if common == shingleWords {
			continue
		}
		fn(h.Sum64())
	}
}

// normWords folds case and splits on anything that is not a letter or a
// digit.
func normWords(text string) []string {
	return strings.FieldsFunc(strings.ToLower(text), func(r rune) bool {
		return !unicode.IsLetter(r) && !unicode.IsDigit(r)
	})
}

var stopwords = map[string]bool{
	"a": true, "an": true, "the": true, "and": true, "or": true, "but": true, "of": true, "to": true, "in": true,
	"on": true, "at": true, "for": true, "with": true, "by": true, "from": true, "is": true, "was": true, "are": true,
	"be": true, "been": true, "it": true, "this": true, "that": true, "i": true, "you": true, "we": true, "he": true,
	"she": true, "they": true, "my": true, "your": true, "our": true, "me": true, "as": true, "not": true, "do": true,
	"so": true, "if": true, "then": true, "there": true, "here": true, "have": true, "has": true, "had": true, "will": true,
	"s": true, "t": true, "all": true, "no": true, "yes": true, "up": true, "out": true, "about": true, "what": true,
}

func stopword(w string) bool { return stopwords[w] || len(w) == 1 }

// privacyVector asks before text quoting a private note leaves: for a
// model provider, a recipient, the network, a program, or the log.
func (d *dispatcher) privacyVector(_ context.Context, a Action, env *Env) Result {
	if env.private == nil {
		return Passed("")
	}
	var fields []string
	switch a.Tool {
	case ToolSend:
		fields = []string{"text"}
	case ToolHTTP:
		fields = []string{"body", "url"}
	case ToolShell:
		fields = []string{"cmd"}
	case ToolEval:
		fields = []string{"code"}
	case ToolMessage:
		fields = []string{"text"}
	}
	for _, f := range fields {
		if env.private.quotes(a.Arg(f)) {
			return Asked(fmt.Sprintf("the %s %s quotes a note tagged private (%s); it would leave the memex", a.Tool, f, strings.Join(env.privacyTags, ", ")))
		}
	}
	return Passed("")
}
