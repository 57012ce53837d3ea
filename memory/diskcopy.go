package memory

import (
	"errors"
	"io/fs"
	"os"
	"strings"
)

// A file an editor buffer overlays has two texts: the buffer's, which the
// memex holds, and the disk's, which any program reads. The file is
// private if either holds a private node. The memex reads the disk's copy
// when the buffer opens, and again whenever the disk no longer holds it as
// read (Recheck, Refresh, ReloadFiles), and keeps of it only which of its
// headlines are private. While the buffer does not hold every one of them
// as private too (by its :ID:, or by its title when it has none), or the
// disk's copy is private as a whole and the buffer is not, every node of
// the buffer is private (fileIndex.diskPrivate): a privacy tag removed in
// an unsaved buffer hides nothing the disk still holds as private, and a
// tag added in one is the buffer's own, private at once.

// diskCopy is what the memex knows of the disk's copy of a file a buffer
// overlays.
type diskCopy struct {
	// state is the copy's stat as read; id nil when there was none.
	state diskState
	// unknown: a copy is there that could not be read (too large, not
	// text, unreadable): private, as far as the memex can tell.
	unknown bool
	// whole: its file node is private by its own #+FILETAGS:.
	whole bool
	// usesSetup and setupTargets are its #+SETUPFILE: lines, judged
	// again with the buffer's (setupPrivate is their verdict when read).
	usesSetup, setupPrivate bool
	setupTargets            []string
	// ids and titles name its private headlines (none: it holds no
	// private node), each by its :ID:, or by its title when it has none,
	// with a number of its own (0 … heads-1). They are copies, not views
	// of the copy's bytes.
	ids, titles map[string]int32
	heads       int32
}

// anyPrivate says whether the copy holds a private node.
func (d *diskCopy) anyPrivate() bool {
	return d != nil && (d.unknown || d.whole || d.setupPrivate || d.heads > 0)
}

// diskCopyOf summarises f, the index of a file's disk copy read in state.
func diskCopyOf(f *fileIndex, state diskState) *diskCopy {
	d := &diskCopy{state: state, whole: f.privacy.any(allFileTags(f.org)),
		usesSetup: f.usesSetup, setupPrivate: f.setupPrivate, setupTargets: f.setupTargets}
	if d.whole || d.setupPrivate {
		return d // every node is private: the buffer must be so as a whole
	}
	name := func(m *map[string]int32, k string) {
		if _, ok := (*m)[k]; ok {
			return
		}
		if *m == nil {
			*m = map[string]int32{}
		}
		(*m)[strings.Clone(k)] = d.heads
		d.heads++
	}
	for i := 1; i < len(f.nodes); i++ {
		if !f.nodes[i].private {
			continue
		}
		h := &f.org.Headlines[i-1]
		if id, ok := h.Drawer.Get("ID"); ok && id != "" {
			name(&d.ids, id)
		} else {
			name(&d.titles, h.Title)
		}
	}
	return d
}

// readDiskCopy reads the disk's copy of the file at path (absolute) and
// summarises its privacy; nil when there is none. j judges its setup
// files.
func readDiskCopy(cfg *config, j *setupJudge, path string) *diskCopy {
	src, ds, err := readOrgFile(path, cfg.maxFileBytes)
	if err == nil {
		err = CheckText(src)
	}
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil
	case err != nil:
		// There, but not read: its stat, when it has one, tells when to
		// try again; until then it is taken as private.
		d := &diskCopy{unknown: true}
		if fi, serr := os.Stat(path); serr == nil {
			d.state = diskState{size: fi.Size(), mtime: fi.ModTime(), id: fi, unsettled: true}
		}
		return d
	}
	f := buildFile(path, -1, "", src, cfg.privacy).judged(j)
	return diskCopyOf(f, ds)
}

// stale says whether the disk no longer holds the copy as read: another
// file, size or time, one there now or gone, or read too soon after a
// change for its time to tell.
func (d *diskCopy) stale(path string) bool {
	fi, err := os.Stat(path)
	if d == nil {
		return err == nil
	}
	if d.state.id == nil {
		return err == nil || d.unknown
	}
	return err != nil || !d.state.looksUnchanged(fi)
}

// rejudged is d with its setup files judged again by j.
func (d *diskCopy) rejudged(path string, j *setupJudge) *diskCopy {
	if d == nil || !d.usesSetup || d.whole {
		return d
	}
	priv := j.privateBy(path, d.setupTargets)
	if priv == d.setupPrivate {
		return d
	}
	nd := *d
	nd.setupPrivate = priv
	return &nd
}

// coveredBy says whether the buffer's index f holds as private every node
// the disk copy d does, by the buffer's own tags and setup files (not by
// f.diskPrivate). It costs a pass over f's headlines, and allocates only
// when d holds private headlines.
func (d *diskCopy) coveredBy(f *fileIndex) bool {
	if !d.anyPrivate() {
		return true
	}
	if d.unknown {
		return false
	}
	own0 := f.setupPrivate || f.privacy.any(allFileTags(f.org))
	if d.whole || d.setupPrivate || own0 {
		return own0 // the buffer must be, and then is, private as a whole
	}
	// The nodes' flags are their own unless f.diskPrivate marked them all.
	var own []bool
	if f.diskPrivate {
		own = make([]bool, len(f.nodes))
	}
	seen := make([]bool, d.heads)
	left := d.heads
	for i := 1; i < len(f.nodes) && left > 0; i++ {
		h := &f.org.Headlines[i-1]
		priv := f.nodes[i].private
		if own != nil {
			own[i] = own[f.nodes[i].parent] || f.privacy.any(h.Tags)
			priv = own[i]
		}
		if !priv {
			continue
		}
		if k, ok := d.titles[h.Title]; ok && !seen[k] {
			seen[k] = true
			left--
		}
		if len(d.ids) > 0 {
			if id, has := h.Drawer.Get("ID"); has && id != "" {
				if k, ok := d.ids[id]; ok && !seen[k] {
					seen[k] = true
					left--
				}
			}
		}
	}
	return left == 0
}

// withDiskCopy is f judged against the disk's copy d of its file: every
// node private when f does not hold as private all that d does.
func (f *fileIndex) withDiskCopy(d *diskCopy) *fileIndex {
	priv := !d.coveredBy(f)
	if priv == f.diskPrivate {
		return f
	}
	nf := *f
	nf.diskPrivate = priv
	nf.nodes = append([]nodeInfo(nil), f.nodes...)
	nf.markPrivate()
	return &nf
}
