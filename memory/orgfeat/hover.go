package orgfeat

import (
	"fmt"
	"strings"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// Hover is what a hover shows: Text (Markdown when asked for, plain text
// otherwise), about Range of the file when HasRange.
type Hover struct {
	Text     string
	Range    orgast.Range
	HasRange bool
}

// PreviewLines is how many lines of a body a preview shows.
const PreviewLines = 8

// HoverAt previews what off is on in file: the target of a link (its
// preview, its file, the link itself, or why it is broken); else, in the
// memex, a headline line or the file's lines before the first headline
// (the node itself, with its ID and backlinks). A body shows nothing: its
// text is there to read.
func HoverAt(sc Scope, file memory.Node, off int, markdown bool) (Hover, bool) {
	org := file.Org()
	if i := LinkAt(org, off); i >= 0 {
		l := &org.Links[i]
		t := Resolve(sc, file, i)
		var text string
		switch {
		case t.Status == memory.LinkResolved && t.Node.Valid():
			text = Preview(sc, t.Node, markdown)
		case t.Status == memory.LinkResolved:
			text = "file " + code(t.Path, markdown)
		case t.Status == memory.LinkExternal || t.Status == memory.LinkUnchecked:
			text = "link " + code(l.Raw, markdown)
		default:
			text = bold("Broken link", markdown) + ": " + t.Reason
		}
		return Hover{Text: text, Range: l.Range, HasRange: true}, true
	}
	if sc.Memex == nil || file.Loose() {
		return Hover{}, false
	}
	n, ok := sc.Memex.NodeAtOffset(file.Path(), off)
	if !ok {
		return Hover{}, false
	}
	if i := n.Headline(); i >= 0 {
		h := &org.Headlines[i]
		if !h.Line.Contains(off) && off != h.Line.End {
			return Hover{}, false
		}
		return Hover{Text: Preview(sc, n, markdown), Range: h.Line, HasRange: true}, true
	}
	return Hover{Text: Preview(sc, n, markdown)}, true
}

// Preview describes a node: its headline (keyword, priority, title,
// tags), where it is, its ID and backlinks in the Scope (Backlinks; none
// counted without a memex),
// its :ROAM_ALIASES:, and the first PreviewLines lines of its body.
func Preview(sc Scope, n memory.Node, markdown bool) string {
	var b strings.Builder
	head := n.Title()
	if kw, _ := n.Todo(); kw != "" {
		head = kw + " " + head
	}
	if pr := n.Priority(); pr != 0 {
		head = fmt.Sprintf("[#%c] %s", pr, head)
	}
	b.WriteString(bold(head, markdown))
	if tags := n.Tags(); len(tags) > 0 {
		b.WriteString(" " + code(":"+strings.Join(tags, ":")+":", markdown))
	}
	b.WriteString("\n\n")
	b.WriteString(code(fmt.Sprintf("%s:%d", n.RelPath(), n.Line()+1), markdown))
	if id := n.ID(); id != "" {
		b.WriteString(" · ID " + code(id, markdown))
	}
	if sc.Memex != nil && !n.Loose() {
		if k := len(Backlinks(sc, n)); k > 0 {
			fmt.Fprintf(&b, " · %d backlink%s", k, plural(k))
		}
	}
	b.WriteString("\n")
	if aliases := Aliases(n); len(aliases) > 0 {
		b.WriteString("\nAlso " + strings.Join(aliases, ", ") + "\n")
	}
	if body := firstLines(n.Body(), PreviewLines); body != "" {
		if markdown {
			b.WriteString("\n```org\n" + body + "\n```\n")
		} else {
			b.WriteString("\n" + body + "\n")
		}
	}
	return b.String()
}

// firstLines is the first k lines of s after its leading blank lines,
// with "…" when there were more.
func firstLines(s string, k int) string {
	lines := strings.Split(strings.TrimRight(s, " \t\r\n"), "\n")
	for len(lines) > 0 && strings.TrimSpace(lines[0]) == "" {
		lines = lines[1:]
	}
	more := len(lines) > k
	if more {
		lines = lines[:k]
	}
	for i := range lines {
		lines[i] = strings.TrimRight(lines[i], " \t\r")
	}
	out := strings.Join(lines, "\n")
	if more {
		out += "\n…"
	}
	return out
}

func bold(s string, markdown bool) string {
	if markdown {
		return "**" + s + "**"
	}
	return s
}

func code(s string, markdown bool) string {
	if markdown && !strings.Contains(s, "`") {
		return "`" + s + "`"
	}
	return s
}

func plural(n int) string {
	if n == 1 {
		return ""
	}
	return "s"
}
