package foveal

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"math"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"weak"

	"pp-lsp/memory"
)

// Renderer renders views of a memex. It keeps, per snapshot, what does
// not depend on the cursor (the order and folders of the files, each
// file's counts of public descendants, the memex's full size in tokens),
// and per file version what those are made of, so that a view costs what
// it shows, not what the memex holds, and an edit re-counts one file.
// Those caches are the only state: the output is a pure function of the
// snapshot, the cursor and the options. A Renderer is safe for concurrent
// use; the zero Renderer is not usable, make one with NewRenderer.
type Renderer struct {
	opts Options

	mu sync.Mutex
	// recent are the last snapshots seen, weakly held: a snapshot nobody
	// else holds any more is not kept alive for its cache entry.
	recent [4]recentSnap
	next   int
	// stats holds each file version of the latest snapshot counted, for
	// the privacy tags and roots in scope.
	stats map[statsKey]*fileStats
	scope string
	// last is the snapshot figures made most recently.
	last *snapInfo
	// heaps and arenas recycle the candidate queues of rules 4 and 5 (one
	// entry per file at least) and the text buffers, so that a view does
	// not feed the collector.
	heaps, arenas sync.Pool
}

type recentSnap struct {
	snap weak.Pointer[memory.Snapshot]
	info *snapInfo
}

// NewRenderer returns a renderer whose views use opts where a call does
// not say otherwise (see Options for the defaults).
func NewRenderer(opts Options) (*Renderer, error) {
	if _, err := opts.withDefaults(); err != nil {
		return nil, err
	}
	return &Renderer{opts: opts, stats: map[statsKey]*fileStats{}}, nil
}

// Cursor is where the user is: a file of the memex (absolute path) and a
// 0-based line in it. The zero Cursor is no cursor: the view is the
// outline of the memex from its roots.
type Cursor struct {
	Path string
	Line int
}

// View renders the context the model sees from cur within budget tokens
// (0: the renderer's budget). A path that is no file of the memex is an
// error wrapping memory.ErrNotInMemex, a line past the end of its file
// one wrapping ErrLine, a budget below MinBudget one wrapping ErrOptions.
func (r *Renderer) View(ctx context.Context, snap *memory.Snapshot, cur Cursor, budget int) (*View, error) {
	opts := r.opts
	if budget != 0 {
		opts.Budget = budget
	}
	opts, err := opts.withDefaults()
	if err != nil {
		return nil, err
	}
	if err := ctx.Err(); err != nil {
		return nil, fmt.Errorf("rendering the context: %w", err)
	}
	if snap == nil {
		return nil, errors.New("rendering the context: there is no memex snapshot")
	}
	var at memory.Node
	if cur.Path != "" {
		f, ok := snap.File(cur.Path)
		if !ok {
			return nil, fmt.Errorf("%s: %w", cur.Path, memory.ErrNotInMemex)
		}
		if lines := f.Org().Lines.LineCount(); cur.Line < 0 || cur.Line >= lines {
			return nil, fmt.Errorf("%s has %d lines, so line %d is past its end: %w", cur.Path, lines, cur.Line+1, ErrLine)
		}
		at, _ = snap.NodeAt(cur.Path, cur.Line)
	}
	info := r.info(snap)
	v, err := r.choose(ctx, snap, info, at, opts, opts.Budget)
	if err != nil {
		return nil, err
	}
	if opts.Redact != nil {
		if v, err = r.redacted(ctx, snap, info, at, opts, v); err != nil {
			return nil, err
		}
	}
	v.FullTokens = info.fullTokens
	if v.Tokens > v.Budget {
		// Unreachable by construction; a view over budget is never returned.
		return nil, fmt.Errorf("rendering the context: %d tokens came out over the budget of %d", v.Tokens, v.Budget)
	}
	return v, nil
}

// choose makes the view of at in budget.
func (r *Renderer) choose(ctx context.Context, snap *memory.Snapshot, info *snapInfo, at memory.Node, opts Options, budget int) (*View, error) {
	c := newChooser(snap, info, budget, &r.heaps, &r.arenas)
	if err := c.choose(ctx, at, opts); err != nil {
		return nil, err
	}
	return c.view(at), nil
}

// redacted is v with its text through opts.Redact, within opts.Budget:
// a mark can take more tokens than what it replaced, and then the view is
// chosen again in a budget smaller by the excess (a few times at most:
// each time the excess is what the marks add to a smaller view, and the
// budget shrinks by it doubled on each try, so that views whose
// marks keep adding a token or two still come to fit).
func (r *Renderer) redacted(ctx context.Context, snap *memory.Snapshot, info *snapInfo, at memory.Node, opts Options, v *View) (*View, error) {
	budget := opts.Budget
	for try := 0; ; try++ {
		text := opts.Redact(v.Text)
		if text == v.Text {
			break
		}
		tokens := countTokens(text)
		if tokens <= opts.Budget {
			v.Text, v.Tokens = text, tokens
			break
		}
		// The excess again and again in smaller views: each time twice
		// what it was (a smaller view can hold new marks of its own).
		budget -= (tokens - opts.Budget) << try
		if budget < MinBudget || try == 8 {
			return nil, fmt.Errorf("rendering the context: with its secrets redacted, no view fits the budget of %d tokens", opts.Budget)
		}
		var err error
		if v, err = r.choose(ctx, snap, info, at, opts, budget); err != nil {
			return nil, err
		}
	}
	v.Budget = opts.Budget
	// The foveal node's title, and its key (a synthetic one is made of
	// titles), go out beside the text.
	v.Foveal.ID, v.Foveal.Title = opts.Redact(v.Foveal.ID), opts.Redact(v.Foveal.Title)
	return v, nil
}

// Render is View's text, for server/agent's ContextSource: file is
// absolute ("" for no cursor), line 0-based, budget in tokens (≤ 0: the
// renderer's). Unlike View it takes the cursor as a hint: a question
// asked from a file outside the memex gets the view without a cursor, and
// a line past the end of a file that shrank since the question was asked
// is its last line, so that the model always has a context.
func (r *Renderer) Render(ctx context.Context, snap *memory.Snapshot, file string, line, budget int) (string, error) {
	cur := Cursor{Path: file, Line: max(line, 0)}
	if snap != nil && file != "" {
		if f, ok := snap.File(file); !ok {
			cur = Cursor{}
		} else {
			cur.Line = min(cur.Line, f.Org().Lines.LineCount()-1)
		}
	}
	v, err := r.View(ctx, snap, cur, max(budget, 0))
	if err != nil {
		return "", err
	}
	return v.Text, nil
}

// snapInfo is what a snapshot's views share.
type snapInfo struct {
	files  []fileInfo
	byPath map[string]int32
	// publicFiles and publicHeadlines count the nodes that may be shown;
	// private the ones that never are.
	publicFiles, publicHeadlines, private int
	fullTokens                            int
}

// fileInfo is one file of a snapshot, in memex order.
type fileInfo struct {
	node  memory.Node
	stats *fileStats
}

// fileStats are one file version's place and counts.
type fileStats struct {
	// chain is the file's place in the folder tree: its root's index,
	// then each folder from the root down.
	chain []string
	// prop is the :FILE: the view gives it.
	prop string
	// pubDesc counts each node's public descendants, by node index (0 is
	// the file node, i+1 headline i); subTokens and subLines are the
	// tokens and lines of each public node's subtree in full form (its
	// public nodes as appendFull writes them).
	pubDesc, subTokens, subLines []int32
	private                      int
	// fullTokens is every public node of the file in full form.
	fullTokens int
}

// statsKey names a file version: its path and its bytes (the Merkle
// hash). The privacy tags and the roots are the same for the whole map
// (Renderer.scope).
type statsKey struct {
	path string
	hash memory.Hash
}

// info returns the snapshot's shared figures, from the cache when the
// snapshot was seen recently.
func (r *Renderer) info(snap *memory.Snapshot) *snapInfo {
	r.mu.Lock()
	defer r.mu.Unlock()
	for _, e := range r.recent {
		if e.info != nil && e.snap.Value() == snap {
			return e.info
		}
	}
	roots := snap.Roots()
	prev := r.last
	if scope := strings.Join(snap.PrivacyTags(), "\x00") + "\x01" + strings.Join(roots, "\x00"); scope != r.scope {
		r.scope, r.stats, prev = scope, map[statsKey]*fileStats{}, nil
	}
	n := snap.FileCount()
	info := &snapInfo{files: make([]fileInfo, 0, n)}
	// The common case is the last snapshot with a file or two edited:
	// files that are the same version as there keep their figures
	// without a lookup, and with the same files in the same order the
	// path index is shared.
	samePaths := prev != nil && len(prev.files) == n
	for f := range snap.Files() {
		i := len(info.files)
		samePaths = samePaths && prev.files[i].node.Path() == f.Path()
		var st *fileStats
		if samePaths && prev.files[i].node.Same(f) {
			st = prev.files[i].stats
		} else {
			key := statsKey{path: f.Path(), hash: f.Hash()}
			var ok bool
			if st, ok = r.stats[key]; !ok {
				st = countFile(f, folderChain(f), fileProp(roots, f))
				r.stats[key] = st
			}
		}
		info.files = append(info.files, fileInfo{node: f, stats: st})
		info.private += st.private
		if f.InServerFile() {
			continue
		}
		info.fullTokens += st.fullTokens
		if !f.Private() {
			info.publicFiles++
			info.publicHeadlines += int(st.pubDesc[0])
		}
	}
	if samePaths {
		info.byPath = prev.byPath
	} else {
		info.byPath = make(map[string]int32, n)
		for i, fi := range info.files {
			info.byPath[fi.node.Path()] = int32(i)
		}
	}
	if len(r.stats) > 2*n+64 {
		// Old versions of edited files pile up: keep this snapshot's.
		kept := make(map[statsKey]*fileStats, n)
		for _, fi := range info.files {
			kept[statsKey{path: fi.node.Path(), hash: fi.node.Hash()}] = fi.stats
		}
		r.stats = kept
	}
	r.last = info
	r.recent[r.next] = recentSnap{snap: weak.Make(snap), info: info}
	r.next = (r.next + 1) % len(r.recent)
	return info
}

// folderChain is the file's root index followed by its folders.
func folderChain(f memory.Node) []string {
	chain := []string{strconv.Itoa(f.Root())}
	if dir := path.Dir(f.RelPath()); dir != "." {
		chain = append(chain, strings.Split(dir, "/")...)
	}
	return chain
}

// fileProp is the file's path as the model's file tools take it: relative
// to the first root, else absolute.
func fileProp(roots []string, f memory.Node) string {
	if f.Root() == 0 {
		return f.RelPath()
	}
	if rel, err := filepath.Rel(roots[0], f.Path()); err == nil {
		return filepath.ToSlash(rel)
	}
	return f.Path()
}

// countFile counts one file version: public descendants per node, private
// nodes, and the full-form tokens of its public nodes.
func countFile(f memory.Node, chain []string, prop string) *fileStats {
	nodes := []memory.Node{f}
	for d := range f.Descendants() {
		nodes = append(nodes, d)
	}
	k := len(nodes)
	st := &fileStats{chain: chain, prop: prop, pubDesc: make([]int32, k), subTokens: make([]int32, k), subLines: make([]int32, k)}
	var buf []byte
	for i := k - 1; i >= 0; i-- {
		n := nodes[i]
		if n.Private() {
			st.private++
			continue
		}
		buf = appendFull(buf[:0], n, extras{file: fileOnly(n, prop)})
		tokens := countTokens(buf)
		st.fullTokens += tokens
		st.subTokens[i] += int32(min(tokens, math.MaxInt32/2))
		st.subLines[i] += int32(min(bytes.Count(buf, []byte{'\n'}), math.MaxInt32/2))
		if p, ok := n.Parent(); ok {
			j := p.Headline() + 1
			st.pubDesc[j] += 1 + st.pubDesc[i]
			st.subTokens[j] = satAdd(st.subTokens[j], st.subTokens[i])
			st.subLines[j] = satAdd(st.subLines[j], st.subLines[i])
		}
	}
	return st
}

// satAdd adds without overflowing: a subtree's size only has to be known
// to be larger than any budget.
func satAdd(a, b int32) int32 {
	if s := int64(a) + int64(b); s < math.MaxInt32 {
		return int32(s)
	}
	return math.MaxInt32
}

// fileOnly is prop for a file node, "" for a headline.
func fileOnly(n memory.Node, prop string) string {
	if n.IsFile() {
		return prop
	}
	return ""
}
