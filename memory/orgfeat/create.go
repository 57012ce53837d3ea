package orgfeat

import (
	"fmt"
	"path/filepath"
	"strings"
	"time"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// DefaultNoteTemplate is what a new note's file starts with, as
// org-roam's default capture template writes it: a file-level :ID: and
// the #+title:. ${id}, ${title} and ${date} (YYYY-MM-DD) are replaced.
const DefaultNoteTemplate = ":PROPERTIES:\n:ID:       ${id}\n:END:\n#+title: ${title}\n"

// NoteText is a new note's text from template (DefaultNoteTemplate when
// empty). A template without ${id} still gets its file-level :ID:, and
// the text ends with a line end.
func NoteText(template, title, id string, date time.Time) string {
	if template == "" {
		template = DefaultNoteTemplate
	}
	text := strings.NewReplacer("${id}", id, "${title}", oneLine(title), "${date}", date.Format(time.DateOnly)).Replace(template)
	if !strings.Contains(template, "${id}") {
		text = ":PROPERTIES:\n:ID:       " + id + "\n:END:\n" + text
	}
	if !strings.HasSuffix(text, "\n") {
		text += "\n"
	}
	return text
}

// oneLine keeps a title on its line: line ends become spaces.
func oneLine(s string) string {
	return strings.Join(strings.Fields(s), " ")
}

// DailyDir is the folder of daily notes under the first root, as
// org-roam-dailies lays them out (org-roam-dailies-directory).
const DailyDir = "daily"

// DailyPath is the daily note of date under root: daily/YYYY-MM-DD.org.
func DailyPath(root string, date time.Time) string {
	return filepath.Join(root, DailyDir, date.Format(time.DateOnly)+".org")
}

// ParseDay reads a day for the daily note: "" or "today", "yesterday",
// "tomorrow", or YYYY-MM-DD, relative to now (in its location).
func ParseDay(s string, now time.Time) (time.Time, error) {
	day := time.Date(now.Year(), now.Month(), now.Day(), 0, 0, 0, 0, now.Location())
	switch strings.ToLower(strings.TrimSpace(s)) {
	case "", "today":
		return day, nil
	case "yesterday":
		return day.AddDate(0, 0, -1), nil
	case "tomorrow":
		return day.AddDate(0, 0, 1), nil
	}
	d, err := time.ParseInLocation(time.DateOnly, strings.TrimSpace(s), now.Location())
	if err != nil {
		return time.Time{}, fmt.Errorf("%q is not a day: write YYYY-MM-DD, today, yesterday or tomorrow", s)
	}
	return d, nil
}

// Creation is what "Create a node for this link" makes for an unresolved
// link: a headline at the end of a file (Edit, in the file at EditPath),
// or a new file (NewPath, titled Title), or nothing, with the reason why
// (Why).
type Creation struct {
	Edit     *memory.TextEdit
	EditPath string
	NewPath  string
	Title    string
	// Search is the headline a new file's link names ("" when none): the
	// new file gets it too.
	Search string
	Why    string
}

// CreationFor says what to create for link i of file when it leads
// nowhere: [[*X]] (or [[X]]) a headline X at the end of the file;
// [[file:new.org]] a new Org file (with a headline X for
// [[file:new.org::*X]]); an id link nothing — an ID names a node that
// exists, and a new node would not carry it by chance. ok is false when
// the link resolves, or is no link to create anything for.
func CreationFor(sc Scope, file memory.Node, i int) (Creation, bool) {
	org := file.Org()
	if i < 0 || i >= len(org.Links) {
		return Creation{}, false
	}
	t := Resolve(sc, file, i)
	l := &org.Links[i]
	switch {
	case t.Status == memory.LinkResolved || t.Status == memory.LinkExternal || t.Status == memory.LinkUnchecked:
		return Creation{}, false
	case strings.EqualFold(l.Type, "id"):
		return Creation{Why: "an id link names a node by an ID it already carries: give a node this ID (its :ID: property), or link to a node that exists"}, true
	case strings.EqualFold(l.Type, "fuzzy") && !noteLinkPath(l.Path):
		title := strings.TrimPrefix(l.Path, "*")
		if oneLine(title) == "" {
			return Creation{}, false
		}
		return Creation{Edit: headlineAtEnd(org, title), EditPath: file.Path()}, true
	case strings.EqualFold(l.Type, "file"):
		if !strings.EqualFold(filepath.Ext(l.Path), ".org") {
			return Creation{Why: "only an Org file (.org) is made for a link"}, true
		}
		path := t.Path
		if path == "" {
			path = filepath.Clean(filepath.Join(filepath.Dir(file.Path()), l.Path))
		}
		if t.Status == memory.LinkSearchBroken {
			if s := strings.TrimSpace(l.Search); strings.HasPrefix(s, "*") && oneLine(s[1:]) != "" {
				if target, ok := sc.File(path); ok {
					return Creation{Edit: headlineAtEnd(target.Org(), s[1:]), EditPath: path}, true
				}
			}
			return Creation{}, false
		}
		c := Creation{NewPath: path, Title: strings.TrimSuffix(filepath.Base(path), filepath.Ext(path))}
		if s := strings.TrimSpace(l.Search); strings.HasPrefix(s, "*") {
			c.Search = oneLine(s[1:])
		}
		return c, true
	}
	return Creation{}, false
}

// noteLinkPath: a fuzzy link to "roam:…" or "cite:…" (see LinkRef).
func noteLinkPath(p string) bool {
	_, roam := RoamTitle("fuzzy", p)
	_, ref := LinkRef("fuzzy", p)
	return roam || ref
}

// headlineAtEnd is the edit adding a level-1 headline at the end of org.
func headlineAtEnd(org *orgast.File, title string) *memory.TextEdit {
	nl := "\n"
	if org.EOL() == orgast.EOLDOS {
		nl = "\r\n"
	}
	text := "* " + oneLine(title) + nl
	if n := len(org.Src); n > 0 && org.Src[n-1] != '\n' && org.Src[n-1] != '\r' {
		text = nl + text
	}
	return &memory.TextEdit{Start: len(org.Src), End: len(org.Src), Text: text}
}
