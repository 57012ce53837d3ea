package foveal

import (
	"cmp"
	"slices"
	"sync"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// ref names a node of a view's snapshot: its file's index in memex order
// and its node index in the file (0 for the file node).
type ref struct{ file, idx int32 }

func cmpRef(a, b ref) int {
	if c := cmp.Compare(a.file, b.file); c != 0 {
		return c
	}
	return cmp.Compare(a.idx, b.idx)
}

// shown is a node the view shows, in some form.
type shown struct {
	node memory.Node
	ref  ref
	form form
	// text is what the node contributes (headline, drawer, body…), and
	// tokens its count.
	text   []byte
	tokens int
	// hidden counts the public descendants left out whose nearest shown
	// ancestor is this node; fold is the tokens of the "[… N more
	// headlines]" line that says so (0 when hidden is 0).
	hidden int32
	fold   int
	// noFold: the node's left-out descendants are accounted for by a cut
	// marker in the foveal node's text, not by a fold line.
	noFold bool
	// epoch is the transaction that made it (see txn).
	epoch int
}

// chooser picks what a view shows. Every change is made inside a
// transaction that is kept only when the view still fits the budget, so
// that at every commit used+reserve ≤ budget, where used is the text
// chosen so far and reserve the fold lines it needs: the text that comes
// out is exactly that many tokens, because CountTokens is additive over
// lines.
type chooser struct {
	snap   *memory.Snapshot
	info   *snapInfo
	budget int

	used, reserve int
	shown         map[ref]*shown
	// rootFiles and rootNodes count the public files left out and the
	// public headlines in them; rootFold is the tokens of the line at the
	// top that says so.
	rootFiles, rootNodes int32
	rootFold             int
	// todo and done are the TODO keywords of the shown headlines, in
	// order of appearance, for the #+TODO: line; header is its tokens
	// (0 when Org's default TODO | DONE covers them).
	todo, done []string
	header     int

	tx      txn
	epoch   int
	stopped bool
	// degenerate: not even the foveal node's file and ancestors fit; the
	// text is the foveal headline and a cut marker (see tierB).
	degenerate bool

	anchor  anchor
	related []Related
	// heaps and arenas recycle candidate queues and byte buffers across
	// views (the renderer's pools).
	heaps, arenas *sync.Pool
	// arena holds the shown nodes' texts; a slice of it stays valid when
	// it grows.
	arena   []byte
	scratch []byte
}

// txn is the state a transaction restores on rollback.
type txn struct {
	on                              bool
	used, reserve, rootFold, header int
	rootFiles, rootNodes            int32
	todo, done                      int
	added                           []ref
	saved                           []savedShown
}

type savedShown struct {
	p *shown
	v shown
}

func newChooser(snap *memory.Snapshot, info *snapInfo, budget int, heaps, arenas *sync.Pool) *chooser {
	c := &chooser{
		snap: snap, info: info, budget: budget, heaps: heaps, arenas: arenas,
		shown:     make(map[ref]*shown, 256),
		rootFiles: int32(info.publicFiles), rootNodes: int32(info.publicHeadlines),
	}
	c.setRootFold()
	return c
}

// begin starts a transaction.
func (c *chooser) begin() {
	c.epoch++
	c.tx = txn{
		on: true, used: c.used, reserve: c.reserve, rootFold: c.rootFold, header: c.header,
		rootFiles: c.rootFiles, rootNodes: c.rootNodes, todo: len(c.todo), done: len(c.done),
		added: c.tx.added[:0], saved: c.tx.saved[:0],
	}
}

// commit ends the transaction: kept when the view fits, else undone.
func (c *chooser) commit() bool {
	c.tx.on = false
	if c.used+c.reserve <= c.budget {
		return true
	}
	t := &c.tx
	for i := len(t.saved) - 1; i >= 0; i-- {
		*t.saved[i].p = t.saved[i].v
	}
	for _, r := range t.added {
		delete(c.shown, r)
	}
	c.used, c.reserve, c.rootFold, c.header = t.used, t.reserve, t.rootFold, t.header
	c.rootFiles, c.rootNodes = t.rootFiles, t.rootNodes
	c.todo, c.done = c.todo[:t.todo], c.done[:t.done]
	return false
}

// touch saves s before the transaction changes it.
func (c *chooser) touch(s *shown) {
	if !c.tx.on || s.epoch == c.epoch {
		return
	}
	for _, sv := range c.tx.saved {
		if sv.p == s {
			return
		}
	}
	c.tx.saved = append(c.tx.saved, savedShown{p: s, v: *s})
}

// refOf names n.
func (c *chooser) refOf(n memory.Node) ref {
	return ref{file: c.info.byPath[n.Path()], idx: int32(n.Headline() + 1)}
}

func (c *chooser) pubDesc(r ref) int32 { return c.info.files[r.file].stats.pubDesc[r.idx] }

// text copies b into the arena and returns the copy.
func (c *chooser) text(b []byte) []byte {
	if c.arena == nil && c.arenas != nil {
		if p, ok := c.arenas.Get().(*[]byte); ok {
			c.arena = (*p)[:0]
		}
	}
	start := len(c.arena)
	c.arena = append(c.arena, b...)
	return c.arena[start:len(c.arena):len(c.arena)]
}

// show makes n shown in form f with text. Its parent must be shown
// already (a file's parent is the top of the view). With noFold its
// left-out descendants are the foveal cut marker's business.
func (c *chooser) show(n memory.Node, r ref, f form, text []byte, noFold bool) *shown {
	s := &shown{node: n, ref: r, form: f, text: text, tokens: countTokens(text), noFold: noFold, epoch: c.epoch}
	c.used += s.tokens
	pd := c.pubDesc(r)
	if n.IsFile() {
		c.rootFiles--
		c.rootNodes -= pd
		c.setRootFold()
	} else {
		p, _ := n.Parent()
		ps := c.shown[ref{r.file, int32(p.Headline() + 1)}]
		if !ps.noFold {
			c.touch(ps)
			ps.hidden -= 1 + pd
			c.setFold(ps)
		}
	}
	if !noFold {
		s.hidden = pd
		c.setFold(s)
	}
	c.shown[r] = s
	c.tx.added = append(c.tx.added, r)
	c.noteKeyword(n)
	return s
}

// upgrade gives a shown node a larger form.
func (c *chooser) upgrade(s *shown, f form, text []byte) {
	c.touch(s)
	t := countTokens(text)
	c.used += t - s.tokens
	s.form, s.text, s.tokens = f, text, t
}

func (c *chooser) setFold(s *shown) {
	old := s.fold
	s.fold = 0
	if s.hidden > 0 && !s.noFold {
		c.scratch = moreLine(c.scratch[:0], 0, 0, int(s.hidden))
		s.fold = countTokens(c.scratch)
	}
	c.reserve += s.fold - old
}

func (c *chooser) setRootFold() {
	old := c.rootFold
	c.rootFold = 0
	if c.rootFiles > 0 {
		c.scratch = moreLine(c.scratch[:0], int(c.rootFiles), 0, int(c.rootNodes))
		c.rootFold = countTokens(c.scratch)
	}
	c.reserve += c.rootFold - old
}

// noteKeyword adds n's TODO keyword to the #+TODO: line when it is new.
func (c *chooser) noteKeyword(n memory.Node) {
	h := orgHeadline(n)
	if h == nil || h.Todo == "" || slices.Contains(c.todo, h.Todo) || slices.Contains(c.done, h.Todo) {
		return
	}
	if h.TodoType == orgast.TodoDone {
		c.done = append(c.done, h.Todo)
	} else {
		c.todo = append(c.todo, h.Todo)
	}
	old := c.header
	c.scratch = c.appendHeader(c.scratch[:0])
	c.header = countTokens(c.scratch)
	c.used += c.header - old
}

// appendHeader writes the #+TODO: line that makes the shown headlines'
// keywords read as keywords, when Org's default (TODO | DONE) does not
// cover them. A keyword that is a todo state in one file and a done state
// in another keeps the kind it first appeared with.
func (c *chooser) appendHeader(dst []byte) []byte {
	custom := false
	for _, k := range c.todo {
		custom = custom || k != "TODO"
	}
	for _, k := range c.done {
		custom = custom || k != "DONE"
	}
	if !custom {
		return dst
	}
	dst = append(dst, "#+TODO:"...)
	for _, k := range c.todo {
		dst = append(dst, ' ')
		dst = append(dst, k...)
	}
	dst = append(dst, " |"...)
	for _, k := range c.done {
		dst = append(dst, ' ')
		dst = append(dst, k...)
	}
	return append(dst, '\n')
}

// view assembles the text in document order and counts the nodes.
func (c *chooser) view(at memory.Node) *View {
	list := make([]*shown, 0, len(c.shown))
	for _, s := range c.shown {
		list = append(list, s)
	}
	slices.SortFunc(list, func(a, b *shown) int { return cmpRef(a.ref, b.ref) })
	size := 64
	for _, s := range list {
		size += len(s.text) + 32
	}
	var b []byte
	if c.arenas != nil {
		if p, ok := c.arenas.Get().(*[]byte); ok {
			b = (*p)[:0]
		}
	}
	if cap(b) < size {
		b = make([]byte, 0, size)
	}
	if !c.degenerate {
		// The #+TODO: line in document order, with only the keywords
		// shown: no more tokens than were budgeted for it.
		c.todo, c.done = c.todo[:0], c.done[:0]
		for _, s := range list {
			c.noteKeyword(s.node)
		}
		b = c.appendHeader(b)
		if c.rootFiles > 0 {
			b = moreLine(b, int(c.rootFiles), 0, int(c.rootNodes))
		}
	}
	v := &View{Budget: c.budget, Semantic: c.related}
	if v.Semantic == nil {
		v.Semantic = []Related{}
	}
	for _, s := range list {
		b = append(b, s.text...)
		if s.hidden > 0 && !s.noFold {
			b = moreLine(b, 0, 0, int(s.hidden))
		}
		switch s.form {
		case formFull:
			v.Nodes.Full++
		case formOutline:
			v.Nodes.Outline++
		default:
			v.Nodes.TitleOnly++
		}
	}
	v.Text = string(b)
	v.Tokens = countTokens(b)
	c.recycle(b)
	c.recycle(c.arena)
	c.arena = nil
	v.Nodes.Private = c.info.private
	v.Nodes.Folded = c.info.publicFiles + c.info.publicHeadlines - len(list)
	if at.Valid() {
		v.Foveal = Foveal{File: at.Path(), Line: at.Line() + 1}
		if !withheld(at) {
			v.Foveal.ID, v.Foveal.Title = at.Key(), at.Title()
		}
	}
	return v
}

// heap returns an empty candidate queue, recycled when one is free.
func (c *chooser) heap() *candHeap {
	if h, ok := c.heaps.Get().(*candHeap); ok {
		return h
	}
	return &candHeap{items: make([]cand, 0, len(c.info.files)+64)}
}

// release gives a queue back for the next view.
func (c *chooser) release(h *candHeap) {
	clear(h.items)
	h.items = h.items[:0]
	c.heaps.Put(h)
}

// recycle gives a byte buffer back for another view, unless it is small
// or huge (a view of a giant foveal node should not pin its buffer).
func (c *chooser) recycle(b []byte) {
	if c.arenas != nil && cap(b) >= 4<<10 && cap(b) <= 1<<20 {
		b = b[:0]
		c.arenas.Put(&b)
	}
}
