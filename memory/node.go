package memory

import (
	"iter"
	"slices"
	"strconv"
	"strings"

	"pp-lsp/orgast"
)

// Node is one node of the memex: a file (level 0) or a headline. It is a
// small value pointing into an immutable file index, valid for as long as
// anyone holds it, whatever happens to the memex afterwards.
type Node struct {
	f *fileIndex
	i int32
}

// Valid reports whether n is a node (the zero Node is not).
func (n Node) Valid() bool { return n.f != nil }

// Path is the absolute path of the node's file.
func (n Node) Path() string { return n.f.path }

// RelPath is the file's path relative to its root, slash-separated.
func (n Node) RelPath() string { return n.f.rel }

// Root is the index of the file's root in Snapshot.Roots.
func (n Node) Root() int { return n.f.root }

// Org is the file's outline, as orgast parsed it.
func (n Node) Org() *orgast.File { return n.f.org }

// IsFile reports whether n is a file node.
func (n Node) IsFile() bool { return n.i == 0 }

// Headline returns the node's headline index in Org().Headlines, or -1
// for the file node.
func (n Node) Headline() int { return int(n.i) - 1 }

// OrgHeadline is the node's orgast headline (planning, drawer, positions),
// nil for the file node. Like everything in a snapshot, read only.
func (n Node) OrgHeadline() *orgast.Headline { return n.orgHeadline() }

// IDRange is where the node's :ID: value is written in its file (what a
// rename of the ID replaces), and whether it has one.
func (n Node) IDRange() (orgast.Range, bool) {
	r := idRange(n.f, n.i)
	return r, r != (orgast.Range{})
}

// orgHeadline is the orgast headline, nil for the file node.
func (n Node) orgHeadline() *orgast.Headline {
	if n.i == 0 {
		return nil
	}
	return &n.f.org.Headlines[n.i-1]
}

// File returns the node of n's file.
func (n Node) File() Node { return Node{n.f, 0} }

// Title is the headline's title (org-element's :raw-value), or for the
// file node its #+TITLE: or, without one, its file name without ".org".
func (n Node) Title() string { return n.f.title(n.i) }

// ID is the node's :ID: property (the file node's from the file-level
// drawer), or "".
func (n Node) ID() string {
	var id string
	if h := n.orgHeadline(); h != nil {
		id, _ = h.Drawer.Get("ID")
	} else {
		id, _ = n.f.org.ID()
	}
	return id
}

// Key is the node's identity: its :ID:, or without one a synthetic key
// made from its file and outline path (see SyntheticKey).
func (n Node) Key() string {
	if id := n.ID(); id != "" {
		return id
	}
	return n.SyntheticKey()
}

// SyntheticKey names the node by place: "file:" and its absolute path,
// then for a headline "::" and its outline path, each title written as
// "*" and the title with "/" and "\" escaped by "\", and "[k]" after a
// title when k-1 earlier siblings carry the same title (always, when the
// title itself ends in "[digits]"). For example
//
//	file:/home/ada/org/pp-lsp.org::*Design notes/*Vector database server[2]
//
// The key is stable while the outline does not change above the node,
// unambiguous with duplicate sibling titles, and never written into the
// user's files.
func (n Node) SyntheticKey() string {
	var b strings.Builder
	b.WriteString("file:")
	b.WriteString(n.f.path)
	if n.i == 0 {
		return b.String()
	}
	var chain []int32
	for c := n.i; c > 0; c = n.f.nodes[c].parent {
		chain = append(chain, c)
	}
	b.WriteString("::")
	for k := len(chain) - 1; k >= 0; k-- {
		c := chain[k]
		if k < len(chain)-1 {
			b.WriteByte('/')
		}
		t := n.f.title(c)
		b.WriteByte('*')
		for _, r := range t {
			if r == '/' || r == '\\' {
				b.WriteByte('\\')
			}
			b.WriteRune(r)
		}
		ord := 1
		for s := n.f.nodes[n.f.nodes[c].parent].firstChild; s >= 0 && s != c; s = n.f.nodes[s].nextSibling {
			if n.f.title(s) == t {
				ord++
			}
		}
		if at, _ := ordinalSuffix(t); ord > 1 || at >= 0 {
			b.WriteString("[" + strconv.Itoa(ord) + "]")
		}
	}
	return b.String()
}

// Level is the Org level: 0 for the file node, the headline's reduced
// level otherwise (org-reduced-level, so #+STARTUP: odd counts).
func (n Node) Level() int {
	if h := n.orgHeadline(); h != nil {
		return h.Level
	}
	return 0
}

// Depth is the node's distance from its file node in the outline tree: 0
// for the file, 1 for its top-level headlines, 2 for their children… It
// differs from Level where levels are skipped (a level-3 headline directly
// under a level-1 one has depth 2).
func (n Node) Depth() int { return int(n.f.nodes[n.i].depth) }

// Parent returns the enclosing node (a headline or the file node); the
// file node has none.
func (n Node) Parent() (Node, bool) {
	p := n.f.nodes[n.i].parent
	if p < 0 {
		return Node{}, false
	}
	return Node{n.f, p}, true
}

// Children iterates over the node's direct children in document order.
func (n Node) Children() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		for c := n.f.nodes[n.i].firstChild; c >= 0; c = n.f.nodes[c].nextSibling {
			if !yield(Node{n.f, c}) {
				return
			}
		}
	}
}

// Descendants iterates over the node's subtree below it, in document
// order. A subtree is contiguous in document order, so this is a scan.
func (n Node) Descendants() iter.Seq[Node] {
	return func(yield func(Node) bool) {
		end := n.f.subtree(n.i).End
		for c := n.i + 1; c < int32(len(n.f.nodes)) && (n.i == 0 || n.f.subtree(c).Start < end); c++ {
			if !yield(Node{n.f, c}) {
				return
			}
		}
	}
}

// Ancestors returns the enclosing nodes, innermost first, ending with the
// file node.
func (n Node) Ancestors() []Node {
	var out []Node
	for p := n.f.nodes[n.i].parent; p >= 0; p = n.f.nodes[p].parent {
		out = append(out, Node{n.f, p})
	}
	return out
}

// Todo returns the TODO keyword and whether it is a done state ("" for
// none and for the file node).
func (n Node) Todo() (keyword string, done bool) {
	if h := n.orgHeadline(); h != nil {
		return h.Todo, h.TodoType == orgast.TodoDone
	}
	return "", false
}

// Priority is the priority cookie's character, 0 when none.
func (n Node) Priority() rune {
	if h := n.orgHeadline(); h != nil {
		return h.Priority
	}
	return 0
}

// Tags are the node's own tags: the headline's, or for the file node the
// tags of every #+FILETAGS: line.
func (n Node) Tags() []string {
	if h := n.orgHeadline(); h != nil {
		return slices.Clone(h.Tags)
	}
	return allFileTags(n.f.org)
}

// AllTags are the tags Org sees on the node with inheritance
// (org-use-tag-inheritance t, org-tags-exclude-from-inheritance nil: every
// tag is inherited): #+FILETAGS:, then each ancestor's from the outermost,
// then its own, each tag once.
func (n Node) AllTags() []string {
	var chain []int32
	for c := n.i; c > 0; c = n.f.nodes[c].parent {
		chain = append(chain, c)
	}
	out := allFileTags(n.f.org)
	for k := len(chain) - 1; k >= 0; k-- {
		out = append(out, n.f.org.Headlines[chain[k]-1].Tags...)
	}
	seen := make(map[string]bool, len(out))
	kept := out[:0]
	for _, t := range out {
		if !seen[t] {
			seen[t] = true
			kept = append(kept, t)
		}
	}
	return kept
}

// Private reports whether the node carries a privacy tag, its own, an
// ancestor's or the file's: such a node never appears in a model's
// context, is never embedded and is never anyone's neighbour.
func (n Node) Private() bool { return n.f.nodes[n.i].private }

// Properties are the node's property drawer (the file-level drawer for the
// file node), in drawer order, keys as written.
func (n Node) Properties() []orgast.Property {
	if h := n.orgHeadline(); h != nil {
		return h.Properties()
	}
	if d := n.f.org.FileDrawer; d != nil {
		return d.Properties
	}
	return nil
}

// Property returns the first property named key (compared without case).
func (n Node) Property(key string) (string, bool) {
	if h := n.orgHeadline(); h != nil {
		return h.Drawer.Get(key)
	}
	return n.f.org.FileDrawer.Get(key)
}

// Body is the node's own text without its headline line, planning line
// and property drawer, up to its first child; for the file node, the text
// before the first headline without the file-level drawer and keyword lines.
func (n Node) Body() string {
	var b strings.Builder
	n.f.bodySegments(n.i, func(r orgast.Range) bool {
		b.Write(n.f.org.Src[r.Start:r.End])
		return true
	})
	return b.String()
}

// AppendBody appends the node's Body to dst and returns the extended
// slice: a caller measuring or copying many bodies (the context renderer
// counting an edited file) builds no string.
func (n Node) AppendBody(dst []byte) []byte {
	n.f.bodySegments(n.i, func(r orgast.Range) bool {
		dst = append(dst, n.f.org.Src[r.Start:r.End]...)
		return true
	})
	return dst
}

// Range is the node's subtree in the file's bytes: from its headline line
// to the end of its last descendant (the whole file for the file node).
func (n Node) Range() orgast.Range { return n.f.subtree(n.i) }

// Line is the 0-based line where the node starts (0 for the file node).
func (n Node) Line() int {
	if n.i == 0 {
		return 0
	}
	return n.f.org.Lines.Line(n.f.org.Headlines[n.i-1].Line.Start)
}

// Text is the node's whole subtree as written.
func (n Node) Text() []byte {
	r := n.Range()
	return n.f.org.Src[r.Start:r.End]
}

// Hash is the node's Merkle hash: its own bytes and its children's hashes.
func (n Node) Hash() Hash { return n.f.nodes[n.i].merkle }

// ContentKey identifies the node's embedding text (see EmbedText).
func (n Node) ContentKey() ContentKey { return n.f.nodes[n.i].content }

// EmbedText is what the node's embedding is computed from: its title, a
// newline and the first 2 KiB of its body.
func (n Node) EmbedText() string {
	var b strings.Builder
	b.Grow(n.f.embedTextLen(n.i))
	n.f.embedText(n.i, func(p []byte) { b.Write(p) })
	return b.String()
}

// Same reports whether a and b are the same node of the same file version.
func (n Node) Same(o Node) bool { return n.f == o.f && n.i == o.i }
