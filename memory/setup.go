package memory

import (
	"slices"
	"sync"

	"pp-lsp/internal/orgsetup"
)

// A note is private as a whole when a file its #+SETUPFILE: lines name
// (followed as Org does, by internal/orgsetup's one rule, the gates') has
// a #+FILETAGS: line carrying a privacy tag. Where the gates would ask (a
// URL, a chain too deep), and where a setup file is there but cannot be
// judged (too large, not a regular file), the memex fails closed: the note
// is private. A setup file that does not exist brings no keyword, to Org
// as here. The judgement is made whenever a note is read or edited, and
// made again for every note with a #+SETUPFILE: line whenever the memex
// reads files from the disk again (Refresh, ReloadFiles): a setup file
// edited later changes its notes' privacy in the next snapshot.

// maxSetupBytes bounds the bytes read of one setup file; a larger one
// makes its notes private.
const maxSetupBytes = 4 << 20

// setupJudge judges notes by their setup files for one change of the
// memex, reading each setup file once.
type setupJudge struct {
	home  string
	tags  []string
	mu    sync.Mutex
	files map[string]setupRead
}

type setupRead struct {
	data []byte
	err  error
}

func newSetupJudge(cfg *config) *setupJudge {
	return &setupJudge{home: cfg.home, tags: cfg.privacy.tags}
}

// privateBy says whether the note at path, whose #+SETUPFILE: values are
// targets, is private by its setup files (or cannot be told not to be).
func (j *setupJudge) privateBy(path string, targets []string) bool {
	if j == nil || len(j.tags) == 0 {
		return false
	}
	r := orgsetup.FollowTargets(path, targets, j.home, j.tags, j.read)
	return r.Private || r.Unknown != ""
}

func (j *setupJudge) read(path string) ([]byte, error) {
	j.mu.Lock()
	defer j.mu.Unlock()
	if r, ok := j.files[path]; ok {
		return r.data, r.err
	}
	data, err := orgsetup.ReadFile(path, maxSetupBytes)
	if j.files == nil {
		j.files = map[string]setupRead{}
	}
	j.files[path] = setupRead{data, err}
	return data, err
}

// judged returns f with its setup files judged by j: f itself when that
// changes nothing, else a copy with every node's private flag computed
// again.
func (f *fileIndex) judged(j *setupJudge) *fileIndex {
	uses := orgsetup.Mentions(f.org.Src)
	var targets []string
	if uses {
		targets = orgsetup.Targets(f.org.Src)
	}
	priv := uses && j.privateBy(f.path, targets)
	if uses == f.usesSetup && priv == f.setupPrivate && slices.Equal(targets, f.setupTargets) {
		return f
	}
	return f.withSetup(uses, priv, targets)
}

// rejudged is judged for f's own bytes judged before: only its setup
// files are read again, not its text.
func (f *fileIndex) rejudged(j *setupJudge) *fileIndex {
	priv := f.usesSetup && j.privateBy(f.path, f.setupTargets)
	if priv == f.setupPrivate {
		return f
	}
	return f.withSetup(f.usesSetup, priv, f.setupTargets)
}

// withSetup is a copy of f judged so by its setup files.
func (f *fileIndex) withSetup(uses, priv bool, targets []string) *fileIndex {
	nf := *f
	nf.usesSetup, nf.setupPrivate, nf.setupTargets = uses, priv, targets
	if priv != f.setupPrivate {
		nf.nodes = append([]nodeInfo(nil), f.nodes...)
		nf.markPrivate()
	}
	return &nf
}

// rejudgeSetups judges again every note of b with a #+SETUPFILE: line,
// and puts those whose privacy changed. It reports whether any did.
func (m *Memex) rejudgeSetups(b *snapBuilder, j *setupJudge) bool {
	changed := false
	for _, p := range b.base.order {
		e, ok := b.files.get(p)
		if !ok || !e.idx.usesSetup && (e.copy == nil || !e.copy.usesSetup) {
			continue
		}
		idx := e.idx.rejudged(j)
		dc := e.copy.rejudged(p, j)
		if e.buffer != nil {
			idx = idx.withDiskCopy(dc)
		}
		if idx == e.idx && dc == e.copy {
			continue
		}
		ne := *e
		ne.idx, ne.copy = idx, dc
		ne.vecs = m.vectorsFor(idx, prevVectors{idx: e.idx, seg: e.vecs})
		b.put(&ne)
		changed = true
	}
	return changed
}
