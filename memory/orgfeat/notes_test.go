package orgfeat

import (
	"context"
	"fmt"
	"math/rand/v2"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"
	"unicode/utf8"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory"
	"pp-lsp/memory/memexgen"
	"pp-lsp/orgast"
)

// generated writes a memex with every kind of link the renames touch:
// the generator's id, fuzzy and file links, in several folders.
func generated(t *testing.T, seed uint64, files, headlines int) string {
	t.Helper()
	opts := memexgen.Defaults()
	opts.Seed, opts.Files, opts.Headlines, opts.Dirs = seed, files, headlines, 4
	opts.FuzzyLinkShare, opts.FileLinkShare = 0.3, 0.3
	g, err := memexgen.Generate(memexgen.BuiltinSource(), opts)
	require.NoError(t, err)
	root := t.TempDir()
	require.NoError(t, g.WriteDir(root))
	return root
}

func snapshotOf(t *testing.T, root string) *memory.Snapshot {
	t.Helper()
	mx, err := memory.Open(context.Background(), memory.Options{Roots: []string{root}})
	require.NoError(t, err)
	t.Cleanup(func() { mx.Close(context.Background()) })
	return mx.Snapshot()
}

// landing is where every link of a memex lands that lands on a node: by
// link (its file and index) the node's (file, headline).
type linkKey struct {
	file  string
	index int
}

type nodeKey struct {
	file     string
	headline int
}

func landings(snap *memory.Snapshot) map[linkKey]nodeKey {
	out := map[linkKey]nodeKey{}
	for f := range snap.Files() {
		for i := range f.Org().Links {
			r := snap.ResolveLinkIn(f, i)
			if r.Status == memory.LinkResolved && r.Target.Valid() {
				out[linkKey{f.Path(), i}] = nodeKey{r.Target.Path(), r.Target.Headline()}
			}
		}
	}
	return out
}

// applyEdits writes edits into the files on disk.
func applyEdits(t *testing.T, edits []FileEdit) {
	t.Helper()
	byFile := map[string][]FileEdit{}
	for _, e := range edits {
		byFile[e.Path] = append(byFile[e.Path], e)
	}
	for path, es := range byFile {
		src, err := os.ReadFile(path)
		require.NoError(t, err)
		slices.SortFunc(es, func(a, b FileEdit) int { return b.Start - a.Start })
		for k, e := range es {
			require.True(t, k == 0 || e.End <= es[k-1].Start, "overlapping edits in %s", path)
			src = append(src[:e.Start:e.Start], append([]byte(e.Text), src[e.End:]...)...)
		}
		require.NoError(t, os.WriteFile(path, src, 0o644))
	}
}

// TestRenameFileEditsKeepEveryLink: rename a random file, or a random
// folder, of a generated memex, apply the edits RenameFileEdits gives,
// move it on disk, and read the memex again: every link that landed on a
// node lands on the same node (moved with its file) — from the links to
// the moved files and from the moved files' own relative links alike.
func TestRenameFileEditsKeepEveryLink(t *testing.T) {
	rng := rand.New(rand.NewPCG(7, 19))
	for trial := range testenv.Scale(12, 4) {
		root := generated(t, uint64(trial+1), 24, 300)
		before := snapshotOf(t, root)
		var files []string
		for f := range before.Files() {
			files = append(files, f.Path())
		}
		moves := Moves{}
		if trial%3 == 2 { // a folder
			dir := filepath.Dir(files[rng.IntN(len(files))])
			if dir == root {
				dir = filepath.Dir(files[len(files)-1])
			}
			moves[dir] = filepath.Join(root, "moved", fmt.Sprintf("folder-%d", trial))
		} else {
			from := files[rng.IntN(len(files))]
			dirs := []string{root, filepath.Join(root, "elsewhere"), filepath.Join(root, "deep", "er")}
			moves[from] = filepath.Join(dirs[rng.IntN(len(dirs))], fmt.Sprintf("renamed-%d.org", trial))
		}
		edits := RenameFileEdits(Scope{Memex: before}, moves)
		want := landings(before)
		applyEdits(t, edits)
		for from, to := range moves {
			require.NoError(t, os.MkdirAll(filepath.Dir(to), 0o755))
			require.NoError(t, os.Rename(from, to))
		}
		after := landings(snapshotOf(t, root))
		moved := func(p string) string {
			q, _ := moves.to(p)
			return q
		}
		checked := 0
		for lk, nk := range want {
			got, ok := after[linkKey{moved(lk.file), lk.index}]
			if assert.True(t, ok, "trial %d: the link %d of %s lands nowhere after %v", trial, lk.index, lk.file, moves) {
				assert.Equal(t, nodeKey{moved(nk.file), nk.headline}, got, "trial %d: link %d of %s", trial, lk.index, lk.file)
			}
			checked++
		}
		require.Positive(t, checked)
	}
}

// TestRenameTitleEditsKeepEveryLink: retitle random headlines that links
// find by title, apply RenameTitleEdits, read the memex again: every link
// that landed on a node lands there still, and the headline has its new
// title.
func TestRenameTitleEditsKeepEveryLink(t *testing.T) {
	rng := rand.New(rand.NewPCG(3, 5))
	for trial := range testenv.Scale(12, 4) {
		root := generated(t, uint64(100+trial), 16, 240)
		before := snapshotOf(t, root)
		var found []memory.Node
		for n := range before.Nodes() {
			if n.Headline() < 0 {
				continue
			}
			for _, s := range before.Backlinks(n) {
				if lt := strings.ToLower(s.Link().Type); lt == "fuzzy" || lt == "file" && s.Link().HasSearch {
					found = append(found, n)
					break
				}
			}
		}
		require.NotEmpty(t, found)
		n := found[rng.IntN(len(found))]
		title := fmt.Sprintf("Retitled %d %s", trial, []string{"plain", "with  spaces", "ünïcode"}[trial%3])
		want := landings(before)
		applyEdits(t, RenameTitleEdits(Scope{Memex: before}, n, title))
		after := snapshotOf(t, root)
		got := landings(after)
		for lk, nk := range want {
			assert.Equal(t, nk, got[lk], "trial %d: link %d of %s (retitled %q)", trial, lk.index, lk.file, n.Title())
		}
		m, ok := after.NodeAt(n.Path(), n.Line())
		require.True(t, ok)
		assert.Equal(t, title, m.Title())
	}
}

// TestUnlinkedIsAScanOfTheProse holds the word index to a scan: for
// nodes of a generated memex (titles of one to five words) and of a
// memex written to trap it (case, line breaks, words inside words,
// links, code, drawers, the journal), Unlinked finds exactly what a
// regular expression finds in the prose, outside the node's subtree.
func TestUnlinkedIsAScanOfTheProse(t *testing.T) {
	root := generated(t, 11, 30, 600)
	testenv.WriteTree(t, root, map[string]string{
		"traps.org": "#+title: Traps\n* Gate every proposal\n:PROPERTIES:\n:ROAM_ALIASES: \"the stack\" C++\n:END:\n" +
			"Text.\n* Elsewhere\nGATE EVERY\nproposal here; gate every proposals; the  stack, thestack, The Stack.\n" +
			"[[id:x][gate every proposal]] =gate every proposal= ~the stack~\n#+begin_src sh\ngate every proposal\n#+end_src\n" +
			":LOGBOOK:\nthe stack\n:END:\n#+caption: the stack\nC++ and c++x and (C++).\n",
		"journal.org": "* Gate every proposal\nthe stack\n",
	})
	snap := snapshotOf(t, root)
	x := NewNoteIndex()
	var nodes []memory.Node
	for n := range snap.Nodes() {
		nodes = append(nodes, n)
	}
	rng := rand.New(rand.NewPCG(1, 2))
	var sample []memory.Node
	for n := range snap.Nodes() {
		if n.Title() == "Gate every proposal" && !n.InServerFile() {
			sample = append(sample, n)
		}
	}
	require.Len(t, sample, 1)
	for range testenv.Scale(60, 15) {
		sample = append(sample, nodes[rng.IntN(len(nodes))])
	}
	mentions := 0
	for _, n := range sample {
		got := map[string]bool{}
		for _, m := range x.Unlinked(snap, n) {
			got[fmt.Sprintf("%s:%d-%d", m.File.Path(), m.Range.Start, m.Range.End)] = true
		}
		want := scanMentions(snap, n, append([]string{n.Title()}, Aliases(n)...))
		assert.Equal(t, want, got, "node %q", n.Title())
		mentions += len(got)
	}
	assert.Positive(t, mentions, "the sample has unlinked references")
}

// scanMentions is the oracle: each name as a case-insensitive regular
// expression, its spaces any white space, with no word character right
// before or after it, over every
// file's text; a match counts when no byte of it lies outside the prose.
func scanMentions(snap *memory.Snapshot, n memory.Node, names []string) map[string]bool {
	out := map[string]bool{}
	own := n.Range()
	for f := range snap.Files() {
		if f.InServerFile() {
			continue
		}
		src := f.Org().Src
		gaps := proseGaps(f.Org())
		for _, name := range names {
			words := strings.Fields(name)
			if len(words) == 0 || !regexp.MustCompile(`[\pL\pN]`).MatchString(name) {
				continue
			}
			for i := range words {
				words[i] = regexp.QuoteMeta(words[i])
			}
			re := regexp.MustCompile(`(?i)` + strings.Join(words, `[ \t\r\n]+`))
			for _, m := range re.FindAllIndex(src, -1) {
				r := orgast.Range{Start: m[0], End: m[1]}
				if f.Path() == n.Path() && r.Start < own.End && r.End > own.Start {
					continue
				}
				if wordRuneBefore(src, r.Start) || wordRuneAt(src, r.End) {
					continue // inside a word, or running into one
				}
				if slices.ContainsFunc(gaps, func(g orgast.Range) bool { return r.Start < g.End && r.End > g.Start }) {
					continue
				}
				out[fmt.Sprintf("%s:%d-%d", f.Path(), r.Start, r.End)] = true
			}
		}
	}
	return out
}

var wordRE = regexp.MustCompile(`^[\pL\pN]`)
var wordEndRE = regexp.MustCompile(`[\pL\pN]$`)

func wordRuneAt(src []byte, off int) bool { return off < len(src) && wordRE.Match(src[off:]) }

func wordRuneBefore(src []byte, off int) bool { return off > 0 && wordEndRE.Match(src[:off]) }

// TestContextLine: a link reads as its description; a long line is cut
// around the place, on character boundaries, with "…" where it was cut.
func TestContextLine(t *testing.T) {
	src := "* H\nsee [[id:x][the note]] and [[https://e.org]] done\n" + strings.Repeat("é", 200) + " here [[id:y][mark]] " + strings.Repeat("ü", 200) + "\n"
	org := orgast.Parse([]byte(src))
	at := strings.Index(src, "and")
	assert.Equal(t, "see the note and https://e.org done", ContextLine(org, orgast.Range{Start: at, End: at + 3}))
	at = strings.Index(src, "[[id:y]")
	got := ContextLine(org, orgast.Range{Start: at, End: at + 5})
	assert.Contains(t, got, "here mark")
	assert.True(t, strings.HasPrefix(got, "…") && strings.HasSuffix(got, "…"), got)
	assert.LessOrEqual(t, len(got), 170)
	assert.True(t, utf8.ValidString(got))
}
