package memory

import (
	"fmt"
	"path/filepath"
	"sync"

	"pp-lsp/orgast"
)

// A LooseFile is an Org file the memex does not hold — a buffer an editor
// has open outside the roots — read with the memex's own rules: its nodes
// answer Title, Body, ID and the rest as a memex file's do, and its links
// resolve as the memex's own (Snapshot.ResolveLinkIn), so that a feature
// has one rule whatever file it reads. It is immutable; Edit makes the
// next version.
//
// No snapshot holds a LooseFile's nodes: they have no neighbours, are never
// embedded, and their Root is -1. They are private as a memex file's would
// be under its privacy tags (ParseLoose: DefaultPrivacyTags;
// Snapshot.ParseLoose: the memex's), their setup files judged when first
// asked, "~/" in them the home folder given (the agent's world.Home, as
// the memex's own notes read it; never the process's $HOME behind it).
type LooseFile struct {
	path string
	org  *orgast.File
	// privacy and home are the rules it is read by.
	privacy *privacySet
	home    string
	// index is made on first use: typing into a loose buffer pays only
	// for the re-parse, a request for the rest once per version.
	index func() *fileIndex
}

// ParseLoose reads src, the text of the Org file at path (absolute), by
// DefaultPrivacyTags, with "~/" the home folder home ("" knows none: a
// setup file named so cannot be judged, and makes the file private).
// Snapshot.ParseLoose reads it by the memex's own tags and home.
func ParseLoose(path string, src []byte, home string) *LooseFile {
	return newLoose(filepath.Clean(path), orgast.Parse(src), newPrivacySet(nil, home), home)
}

// ParseLoose reads src, the text of the Org file at path (absolute), as
// the memex s reads its own files: by its privacy tags and its home.
func (s *Snapshot) ParseLoose(path string, src []byte) *LooseFile {
	return newLoose(filepath.Clean(path), orgast.Parse(src), s.cfg.privacy, s.cfg.home)
}

func newLoose(path string, org *orgast.File, ps *privacySet, home string) *LooseFile {
	l := &LooseFile{path: path, org: org, privacy: ps, home: home}
	l.index = sync.OnceValue(func() *fileIndex {
		return newFileIndex(path, -1, filepath.ToSlash(path), org, ps).judged(&setupJudge{home: home, tags: ps.tags})
	})
	return l
}

// Edit returns the file with src[e.Start:e.End] replaced by e.Text,
// re-parsing only what the edit touched (orgast.Reparse). A range outside
// the text is an error and changes nothing.
func (l *LooseFile) Edit(e TextEdit) (*LooseFile, error) {
	src := l.org.Src
	if e.Start < 0 || e.End < e.Start || e.End > len(src) {
		return nil, fmt.Errorf("editing %s: the range [%d, %d) lies outside its %d bytes", l.path, e.Start, e.End, len(src))
	}
	ns := make([]byte, 0, len(src)-(e.End-e.Start)+len(e.Text))
	ns = append(append(append(ns, src[:e.Start]...), e.Text...), src[e.End:]...)
	return newLoose(l.path, orgast.Reparse(l.org, ns, orgast.Edit{Start: e.Start, OldEnd: e.End, NewEnd: e.Start + len(e.Text)}), l.privacy, l.home), nil
}

// Path is the file's absolute, clean path.
func (l *LooseFile) Path() string { return l.path }

// Org is the file's outline.
func (l *LooseFile) Org() *orgast.File { return l.org }

// Node is the file node. RelPath is the file's path (it has no root).
func (l *LooseFile) Node() Node { return Node{l.index(), 0} }

// Loose reports whether n is a node of a LooseFile, not of the memex.
func (n Node) Loose() bool { return n.f.root < 0 }
