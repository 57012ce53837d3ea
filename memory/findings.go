package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"

	"pp-lsp/orgast"
)

// Finding is something in the memex a user should fix, with its place.
// The language server shows findings as diagnostics; `index` counts them.
type Finding struct {
	// Path is the file (or folder) at fault, absolute.
	Path string
	// Range is the span in the file's bytes (zero for a whole file).
	Range orgast.Range
	// Line is the 0-based line where Range starts.
	Line     int
	Severity orgast.Severity
	// Code is stable: one of the Code* constants.
	Code    string
	Message string
	// Related are the other places involved: the other carriers of a
	// duplicate ID.
	Related []Location
}

// Location is a place in a file of the memex: its absolute path, the
// span of bytes, and the 0-based line where the span starts.
type Location struct {
	Path  string
	Range orgast.Range
	Line  int
}

// Finding codes.
const (
	// CodeDuplicateID: an :ID: value carried by more than one node.
	CodeDuplicateID = "duplicate-id"
	// CodeBrokenIDLink: an id link whose ID is nowhere in the memex.
	CodeBrokenIDLink = "broken-id-link"
	// CodeBrokenFileLink: a file link whose file does not exist.
	CodeBrokenFileLink = "broken-file-link"
	// CodeBrokenSearch: a file link whose file exists but whose "::"
	// search (*heading, #custom-id, line, text) finds nothing there.
	CodeBrokenSearch = "broken-link-search"
	// CodeBrokenInternalLink: a [[*heading]], [[#custom-id]] or
	// [[fuzzy]] link that resolves to nothing in its own file.
	CodeBrokenInternalLink = "broken-internal-link"
	// CodeFileTooLarge: an Org file over the size limit, left out.
	CodeFileTooLarge = "file-too-large"
	// CodeUnreadable: a file that could not be read, left out.
	CodeUnreadable = "unreadable"
	// CodeUnreadableFolder: a folder that could not be read; its files
	// are left out.
	CodeUnreadableFolder = "unreadable-folder"
	// CodeNotText: a *.org file that is not text (CheckText), left out.
	CodeNotText = "not-text"
)

// SeverityWarning and SeverityError are the LSP severities findings use.
const (
	SeverityError   = orgast.SeverityError
	SeverityWarning = orgast.SeverityWarning
)

// FileFindings returns the findings in one file, in document order.
func (s *Snapshot) FileFindings(path string) []Finding {
	out, _ := s.FileFindingsN(path, -1)
	return out
}

// FileFindingsN returns the first limit findings in one file, in document
// order (all of them when limit < 0), and how many more there are: what a
// file with 150,000 broken links costs is counting them, not describing
// each. A file link's target is asked of the disk once per call.
func (s *Snapshot) FileFindingsN(path string, limit int) ([]Finding, int) {
	e, ok := s.entry(filepath.Clean(path))
	if !ok {
		var out []Finding
		for _, f := range s.skipped {
			if f.Path == path {
				out = append(out, f)
			}
		}
		return out, 0
	}
	f := e.idx
	st := s.statusOf(f)
	var out []Finding
	for k, c := range f.ids {
		carriers := st.carriers[k]
		if carriers < 2 {
			continue
		}
		fd := Finding{Path: f.path, Severity: SeverityError, Code: CodeDuplicateID}
		fd.Range = idRange(f, c.node)
		fd.Line = f.org.Lines.Line(fd.Range.Start)
		for _, other := range s.NodesByID(c.id) {
			if other.f.path == f.path && other.i == c.node {
				continue
			}
			r := idRange(other.f, other.i)
			fd.Related = append(fd.Related, Location{Path: other.f.path, Range: r, Line: other.f.org.Lines.Line(r.Start)})
		}
		fd.Message = fmt.Sprintf("the ID %s is carried by %d nodes; an ID must name one node", c.id, carriers)
		out = append(out, fd)
	}
	// The duplicate IDs are all kept; of the links, found in document
	// order, only the first limit are described: the first limit of all
	// in document order are among those.
	dups := len(out)
	more := 0
	exists := map[string]bool{}
	var internal []internalLink
	for i := range f.links {
		l := &f.org.Links[i]
		fd := Finding{Path: f.path, Range: l.Range, Severity: SeverityWarning}
		switch li := &f.links[i]; {
		case li.kind == linkID:
			if st.links[i] != LinkBroken {
				continue
			}
			fd.Code = CodeBrokenIDLink
		case li.kind == linkInternal, li.kind == linkFile && li.target == f.path && !isRemote(l.Path):
			if internal == nil {
				internal = f.internalLinks()
			}
			if internal[i].ok {
				continue
			}
			fd.Code = CodeBrokenSearch
			if li.kind == linkInternal {
				fd.Code = CodeBrokenInternalLink
			}
		case li.kind == linkFile:
			switch st.links[i] {
			case LinkSearchBroken:
				fd.Code = CodeBrokenSearch
			case linkOnDisk:
				ok, seen := exists[li.target]
				if !seen {
					_, err := os.Stat(li.target)
					ok = err == nil
					exists[li.target] = ok
				}
				if ok {
					continue
				}
				fd.Code = CodeBrokenFileLink
			default:
				continue
			}
		default:
			continue
		}
		if limit >= 0 && len(out)-dups >= limit {
			more++
			continue
		}
		switch fd.Code {
		case CodeBrokenIDLink:
			fd.Message = fmt.Sprintf("no node in the memex carries the ID %s", l.Path)
		case CodeBrokenInternalLink:
			fd.Message = fmt.Sprintf("nothing in this file matches the link [[%s]]", l.Raw)
		case CodeBrokenSearch:
			fd.Message = fmt.Sprintf("nothing in %s matches the search ::%s", l.Path, l.Search)
		case CodeBrokenFileLink:
			fd.Message = fmt.Sprintf("the file %s does not exist", l.Path)
		}
		fd.Line = f.org.Lines.Line(l.Range.Start)
		out = append(out, fd)
	}
	slices.SortStableFunc(out, func(a, b Finding) int { return a.Range.Start - b.Range.Start })
	if limit >= 0 && len(out) > limit {
		more += len(out) - limit
		out = out[:limit:limit]
	}
	return out, more
}

// idRange is the span of the :ID: value of node i (its drawer line).
func idRange(f *fileIndex, i int32) orgast.Range {
	var props []orgast.Property
	if i == 0 {
		if f.org.FileDrawer != nil {
			props = f.org.FileDrawer.Properties
		}
	} else {
		props = f.org.Headlines[i-1].Properties()
	}
	for _, p := range props {
		if strings.EqualFold(p.Key, "ID") {
			return p.ValueRange
		}
	}
	return orgast.Range{}
}

// LinkStatus is what resolving a link found.
type LinkStatus uint8

const (
	// LinkExternal: a link Org opens outside the memex (http, mailto…).
	LinkExternal LinkStatus = iota
	// LinkResolved: the target exists; Target is set when it is a node.
	LinkResolved
	// LinkBroken: the target (ID, file or heading) does not exist.
	LinkBroken
	// LinkSearchBroken: the file exists but its "::" search finds nothing.
	LinkSearchBroken
	// LinkUnchecked: the target cannot be checked here (an Emacs regexp
	// search, a coderef, a remote file).
	LinkUnchecked
)

// Resolution is the target of one link.
type Resolution struct {
	// Status says whether the target exists.
	Status LinkStatus
	// Target is the node the link lands in, when it lands in the memex
	// (or, for a link of a LooseFile into that file itself, in it).
	Target Node
	// Path is the absolute target path of a file link.
	Path string
	// Reason says why a link is broken, in one sentence.
	Reason string
}

// ResolveLink resolves link i of the file at path (an index into the
// file's Org().Links) as Org would follow it.
func (s *Snapshot) ResolveLink(path string, i int) Resolution {
	e, ok := s.entry(filepath.Clean(path))
	if !ok || i < 0 || i >= len(e.idx.links) {
		return Resolution{Status: LinkBroken, Reason: fmt.Sprintf("%s has no link %d", path, i)}
	}
	return s.resolve(e.idx, i)
}

// ResolveLinkIn resolves link i of file's file — a file of the memex or a
// LooseFile — by the same rules as ResolveLink: id links and file links
// into the memex, links within the file into the file itself. A nil
// Snapshot resolves as an empty memex would.
func (s *Snapshot) ResolveLinkIn(file Node, i int) Resolution {
	if !file.Valid() || i < 0 || i >= len(file.f.links) {
		return Resolution{Status: LinkBroken, Reason: fmt.Sprintf("the file has no link %d", i)}
	}
	return s.resolve(file.f, i)
}

// resolve resolves link i of f (s may be nil: no memex).
func (s *Snapshot) resolve(f *fileIndex, i int) Resolution {
	l := &f.org.Links[i]
	li := &f.links[i]
	switch li.kind {
	case linkID:
		if s != nil {
			if n, ok := s.NodeByID(l.Path); ok {
				return Resolution{Status: LinkResolved, Target: n, Path: n.f.path}
			}
		}
		return Resolution{Status: LinkBroken, Reason: fmt.Sprintf("no node in the memex carries the ID %s", l.Path)}
	case linkInternal:
		in := f.internalLinks()[i]
		if !in.ok {
			return Resolution{Status: LinkBroken, Path: f.path, Reason: fmt.Sprintf("nothing in this file matches the link [[%s]]", l.Raw)}
		}
		return Resolution{Status: LinkResolved, Target: Node{f, max(in.node, 0)}, Path: f.path}
	case linkFile:
		return s.resolveFileLink(f, i)
	case linkRadio:
		return Resolution{Status: LinkResolved, Path: f.path, Target: Node{f, int32(l.Node + 1)}}
	case linkCoderef:
		return Resolution{Status: LinkUnchecked, Path: f.path}
	}
	return Resolution{Status: LinkExternal}
}

// resolveFileLink resolves a file link: into the memex when the target is
// one of its files, else on disk (the file must exist; its search is not
// checked, since only memex files are parsed).
func (s *Snapshot) resolveFileLink(f *fileIndex, i int) Resolution {
	l := &f.org.Links[i]
	li := &f.links[i]
	r := Resolution{Path: li.target}
	if isRemote(l.Path) {
		r.Status = LinkUnchecked
		return r
	}
	var target *fileIndex
	if li.target == f.path {
		target = f
	} else if s != nil {
		if e, ok := s.entry(li.target); ok {
			target = e.idx
		}
	}
	if target == nil {
		if _, err := os.Stat(li.target); err != nil {
			r.Status = LinkBroken
			r.Reason = fmt.Sprintf("the file %s does not exist", l.Path)
			return r
		}
		r.Status = LinkResolved
		return r
	}
	if !l.HasSearch || strings.TrimSpace(l.Search) == "" {
		return Resolution{Status: LinkResolved, Target: Node{target, 0}, Path: target.path}
	}
	n, ok := target.resolveSearch(l.Search, true)
	if !ok {
		r.Status = LinkSearchBroken
		r.Reason = fmt.Sprintf("nothing in %s matches the search ::%s", l.Path, l.Search)
		return r
	}
	return Resolution{Status: LinkResolved, Target: Node{target, max(n, 0)}, Path: target.path}
}

// isRemote reports a TRAMP path ("/ssh:host:/x"), which is never touched.
func isRemote(p string) bool {
	if !strings.HasPrefix(p, "/") {
		return false
	}
	first, _, _ := strings.Cut(p[1:], "/")
	return strings.Contains(first, ":")
}
