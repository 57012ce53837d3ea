package memexgen

import (
	"bufio"
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"unicode"
)

// Source is the text the generator draws from: prose sentences and single
// words, both free of any Org syntax (no link, drawer, headline, block,
// table or markup that could change what the generated files mean).
type Source struct {
	sentences []string
	words     []string
	// FromCorpus reports whether the text came from the public corpus;
	// false means the small built-in word list.
	FromCorpus bool
}

// Bounds on what LoadSource keeps: enough variety for 100k headlines,
// little enough to load in a few tens of milliseconds.
const (
	maxSentences = 40000
	maxWords     = 20000
	minWords     = 5
)

// LoadSource reads every *.org file below corpusDir (../shared/corpus/org)
// in sorted order and keeps its prose lines as sentences and its words as
// title material, so that the same corpus always yields the same Source.
// An empty corpusDir gives BuiltinSource.
func LoadSource(corpusDir string) (*Source, error) {
	if corpusDir == "" {
		return BuiltinSource(), nil
	}
	var paths []string
	err := filepath.WalkDir(corpusDir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.Type().IsRegular() && strings.HasSuffix(p, ".org") {
			paths = append(paths, p)
		}
		return nil
	})
	if err != nil {
		return nil, fmt.Errorf("reading the corpus %s: %w", corpusDir, err)
	}
	slices.Sort(paths)
	s := &Source{FromCorpus: true}
	seenS := map[string]bool{}
	seenW := map[string]bool{}
	for _, p := range paths {
		data, err := os.ReadFile(p)
		if err != nil {
			return nil, fmt.Errorf("reading the corpus file %s: %w", p, err)
		}
		sc := bufio.NewScanner(bytes.NewReader(data))
		sc.Buffer(make([]byte, 0, 64<<10), 1<<20)
		for sc.Scan() {
			line := sanitise(sc.Text())
			if line == "" {
				continue
			}
			for _, w := range strings.Fields(line) {
				w = strings.ToLower(w)
				if len(s.words) < maxWords && len(w) >= 3 && len(w) <= 12 && allLetters(w) && !seenW[w] {
					seenW[w] = true
					s.words = append(s.words, w)
				}
			}
			if len(s.sentences) < maxSentences && len(strings.Fields(line)) >= minWords && !seenS[line] {
				seenS[line] = true
				s.sentences = append(s.sentences, line)
			}
		}
	}
	if len(s.sentences) < 100 || len(s.words) < 100 {
		return nil, fmt.Errorf("the corpus %s holds too little prose (%d sentences, %d words)", corpusDir, len(s.sentences), len(s.words))
	}
	return s, nil
}

// BuiltinSource is the fallback when the public corpus is absent (a user's
// clone has no ../shared): sentences are strung from a small embedded word
// list, so the text is less natural but just as deterministic.
func BuiltinSource() *Source {
	words := strings.Fields(builtinWords)
	s := &Source{words: words}
	// Sentences are fixed windows over the word list, so that related
	// headlines share words as real notes do.
	for i := range len(words) {
		n := 6 + i%7
		parts := make([]string, 0, n)
		for j := range n {
			parts = append(parts, words[(i*7+j*13)%len(words)])
		}
		sent := strings.Join(parts, " ") + "."
		s.sentences = append(s.sentences, strings.ToUpper(sent[:1])+sent[1:])
	}
	return s
}

// sanitise turns one corpus line into safe prose, or "" when the line is
// not prose (keywords, tables, code, drawers, list bullets with markup).
// Every character Org could read as syntax is dropped: brackets and angle
// brackets (links, targets, timestamps, footnotes), colons (link types,
// drawers, properties, tags), stars, hashes, pipes, markup delimiters and
// backslashes (entities, line breaks).
func sanitise(line string) string {
	line = strings.TrimSpace(line)
	if line == "" {
		return ""
	}
	if r := []rune(line)[0]; !unicode.IsLetter(r) {
		return ""
	}
	var b strings.Builder
	for _, r := range line {
		switch {
		case strings.ContainsRune("[]<>{}()*#|:=~+_^\\/@$%&`\"", r):
			b.WriteByte(' ')
		case r == '\t':
			b.WriteByte(' ')
		case unicode.IsControl(r):
		default:
			b.WriteRune(r)
		}
	}
	out := strings.Join(strings.Fields(b.String()), " ")
	if len(out) < 30 || len(out) > 200 {
		return ""
	}
	for _, w := range strings.Fields(out) {
		// Words Org reads specially in a line (TODO keywords at a headline
		// start are not a risk in bodies, but COMMENT and keywords are kept
		// out of titles by allLetters/lower-casing; www. hosts stay plain).
		if strings.HasPrefix(strings.ToLower(w), "www.") {
			return ""
		}
	}
	return out
}

func allLetters(w string) bool {
	for _, r := range w {
		if r < 'a' || r > 'z' {
			return false
		}
	}
	return w != ""
}

// builtinWords is the embedded word list: plain lower-case English about
// notes, projects and software, so that generated titles read like notes.
const builtinWords = `
note project garden sensor thesis chapter draft review meeting agenda
summary outline index journal memo letter budget invoice expense account
saving travel flight hotel ticket museum concert recipe dinner kitchen
market bread coffee tea water plant flower tree soil moisture light
energy battery solar panel network router server client protocol frame
message packet socket stream buffer parser grammar token syntax tree
node edge graph vector matrix cosine embedding search ranking recall
precision metric benchmark latency memory cache index snapshot hash
merkle rollback commit branch merge rebase patch release version tag
module package library function method interface struct field value
pointer slice map channel goroutine mutex atomic context deadline timer
error panic recover defer return loop range switch select case default
test fuzz race vet format lint build deploy install config option flag
editor buffer window frame cursor line column offset range position
outline headline property drawer keyword planning schedule deadline
closed todo done next waiting cancelled priority habit agenda capture
refile archive export publish render template theme style font color
reading book article paper author citation reference quote summary
learning lecture course exercise problem solution proof lemma theorem
model language prompt context budget answer question reason action gate
policy permission secret vault privacy shell command script output input
health sleep walk run swim doctor appointment medicine vitamin weight
family friend birthday gift call visit holiday weekend morning evening
house rent repair paint door window roof garden fence tool ladder shed
finance tax bank loan pension stock bond fund salary income payment
city river bridge road train station bicycle car parking map route trip
weather rain snow wind storm cloud sun summer winter spring autumn
`
