package orgast

import (
	"sort"
	"sync"
)

// Range is a half-open span [Start, End) of byte offsets in the file.
type Range struct {
	Start, End int
}

// Len is the number of bytes the range spans.
func (r Range) Len() int { return r.End - r.Start }

// Contains reports whether offset off lies in [Start, End).
func (r Range) Contains(off int) bool { return off >= r.Start && off < r.End }

// File is the outline of one Org file. It is immutable once returned by
// Parse or Reparse: callers share it freely and must not modify it.
type File struct {
	// Src is the exact bytes parsed (not copied: the caller must not change them).
	Src []byte
	// Lines maps offsets to lines and columns under the file's EOL convention.
	Lines *LineIndex

	// Keywords holds every #+KEY: line org-element reads as a keyword, in
	// document order, wherever it is (sections, drawers, lists…).
	Keywords []Keyword
	// FileDrawer is the property drawer before the first headline where
	// org-element sees one (org-roam keeps the file's :ID: there), or nil.
	FileDrawer *Drawer
	// Todo is the TODO keyword configuration in effect for the whole file.
	Todo TodoConfig
	// OddLevels is #+STARTUP: odd, under which a headline's Level is
	// 1+stars/2, as org-reduced-level computes it.
	OddLevels bool
	// LinkAbbrevs are the #+LINK: abbreviations, in document order (the
	// last definition of a key is the one Org uses).
	LinkAbbrevs []LinkAbbrev

	// Headlines in document order.
	Headlines []Headline
	// Links in document order.
	Links []Link
	// Targets are <<target>> and <<<radio target>>> objects, in document order.
	Targets []Target
	// Blocks are the blocks and drawers org-element reads, wherever they
	// are (sections, lists, other blocks, footnotes…), in document order:
	// an enclosing block comes before the blocks inside it.
	Blocks []Block
	// Names are the elements carrying a #+NAME: affiliated keyword, in
	// document order.
	Names []Named
	// Problems are what an editor should flag, in document order.
	Problems []Problem

	// tiles partition the file into spans owned by one node each, for
	// NodeAt; they are built on first use.
	tilesOnce sync.Once
	tiles     []tile
	// enc and eol are how Emacs decodes the file; titleKw and tagsKw index
	// the keywords giving its title and tags (-1: none).
	enc     encoding
	eol     EOL
	titleKw int
	tagsKw  int
	// plain reports that Reparse may patch this outline: the bytes are
	// valid UTF-8 without a byte-order mark, a CR, a NUL or "<<<".
	plain bool
}

// tile is a span of the file, from start to the next tile's start, whose
// innermost node is owner (a headline index, or -1 for the file node).
type tile struct {
	start int
	owner int
}

// Keyword is one keyword line: #+KEY: VALUE.
type Keyword struct {
	Key   string // upper-cased, as org-element's :key
	Value string // trimmed, as org-element's :value
	// Range spans the line without its line end; ValueRange the value.
	Range, ValueRange Range
	// Node is the headline whose section holds the keyword, -1 before the first.
	Node int
}

// Drawer is a property drawer: :PROPERTIES: … :END:.
type Drawer struct {
	// Range spans from the :PROPERTIES: line to the end of the :END: line.
	Range Range
	// Properties in drawer order, keys as written, duplicates kept.
	Properties []Property
}

// Get returns the value of the first property named key (compared without
// regard to case, as Org does), and whether there is one.
func (d *Drawer) Get(key string) (string, bool) {
	if d == nil {
		return "", false
	}
	for _, p := range d.Properties {
		if equalFoldASCII(p.Key, key) {
			return p.Value, true
		}
	}
	return "", false
}

// props returns the drawer's properties (nil for no drawer).
func (d *Drawer) props() []Property {
	if d == nil {
		return nil
	}
	return d.Properties
}

// Property is one node property line, :KEY: VALUE.
type Property struct {
	Key   string // as written, without the colons
	Value string // without surrounding blanks; "" when there is none
	// Range spans the line without its line end; KeyRange and ValueRange
	// the key (inside the colons) and the value.
	Range, KeyRange, ValueRange Range
}

// TodoType says whether a headline's TODO keyword is a todo or a done state.
type TodoType uint8

const (
	// TodoNone: the headline has no TODO keyword.
	TodoNone TodoType = iota
	// TodoOpen: the keyword is in a sequence's todo part.
	TodoOpen
	// TodoDone: the keyword is a done state.
	TodoDone
)

// String is the name org-element uses (:todo-type), "" for TodoNone.
func (t TodoType) String() string {
	switch t {
	case TodoOpen:
		return "todo"
	case TodoDone:
		return "done"
	}
	return ""
}

// Timestamp is a planning timestamp as written.
type Timestamp struct {
	Raw   string // the timestamp's text, as org-element's :raw-value
	Range Range
}

// IsZero reports whether there is no timestamp.
func (t Timestamp) IsZero() bool { return t.Raw == "" }

// Planning holds the planning line directly after a headline.
type Planning struct {
	Scheduled, Deadline, Closed Timestamp
	// Range spans the planning line (zero when there is none).
	Range Range
}

// Headline is one headline and its subtree.
type Headline struct {
	// Level is the level Org reports; Stars the count of stars written.
	Level, Stars int
	// Todo is the TODO keyword ("" when none) and TodoType its kind.
	Todo     string
	TodoType TodoType
	// (The flags sit beside TodoType, in what would be padding.)
	Commented bool // the title starts with COMMENT
	Archived  bool // tagged ARCHIVE
	// Priority is the cookie's character ([#A] → 'A'), 0 when none.
	Priority rune
	// Title is the raw title: between keyword, priority or COMMENT and the
	// tags, trimmed (org-element's :raw-value).
	Title string
	// Tags are the headline's own tags, in order.
	Tags []string
	// plan is the planning line, nil when there is none (most headlines
	// have none: held out of line, it costs a pointer, not 112 bytes).
	plan *Planning
	// Drawer is the property drawer directly after the headline or its
	// planning line, nil when there is none.
	Drawer *Drawer
	// Parent is the index of the enclosing headline in File.Headlines, -1
	// for a top-level headline.
	Parent int

	// Line spans the headline line without its line end; TitleRange the
	// title within it.
	Line, TitleRange Range
	// Section spans the headline's own text: from the line after the
	// headline to its first child (or to End).
	Section Range
	// End is where the subtree ends, as org-element's :end: before the next
	// headline of the same or a higher level, without the blank lines that
	// belong to an enclosing headline.
	End int
}

// Planning returns the headline's planning line (the zero Planning when
// there is none).
func (h *Headline) Planning() Planning {
	if h.plan == nil {
		return Planning{}
	}
	return *h.plan
}

// Subtree is the span from the headline line to the end of its subtree.
func (h *Headline) Subtree() Range { return Range{h.Line.Start, h.End} }

// Properties returns the drawer's properties (nil when there is no drawer).
func (h *Headline) Properties() []Property {
	if h.Drawer == nil {
		return nil
	}
	return h.Drawer.Properties
}

// LinkFormat is how a link is written.
type LinkFormat uint8

const (
	// LinkBracket is [[target][description]].
	LinkBracket LinkFormat = iota
	// LinkPlain is a bare https://… id:… in text.
	LinkPlain
	// LinkAngle is <https://…>.
	LinkAngle
	// LinkRadio is text matching a <<<radio target>>>.
	LinkRadio
)

// Link is one link object.
type Link struct {
	Format LinkFormat
	// HasSearch tells an empty Search from none (beside Format, in what
	// would be padding).
	HasSearch bool
	// Type is Org's link type: a registered one (https, file, id …) as
	// written, or Org's own fuzzy, custom-id, coderef, radio.
	Type string
	// Path is the link's path (org-element's :path).
	Path string
	// Search is the search option after "::" in file links (*Heading,
	// #custom-id, 123, /regexp/); HasSearch tells "" from none.
	Search string
	// Application is the "sys" of file+sys: links.
	Application string
	// Raw is the link as written, abbreviations expanded (:raw-link).
	Raw string
	// Range spans the link; DescRange its description (zero when none).
	Range, DescRange Range
	// Node is the headline holding the link, -1 before the first headline.
	Node int
}

// Target is a <<target>> or a <<<radio target>>>.
type Target struct {
	Name  string
	Radio bool
	Range Range
	Node  int
}

// LinkAbbrev is one #+LINK: abbreviation.
type LinkAbbrev struct {
	Key, Replacement string
}

// Severity ranks a Problem as the LSP does.
type Severity uint8

const (
	// SeverityError marks text Org will not read as the writer meant.
	SeverityError Severity = 1
	// SeverityWarning marks text Org reads, but likely not as meant.
	SeverityWarning Severity = 2
)

// Problem is something in the file an editor should flag.
type Problem struct {
	Range    Range
	Severity Severity
	Code     string // stable identifier, e.g. "property-drawer-unclosed"
	Message  string // one sentence
}

// Title returns the file's title: the value of the first #+TITLE: keyword
// before the first headline, and whether there is one.
func (f *File) Title() (string, bool) {
	if f.titleKw < 0 {
		return "", false
	}
	return f.Keywords[f.titleKw].Value, true
}

// FileTags returns the tags of the first #+FILETAGS: keyword before the
// first headline, split at colons as org-outline.el does.
func (f *File) FileTags() []string {
	if f.tagsKw < 0 {
		return nil
	}
	return splitFileTags(f.Keywords[f.tagsKw].Value)
}

// ID returns the :ID: of the file-level property drawer, if any.
func (f *File) ID() (string, bool) { return f.FileDrawer.Get("ID") }

// EOL returns the line-end convention the file was read with.
func (f *File) EOL() EOL { return f.eol }

// NodeAt returns the index of the innermost headline whose subtree holds
// byte offset off, or -1 for the file node (before the first headline, or
// outside every subtree). The end of the file counts as its last byte, so
// a cursor on the empty last line is in the last subtree. It takes
// O(log n).
func (f *File) NodeAt(off int) int {
	if off >= len(f.Src) && len(f.Src) > 0 {
		off = len(f.Src) - 1
	}
	f.tilesOnce.Do(func() { f.tiles = buildTiles(f.Headlines) })
	i := sort.Search(len(f.tiles), func(i int) bool { return f.tiles[i].start > off })
	if i == 0 {
		return -1
	}
	return f.tiles[i-1].owner
}

// NodeAtPosition is NodeAt for an LSP position: a 0-based line and a UTF-16
// column.
func (f *File) NodeAtPosition(line, utf16Col int) int {
	return f.NodeAt(f.Lines.OffsetUTF16(line, utf16Col))
}

// Path returns the outline path of headline i: the titles of its ancestors
// and its own, outermost first.
func (f *File) Path(i int) []string {
	var path []string
	for ; i >= 0; i = f.Headlines[i].Parent {
		path = append(path, f.Headlines[i].Title)
	}
	for l, r := 0, len(path)-1; l < r; l, r = l+1, r-1 {
		path[l], path[r] = path[r], path[l]
	}
	return path
}

// CustomID returns the headline whose CUSTOM_ID property is id, or -1: the
// target of [[#id]] links.
func (f *File) CustomID(id string) int {
	for i := range f.Headlines {
		if v, ok := f.Headlines[i].Drawer.Get("CUSTOM_ID"); ok && v == id {
			return i
		}
	}
	return -1
}
