package orgfeat

import (
	"path/filepath"
	"slices"
	"strings"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// FileEdit is one change to one file: the memory.TextEdit in the bytes of
// the file at Path as the Scope reads them.
type FileEdit struct {
	Path string
	memory.TextEdit
}

// Moves maps files and folders renamed (absolute, clean old path → new):
// what workspace/willRenameFiles announces.
type Moves map[string]string

// to is where p (a file) goes: its own move, or its folder's.
func (m Moves) to(p string) (string, bool) {
	if q, ok := m[p]; ok {
		return q, true
	}
	for old, q := range m {
		if rel, err := filepath.Rel(old, p); err == nil && rel != "." && !strings.HasPrefix(rel, "..") && !filepath.IsAbs(rel) {
			return filepath.Join(q, rel), true
		}
	}
	return p, false
}

// RenameFileEdits are the edits that keep every file link working when
// the files and folders in moves are renamed: the links to a moved file,
// wherever they are, and the relative links of a moved file to the files
// that stay. Each path is written again in its own style — relative to
// the linking file's (new) folder, absolute, or from the home folder
// ("~/") — and only where its text changes. Edits are in the files as
// they are before the rename, in memex order.
func RenameFileEdits(sc Scope, moves Moves) []FileEdit {
	if sc.Memex == nil || len(moves) == 0 {
		return nil
	}
	home := sc.Memex.Home()
	var out []FileEdit
	seen := map[[2]int]map[string]bool{}
	add := func(site memory.LinkSite, target string) {
		from := site.From.Path()
		l := site.Link()
		r, ok := linkPathSpan(site.From.Org().Src, l)
		if !ok {
			return
		}
		newFrom, _ := moves.to(from)
		text := rewritePath(l.Path, filepath.Dir(newFrom), target, home)
		if text == l.Path {
			return
		}
		k := [2]int{r.Start, r.End}
		if seen[k] == nil {
			seen[k] = map[string]bool{}
		}
		if seen[k][from] {
			return
		}
		seen[k][from] = true
		out = append(out, FileEdit{Path: from, TextEdit: memory.TextEdit{Start: r.Start, End: r.End, Text: text}})
	}
	for f := range sc.Memex.Files() {
		newPath, moved := moves.to(f.Path())
		if !moved {
			continue
		}
		// The links to the moved file.
		for _, site := range sc.Memex.FileLinksTo(f.Path()) {
			add(site, newPath)
		}
		// Its own relative links to files that stay (or move too).
		org := f.Org()
		for i := range org.Links {
			l := &org.Links[i]
			if !strings.EqualFold(l.Type, "file") || isAbsLinkPath(l.Path) || l.Path == "" {
				continue
			}
			target := filepath.Clean(filepath.Join(filepath.Dir(f.Path()), l.Path))
			if target == f.Path() {
				continue // to itself: FileLinksTo has it
			}
			dst, _ := moves.to(target)
			add(memory.LinkSite{From: f, Index: i}, dst)
		}
	}
	slices.SortStableFunc(out, func(a, b FileEdit) int {
		if a.Path != b.Path {
			return strings.Compare(a.Path, b.Path)
		}
		return a.Start - b.Start
	})
	return out
}

func isAbsLinkPath(p string) bool {
	return filepath.IsAbs(p) || p == "~" || strings.HasPrefix(p, "~/")
}

// rewritePath writes the path to target as old was written: from the home
// folder, absolute, or relative to dir ("./" kept when old had it).
func rewritePath(old, dir, target, home string) string {
	switch {
	case (old == "~" || strings.HasPrefix(old, "~/")) && home != "":
		if rel, err := filepath.Rel(home, target); err == nil && !strings.HasPrefix(rel, "..") {
			return "~/" + filepath.ToSlash(rel)
		}
		return target
	case filepath.IsAbs(old):
		return target
	}
	rel, err := filepath.Rel(dir, target)
	if err != nil {
		return target
	}
	rel = filepath.ToSlash(rel)
	if strings.HasPrefix(old, "./") && !strings.HasPrefix(rel, "../") {
		rel = "./" + rel
	}
	return rel
}

// linkPathSpan is where a file link's path is written in src: after
// "file:" or as the link itself, before any "::" search. Not found when
// an abbreviation or an escape wrote it otherwise.
func linkPathSpan(src []byte, l *orgast.Link) (orgast.Range, bool) {
	text := string(src[l.Range.Start:l.Range.End])
	from := 0
	if l.Format == orgast.LinkBracket {
		from = 2
	}
	i := strings.Index(text[from:], l.Path)
	if i < 0 || l.Path == "" {
		return orgast.Range{}, false
	}
	start := l.Range.Start + from + i
	return orgast.Range{Start: start, End: start + len(l.Path)}, true
}

// TitleAt is the headline whose title holds off in file (a headline a
// rename can retitle), and the title's range.
func TitleAt(org *orgast.File, off int) (int, orgast.Range, bool) {
	h := org.NodeAt(off)
	if h < 0 {
		return -1, orgast.Range{}, false
	}
	r := org.Headlines[h].TitleRange
	if r.Len() == 0 || off < r.Start || off > r.End {
		return -1, orgast.Range{}, false
	}
	return h, r, true
}

// RenameTitleEdits are the edits that retitle headline n and keep the
// links that find it by its title working: [[*Title]] and [[Title]] in
// its file, [[file:x.org::*Title]] everywhere. The title's own edit comes
// first.
func RenameTitleEdits(sc Scope, n memory.Node, title string) []FileEdit {
	h := n.OrgHeadline()
	if h == nil || sc.Memex == nil {
		return nil
	}
	out := []FileEdit{{Path: n.Path(), TextEdit: memory.TextEdit{Start: h.TitleRange.Start, End: h.TitleRange.End, Text: title}}}
	old := strings.Join(strings.Fields(h.Title), " ")
	for _, site := range sc.Memex.Backlinks(n) {
		l := site.Link()
		var search string
		switch {
		case strings.EqualFold(l.Type, "fuzzy"):
			search = l.Path
		case strings.EqualFold(l.Type, "file") && l.HasSearch:
			search = l.Search
		default:
			continue
		}
		words := strings.Join(strings.Fields(strings.TrimPrefix(search, "*")), " ")
		if words != old && titleWords(words) != titleWords(old) {
			continue // found by a <<target>>, a #+NAME: or a line number
		}
		src := site.From.Org().Src
		text := string(src[l.Range.Start:l.Range.End])
		end := len(text)
		if l.DescRange.Len() > 0 {
			end = l.DescRange.Start - l.Range.Start
		}
		i := strings.LastIndex(text[:end], search)
		if i < 0 {
			continue
		}
		repl := title
		if strings.HasPrefix(search, "*") {
			repl = "*" + title
		}
		start := l.Range.Start + i
		out = append(out, FileEdit{Path: site.From.Path(), TextEdit: memory.TextEdit{Start: start, End: start + len(search), Text: repl}})
	}
	return out
}

// titleWords is a title as a heading search compares it: statistics
// cookies out, words single-spaced.
func titleWords(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '[' {
			if j := strings.IndexByte(s[i:], ']'); j > 0 && strings.Trim(s[i+1:i+j], "0123456789/%") == "" && j > 1 {
				b.WriteByte(' ')
				i += j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return strings.Join(strings.Fields(b.String()), " ")
}
