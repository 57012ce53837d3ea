package orgfeat

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// FuzzFeatures: any bytes as a buffer outside the memex and any offset —
// no panic; every link resolves to an offset inside the outline it names;
// a hover's range lies in the file; the :ID: edit lies in the file and
// Org reads the new ID on the node it was meant for.
func FuzzFeatures(f *testing.F) {
	f.Add([]byte("* A [1/2]\n<<t>> [[*A]] [[t]] [[#c]] [[file:x.org::3]]\n#+NAME: n\n[[n]]\n"), 5)
	f.Add([]byte(":PROPERTIES:\n:X: y\n:END:\n* H\n  SCHEDULED: <2026-01-01>\n"), 30)
	f.Add([]byte("* A\r\nbody\r\n"), 100)
	f.Fuzz(func(t *testing.T, src []byte, off int) {
		loose := memory.ParseLoose("/nowhere/fuzz.org", src, "")
		file := loose.Node()
		org := loose.Org()
		sc := Scope{Outside: func(p string) (*memory.LooseFile, bool) { return loose, p == loose.Path() }}
		for i := range org.Links {
			tg := Resolve(sc, file, i)
			if tg.Offset >= 0 && (!tg.File.Valid() || tg.Offset > len(tg.File.Org().Src)) {
				t.Fatalf("link %d: offset %d outside its file", i, tg.Offset)
			}
		}
		if h, ok := HoverAt(sc, file, off, true); ok && h.HasRange && (h.Range.Start < 0 || h.Range.End > len(src) || h.Range.Start > h.Range.End) {
			t.Fatalf("hover range %v outside the %d bytes", h.Range, len(src))
		}
		LinkAt(org, off)
		NodeAt(sc, file, off)
		h := org.NodeAt(min(max(off, 0), len(src)))
		const id = "fuzz-0000"
		e, ok := AddID(org, h, id)
		if !ok {
			return
		}
		if e.Start != e.End || e.Start < 0 || e.Start > len(src) {
			t.Fatalf("the :ID: edit [%d, %d) is not an insertion in the %d bytes", e.Start, e.End, len(src))
		}
		after := orgast.Parse(append(append(append([]byte(nil), src[:e.Start]...), e.Text...), src[e.Start:]...))
		var got string
		if h < 0 {
			got, _ = after.ID()
		} else if h < len(after.Headlines) {
			got, _ = after.Headlines[h].Drawer.Get("ID")
		}
		if got != id {
			t.Fatalf("after the edit %q at %d, Org reads the ID %q on node %d", e.Text, e.Start, got, h)
		}
	})
}

// FuzzNotes: any bytes as a memex file and any offset — aliases, refs and
// the prose index read without panic; every word the prose index holds
// lies in the file and outside every gap (links, drawers, blocks,
// keywords); a mention MentionAt offers lies in the file, and the text
// of every unlinked reference spells the name it was found for.
func FuzzNotes(f *testing.F) {
	f.Add([]byte(":PROPERTIES:\n:ID: a\n:ROAM_ALIASES: \"x y\" z\n:ROAM_REFS: @k https://e.org\n:END:\n#+title: T\n* A\nx  y and z, [[roam:z]] [[cite:k]]\n"), 60)
	f.Add([]byte("* é\n:PROPERTIES:\n:ROAM_ALIASES: \"\\x41\\\"\n:END:\nÉ é [[id:x][é]]\n#+begin_src\né\n#+end_src\n"), 30)
	f.Fuzz(func(t *testing.T, src []byte, off int) {
		root := t.TempDir()
		if err := os.WriteFile(filepath.Join(root, "f.org"), src, 0o644); err != nil {
			t.Fatal(err)
		}
		mx, err := memory.Open(context.Background(), memory.Options{Roots: []string{root}})
		if err != nil {
			t.Fatal(err)
		}
		defer mx.Close(context.Background())
		snap := mx.Snapshot()
		file, ok := snap.File(filepath.Join(root, "f.org"))
		if !ok {
			return // not text: left out of the memex
		}
		org := file.Org()
		fw := wordsOf(org)
		gaps := proseGaps(org)
		for k := range fw.hash {
			s, e := int(fw.start[k]), int(fw.end[k])
			if s < 0 || e > len(org.Src) || s >= e {
				t.Fatalf("word %d [%d, %d) outside the %d bytes", k, s, e, len(org.Src))
			}
			for _, g := range gaps {
				if s < g.End && e > g.Start {
					t.Fatalf("word %q at %d lies in the gap %v", org.Src[s:e], s, g)
				}
			}
		}
		x := NewNoteIndex()
		for n := range snap.Nodes() {
			Aliases(n)
			Refs(n)
			for _, m := range x.Unlinked(snap, n) {
				if m.Range.Start < 0 || m.Range.End > len(m.File.Org().Src) {
					t.Fatalf("mention %v outside its file", m.Range)
				}
				got := strings.Join(strings.Fields(string(m.File.Org().Src[m.Range.Start:m.Range.End])), " ")
				if !strings.EqualFold(got, m.Name) && !strings.EqualFold(strings.ToLower(got), strings.ToLower(m.Name)) {
					t.Fatalf("mention %q for the name %q", got, m.Name)
				}
			}
		}
		if ns, r := x.MentionAt(snap, file, min(max(off, 0), len(src))); len(ns) > 0 && (r.Start < 0 || r.End > len(src) || r.Start >= r.End) {
			t.Fatalf("MentionAt's range %v outside the %d bytes", r, len(src))
		}
		for i := range org.Links {
			CreationFor(Scope{Memex: snap, Notes: x}, file, i)
		}
		ContextLine(org, orgast.Range{Start: min(max(off, 0), len(src)), End: min(max(off, 0), len(src))})
	})
}
