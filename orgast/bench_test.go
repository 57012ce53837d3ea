package orgast

import (
	"bytes"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/niklasfasching/go-org/org"

	"pp-lsp/internal/testenv"
)

// corpusFiles reads every file of ../shared/corpus/org, or skips.
func corpusFiles(b *testing.B) ([][]byte, []string, int64) {
	b.Helper()
	if _, err := os.Stat(filepath.Join(testenv.ModuleRoot(b), "..", "shared", "corpus")); err != nil && !testenv.InCI() {
		b.Skip("the shared corpus (../shared/corpus) is not here: the corpus benchmarks need it")
	}
	dir := filepath.Join(testenv.SharedDir(b), "corpus", "org")
	var srcs [][]byte
	var names []string
	var total int64
	err := filepath.WalkDir(dir, func(path string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(path, ".org") {
			return err
		}
		src, err := os.ReadFile(path)
		if err != nil {
			return err
		}
		srcs = append(srcs, src)
		names = append(names, path)
		total += int64(len(src))
		return nil
	})
	if err != nil {
		b.Fatalf("reading the corpus: %v", err)
	}
	return srcs, names, total
}

// BenchmarkCorpus parses the whole public corpus, links included.
func BenchmarkCorpus(b *testing.B) {
	srcs, _, total := corpusFiles(b)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for _, src := range srcs {
			Parse(src)
		}
	}
}

// BenchmarkCorpusOutlineJSON is `pp-lsp outline --json` without the disk:
// the parse and the JSON of every file of the corpus.
func BenchmarkCorpusOutlineJSON(b *testing.B) {
	srcs, names, total := corpusFiles(b)
	b.SetBytes(total)
	b.ReportAllocs()
	files := make([]*File, len(srcs))
	for b.Loop() {
		for i, src := range srcs {
			files[i] = Parse(src)
		}
		Outlines(names, files)
	}
}

// BenchmarkCorpusGoOrg is go-org's figure on the same bytes.
func BenchmarkCorpusGoOrg(b *testing.B) {
	srcs, names, total := corpusFiles(b)
	b.SetBytes(total)
	b.ReportAllocs()
	for b.Loop() {
		for i, src := range srcs {
			org.New().Silent().Parse(bytes.NewReader(src), names[i])
		}
	}
}

// bigFile builds an org-roam-like file of about size bytes.
func bigFile(size int) []byte {
	var b bytes.Buffer
	b.WriteString(":PROPERTIES:\n:ID: big-file\n:END:\n#+TITLE: Big\n#+TODO: TODO NEXT | DONE\n")
	for i := 0; b.Len() < size; i++ {
		fmt.Fprintf(&b, "* TODO [#B] Heading %d with [[id:node-%d][a link]] :tag:\nSCHEDULED: <2024-01-%02d Mon>\n:PROPERTIES:\n:ID: node-%d\n:END:\n", i, i-1, i%28+1, i)
		fmt.Fprintf(&b, "Some text with *bold*, =verbatim= and https://example.com/%d links.\n- item one [[file:other.org::*Target][x]]\n- item two\n\n", i)
		fmt.Fprintf(&b, "** Child %d\n#+begin_src sh\necho %d\n#+end_src\n| a | b |\n|---+---|\n| 1 | https://t.org |\n\n", i, i)
	}
	return b.Bytes()
}

// BenchmarkParse5MB is a full parse of a 5 MB file.
func BenchmarkParse5MB(b *testing.B) {
	src := bigFile(5 << 20)
	b.SetBytes(int64(len(src)))
	b.ReportAllocs()
	for b.Loop() {
		Parse(src)
	}
}

// BenchmarkReparse5MB re-indexes a 5 MB file after a one-byte edit in its
// middle, the memex's hot path.
func BenchmarkReparse5MB(b *testing.B) {
	src := bigFile(5 << 20)
	prev := Parse(src)
	at := bytes.Index(src[len(src)/2:], []byte("Some text")) + len(src)/2
	next := append(append(append([]byte{}, src[:at]...), 'X'), src[at:]...)
	e := Edit{Start: at, OldEnd: at, NewEnd: at + 1}
	if !prev.patchable(next, e) {
		b.Fatal("the edit should be patched")
	}
	b.SetBytes(int64(len(next)))
	b.ReportAllocs()
	for b.Loop() {
		Reparse(prev, next, e)
	}
}

// pathological are inputs built to make a careless Org parser quadratic:
// openings that never close, endless lines, deep nesting.
var pathological = map[string]string{
	"unclosed-footnotes": "[fn:", "unclosed-links": "[[", "unclosed-descriptions": "[[a][", "backslash-links": "[[\\",
	"unclosed-angles": "<https:", "unclosed-bold": "*a ", "bold-lines": "*a\n", "unclosed-macros": "{{{m(", "unclosed-src": "src_x{",
	"unclosed-scripts": "a_{", "unclosed-citations": "[cite:@a ", "unclosed-targets": "<<a", "radio-targets": "<<<r>>> r ",
	"unclosed-blocks": "#+begin_src\n", "unclosed-drawers": ":D:\n", "unclosed-latex": "\\begin{x}\n", "list-items": "- a\n",
	"headlines": "* a\n", "tags": "* a :b:c:d:\n", "plain-links": "http://x ", "property-drawers": ":PROPERTIES:\n",
	"table-cells": "| a ", "footnote-definitions": "[fn:1] x\n", "timestamps": "<2020-01-01 ", "dollars": "$a ",
	"affiliated-keywords": "#+NAME: x\n", "orphan-affiliated": "#+NAME: x\n\n",
}

// BenchmarkPathological parses 1 MB of each pathological input: the
// figures must stay in MB/s, not fall with the size.
func BenchmarkPathological(b *testing.B) {
	for name, unit := range pathological {
		src := bytes.Repeat([]byte(unit), (1<<20)/len(unit))
		b.Run(name, func(b *testing.B) {
			b.SetBytes(int64(len(src)))
			for b.Loop() {
				Parse(src)
			}
		})
	}
}
