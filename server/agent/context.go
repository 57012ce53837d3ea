package agent

import (
	"context"
	"fmt"
	"strings"

	"pp-lsp/memory"
)

// ContextSource renders the foveal-peripheral context the model sees from
// a position (DESIGN §5): file absolute ("" for none), line 0-based, budget
// in tokens.
type ContextSource interface {
	Render(ctx context.Context, snap *memory.Snapshot, file string, line, budget int) (string, error)
}

// FovealContext is the context used until memory's renderer is wired in:
// the foveal node in full (private descendants left out), its ancestors'
// headlines, and the files with their top-level headlines, cut to the
// budget (counted as bytes/4). Private nodes never appear, not even as a
// title.
type FovealContext struct{}

// Render implements ContextSource.
func (FovealContext) Render(_ context.Context, snap *memory.Snapshot, file string, line, budget int) (string, error) {
	if budget <= 0 {
		budget = 4000
	}
	limit := budget * 4
	var b strings.Builder
	if file != "" {
		if n, ok := snap.NodeAt(file, line); ok && !n.Private() {
			fmt.Fprintf(&b, "# foveal node: %s, line %d\n", n.RelPath(), line+1)
			anc := n.Ancestors()
			for i := len(anc) - 1; i >= 0; i-- {
				if !anc[i].IsFile() {
					fmt.Fprintf(&b, "%s %s\n", strings.Repeat("*", anc[i].Level()), anc[i].Title())
				}
			}
			writeSubtree(&b, n)
		}
	}
	b.WriteString("# the memex, files and their top-level headlines\n")
	for f := range snap.Files() {
		if f.Private() {
			continue
		}
		if b.Len() > limit {
			b.WriteString("[… the rest of the memex is left out to keep within the budget]\n")
			break
		}
		fmt.Fprintf(&b, "* %s (%s)\n", f.Title(), f.RelPath())
		for c := range f.Children() {
			if !c.Private() {
				fmt.Fprintf(&b, "** %s\n", c.Title())
			}
		}
	}
	s := b.String()
	if len(s) > limit {
		s = s[:limit] + "\n[… cut to the budget]\n"
	}
	return s, nil
}

// writeSubtree writes n's text without its private descendants.
func writeSubtree(b *strings.Builder, n memory.Node) {
	text := n.Text()
	start := n.Range().Start
	prev := 0
	for d := range n.Descendants() {
		if !d.Private() {
			continue
		}
		r := d.Range()
		if r.Start-start < prev {
			continue
		}
		b.Write(text[prev : r.Start-start])
		prev = r.End - start
	}
	b.Write(text[prev:])
	if len(text) > 0 && text[len(text)-1] != '\n' {
		b.WriteByte('\n')
	}
}
