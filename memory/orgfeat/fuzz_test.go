package orgfeat

import (
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
		loose := memory.ParseLoose("/nowhere/fuzz.org", src)
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
