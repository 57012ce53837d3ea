package orgast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"io/fs"
	"math/rand/v2"
	"os"
	"os/exec"
	"path/filepath"
	"reflect"
	"sort"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// File.Blocks and File.Names against Emacs: testdata/org-blocks.el prints
// what org-element sees (blocks, drawers, named elements, with positions
// as line and character column); blocksReport prints the same from an
// orgast File, and the two must agree.

const blockFixtureDir = "testdata/blocks"

// elementReport is one file as org-blocks.el prints it.
type elementReport struct {
	File   string        `json:"file"`
	Error  string        `json:"error,omitempty"`
	Blocks []blockReport `json:"blocks"`
	Names  []nameReport  `json:"names"`
}

// position is [1-based line, 0-based column in characters].
type position [2]int

type blockReport struct {
	Type     string      `json:"type"`
	Name     string      `json:"name"`
	Language string      `json:"language"`
	Begin    position    `json:"begin"`
	Line     [2]position `json:"line"`
	Contents [2]position `json:"contents"`
	End      position    `json:"end"`
	Headline *int        `json:"headline"`
}

type nameReport struct {
	Name     string   `json:"name"`
	Type     string   `json:"type"`
	Begin    position `json:"begin"`
	End      position `json:"end"`
	Headline *int     `json:"headline"`
}

// blocksReport is what org-blocks.el would print for f.
func blocksReport(f *File, name string) elementReport {
	pos := func(off int) position {
		line := f.Lines.Line(off)
		start := f.Lines.LineRange(line).Start
		col := off - start
		if f.enc == encUTF8 {
			col = utf8.RuneCount(f.Src[start:off])
		}
		return position{line + 1, col}
	}
	headline := func(node int) *int {
		if node < 0 {
			return nil
		}
		l := f.Lines.Line(f.Headlines[node].Line.Start) + 1
		return &l
	}
	// Strings as Emacs decoded and printed them (Latin-1, raw bytes).
	str := func(s string) string {
		w := jsonWriter{enc: f.enc}
		w.str(s)
		var out string
		if err := json.Unmarshal(w.buf, &out); err != nil {
			return s
		}
		return out
	}
	r := elementReport{File: name, Blocks: []blockReport{}, Names: []nameReport{}}
	for _, b := range f.Blocks {
		r.Blocks = append(r.Blocks, blockReport{
			Type: b.Type, Name: str(b.Name), Language: str(b.Language),
			Begin: pos(b.Range.Start), Line: [2]position{pos(b.Line.Start), pos(b.Line.End)},
			Contents: [2]position{pos(b.Contents.Start), pos(b.Contents.End)},
			End:      pos(b.Range.End), Headline: headline(b.Node),
		})
	}
	for _, n := range f.Names {
		r.Names = append(r.Names, nameReport{Name: str(n.Name), Type: n.Type, Begin: pos(n.Range.Start), End: pos(n.Range.End), Headline: headline(n.Node)})
	}
	return r
}

// emacsBlocks runs org-blocks.el over names (relative to dir).
func emacsBlocks(t *testing.T, dir string, names []string) []elementReport {
	t.Helper()
	emacs := testenv.NeedCommand(t, "emacs")
	tool, err := filepath.Abs("testdata/org-blocks.el")
	require.NoError(t, err)
	cmd := exec.CommandContext(t.Context(), emacs, append([]string{"--batch", "-Q", "-l", tool}, names...)...)
	cmd.Dir = dir
	out, err := cmd.Output()
	require.NoError(t, err)
	var reports []elementReport
	require.NoError(t, json.Unmarshal(out, &reports))
	require.Len(t, reports, len(names))
	return reports
}

// blockAgreement counts how far orgast's blocks and names agree with
// Emacs's: an element is matched by where it begins, then compared in
// every field.
type blockAgreement struct {
	blocks, blocksSame, blocksExtra int
	names, namesSame, namesExtra    int
	mismatches                      []string
	// emacsFailed lists the files org-element itself fails to parse
	// (Org 9.5.5 has such bugs): there is no reference to compare with.
	emacsFailed []string
}

func (a *blockAgreement) add(want, got elementReport) {
	if want.Error != "" {
		a.emacsFailed = append(a.emacsFailed, want.File+": "+want.Error)
		return
	}
	a.blocks += len(want.Blocks)
	a.blocksSame += compareByBegin(a, want.File, want.Blocks, got.Blocks, func(b blockReport) position { return b.Begin })
	a.blocksExtra += max(0, len(got.Blocks)-len(want.Blocks))
	a.names += len(want.Names)
	a.namesSame += compareByBegin(a, want.File, want.Names, got.Names, func(n nameReport) position { return n.Begin })
	a.namesExtra += max(0, len(got.Names)-len(want.Names))
}

// compareByBegin pairs the elements of want and got that begin at the
// same place, records every difference and returns how many are equal.
func compareByBegin[T any](a *blockAgreement, file string, want, got []T, begin func(T) position) int {
	byBegin := map[position]T{}
	for _, g := range got {
		byBegin[begin(g)] = g
	}
	same := 0
	for _, w := range want {
		g, ok := byBegin[begin(w)]
		switch {
		case !ok:
			a.mismatches = append(a.mismatches, fmt.Sprintf("%s: orgast misses %+v", file, w))
		case reflect.DeepEqual(w, g):
			same++
		default:
			a.mismatches = append(a.mismatches, fmt.Sprintf("%s: Emacs %+v, orgast %+v", file, w, g))
		}
		delete(byBegin, begin(w))
	}
	for _, g := range byBegin {
		a.mismatches = append(a.mismatches, fmt.Sprintf("%s: orgast has %+v, Emacs does not", file, g))
	}
	return same
}

func (a *blockAgreement) summary() string {
	return fmt.Sprintf("blocks %d/%d identical (%.2f%%), %d extra; names %d/%d identical (%.2f%%), %d extra; %d files Emacs fails to parse",
		a.blocksSame, a.blocks, pct(a.blocksSame, a.blocks), a.blocksExtra, a.namesSame, a.names, pct(a.namesSame, a.names), a.namesExtra,
		len(a.emacsFailed))
}

func (a *blockAgreement) log(t *testing.T) {
	t.Helper()
	for i, m := range a.mismatches {
		if i == 40 {
			t.Logf("… and %d more mismatches", len(a.mismatches)-i)
			break
		}
		t.Log(m)
	}
}

// TestBlockFixtures checks the blocks and names of every fixture of
// testdata/blocks against the JSON Emacs printed for it (regen.sh).
func TestBlockFixtures(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join(blockFixtureDir, "*.org"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".org"), func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			ref, err := os.ReadFile(strings.TrimSuffix(path, ".org") + ".json")
			require.NoError(t, err, "no Emacs reference: run testdata/blocks/regen.sh")
			var want []elementReport
			require.NoError(t, json.Unmarshal(ref, &want))
			require.Len(t, want, 1)
			assert.Equal(t, want[0], blocksReport(Parse(src), name))
		})
	}
}

// TestBlockFixturesAgainstEmacs runs Emacs on the block fixtures, to check
// that their references are what it prints today, and on the outline
// fixtures (testdata/outline), whose edge cases (line ends, encodings,
// lists, affiliated keywords) hold blocks and names too.
func TestBlockFixturesAgainstEmacs(t *testing.T) {
	blockPaths, err := filepath.Glob(filepath.Join(blockFixtureDir, "*.org"))
	require.NoError(t, err)
	var names []string
	for _, p := range blockPaths {
		names = append(names, filepath.Base(p))
	}
	for i, got := range emacsBlocks(t, blockFixtureDir, names) {
		ref, err := os.ReadFile(strings.TrimSuffix(blockPaths[i], ".org") + ".json")
		require.NoError(t, err)
		var want []elementReport
		require.NoError(t, json.Unmarshal(ref, &want))
		assert.Equal(t, want, []elementReport{got}, "%s: the reference is stale: run testdata/blocks/regen.sh", names[i])
	}

	outlinePaths := fixtures(t)
	names = names[:0]
	for _, p := range outlinePaths {
		names = append(names, filepath.Base(p))
	}
	var a blockAgreement
	for i, want := range emacsBlocks(t, fixtureDir, names) {
		src, err := os.ReadFile(outlinePaths[i])
		require.NoError(t, err)
		a.add(want, blocksReport(Parse(src), names[i]))
	}
	t.Logf("%d outline fixtures: %s", len(names), a.summary())
	a.log(t)
	assert.Empty(t, a.mismatches)
	assert.Empty(t, a.emacsFailed)
}

// TestBlocksCorpusAgainstEmacs compares the blocks and names of every
// file of ../shared/corpus/org with what Emacs reads there, and prints
// the agreement.
func TestBlocksCorpusAgainstEmacs(t *testing.T) {
	testenv.SkipShort(t, "runs Emacs over the corpus")
	orgDir := filepath.Join(testenv.SharedDir(t), "corpus", "org")
	var names []string
	err := filepath.WalkDir(orgDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".org") {
			return err
		}
		rel, err := filepath.Rel(orgDir, path)
		names = append(names, rel)
		return err
	})
	require.NoError(t, err)
	require.NotEmpty(t, names)
	sort.Strings(names)
	var a blockAgreement
	for i, want := range emacsBlocks(t, orgDir, names) {
		src, err := os.ReadFile(filepath.Join(orgDir, names[i]))
		require.NoError(t, err)
		a.add(want, blocksReport(Parse(src), names[i]))
	}
	t.Logf("%d files: %s", len(names), a.summary())
	a.log(t)
	assert.Equal(t, a.blocks, a.blocksSame, "blocks identical in every field")
	assert.Equal(t, a.names, a.namesSame, "names identical in every field")
	assert.Zero(t, a.blocksExtra+a.namesExtra, "blocks and names Emacs does not see")
	assert.Empty(t, a.mismatches)
	assert.Empty(t, a.emacsFailed)
}

// Random documents dense in blocks: openings and closings nest like a
// stack, with some closings forgotten, misspelt or indented, and elements
// of every kind, #+NAME: lines and headlines between them.
var (
	rndOpenings = [][2]string{
		{"#+begin_src sh", "#+end_src"}, {"#+BEGIN_SRC  emacs-lisp -n", "#+END_SRC"}, {"#+begin_src", "#+end_src"},
		{"#+begin_example", "#+end_example"}, {"#+begin_quote", "#+end_quote"}, {"#+begin_center", "#+end_center"},
		{"#+begin_verse", "#+end_verse"}, {"#+begin_comment", "#+end_comment"}, {"#+begin_export html", "#+end_export"},
		{"#+begin_note", "#+end_note"}, {"#+BEGIN: dyn :a 1", "#+END:"}, {"#+BEGIN dyn", "#+END"}, {":LOGBOOK:", ":END:"},
		{":DRAWER:", ":end:"}, {"\\begin{eq}", "\\end{eq}"},
	}
	rndElements = []string{
		"text", "more *text*", "- item", "  - sub item", "1. one", "| t | u |", "|---+---|", "+--+\n|x|\n+--+", ": fixed", "#+NAME: n%d",
		"#+name:  spaced %d ", "#+TBLNAME: t%d", "#+CAPTION: c", "#+RESULTS:", "#+ATTR_HTML: :x 1", "", "", "* H", "** H2",
		"[fn:1] f", "#+CALL: f()", "-----", "#+TITLE: t", "CLOCK: [2020-01-01 Wed 10:00]", "%%(diary)", "# comment",
		":PROPERTIES:", ":ID: 1", ":END:", "#+end_src", "SCHEDULED: <2020-01-01 Wed>", "- a :: b", "    deep text",
	}
	rndIndents = []string{"", "", "  ", "\t", " "}
)

func randomBlockOrg(r *rand.Rand) []byte {
	var b bytes.Buffer
	var open []int
	for n := 10 + r.IntN(50); n > 0; n-- {
		ind := rndIndents[r.IntN(len(rndIndents))]
		switch x := r.IntN(20); {
		case x < 5:
			k := r.IntN(len(rndOpenings))
			open = append(open, k)
			b.WriteString(ind + rndOpenings[k][0])
		case x < 10 && len(open) > 0:
			closing := rndOpenings[open[len(open)-1]][1]
			open = open[:len(open)-1]
			switch r.IntN(6) {
			case 0:
				closing = strings.ToUpper(closing)
			case 1:
				closing += "x" // misspelt: does not close
			}
			b.WriteString(ind + closing)
		default:
			line := rndElements[r.IntN(len(rndElements))]
			if strings.Contains(line, "%d") {
				line = fmt.Sprintf(line, r.IntN(5))
			}
			if !strings.HasPrefix(line, "*") {
				line = ind + line
			}
			b.WriteString(line)
		}
		b.WriteByte('\n')
	}
	return b.Bytes()
}

// TestRandomBlocksAgainstEmacs has Emacs read random documents dense in
// blocks and compares blocks and names.
func TestRandomBlocksAgainstEmacs(t *testing.T) {
	dir := t.TempDir()
	r := rand.New(rand.NewPCG(uint64(len(rndOpenings)), 11))
	const n = 300
	names := make([]string, n)
	srcs := make([][]byte, n)
	for i := range names {
		names[i] = fmt.Sprintf("b%03d.org", i)
		if i%4 == 0 {
			srcs[i] = randomOrg(r)
		} else {
			srcs[i] = randomBlockOrg(r)
		}
		require.NoError(t, os.WriteFile(filepath.Join(dir, names[i]), srcs[i], 0o644))
	}
	var a blockAgreement
	for i, want := range emacsBlocks(t, dir, names) {
		got := blocksReport(Parse(srcs[i]), names[i])
		a.add(want, got)
		if want.Error == "" && !reflect.DeepEqual(want, got) {
			t.Fatalf("orgast and Emacs disagree on %s:\n%s\nEmacs:  %+v\norgast: %+v", names[i], srcs[i], want, got)
		}
	}
	t.Logf("%d random documents: %s", n, a.summary())
}

// TestBlocksAndNames pins the rules one case at a time.
func TestBlocksAndNames(t *testing.T) {
	type block struct {
		Type, Name, Language  string
		Range, Line, Contents string // the text each spans
		Node                  int
	}
	type named struct {
		Name, Type, Range string
		Node              int
	}
	tests := []struct {
		name   string
		src    string
		blocks []block
		names  []named
	}{
		{
			name: "src block with a name and a language",
			src:  "#+NAME: code\n#+begin_src python :results output\nprint(1)\n#+end_src\n\nafter\n",
			blocks: []block{{Type: "src-block", Name: "src", Language: "python",
				Range: "#+NAME: code\n#+begin_src python :results output\nprint(1)\n#+end_src\n",
				Line:  "#+begin_src python :results output", Contents: "print(1)\n", Node: -1}},
			names: []named{{Name: "code", Type: "src-block", Range: "#+NAME: code\n#+begin_src python :results output\nprint(1)\n#+end_src\n", Node: -1}},
		},
		{
			name: "a #+NAME: inside a src block is text",
			src:  "#+begin_src sh\n#+NAME: no\n#+end_src\n",
			blocks: []block{{Type: "src-block", Name: "src", Language: "sh", Range: "#+begin_src sh\n#+NAME: no\n#+end_src\n",
				Line: "#+begin_src sh", Contents: "#+NAME: no\n", Node: -1}},
		},
		{
			name:   "an unclosed block is a paragraph, and names it",
			src:    "#+NAME: p\n#+begin_example\nnever closed\n",
			blocks: nil,
			names:  []named{{Name: "p", Type: "paragraph", Range: "#+NAME: p\n#+begin_example\nnever closed\n", Node: -1}},
		},
		{
			name:  "a #+NAME: before a blank line names nothing",
			src:   "#+NAME: orphan\n\n| a |\n",
			names: nil,
		},
		{
			name:  "the last name wins, synonyms count",
			src:   "#+NAME: first\n#+TBLNAME:   second  \n| a |\n|---|\n\n",
			names: []named{{Name: "second", Type: "table", Range: "#+NAME: first\n#+TBLNAME:   second  \n| a |\n|---|\n", Node: -1}},
		},
		{
			name:  "a name before a keyword names the keyword",
			src:   "#+NAME: k\n#+TITLE: t\n",
			names: []named{{Name: "k", Type: "keyword", Range: "#+NAME: k\n#+TITLE: t\n", Node: -1}},
		},
		{
			name: "blocks nest in lists and drawers, in document order",
			src:  "* H\n- item\n  #+begin_quote\n  :NOTE:\n  inside\n  :END:\n  #+end_quote\n- two\n",
			blocks: []block{
				{Type: "quote-block", Name: "quote", Range: "  #+begin_quote\n  :NOTE:\n  inside\n  :END:\n  #+end_quote\n",
					Line: "  #+begin_quote", Contents: "  :NOTE:\n  inside\n  :END:\n", Node: 0},
				{Type: "drawer", Name: "NOTE", Range: "  :NOTE:\n  inside\n  :END:\n", Line: "  :NOTE:", Contents: "  inside\n", Node: 0},
			},
		},
		{
			name: "a headline ends a block: it is unclosed",
			src:  "* A\n#+begin_src\n* B\n#+end_src\n",
		},
		{
			name: "dynamic blocks, with and without a name",
			src:  "#+BEGIN: clocktable :scope file\n#+END:\n#+BEGIN dyn\n#+END\n",
			blocks: []block{
				{Type: "dynamic-block", Name: "clocktable", Range: "#+BEGIN: clocktable :scope file\n#+END:\n", Line: "#+BEGIN: clocktable :scope file", Node: -1},
				{Type: "dynamic-block", Range: "#+BEGIN dyn\n#+END\n", Line: "#+BEGIN dyn", Node: -1},
			},
		},
		{
			name: "special and verse blocks, a tab is no language separator",
			src:  "#+begin_note\nx\n#+end_NOTE\n#+begin_verse\n#+end_verse\n#+begin_src\tgo\n#+end_src",
			blocks: []block{
				{Type: "special-block", Name: "note", Range: "#+begin_note\nx\n#+end_NOTE\n", Line: "#+begin_note", Contents: "x\n", Node: -1},
				{Type: "verse-block", Name: "verse", Range: "#+begin_verse\n#+end_verse\n", Line: "#+begin_verse", Node: -1},
				{Type: "src-block", Name: "src", Range: "#+begin_src\tgo\n#+end_src", Line: "#+begin_src\tgo", Node: -1},
			},
		},
		{
			name: "CR LF line ends map back to the file's bytes",
			src:  "\xef\xbb\xbf#+name: x\r\n#+begin_example\r\né\r\n#+end_example\r\n",
			blocks: []block{{Type: "example-block", Name: "example", Range: "#+name: x\r\n#+begin_example\r\né\r\n#+end_example\r\n",
				Line: "#+begin_example", Contents: "é\r\n", Node: -1}},
			names: []named{{Name: "x", Type: "example-block", Range: "#+name: x\r\n#+begin_example\r\né\r\n#+end_example\r\n", Node: -1}},
		},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			src := []byte(tt.src)
			f := Parse(src)
			text := func(r Range) string { return string(src[r.Start:r.End]) }
			var blocks []block
			for _, b := range f.Blocks {
				blocks = append(blocks, block{b.Type, b.Name, b.Language, text(b.Range), text(b.Line), text(b.Contents), b.Node})
			}
			var names []named
			for _, n := range f.Names {
				assert.Equal(t, n.Name, text(n.NameRange), "the name is where NameRange says")
				names = append(names, named{n.Name, n.Type, text(n.Range), n.Node})
			}
			assert.Equal(t, tt.blocks, blocks)
			assert.Equal(t, tt.names, names)
		})
	}
}

// TestBlocksReparse checks that an edit inside and after a block keeps
// Blocks and Names equal to a full parse (the randomized test and the
// fuzz target cover the rest).
func TestBlocksReparse(t *testing.T) {
	src := []byte("* A\n#+NAME: a\n#+begin_src go\nx\n#+end_src\n* B\n:LOGBOOK:\n:END:\n#+NAME: t\n| 1 |\n")
	prev := Parse(src)
	for _, ins := range []string{"y", "\n#+end_src", "#+NAME: b\n", "* C\n"} {
		at := bytes.Index(src, []byte("x\n"))
		next := append(append(append([]byte{}, src[:at]...), ins...), src[at:]...)
		e := Edit{Start: at, OldEnd: at, NewEnd: at + len(ins)}
		got, want := Reparse(prev, next, e), Parse(next)
		assert.Equal(t, snap(want), snap(got), "inserting %q", ins)
	}
}
