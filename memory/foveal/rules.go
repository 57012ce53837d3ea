package foveal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"unicode/utf8"

	"pp-lsp/memory"
)

// choose applies DESIGN §5's rules in priority order. Each rule adds what
// fits; the first thing that does not fit ends the choice (strict
// priority: nothing of a lower rule, nor anything farther under the same
// rule, is shown in its place).
func (c *chooser) choose(ctx context.Context, at memory.Node, opts Options) error {
	c.anchor = c.makeAnchor(at)
	if at.Valid() && !withheld(at) {
		if !c.fovealRule(at) {
			c.tierB(at)
			return nil
		}
		c.ancestorsRule(at)
		if err := c.relatedRule(ctx, at, opts); err != nil {
			return err
		}
	}
	c.outlineRule()
	c.titleRule()
	return nil
}

// ext is the view's own properties for n: :FILE: on file nodes.
func (c *chooser) ext(n memory.Node, r ref) extras {
	if n.IsFile() {
		return extras{file: c.info.files[r.file].stats.prop}
	}
	return extras{}
}

// formText renders n in a peripheral form.
func (c *chooser) formText(n memory.Node, r ref, f form) []byte {
	b := appendHeadline(c.scratch[:0], n)
	o := ownNone
	switch f {
	case formTitleID:
		o = ownID
	case formOutline:
		o = ownAll
	}
	b = appendDrawer(b, n, o, c.ext(n, r))
	c.scratch = b
	return c.text(b)
}

// showChain shows n's ancestors that are not shown yet, outermost first,
// in form f.
func (c *chooser) showChain(n memory.Node, f form) {
	anc := n.Ancestors()
	for i := len(anc) - 1; i >= 0; i-- {
		a := anc[i]
		r := c.refOf(a)
		if c.shown[r] != nil {
			continue
		}
		c.show(a, r, f, c.formText(a, r, f), false)
	}
}

// fovealRule is rule 1: the foveal node in full with every public
// descendant, under its file and its ancestors' headlines (rule 2's
// properties come next). When that does not fit, the subtree is cut at
// the line where the budget ends (see showTruncated). It reports false
// when not even the cut version fits.
func (c *chooser) fovealRule(at memory.Node) bool {
	r := c.refOf(at)
	// The subtree's size in full is cached per file version (without
	// :FOVEAL:, which adds tokens, and with at most one blank line more
	// than the view shows): when it is over the whole budget, it is not
	// rendered only to find that out.
	if int(c.info.files[r.file].stats.subTokens[r.idx])-1 <= c.budget {
		c.begin()
		c.showChain(at, formBare)
		ex := c.ext(at, r)
		ex.foveal = true
		c.show(at, r, formFull, c.text(appendFull(c.scratch[:0], at, ex)), false)
		for d := range at.Descendants() {
			if !d.Private() {
				dr := c.refOf(d)
				c.show(d, dr, formFull, c.text(appendFull(c.scratch[:0], d, extras{})), false)
			}
		}
		if c.commit() {
			return true
		}
	}
	// Rule 1 does not fit whole: nothing of a lower rule is shown.
	c.stopped = true
	c.begin()
	c.showChain(at, formBare)
	return c.showTruncated(at) && c.commit()
}

// piece is one line of the foveal subtree in full, or its drawer.
type piece struct {
	kind pieceKind
	text []byte
}

type pieceKind uint8

const (
	pieceHeadline pieceKind = iota
	piecePlanning
	pieceDrawer
	pieceBody
)

// nodePieces renders one node of the foveal subtree in full, piece by
// piece: the headline (with the drawer, for a file: a file's headline never
// goes without its :FILE:), the planning line, the drawer, each body line.
func nodePieces(dst []piece, n memory.Node, ex extras) []piece {
	dst = append(dst, piece{kind: pieceHeadline, text: appendHeadline(nil, n)})
	if p := appendPlanning(nil, n); len(p) > 0 {
		dst = append(dst, piece{kind: piecePlanning, text: p})
	}
	d := appendDrawer(nil, n, ownAll, ex)
	switch {
	case len(d) > 0 && n.IsFile():
		dst[len(dst)-1].text = append(dst[len(dst)-1].text, d...)
	case len(d) > 0:
		dst = append(dst, piece{kind: pieceDrawer, text: d})
	}
	for _, l := range bodyLines(n, len(d) == 0) {
		dst = append(dst, piece{kind: pieceBody, text: append([]byte(l), '\n')})
	}
	return dst
}

func piecesLines(ps []piece) int {
	n := 0
	for _, p := range ps {
		n += bytes.Count(p.text, []byte{'\n'})
	}
	return n
}

// subtreeSize returns the lines of the foveal subtree in full (the foveal
// node's own pieces are given) and its public descendants, from the
// figures cached per file version: no descendant is rendered to count it.
func (c *chooser) subtreeSize(at memory.Node, own []piece) (lines, heads int) {
	r := c.refOf(at)
	st := c.info.files[r.file].stats
	lines = piecesLines(own)
	for ch := range at.Children() {
		lines += int(st.subLines[ch.Headline()+1])
	}
	return lines, int(st.pubDesc[r.idx])
}

// showTruncated shows the foveal subtree cut to the budget: its pieces in
// document order while they fit — a headline line, a planning line, a
// whole drawer, a body line — the body line where the budget ends cut
// short with "…" when part of it fits, then "[… N more lines, M more
// headlines]". It reports false when not even the foveal headline fits.
// Only what is shown is rendered. The #+TODO: line is budgeted for every
// keyword of the subtree, shown or not, so that it cannot grow while the
// lines are chosen.
func (c *chooser) showTruncated(at memory.Node) bool {
	fr := c.refOf(at)
	ex := c.ext(at, fr)
	ex.foveal = true
	pieces := nodePieces(nil, at, ex)
	lines, heads := c.subtreeSize(at, pieces)
	c.noteKeyword(at)
	for d := range at.Descendants() {
		if !d.Private() {
			c.noteKeyword(d)
		}
	}
	fov := c.show(at, fr, formFull, nil, true)
	c.scratch = moreLine(c.scratch[:0], 0, lines, heads)
	avail := c.budget - c.used - c.reserve - countTokens(c.scratch)
	var text []byte
	shownLines, shownHeads := 0, 0
	// place shows the pieces of n while they fit, and reports whether all
	// did.
	place := func(n memory.Node, first bool) bool {
		for _, p := range pieces {
			if cost := countTokens(p.text); cost <= avail {
				text = append(text, p.text...)
				avail -= cost
				shownLines += bytes.Count(p.text, []byte{'\n'})
				if p.kind == pieceHeadline && !first {
					c.show(n, c.refOf(n), formFull, nil, true)
					shownHeads++
				}
				continue
			}
			if p.kind == pieceBody {
				text = append(text, cutLine(p.text[:len(p.text)-1], avail)...)
			}
			return false
		}
		return true
	}
	done := place(at, true)
	if !done && len(text) == 0 {
		return false
	}
	if done {
		for d := range at.Descendants() {
			if d.Private() {
				continue
			}
			pieces = nodePieces(pieces[:0], d, extras{})
			if !place(d, false) {
				break
			}
		}
	}
	if shownLines < lines {
		text = moreLine(text, 0, lines-shownLines, heads-shownHeads)
	}
	c.upgrade(fov, formFull, c.text(text))
	return true
}

// cutLine returns the longest start of line that, followed by "…" and a
// line end, costs at most avail tokens — cut after a blank, never inside a
// word: a secret cut in two is a piece no redactor knows from the rest of
// the text (19 of an AWS key's 20 characters are no key to the rules) —
// or nil when fewer than eight bytes fit or no blank is left to cut at.
func cutLine(line []byte, avail int) []byte {
	buf := make([]byte, 0, len(line)+4)
	fits := func(n int) bool {
		buf = append(append(buf[:0], line[:n]...), "…\n"...)
		return countTokens(buf) <= avail
	}
	lo, hi := 0, len(line)
	for lo < hi {
		if mid := lo + (hi-lo+1)/2; fits(mid) {
			lo = mid
		} else {
			hi = mid - 1
		}
	}
	// The count is monotone in practice, not by proof: step back to a
	// character boundary that fits.
	for lo > 0 && ((lo < len(line) && !utf8.RuneStart(line[lo])) || !fits(lo)) {
		lo--
	}
	if lo < 8 {
		return nil
	}
	for k := lo; k > lo*3/4; k-- {
		if line[k-1] == ' ' && fits(k) {
			lo = k
			break
		}
	}
	if lo < len(line) && line[lo] != ' ' && line[lo-1] != ' ' {
		k := lo
		for k > 0 && line[k-1] != ' ' {
			k--
		}
		if k < 8 {
			return nil
		}
		lo = k
	}
	return append(append(line[:lo:lo], "…"...), '\n')
}

// tierB is the view when not even the foveal node's file and ancestor
// headlines fit beside its headline: the foveal headline alone, its title
// cut when needed, and a line counting what is left out of its subtree.
// Nothing else is shown.
func (c *chooser) tierB(at memory.Node) {
	r := c.refOf(at)
	ex := c.ext(at, r)
	ex.foveal = true
	lines, heads := c.subtreeSize(at, nodePieces(nil, at, ex))
	c.shown = map[ref]*shown{}
	c.todo, c.done = nil, nil
	c.degenerate = true
	head := appendHeadline(nil, at)
	rest := lines - 1
	if at.IsFile() {
		// With its :FILE: when that fits.
		if withFile := appendDrawer(head, at, ownNone, c.ext(at, r)); countTokens(withFile)+countTokens(moreLine(nil, 0, rest-3, heads)) <= c.budget {
			head, rest = withFile, rest-3
		}
	}
	marker := moreLine(nil, 0, rest, heads)
	if rest <= 0 && heads == 0 {
		marker = nil
	}
	if countTokens(head)+countTokens(marker) > c.budget {
		head = cutLine(head[:bytes.IndexByte(head, '\n')], c.budget-countTokens(marker))
	}
	text := append(head, marker...)
	if len(head) == 0 {
		text = nil
	}
	c.shown[r] = &shown{node: at, ref: r, form: formFull, text: text, noFold: true}
}

// ancestorsRule is rule 2: each ancestor's properties, innermost first.
func (c *chooser) ancestorsRule(at memory.Node) {
	for _, a := range at.Ancestors() {
		if c.stopped {
			return
		}
		r := c.refOf(a)
		c.begin()
		c.upgrade(c.shown[r], formOutline, c.formText(a, r, formOutline))
		c.stopped = !c.commit()
	}
}

// minNeighbourShare is the least a related node's body is given when the
// budget left is shared among the related nodes: a few lines, rather than
// a headline and a cut marker each.
const minNeighbourShare = 64

// relatedRule is rule 3: the nodes whose embeddings are nearest the
// foveal node's, at or above the threshold, most similar first, each with
// its properties, :SEMANTIC_SCORE: and body, under its file and the
// headlines above it (title and :ID:). A body is cut to the part its
// embedding saw (NeighbourBodyBytes) and to its share of what is left of
// the budget — an even share among the related nodes still to come, but
// at least minNeighbourShare tokens — so that one long note cannot crowd
// out the others, nor many leave each a headline and nothing else.
// Descendants of the foveal node are already shown in full and are not
// candidates; private nodes never have an embedding.
func (c *chooser) relatedRule(ctx context.Context, at memory.Node, opts Options) error {
	if c.stopped || opts.Neighbours < 0 {
		return nil
	}
	fr := c.refOf(at)
	last := fr.idx
	for range at.Descendants() {
		last++
	}
	exclude := func(n memory.Node) bool {
		i := int32(n.Headline() + 1)
		return i > fr.idx && i <= last && n.Path() == at.Path()
	}
	// The threshold is applied here, not passed as MinScore: with a
	// MinScore, Nearest widens its shortlist up to a scan of every vector
	// whenever fewer than K nodes pass it — the usual case — while the
	// top K of its first shortlist already hold every node above 0.5
	// (memory measures a recall of 1.000 there). Top K then threshold is
	// the same set as threshold then top K.
	nbs, err := c.snap.Nearest(ctx, at, memory.NearestOptions{K: opts.Neighbours, Exclude: exclude})
	if errors.Is(err, memory.ErrNoVector) {
		return nil
	}
	if err != nil {
		return fmt.Errorf("finding the notes related to the one at the cursor: %w", err)
	}
	for i, nb := range nbs {
		if float64(nb.Score) < opts.Threshold {
			nbs = nbs[:i]
			break
		}
	}
	for i, nb := range nbs {
		n := nb.Node
		if withheld(n) {
			continue
		}
		c.begin()
		c.showChain(n, formTitleID)
		r := c.refOf(n)
		ex := c.ext(n, r)
		ex.score = scoreText(nb.Score)
		hdr, drawer := appendFullHeader(c.scratch[:0], n, ex)
		c.scratch = hdr
		s := c.shown[r]
		if s == nil {
			s = c.show(n, r, formFull, c.text(hdr), false)
		} else {
			c.upgrade(s, formFull, c.text(hdr))
		}
		avail := c.budget - c.used - c.reserve
		share := min(avail, max(avail/(len(nbs)-i), minNeighbourShare))
		body := cutBody(append([]byte(nil), s.text...), bodyLines(n, !drawer), share, NeighbourBodyBytes)
		c.upgrade(s, formFull, c.text(body))
		if !c.commit() {
			c.stopped = true
			return nil
		}
		c.related = append(c.related, Related{ID: n.Key(), Score: roundScore(nb.Score)})
	}
	return nil
}

// cutBody appends the body lines to dst within maxTokens and maxBytes;
// when they do not all fit, as many as do, the next one cut short, and a
// "[… N more lines]" line.
func cutBody(dst []byte, lines []string, maxTokens, maxBytes int) []byte {
	tokens, bytes := 0, 0
	for _, l := range lines {
		tokens += countTokens(l) + 1
		bytes += len(l) + 1
	}
	if tokens <= maxTokens && bytes <= maxBytes {
		for _, l := range lines {
			dst = append(append(dst, l...), '\n')
		}
		return dst
	}
	marker := countTokens(moreLine(nil, 0, len(lines), 0))
	availT, availB := maxTokens-marker, maxBytes
	for i, l := range lines {
		t, b := countTokens(l)+1, len(l)+1
		if t <= availT && b <= availB {
			dst = append(append(dst, l...), '\n')
			availT, availB = availT-t, availB-b
			continue
		}
		if availB > 8 && availT > 0 {
			line := []byte(l)
			if len(line) > availB-4 {
				line = line[:availB-4]
			}
			if part := cutLine(line, availT); part != nil {
				dst = append(dst, part...)
			}
		}
		return moreLine(dst, 0, len(lines)-i, 0)
	}
	return dst
}

// outlineRule is rule 4: files and their top-level headlines, title and
// properties, nearest the foveal node first.
func (c *chooser) outlineRule() {
	if c.stopped {
		return
	}
	h := c.heap()
	defer c.release(h)
	for fi := range c.info.files {
		f := c.info.files[fi].node
		if withheld(f) {
			continue
		}
		r := ref{int32(fi), 0}
		if s := c.shown[r]; s == nil {
			h.push(cand{d: c.dist(f, r.file), r: r, node: f})
		} else {
			c.pushChildren(h, s, formOutline)
		}
	}
	for h.len() > 0 {
		it := h.pop()
		c.begin()
		s := c.shown[it.r]
		switch {
		case s == nil:
			s = c.show(it.node, it.r, formOutline, c.formText(it.node, it.r, formOutline), false)
		case s.form < formOutline:
			c.upgrade(s, formOutline, c.formText(it.node, it.r, formOutline))
		}
		if !c.commit() {
			c.stopped = true
			return
		}
		if it.node.IsFile() {
			c.pushChildren(h, s, formOutline)
		}
	}
}

// titleRule is rule 5: every other public node as its headline and :ID:,
// nearest the foveal node first; what does not fit is folded.
func (c *chooser) titleRule() {
	if c.stopped {
		return
	}
	h := c.heap()
	defer c.release(h)
	for _, s := range c.shown {
		c.pushChildren(h, s, formTitleID)
	}
	for h.len() > 0 {
		it := h.pop()
		if c.shown[it.r] != nil {
			continue
		}
		c.begin()
		s := c.show(it.node, it.r, formTitleID, c.formText(it.node, it.r, formTitleID), false)
		if !c.commit() {
			c.stopped = true
			return
		}
		c.pushChildren(h, s, formTitleID)
	}
}

// pushChildren queues s's public children that are not shown in form f
// or larger yet.
func (c *chooser) pushChildren(h *candHeap, s *shown, f form) {
	if s.noFold {
		return
	}
	for ch := range s.node.Children() {
		if ch.Private() {
			continue
		}
		r := ref{s.ref.file, int32(ch.Headline() + 1)}
		if t := c.shown[r]; t == nil || (f == formOutline && t.form < formOutline) {
			h.push(cand{d: c.dist(ch, r.file), r: r, node: ch})
		}
	}
}

// withheld reports whether n is never shown, not even with the cursor on
// it: a private node, or a node of the server's own files (the plans and
// the audit journal, memory.ServerFiles). The journal holds what every
// front end was asked and did — another agent's queries, the plans'
// actions — and is no note of the user's for a model to read.
func withheld(n memory.Node) bool { return n.Private() || n.InServerFile() }
