package redact

import (
	"bytes"
	"io"
	"io/fs"
	"path/filepath"
	"slices"
	"time"

	"pp-lsp/gates"
	"pp-lsp/internal/orgsetup"
	"pp-lsp/internal/regfile"
	"pp-lsp/memory"
)

// A file under the roots is private when it holds a private node, whatever
// its name (DESIGN §12): the memex reads only *.org files outside hidden
// folders, but Org's archive (x.org_archive — where an archived private
// subtree goes, its source file no longer holding it), Org text in a .txt,
// a backup under another name, a note in a hidden folder hold private
// notes too. looseScan finds them, by the gates' one rule
// (gates.PrivateSpansOf, #+SETUPFILE: lines followed), so that the filter knows their text and the
// sandbox hides them (Filter.Files); without it, a command the gates
// allowed or a human approved (a Makefile, a script) could read them
// unhidden and their text would pass the filter.

// maxLooseRead bounds the bytes read of one file to tell its privacy, as
// the gates bound theirs; a larger text file is listed as private (it
// cannot be told, so it is hidden) with no text.
const maxLooseRead = 64 << 20

// textProbe is how much of a file tells whether it is text: a NUL in it
// means it is not (memory's rule) and holds no note.
const textProbe = 8 << 10

// looseFile is what a scan learnt of one file, kept while its stamp holds.
type looseFile struct {
	stamp   fileStamp
	private bool
	texts   []string // the private subtrees' text
	// setup: the file has a #+SETUPFILE: line, so its privacy hangs on
	// another file too: it is read again at every scan.
	setup bool
}

// fileStamp tells a file's content changed without reading it.
type fileStamp struct {
	dev, ino     uint64
	size         int64
	mtime, ctime time.Time
}

func stampOf(fi fs.FileInfo) fileStamp {
	st := fileStamp{size: fi.Size(), mtime: fi.ModTime()}
	identify(fi, &st)
	return st
}

// looseScan walks the roots of s (not following links: a file a link
// reaches inside a root is met at its own place; .git folders, whose
// objects hold nothing in clear, are skipped) and returns the files
// outside the memex that hold private notes, sorted, and the text of
// their private subtrees. seen carries over what earlier scans read: a
// file is read again only when its stamp changed. home is the user's home
// folder, where a "~/" setup file is.
func looseScan(s *memory.Snapshot, seen map[string]looseFile, home string) (files, texts []string, next map[string]looseFile) {
	tags := s.PrivacyTags()
	next = make(map[string]looseFile, len(seen))
	for _, root := range s.Roots() {
		filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			switch {
			case err != nil:
				return nil // unreadable: no command reads it either
			case d.IsDir():
				if d.Name() == ".git" {
					return filepath.SkipDir
				}
				return nil
			case !d.Type().IsRegular():
				return nil
			}
			if _, memex := s.File(p); memex {
				return nil // the memex knows it (FromSnapshot)
			}
			fi, err := d.Info()
			if err != nil {
				return nil
			}
			st := stampOf(fi)
			lf, ok := seen[p]
			if !ok || lf.stamp != st || lf.setup {
				lf = readLoose(p, st, tags, home)
			}
			next[p] = lf
			if lf.private {
				files = append(files, p)
				texts = append(texts, lf.texts...)
			}
			return nil
		})
	}
	slices.Sort(files)
	return files, texts, next
}

// readLoose tells the privacy of the file at p, a "~/" setup file read
// in home.
func readLoose(p string, st fileStamp, tags []string, home string) looseFile {
	lf := looseFile{stamp: st}
	// Not through a link, and never waiting on a FIFO: either may have
	// been swapped in since the walk saw a regular file.
	f, _, err := regfile.Open(p, false)
	if err != nil {
		return lf
	}
	defer f.Close()
	head := make([]byte, textProbe)
	n, _ := io.ReadFull(f, head)
	if bytes.IndexByte(head[:n], 0) >= 0 {
		return lf // not text: no note
	}
	if st.size > maxLooseRead {
		lf.private = true // too large to tell: hidden
		return lf
	}
	rest, err := io.ReadAll(io.LimitReader(f, maxLooseRead))
	if err != nil {
		return lf
	}
	src := append(head[:n], rest...)
	lf.setup = orgsetup.Mentions(src)
	spans, _ := gates.PrivateSpansOf(p, src, tags, home)
	for _, sp := range spans {
		lf.private = true
		lf.texts = append(lf.texts, string(src[sp.Start:sp.End]))
	}
	return lf
}
