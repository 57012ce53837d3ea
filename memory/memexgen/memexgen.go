// Package memexgen generates Org memexes for tests and benchmarks: N files
// and M headlines with file-level and headline IDs, id links (some broken),
// duplicate IDs on request, fuzzy and file links, TODO keywords, planning,
// tags and a privacy-tagged share, up to 100k headlines and beyond.
//
// Invariant: the output is a pure function of the Options and the Source.
// The same seed and the same corpus give the same bytes on every machine,
// and Expected states the figures the memex implies, computed from the
// generator's own model rather than by parsing what it wrote, so that a
// test comparing an index against it has an independent oracle.
//
// Text comes from the public corpus (../shared/corpus/org, see LoadSource);
// when that is absent (a user's clone), from a small embedded word list
// (BuiltinSource): less natural text, the same structure.
package memexgen

import (
	"errors"
	"fmt"
	"math/rand/v2"
	"os"
	"path"
	"path/filepath"
	"strings"
)

// Options shapes a generated memex. Start from Defaults and change what a
// test needs: zero values mean "none" (no IDs, no links…), not "default".
type Options struct {
	Seed uint64
	// Files and Headlines are the totals; headlines are spread evenly.
	Files, Headlines int
	// Dirs spreads the files over this many folders (0 or 1: one folder).
	Dirs int
	// MaxLevel bounds headline levels (at least 1).
	MaxLevel int
	// FileIDShare is the share of files with a file-level :ID: drawer (as
	// org-roam writes them); IDShare the share of headlines with an :ID:.
	FileIDShare, IDShare float64
	// IDLinksPerHeadline is the mean number of id links in a body;
	// BrokenLinkShare the share of them pointing to an ID nowhere in the memex.
	IDLinksPerHeadline, BrokenLinkShare float64
	// FuzzyLinkShare and FileLinkShare are the shares of headlines whose body
	// links to another headline by [[*Title]] in the same file, or by
	// [[file:other.org::*Title]] in another file. Both always resolve.
	FuzzyLinkShare, FileLinkShare float64
	// DuplicateIDs is how many ID values are carried by two nodes.
	DuplicateIDs int
	// TodoShare, TagShare: shares of headlines with a TODO keyword, with tags.
	TodoShare, TagShare float64
	// PrivateShare is the share of headlines tagged @personal or private
	// (their subtrees inherit it); PrivateFileShare the share of files with
	// #+filetags: :private:.
	PrivateShare, PrivateFileShare float64
	// BodySentences is the mean number of sentences in a body (0…2×mean).
	BodySentences int
}

// Defaults are options for an org-roam-like memex of 1,000 headlines.
func Defaults() Options {
	return Options{
		Seed: 1, Files: 50, Headlines: 1000, Dirs: 8, MaxLevel: 4,
		FileIDShare: 1, IDShare: 0.5,
		IDLinksPerHeadline: 0.5, BrokenLinkShare: 0.02,
		FuzzyLinkShare: 0.05, FileLinkShare: 0.05,
		TodoShare: 0.2, TagShare: 0.3,
		PrivateShare: 0.03, PrivateFileShare: 0.02,
		BodySentences: 3,
	}
}

// File is one generated Org file; Path is slash-separated and relative.
type File struct {
	Path string
	Data []byte
}

// Expected holds the figures the generated memex implies, with the
// meanings of `pp-lsp index --json` (DESIGN §4).
type Expected struct {
	Files         int `json:"files"`
	Headlines     int `json:"headlines"`
	IDs           int `json:"ids"`
	Links         int `json:"links"`
	IDLinks       int `json:"id_links"`
	BrokenIDLinks int `json:"broken_id_links"`
	DuplicateIDs  int `json:"duplicate_ids"`
	// PrivateNodes counts file and headline nodes that carry a privacy tag
	// themselves, through #+filetags: or by inheritance.
	PrivateNodes int `json:"private_nodes"`
	Todos        int `json:"todos"`
}

// Memex is a generated memex.
type Memex struct {
	Files    []File
	Expected Expected
}

// Bytes is the total size of the files.
func (m *Memex) Bytes() int {
	n := 0
	for _, f := range m.Files {
		n += len(f.Data)
	}
	return n
}

// WriteDir writes the files below dir, creating folders as needed.
func (m *Memex) WriteDir(dir string) error {
	for _, f := range m.Files {
		p := filepath.Join(dir, filepath.FromSlash(f.Path))
		if err := os.MkdirAll(filepath.Dir(p), 0o755); err != nil {
			return fmt.Errorf("writing the generated memex under %s: %w", dir, err)
		}
		if err := os.WriteFile(p, f.Data, 0o644); err != nil {
			return fmt.Errorf("writing the generated memex under %s: %w", dir, err)
		}
	}
	return nil
}

// privacyTags are the tags the generator marks private nodes with: the
// defaults of DESIGN §5.
func privacyTags() []string { return []string{"@personal", "private"} }

// plainTags are the other tags it draws from.
func plainTags() []string {
	return []string{"work", "home", "idea", "reading", "project", "urgent", "someday", "research", "draft", "review"}
}

// hl is one headline of the model.
type hl struct {
	level    int
	parent   int // index in the file's headlines, -1 for top level
	title    string
	todo     string
	tags     []string
	id       string
	private  bool // own tag
	body     []string
	links    []string // link texts appended to the body
	planning bool
}

// fm is one file of the model.
type fm struct {
	path    string
	title   string
	id      string
	private bool
	tags    []string
	todoSet bool // has #+TODO: with NEXT
	hls     []hl
}

// Generate builds a memex from opts, drawing text from src.
func Generate(src *Source, opts Options) (*Memex, error) {
	if src == nil {
		return nil, errors.New("memexgen: no text source")
	}
	if opts.Files < 1 {
		return nil, fmt.Errorf("memexgen: Files is %d, want at least 1", opts.Files)
	}
	if opts.Headlines < 0 {
		return nil, fmt.Errorf("memexgen: Headlines is %d, want at least 0", opts.Headlines)
	}
	if opts.MaxLevel < 1 {
		opts.MaxLevel = 1
	}
	g := &gen{src: src, o: opts, rng: rand.New(rand.NewPCG(opts.Seed, opts.Seed^0x9e3779b97f4a7c15)), used: map[string]bool{}}
	g.structure()
	if err := g.duplicates(); err != nil {
		return nil, err
	}
	g.links()
	return g.render(), nil
}

type gen struct {
	src   *Source
	o     Options
	rng   *rand.Rand
	files []fm
	used  map[string]bool // every ID value in the memex
	ids   []string        // distinct ID values, in creation order
	exp   Expected
}

func (g *gen) chance(p float64) bool { return p > 0 && g.rng.Float64() < p }

func pick(rng *rand.Rand, from []string) string { return from[rng.IntN(len(from))] }

func (g *gen) uuid() string {
	for {
		a, b := g.rng.Uint64(), g.rng.Uint64()
		s := fmt.Sprintf("%08x-%04x-4%03x-%04x-%012x", uint32(a>>32), uint16(a>>16), uint16(a)&0xfff, uint16(b>>48)&0x3fff|0x8000, b&0xffffffffffff)
		if !g.used[s] {
			return s
		}
	}
}

func (g *gen) newID() string {
	id := g.uuid()
	g.used[id] = true
	g.ids = append(g.ids, id)
	return id
}

func (g *gen) title() string {
	n := 2 + g.rng.IntN(4)
	ws := make([]string, n)
	for i := range ws {
		ws[i] = g.src.words[g.rng.IntN(len(g.src.words))]
	}
	ws[0] = strings.ToUpper(ws[0][:1]) + ws[0][1:]
	return strings.Join(ws, " ")
}

func (g *gen) sentences(mean int) []string {
	if mean <= 0 {
		return nil
	}
	n := g.rng.IntN(2*mean + 1)
	out := make([]string, n)
	for i := range out {
		out[i] = g.src.sentences[g.rng.IntN(len(g.src.sentences))]
	}
	return out
}

// structure lays out files and headlines, with titles, TODOs, tags, IDs
// and bodies; links come after, once every ID exists.
func (g *gen) structure() {
	o := g.o
	g.files = make([]fm, o.Files)
	for i := range g.files {
		f := &g.files[i]
		dir := ""
		if o.Dirs > 1 {
			dir = fmt.Sprintf("d%02d/", i%o.Dirs)
		}
		f.path = fmt.Sprintf("%snote-%05d.org", dir, i)
		f.title = g.title()
		if g.chance(o.FileIDShare) {
			f.id = g.newID()
		}
		if g.chance(o.PrivateFileShare) {
			f.private = true
			f.tags = append(f.tags, "private")
		} else if g.chance(o.TagShare) {
			f.tags = append(f.tags, pick(g.rng, plainTags()))
		}
		f.todoSet = g.chance(0.2)
		n := o.Headlines / o.Files
		if i < o.Headlines%o.Files {
			n++
		}
		f.hls = make([]hl, n)
		var stack []int // open headlines by level
		prev := 0
		for j := range f.hls {
			h := &f.hls[j]
			lvl := 1
			if j > 0 {
				lvl = 1 + g.rng.IntN(min(prev+1, o.MaxLevel))
				if prev < o.MaxLevel && g.chance(0.35) {
					lvl = prev + 1
				}
			}
			for len(stack) > 0 && f.hls[stack[len(stack)-1]].level >= lvl {
				stack = stack[:len(stack)-1]
			}
			h.level, h.parent = lvl, -1
			if len(stack) > 0 {
				h.parent = stack[len(stack)-1]
			}
			stack = append(stack, j)
			prev = lvl
			h.title = g.title()
			if g.chance(o.TodoShare) {
				kws := []string{"TODO", "DONE"}
				if f.todoSet {
					kws = append(kws, "NEXT")
				}
				h.todo = kws[g.rng.IntN(len(kws))]
				h.planning = g.chance(0.3)
				g.exp.Todos++
			}
			if g.chance(o.TagShare) {
				h.tags = append(h.tags, pick(g.rng, plainTags()))
			}
			if g.chance(o.PrivateShare) {
				h.private = true
				h.tags = append(h.tags, pick(g.rng, privacyTags()))
			}
			if g.chance(o.IDShare) {
				h.id = g.newID()
			}
			h.body = g.sentences(o.BodySentences)
		}
	}
}

// duplicates gives DuplicateIDs headlines without an ID the ID of another
// node, each value shared by exactly two nodes.
func (g *gen) duplicates() error {
	if g.o.DuplicateIDs == 0 {
		return nil
	}
	type ref struct{ f, h int }
	var free []ref
	for i := range g.files {
		for j := range g.files[i].hls {
			if g.files[i].hls[j].id == "" {
				free = append(free, ref{i, j})
			}
		}
	}
	if g.o.DuplicateIDs > len(free) || g.o.DuplicateIDs > len(g.ids) {
		return fmt.Errorf("memexgen: %d duplicate IDs asked for, but only %d nodes without an ID and %d IDs", g.o.DuplicateIDs, len(free), len(g.ids))
	}
	perm := g.rng.Perm(len(g.ids))
	for k := range g.o.DuplicateIDs {
		i := g.rng.IntN(len(free))
		r := free[i]
		free[i] = free[len(free)-1]
		free = free[:len(free)-1]
		g.files[r.f].hls[r.h].id = g.ids[perm[k]]
	}
	g.exp.DuplicateIDs = g.o.DuplicateIDs
	return nil
}

// links appends id, fuzzy and file links to bodies.
func (g *gen) links() {
	o := g.o
	for i := range g.files {
		f := &g.files[i]
		for j := range f.hls {
			h := &f.hls[j]
			n := int(o.IDLinksPerHeadline)
			if g.chance(o.IDLinksPerHeadline - float64(n)) {
				n++
			}
			for range n {
				if len(g.ids) == 0 {
					break
				}
				target := g.ids[g.rng.IntN(len(g.ids))]
				if g.chance(o.BrokenLinkShare) {
					target = g.uuid() // never added to used: nowhere in the memex
					g.exp.BrokenIDLinks++
				}
				h.links = append(h.links, fmt.Sprintf("[[id:%s][%s]]", target, g.title()))
				g.exp.IDLinks++
				g.exp.Links++
			}
			if len(f.hls) > 1 && g.chance(o.FuzzyLinkShare) {
				t := f.hls[g.rng.IntN(len(f.hls))].title
				h.links = append(h.links, "[[*"+t+"]]")
				g.exp.Links++
			}
			if len(g.files) > 1 && g.chance(o.FileLinkShare) {
				other := &g.files[g.rng.IntN(len(g.files))]
				if other != f && len(other.hls) > 0 {
					rel := relPath(f.path, other.path)
					t := other.hls[g.rng.IntN(len(other.hls))].title
					h.links = append(h.links, fmt.Sprintf("[[file:%s::*%s][%s]]", rel, t, other.title))
					g.exp.Links++
				}
			}
		}
	}
}

// relPath is the slash path of to, relative to the folder of from.
func relPath(from, to string) string {
	fd := strings.Split(path.Dir(from), "/")
	if fd[0] == "." {
		fd = nil
	}
	td := strings.Split(to, "/")
	k := 0
	for k < len(fd) && k < len(td)-1 && fd[k] == td[k] {
		k++
	}
	var parts []string
	for range len(fd) - k {
		parts = append(parts, "..")
	}
	parts = append(parts, td[k:]...)
	return strings.Join(parts, "/")
}

// render writes the model as Org text and counts what it implies.
func (g *gen) render() *Memex {
	m := &Memex{Files: make([]File, len(g.files))}
	carriers := map[string]int{}
	var b strings.Builder
	for i := range g.files {
		f := &g.files[i]
		b.Reset()
		if f.id != "" {
			fmt.Fprintf(&b, ":PROPERTIES:\n:ID:       %s\n:END:\n", f.id)
			carriers[f.id]++
		}
		fmt.Fprintf(&b, "#+title: %s\n", f.title)
		if f.todoSet {
			b.WriteString("#+TODO: TODO NEXT | DONE\n")
		}
		if len(f.tags) > 0 {
			fmt.Fprintf(&b, "#+filetags: :%s:\n", strings.Join(f.tags, ":"))
		}
		b.WriteString("\n")
		for _, s := range g.sentences(1) {
			b.WriteString(s + "\n")
		}
		if f.private {
			g.exp.PrivateNodes++
		}
		priv := make([]bool, len(f.hls))
		for j := range f.hls {
			h := &f.hls[j]
			priv[j] = h.private || f.private || (h.parent >= 0 && priv[h.parent])
			if priv[j] {
				g.exp.PrivateNodes++
			}
			b.WriteString(strings.Repeat("*", h.level))
			if h.todo != "" {
				b.WriteString(" " + h.todo)
			}
			b.WriteString(" " + h.title)
			if len(h.tags) > 0 {
				b.WriteString(" :" + strings.Join(h.tags, ":") + ":")
			}
			b.WriteString("\n")
			if h.planning {
				b.WriteString("SCHEDULED: <2026-11-23 Mon>\n")
			}
			if h.id != "" {
				fmt.Fprintf(&b, ":PROPERTIES:\n:ID:       %s\n:END:\n", h.id)
				carriers[h.id]++
			}
			for _, s := range h.body {
				b.WriteString(s + "\n")
			}
			if len(h.links) > 0 {
				b.WriteString("See " + strings.Join(h.links, " and ") + ".\n")
			}
			b.WriteString("\n")
		}
		m.Files[i] = File{Path: f.path, Data: []byte(b.String())}
		g.exp.Headlines += len(f.hls)
	}
	g.exp.Files = len(g.files)
	g.exp.IDs = len(carriers)
	m.Expected = g.exp
	return m
}
