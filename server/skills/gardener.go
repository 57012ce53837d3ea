package skills

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"pp-lsp/memory"
	"pp-lsp/server/internal/orgtext"
)

// StaleAfter is how long a TODO may sit in a file nobody changed before
// the Gardener names it.
const StaleAfter = 90 * 24 * time.Hour

// Garden is the Gardener's report: what it found in a snapshot, in file
// order. It is deterministic — no model — and names no private node.
type Garden struct {
	// Findings are the memex's own (duplicate IDs, broken links, files
	// that are not text), as `pp-lsp index --findings` lists them, less
	// those inside private nodes.
	Findings []memory.Finding
	// Orphans are the files no other file links to.
	Orphans []Place
	// Stale are the open TODOs of files unchanged for StaleAfter.
	Stale []Place
}

// Place is a node the report names.
type Place struct {
	File  string // absolute
	Line  int    // 1-based
	Title string
}

// Tend reads the report from snap at now; modified says when a file was
// last changed (false: unknown, never stale).
func Tend(snap *memory.Snapshot, now time.Time, modified func(path string) (time.Time, bool)) Garden {
	var g Garden
	for _, f := range snap.Findings() {
		if n, ok := snap.NodeAt(f.Path, f.Line); ok && n.Private() {
			continue
		}
		g.Findings = append(g.Findings, f)
	}
	for file := range snap.Files() {
		if file.Private() || file.InServerFile() {
			continue
		}
		linked := false
		for _, in := range snap.IncomingLinks(file) {
			if in.Site.From.Path() != file.Path() {
				linked = true
				break
			}
		}
		if !linked {
			g.Orphans = append(g.Orphans, Place{File: file.Path(), Line: 1, Title: file.Title()})
		}
		t, ok := modified(file.Path())
		if !ok || now.Sub(t) < StaleAfter {
			continue
		}
		for n := range file.Descendants() {
			if kw, done := n.Todo(); kw != "" && !done && !n.Private() {
				h := n.OrgHeadline()
				g.Stale = append(g.Stale, Place{File: n.Path(), Line: n.Org().Lines.Line(h.Line.Start) + 1, Title: kw + " " + n.Title()})
			}
		}
	}
	return g
}

// Org is the report as a section for the daily note: a level-1 headline
// and a list per kind, each item a file link to the place.
func (g Garden) Org(root string, day time.Time) string {
	var b strings.Builder
	fmt.Fprintf(&b, "* Gardener report %s\n", day.Format("[2006-01-02 Mon]"))
	rel := func(p string) string {
		if r, err := filepath.Rel(root, p); err == nil && !strings.HasPrefix(r, "..") {
			return r
		}
		return p
	}
	section := func(title string, n int, item func(i int) string) {
		fmt.Fprintf(&b, "** %s: %d\n", title, n)
		for i := range n {
			b.WriteString("- " + item(i) + "\n")
		}
	}
	// A file's name is chosen by whoever filled the folder: it is linked
	// only when it reads as itself in one line of Org (orgtext.Title
	// leaves it as it is: no line break, no editor setting, no link to
	// run), its brackets escaped in the link; any other is shown as text.
	link := func(file string, line int, text string) string {
		r := rel(file)
		place := orgtext.Title(fmt.Sprintf("%s:%d", r, line), 0)
		if orgtext.Title(r, 0) != r {
			return place + " " + orgtext.Title(text, 200)
		}
		return fmt.Sprintf("[[file:%s::%d][%s]] %s", orgtext.LinkPath(r), line, strings.NewReplacer("[", "(", "]", ")").Replace(place), orgtext.Title(text, 200))
	}
	section("Findings (broken links, duplicate IDs)", len(g.Findings), func(i int) string {
		f := g.Findings[i]
		return link(f.Path, f.Line+1, f.Code+": "+f.Message)
	})
	section("Orphans (no other note links here)", len(g.Orphans), func(i int) string {
		return link(g.Orphans[i].File, 1, g.Orphans[i].Title)
	})
	section(fmt.Sprintf("TODOs untouched for %d days", int(StaleAfter.Hours()/24)), len(g.Stale), func(i int) string {
		return link(g.Stale[i].File, g.Stale[i].Line, g.Stale[i].Title)
	})
	return b.String()
}
