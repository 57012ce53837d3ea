package memory

import (
	"context"
	"math/rand/v2"
	"os"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pp-lsp/memory/memexgen"
	"pp-lsp/orgast"
)

// editKind is one kind of edit: its name, and how to make one.
type editKind struct {
	name string
	make func(rng *rand.Rand, org *orgast.File) TextEdit
}

// editKinds are the edits the re-index benchmarks make, each at a random
// headline of the current text: what typing does (a character in a body
// or a title), a new sibling headline, and an id link added to a body.
var editKinds = []editKind{
	{"body-char", func(rng *rand.Rand, org *orgast.File) TextEdit {
		h := randomHeadline(rng, org, func(h *orgast.Headline) bool { return h.Section.Len() > 1 })
		at := h.Section.End - 1
		return TextEdit{Start: at, End: at, Text: "x"}
	}},
	{"title-char", func(rng *rand.Rand, org *orgast.File) TextEdit {
		h := randomHeadline(rng, org, func(*orgast.Headline) bool { return true })
		return TextEdit{Start: h.TitleRange.End, End: h.TitleRange.End, Text: "x"}
	}},
	{"new-headline", func(rng *rand.Rand, org *orgast.File) TextEdit {
		h := randomHeadline(rng, org, func(*orgast.Headline) bool { return true })
		return TextEdit{Start: h.Line.Start, End: h.Line.Start, Text: strings.Repeat("*", h.Stars) + " Inserted heading\nInserted words.\n"}
	}},
	{"id-link", func(rng *rand.Rand, org *orgast.File) TextEdit {
		carrier := randomHeadline(rng, org, func(h *orgast.Headline) bool { _, ok := h.Drawer.Get("ID"); return ok })
		id, _ := carrier.Drawer.Get("ID")
		h := randomHeadline(rng, org, func(h *orgast.Headline) bool { return h.Section.Len() > 1 })
		at := h.Section.End - 1
		return TextEdit{Start: at, End: at, Text: " [[id:" + id + "]]"}
	}},
}

// randomHeadline picks a random headline that ok accepts.
func randomHeadline(rng *rand.Rand, org *orgast.File, ok func(*orgast.Headline) bool) *orgast.Headline {
	for {
		h := &org.Headlines[rng.IntN(len(org.Headlines))]
		if ok(h) {
			return h
		}
	}
}

// applyEdit returns src with e applied, and e as an orgast.Edit.
func applyEdit(src []byte, e TextEdit) ([]byte, orgast.Edit) {
	ns := make([]byte, 0, len(src)-(e.End-e.Start)+len(e.Text))
	ns = append(append(append(ns, src[:e.Start]...), e.Text...), src[e.End:]...)
	return ns, orgast.Edit{Start: e.Start, OldEnd: e.End, NewEnd: e.Start + len(e.Text)}
}

// embeddedBuffer opens a memex on a folder holding one generated Org
// file of about 5 MB (the language server's benchmark file: the
// generator's built-in words), opens it as a buffer and waits until every
// node is embedded.
func embeddedBuffer(b *testing.B) (*Memex, string) { return embeddedBufferOn(b, false) }

// embeddedBufferOn is embeddedBuffer, with the file also on the disk when
// onDisk: a buffer over a disk copy with private headlines (3 % of them),
// which every edit is judged against (diskcopy.go).
func embeddedBufferOn(b *testing.B, onDisk bool) (*Memex, string) {
	o := memexgen.Defaults()
	o.Files, o.Dirs, o.Headlines, o.Seed = 1, 0, 17_500, 7
	g, err := memexgen.Generate(memexgen.BuiltinSource(), o)
	require.NoError(b, err)
	dir := b.TempDir()
	path := dir + "/big.org"
	if onDisk {
		require.NoError(b, os.WriteFile(path, g.Files[0].Data, 0o644))
	}
	ctx := context.Background()
	m, err := Open(ctx, Options{Roots: []string{dir}, Embed: true})
	require.NoError(b, err)
	b.Cleanup(func() { m.Close(ctx) })
	_, err = m.SetBuffer(ctx, path, 1, g.Files[0].Data)
	require.NoError(b, err)
	require.NoError(b, m.WaitEmbedded(ctx))
	b.ReportMetric(float64(len(g.Files[0].Data))/1e6, "MB")
	return m, path
}

// BenchmarkReindex5MB is memory's own share of an edit of a 5 MB buffer
// whose nodes all have vectors: the file's index, hashes and vector
// segment made from the version before. orgast's reparse and the new
// text are made outside the timer.
func BenchmarkReindex5MB(b *testing.B) {
	for _, kind := range editKinds {
		b.Run(kind.name, func(b *testing.B) {
			m, path := embeddedBuffer(b)
			cfg := m.cfg.Load()
			e, _ := m.Snapshot().entry(path)
			rng := rand.New(rand.NewPCG(1, 2))
			for b.Loop() {
				b.StopTimer()
				src, edit := applyEdit(e.idx.org.Src, kind.make(rng, e.idx.org))
				org := orgast.Reparse(e.idx.org, src, edit)
				b.StartTimer()
				m.mu.Lock()
				ne := &fileEntry{}
				var nm *nodeMap
				ne.idx, nm = reindex(e.idx, path, 0, "big.org", org, cfg.privacy, &edit)
				ne.vecs = m.vectorsFor(ne.idx, prevVectors{idx: e.idx, seg: e.vecs, nm: nm})
				m.mu.Unlock()
				e = ne
			}
		})
	}
}

// BenchmarkEditBuffer5MB is the whole of EditBuffer for each kind of
// edit, as the language server calls it: the new text, orgast's reparse,
// the re-index and the new snapshot, with the embedder running in the
// background on what each edit changed (as it does in the server).
func BenchmarkEditBuffer5MB(b *testing.B) {
	for _, kind := range editKinds {
		b.Run(kind.name, func(b *testing.B) { benchEditBuffer(b, kind, false) })
	}
}

// BenchmarkEditBufferOverDisk5MB is BenchmarkEditBuffer5MB with the
// file on the disk too, its private headlines the buffer is held to.
func BenchmarkEditBufferOverDisk5MB(b *testing.B) {
	for _, kind := range editKinds {
		b.Run(kind.name, func(b *testing.B) { benchEditBuffer(b, kind, true) })
	}
}

func benchEditBuffer(b *testing.B, kind editKind, onDisk bool) {
	m, path := embeddedBufferOn(b, onDisk)
	ctx := context.Background()
	rng := rand.New(rand.NewPCG(1, 2))
	v := int32(1)
	for b.Loop() {
		b.StopTimer()
		n, _ := m.Snapshot().File(path)
		te := kind.make(rng, n.Org())
		v++
		b.StartTimer()
		if _, err := m.EditBuffer(ctx, path, v, te); err != nil {
			b.Fatal(err)
		}
	}
}

// BenchmarkFileFindings5MB is the edited file's findings (what the
// language server publishes after every change) in the snapshot each kind
// of edit of a 5 MB buffer makes; the edit itself is outside the timer.
func BenchmarkFileFindings5MB(b *testing.B) {
	for _, kind := range editKinds {
		b.Run(kind.name, func(b *testing.B) {
			m, path := embeddedBuffer(b)
			ctx := context.Background()
			rng := rand.New(rand.NewPCG(1, 2))
			v := int32(1)
			for b.Loop() {
				b.StopTimer()
				n, _ := m.Snapshot().File(path)
				v++
				s, err := m.EditBuffer(ctx, path, v, kind.make(rng, n.Org()))
				require.NoError(b, err)
				b.StartTimer()
				s.FileFindings(path)
			}
		})
	}
}
