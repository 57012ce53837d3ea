package lsp

import (
	"context"
	"fmt"
	"strings"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"pp-lsp/memory"
)

// hoverResult is an LSP Hover.
type hoverResult struct {
	Contents markup          `json:"contents"`
	Range    *protocol.Range `json:"range,omitempty"`
}

// markup is an LSP MarkupContent.
type markup struct {
	Kind  string `json:"kind"`
	Value string `json:"value"`
}

// previewLines is how many lines of a body a preview shows.
const previewLines = 8

// hover previews what the cursor is on: a Flight Plan's state and gate
// trace on a plan headline; the target of a link (its title, file and
// first lines); a headline or the file's title lines (the node itself,
// with its ID and backlinks).
func (s *Server) hover(_ context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.HoverParams
	if err := decode(protocol.MethodTextDocumentHover, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off := offsetAt(f.org, p.Position)
	md := v.client.markdown
	if v.agent != nil && v.agent.IsPlansFile(f.path) {
		if text, ok := v.agent.PlanHover(f.org.Src, int(p.Position.Line)); ok {
			return hoverResult{Contents: markup{Kind: "markdown", Value: text}}, nil
		}
	}
	if i := linkAt(f.org, off); i >= 0 {
		l := &f.org.Links[i]
		r := rangeAt(f.org, l.Range)
		t := v.resolve(f, i)
		var text string
		switch {
		case t.status == memory.LinkResolved && t.node.Valid():
			text = v.preview(t.node, md)
		case t.status == memory.LinkResolved:
			text = "file " + code(t.path, md)
		case t.status == memory.LinkExternal || t.status == memory.LinkUnchecked:
			text = "link " + code(l.Raw, md)
		default:
			text = bold("Broken link", md) + ": " + t.reason
		}
		return hoverResult{Contents: markupOf(text, md), Range: &r}, nil
	}
	if !f.inMemex() {
		return nil, nil
	}
	n, ok := v.snap.NodeAtOffset(f.path, off)
	if !ok {
		return nil, nil
	}
	if i := n.Headline(); i >= 0 {
		h := &f.org.Headlines[i]
		if !h.Line.Contains(off) && off != h.Line.End {
			return nil, nil // in the body: the text is there to read
		}
		r := rangeAt(f.org, h.Line)
		return hoverResult{Contents: markupOf(v.preview(n, md), md), Range: &r}, nil
	}
	return hoverResult{Contents: markupOf(v.preview(n, md), md)}, nil
}

// preview describes a node: its headline (keyword, priority, title,
// tags), where it is, its ID and backlinks, and the first lines of its body.
func (v *view) preview(n memory.Node, md bool) string {
	var b strings.Builder
	head := n.Title()
	if kw, _ := n.Todo(); kw != "" {
		head = kw + " " + head
	}
	if pr := n.Priority(); pr != 0 {
		head = fmt.Sprintf("[#%c] %s", pr, head)
	}
	b.WriteString(bold(head, md))
	if tags := n.Tags(); len(tags) > 0 {
		b.WriteString(" " + code(":"+strings.Join(tags, ":")+":", md))
	}
	b.WriteString("\n\n")
	b.WriteString(code(fmt.Sprintf("%s:%d", n.RelPath(), n.Line()+1), md))
	if id := n.ID(); id != "" {
		b.WriteString(" · ID " + code(id, md))
	}
	if v.snap != nil {
		if k := len(v.snap.Backlinks(n)); k > 0 {
			fmt.Fprintf(&b, " · %d backlink%s", k, plural(k))
		}
	}
	b.WriteString("\n")
	if body := firstLines(n.Body(), previewLines); body != "" {
		if md {
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

func markupOf(text string, md bool) markup {
	if md {
		return markup{Kind: "markdown", Value: text}
	}
	return markup{Kind: "plaintext", Value: text}
}

func bold(s string, md bool) string {
	if md {
		return "**" + s + "**"
	}
	return s
}

func code(s string, md bool) string {
	if md && !strings.Contains(s, "`") {
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
