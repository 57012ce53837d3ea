package foveal

import (
	"context"
	"path/filepath"
	"strings"
	"testing"

	"pp-lsp/memory"
)

// FuzzView renders a view of a memex made of any bytes (one file, beside
// a fixed one that holds a private subtree), from any line, within any
// budget, and checks every invariant of checkView: within budget, valid
// Org read back as the memex's outline, no private title, every left-out
// node counted once. It must never fail for any input.
func FuzzView(f *testing.F) {
	for _, s := range []string{
		"",
		"* a\n** b\n*** c\n",
		":PROPERTIES:\n:ID: x\n:END:\n#+title: T\n#+filetags: :private:\n* h\n",
		"#+TODO: A B | C\n* A [#B] t :x:y:\n  SCHEDULED: <2026-01-01>\n  :PROPERTIES:\n  :ID: i\n  :END:\n  body\n#+STARTUP: odd\n*** deep\n",
		"* h\r\nbody\r\n** k\r\n",
		"* h :@personal:\n** under\n* open\n\n:PROPERTIES:\nSCHEDULED: x\n",
		"*\n* \n**  \n*** COMMENT x\n",
		"* " + strings.Repeat("long title ", 200) + "\n" + strings.Repeat("line\n", 300),
	} {
		f.Add([]byte(s), uint16(3), uint16(100))
	}
	f.Fuzz(func(t *testing.T, data []byte, line, budget uint16) {
		root := t.TempDir()
		files := map[string][]byte{
			"fuzz.org":        data,
			"notes/fixed.org": []byte("#+title: Fixed\n* Public\nText.\n* Hidden :private:\n** Below the hidden one\n"),
		}
		_, snap := openMemexIn(t, root, files)
		path := filepath.Join(root, "fuzz.org")
		fn, ok := snap.File(path)
		if !ok {
			t.Skip("not an Org file the memex holds")
		}
		cur := Cursor{Path: path, Line: int(line) % fn.Org().Lines.LineCount()}
		r, err := NewRenderer(Options{})
		if err != nil {
			t.Fatal(err)
		}
		v, err := r.View(context.Background(), snap, cur, MinBudget+int(budget)%3000)
		if err != nil {
			t.Fatalf("view from line %d: %v", cur.Line+1, err)
		}
		at, _ := snap.NodeAt(cur.Path, cur.Line)
		if errs := record(func(ct checkT) { checkView(ct, newMemexFacts(snap), v, at) }); len(errs) > 0 {
			t.Fatalf("the view from line %d fails its checks:\n%s\n%s", cur.Line+1, strings.Join(errs, "\n"), v.Text)
		}
	})
}

// openMemexIn is openMemex in a given folder.
func openMemexIn(t *testing.T, root string, files map[string][]byte) (string, *memory.Snapshot) {
	t.Helper()
	writeFiles(t, root, files)
	return root, openRoot(t, root, nil)
}
