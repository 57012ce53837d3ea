package memory

import (
	"context"
	"fmt"
	"math/rand/v2"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory/memexgen"
	"pp-lsp/memory/trigram"
	"pp-lsp/orgast"
)

// randomEdit makes one random edit of src: a snippet inserted, or bytes
// deleted or replaced, anywhere.
func randomEdit(rng *rand.Rand, src []byte, snippets []string) TextEdit {
	at := rng.IntN(len(src) + 1)
	end := min(len(src), at+rng.IntN(4)*rng.IntN(30))
	text := ""
	if rng.IntN(4) > 0 {
		text = snippets[rng.IntN(len(snippets))]
	}
	return TextEdit{Start: at, End: end, Text: text}
}

// segRows flattens a segment's rows.
type segRows struct {
	nodes []int32
	vecs  [][]uint16
	sigs  []uint64
}

func flatRows(s *vecSeg) segRows {
	var out segRows
	s.eachRow(func(n int32, v []uint16, sig []uint64) {
		out.nodes = append(out.nodes, n)
		out.vecs = append(out.vecs, v)
		out.sigs = append(out.sigs, sig...)
	})
	return out
}

// requireSameSegment checks two segments row for row, and their missing
// nodes; and that got's chunks keep their bounds: at most chunkRows rows,
// at least chunkMin but in the last, nodes increasing throughout.
func requireSameSegment(t *testing.T, want, got *vecSeg, why string) {
	t.Helper()
	if want == nil || got == nil {
		require.Equal(t, want == nil, got == nil, "%s: one segment is nil", why)
		return
	}
	require.Equal(t, flatRows(want), flatRows(got), "%s: rows", why)
	require.Equal(t, want.missing, got.missing, "%s: missing", why)
	require.Equal(t, want.rows(), got.rows(), why)
	last := int32(-1)
	for k, c := range got.chunks {
		require.LessOrEqual(t, len(c.rows.nodes), chunkRows, "%s: chunk %d", why, k)
		if k < len(got.chunks)-1 {
			require.GreaterOrEqual(t, len(c.rows.nodes), chunkMin, "%s: chunk %d of %d", why, k, len(got.chunks))
		}
		require.Greater(t, c.first(), last, "%s: chunk %d starts after the one before", why, k)
		last = c.last()
	}
}

// TestPatchedSegmentEqualsFull makes random edits of an embedded file
// and checks that the vector segment made from the version before (rows
// copied and moved, only the nodes indexed again looked up) equals the one
// made from scratch out of the store; also after some of the new texts
// get vectors, for the next version and for the same one (what publishing
// arrived vectors does).
func TestPatchedSegmentEqualsFull(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Dirs, o.Headlines, o.Seed, o.PrivateShare = 1, 0, 1500, 5, 0.1
	dir, g := writeGenerated(t, memexgen.BuiltinSource(), o)
	ctx := context.Background()
	m := openMemex(t, Options{Roots: []string{dir}, Embed: true})
	require.NoError(t, m.WaitEmbedded(ctx))
	path := filepath.Join(dir, g.Files[0].Path)
	m.mu.Lock() // the writer's lock, as vectorsFor's callers hold it
	defer m.mu.Unlock()
	e, ok := m.Snapshot().entry(path)
	require.True(t, ok)
	require.Positive(t, e.vecs.rows())
	cfg := m.cfg.Load()
	te := trigram.New()
	rng := rand.New(rand.NewPCG(3, 4))
	for step := range testenv.Scale(300, 25) {
		why := fmt.Sprintf("step %d", step)
		src, edit := applyEdit(e.idx.org.Src, randomEdit(rng, e.idx.org.Src, reindexSnippets))
		idx, nm := reindex(e.idx, path, 0, e.idx.rel, orgast.Reparse(e.idx.org, src, edit), cfg.privacy, &edit)
		got := m.vectorsFor(idx, prevVectors{idx: e.idx, seg: e.vecs, nm: nm})
		requireSameSegment(t, m.vectorsFor(idx, prevVectors{}), got, why)
		if nm != nil {
			require.LessOrEqual(t, copiedRows(e.vecs, got), 5*chunkRows+int(nm.hi-nm.lo)+1, "%s: rows copied, not shared", why)
		}
		if got != nil && rng.IntN(3) == 0 {
			// The embedder answers for some of the missing texts.
			m.store.mu.Lock()
			for _, i := range got.missing {
				if rng.IntN(2) == 0 {
					_ = m.store.add(idx.nodes[i].content, te.Vector(Node{idx, i}.EmbedText()))
				}
			}
			m.store.mu.Unlock()
			if rng.IntN(2) == 0 {
				got = m.vectorsFor(idx, prevVectors{idx: idx, seg: got})
				requireSameSegment(t, m.vectorsFor(idx, prevVectors{}), got, why+": arrived")
			}
		}
		e = &fileEntry{idx: idx, vecs: got}
	}
}

// copiedRows counts the rows of got in chunks it does not share with prev.
func copiedRows(prev, got *vecSeg) int {
	shared := map[*vecRows]bool{}
	if prev != nil {
		for _, c := range prev.chunks {
			shared[c.rows] = true
		}
	}
	n := 0
	if got != nil {
		for _, c := range got.chunks {
			if !shared[c.rows] {
				n += len(c.rows.nodes)
			}
		}
	}
	return n
}

// findingsSnippets add and break what findings are about: IDs (new and
// carried elsewhere), id links (to IDs that exist or not), file links with
// searches, internal links.
func findingsSnippets(ids []string) []string {
	out := slices.Clone(reindexSnippets)
	for _, id := range ids {
		out = append(out, ":PROPERTIES:\n:ID: "+id+"\n:END:\n", "[[id:"+id+"]]", "[[id:"+id+"x]]")
	}
	return append(out, "[[file:f1.org::*Nothing here]]", "[[file:f1.org]]", "[[file:missing.org]]", "[[file:f0.org::#new]]")
}

// TestFindingsFollowEdits edits buffers of a memex with duplicate IDs and
// broken links at random and checks, after each edit, that the findings
// of every file — those carried over from what earlier questions learnt,
// in the edited file and in the others whose findings it changes — equal
// the findings of fresh indexes of the same texts. Findings are asked for
// after most edits, not all, as an editor that debounces would.
func TestFindingsFollowEdits(t *testing.T) {
	dir := t.TempDir()
	o := memexgen.Defaults()
	o.Files, o.Dirs, o.Headlines, o.Seed = 3, 0, 240, 9
	o.DuplicateIDs, o.BrokenLinkShare, o.FileLinkShare = 4, 0.2, 0.2
	g, err := memexgen.Generate(memexgen.BuiltinSource(), o)
	require.NoError(t, err)
	paths := make([]string, len(g.Files))
	for k, f := range g.Files {
		f.Path = fmt.Sprintf("f%d.org", k)
		g.Files[k] = f
		paths[k] = filepath.Join(dir, f.Path)
	}
	require.NoError(t, g.WriteDir(dir))
	ctx := context.Background()
	m := openMemex(t, Options{Roots: []string{dir}})
	var ids []string
	for n := range m.Snapshot().Nodes() {
		if id := n.ID(); id != "" && len(ids) < 6 {
			ids = append(ids, id)
		}
	}
	snippets := findingsSnippets(ids)
	for k, p := range paths {
		_, err := m.SetBuffer(ctx, p, 1, g.Files[k].Data)
		require.NoError(t, err)
	}
	rng := rand.New(rand.NewPCG(5, 6))
	versions := make([]int32, len(paths))
	for step := range testenv.Scale(400, 80) {
		k := rng.IntN(len(paths))
		n, _ := m.Snapshot().File(paths[k])
		versions[k]++
		s, err := m.EditBuffer(ctx, paths[k], versions[k]+1, randomEdit(rng, n.Org().Src, snippets))
		require.NoError(t, err)
		if rng.IntN(4) == 0 {
			continue // nobody asks about this version
		}
		ref := freshSnapshot(t, s, paths)
		requireSameGlobalIndexes(t, s, fmt.Sprintf("step %d", step))
		for _, p := range paths {
			assert.Equal(t, ref.FileFindings(p), s.FileFindings(p), "step %d: %s", step, filepath.Base(p))
		}
		if t.Failed() {
			return
		}
	}
}

// freshSnapshot is s with each file of paths indexed again from scratch:
// the same global indexes, no carried-over tables, resolutions or status.
func freshSnapshot(t *testing.T, s *Snapshot, paths []string) *Snapshot {
	t.Helper()
	b := newBuilder(s)
	for _, p := range paths {
		e, ok := s.entry(p)
		require.True(t, ok)
		ne := *e
		ne.idx = indexParsed(p, e.idx.root, e.idx.rel, orgast.Parse(e.idx.org.Src), e.idx.privacy)
		b.put(&ne)
	}
	return b.build(s.gen + 1)
}

// requireSameGlobalIndexes checks that the global indexes s keeps up to
// date edit by edit — which files carry each ID, link to each ID, link to
// each file — are those made in one go from fresh indexes of its files.
func requireSameGlobalIndexes(t *testing.T, s *Snapshot, why string) {
	t.Helper()
	var entries []*fileEntry
	for _, p := range s.order {
		e, _ := s.entry(p)
		ne := *e
		ne.idx = indexParsed(p, e.idx.root, e.idx.rel, orgast.Parse(e.idx.org.Src), e.idx.privacy)
		entries = append(entries, &ne)
	}
	ref := bulkSnapshot(s.cfg, entries, s.skipped, s.gen)
	contents := func(m pmap[[]string]) map[string][]string {
		out := map[string][]string{}
		m.each(func(k string, v []string) bool {
			out[k] = v
			return true
		})
		return out
	}
	require.Equal(t, contents(ref.ids), contents(s.ids), "%s: IDs", why)
	require.Equal(t, contents(ref.idLinks), contents(s.idLinks), "%s: id links", why)
	require.Equal(t, contents(ref.fileLinks), contents(s.fileLinks), "%s: file links", why)
}
