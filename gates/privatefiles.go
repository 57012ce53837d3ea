package gates

import (
	"bytes"
	"crypto/sha256"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"slices"
	"strings"
	"sync"
	"unicode/utf8"

	"pp-lsp/internal/orgsetup"
	"pp-lsp/orgast"
)

// A file under the roots is private when it holds a private node, whatever
// its name: a note, its "~" backup, its "#…#" autosave, an .org_archive,
// any text file with Org headlines in it (DESIGN §12). A node is private
// when it or an ancestor carries a privacy tag, or a #+FILETAGS: line
// anywhere in the file does; tags compare without regard to case. The
// gates read the file itself, as the action would, at the moment of the
// check: nothing about a file is remembered from one check to the next,
// only what its bytes say (textPrivacyMemo), asked again of the bytes each
// check reads.

// Span is a byte range [Start, End) of a file.
type Span struct{ Start, End int }

// PrivateSpans returns the private parts of Org text, whatever file it came
// from: each private subtree (a headline carrying one of tags, and
// everything below it), in order, and whole when the file itself is
// private — a #+FILETAGS: line carries a tag, or nothing outside the
// private subtrees is more than keywords, blank lines and the file's
// property drawer. Tags compare without regard to case. It is what the
// gates decide a file's privacy by, and what a filter cutting private text
// from an action's output can cut by.
func PrivateSpans(src []byte, tags []string) (spans []Span, whole bool) {
	if len(tags) == 0 || !mentionsAnyTag(src, tags) {
		return nil, false
	}
	f := orgast.Parse(src)
	for _, k := range f.Keywords {
		if k.Key == "FILETAGS" && anyTagFold(splitTags(k.Value), tags) {
			return []Span{{0, len(src)}}, true
		}
	}
	if fileTagsLine(src, tags) {
		return []Span{{0, len(src)}}, true
	}
	for i := 0; i < len(f.Headlines); i++ {
		h := &f.Headlines[i]
		if !anyTagFold(h.Tags, tags) && !archivedPrivate(h, tags) {
			continue
		}
		spans = append(spans, Span{h.Line.Start, h.End})
		// Its descendants are inside it.
		for i+1 < len(f.Headlines) && f.Headlines[i+1].Line.Start < h.End {
			i++
		}
	}
	if len(spans) == 0 {
		return nil, false
	}
	prev := 0
	whole = true
	for _, sp := range append(spans, Span{len(src), len(src)}) {
		if !skeleton(src[prev:sp.Start]) {
			whole = false
			break
		}
		prev = sp.End
	}
	return spans, whole
}

// PrivateSpansOf is PrivateSpans of the file at path (absolute), whose
// bytes are src, with its #+SETUPFILE: lines followed as the gates follow
// them (internal/orgsetup; home expands ~/): a file a setup file makes
// private, or whose setup file cannot be judged (a URL, a chain too deep,
// one too large or no regular file), is private as a whole. It is the
// rule for a filter that knows which file the text is.
func PrivateSpansOf(path string, src []byte, tags []string, home string) (spans []Span, whole bool) {
	spans, whole = PrivateSpans(src, tags)
	if whole || len(tags) == 0 || !orgsetup.Mentions(src) {
		return spans, whole
	}
	r := orgsetup.Follow(path, src, home, tags, readSetupFile)
	if r.Private || r.Unknown != "" {
		return []Span{{0, len(src)}}, true
	}
	return spans, whole
}

// readSetupFile is the gates' orgsetup.Reader, bounded as a note is.
func readSetupFile(p string) ([]byte, error) {
	return orgsetup.ReadFile(p, maxPrivacyScan)
}

// archivedPrivate says whether a headline was private where it was
// archived from: org-archive-subtree keeps the tags it inherited there
// (a parent's, the file's #+FILETAGS:) in its ARCHIVE_ITAGS property,
// and the .org_archive file it lands in carries none of them.
func archivedPrivate(h *orgast.Headline, tags []string) bool {
	if h.Drawer == nil {
		return false
	}
	for _, p := range h.Drawer.Properties {
		if strings.EqualFold(p.Key, "ARCHIVE_ITAGS") && anyTagFold(splitTags(p.Value), tags) {
			return true
		}
	}
	return false
}

// splitTags splits a #+FILETAGS: value (":a:b:" or "a b") into tags.
func splitTags(v string) []string {
	return strings.FieldsFunc(v, func(r rune) bool { return r == ':' || r == ' ' || r == '\t' })
}

func anyTagFold(have, tags []string) bool {
	for _, h := range have {
		for _, t := range tags {
			if strings.EqualFold(strings.Trim(t, ":"), h) {
				return true
			}
		}
	}
	return false
}

// mentionsAnyTag says whether src holds the text of one of tags, without
// regard to case: a file that does not can hold no private node, and is
// not parsed.
func mentionsAnyTag(src []byte, tags []string) bool {
	for _, t := range tags {
		if t = strings.Trim(t, ":"); t != "" && containsFold(src, t) {
			return true
		}
	}
	return false
}

// containsFold is a case-insensitive bytes.Contains for a needle whose
// case folding keeps its length (ASCII, and most letters); anything else
// is searched in a lower-cased copy.
func containsFold(hay []byte, needle string) bool {
	ascii := true
	for i := 0; i < len(needle); i++ {
		if needle[i] >= utf8.RuneSelf {
			ascii = false
			break
		}
	}
	if !ascii {
		return bytes.Contains(bytes.ToLower(hay), []byte(strings.ToLower(needle)))
	}
	lo, up := lowerASCII(needle[0]), upperASCII(needle[0])
	n := len(needle)
	for i := 0; i+n <= len(hay); {
		j := indexEither(hay[i:len(hay)-n+1], lo, up)
		if j < 0 {
			return false
		}
		i += j
		if asciiEqualFold(hay[i:i+n], needle) {
			return true
		}
		i++
	}
	return false
}

func lowerASCII(c byte) byte {
	if c >= 'A' && c <= 'Z' {
		return c + 'a' - 'A'
	}
	return c
}

func upperASCII(c byte) byte {
	if c >= 'a' && c <= 'z' {
		return c - ('a' - 'A')
	}
	return c
}

// indexEither is the first index of a or b in s.
func indexEither(s []byte, a, b byte) int {
	i := bytes.IndexByte(s, a)
	if a == b {
		return i
	}
	lim := s
	if i >= 0 {
		lim = s[:i]
	}
	if j := bytes.IndexByte(lim, b); j >= 0 {
		return j
	}
	return i
}

func asciiEqualFold(b []byte, s string) bool {
	for i := 0; i < len(s); i++ {
		if lowerASCII(b[i]) != lowerASCII(s[i]) {
			return false
		}
	}
	return true
}

// fileTagsLine finds a #+FILETAGS: line carrying a tag anywhere in src,
// whatever Org would make of its place: a privacy rule errs on the side of
// hiding.
func fileTagsLine(src []byte, tags []string) bool { return orgsetup.FileTagsLine(src, tags) }

// skeleton says whether text holds nothing a reader would call content:
// blank lines, #+KEYWORD: lines and a property drawer.
func skeleton(text []byte) bool {
	inDrawer := false
	for _, line := range bytes.Split(text, []byte("\n")) {
		t := bytes.TrimSpace(line)
		switch {
		case len(t) == 0:
		case inDrawer:
			if bytes.EqualFold(t, []byte(":END:")) {
				inDrawer = false
			}
		case bytes.EqualFold(t, []byte(":PROPERTIES:")):
			inDrawer = true
		case bytes.HasPrefix(t, []byte("#+")) && bytes.IndexByte(t, ':') > 2:
		default:
			return false
		}
	}
	return true
}

// mayName says whether a word, read as a path from the directory dir, may
// name an existing file under the roots: false when it lies outside them,
// or when the listing of the folder it would be in shows no such entry.
// Most words of a command or a program are not files; this tells so
// without asking the file system about each.
func (e *Env) mayName(w, dir string) bool {
	if hasGlob(w) {
		// A glob of file names; program text (an awk program, a format)
		// is not one.
		return !strings.ContainsAny(w, " \t\n;()=<>|&\"'")
	}
	if !strings.ContainsRune(w, '/') && w != "." && w != ".." && w != "" && w[0] != '~' && w[0] != '$' {
		// A name in dir itself: dir is canonical, so only its listing is
		// asked.
		if len(w) > 255 {
			return false
		}
		if i, _ := e.rootOf(dir); i < 0 {
			return false
		}
		exists, known := e.view().hasName(dir, w)
		return exists || !known
	}
	p := w
	if strings.HasPrefix(w, "~") || strings.HasPrefix(w, "$") {
		x, ok := e.expand(w)
		if !ok {
			return false // known only when it runs: judged as such elsewhere
		}
		p = x
	}
	if !filepath.IsAbs(p) {
		p = filepath.Join(dir, p)
	}
	p = filepath.Clean(p)
	i, rel := e.rootOf(p)
	if i < 0 {
		return false // private notes are under the roots
	}
	if rel == "." {
		return true
	}
	// Down from the root, each folder's listing must hold the next name:
	// one listing per folder and check, and none for a folder that is not
	// there.
	d := e.roots[i]
	for rel != "" {
		name, rest, _ := strings.Cut(rel, "/")
		if len(name) > 255 {
			return false // longer than any file name can be
		}
		exists, known := e.view().hasName(d, name)
		if !known {
			return true
		}
		if !exists {
			return false
		}
		d, rel = d+"/"+name, rest
	}
	return true
}

// privacyState is what the gates know about one path's privacy.
type privacyState struct {
	private bool
	whole   bool   // the file is private as a whole
	dir     bool   // a directory: its files are judged one by one
	why     string // how it is private
	unknown string // why its privacy cannot be told (too large)
	size    int64  // the bytes read to tell it
}

// maxPrivacyScan bounds the bytes read of one file to tell its privacy; a
// larger file is not read by a command without a human's approval.
const maxPrivacyScan = 64 << 20

// filePrivacy tells the privacy of the file at the canonical path abs, as
// it is on disk now.
func (e *Env) filePrivacy(abs string) privacyState { return e.filePrivacyRead(abs, nil) }

// filePrivacyRead is filePrivacy of a file the caller may have read
// already: data, when not nil, is the whole of the regular file at abs
// (fewer than maxPrivacyScan bytes), which is then not read again.
func (e *Env) filePrivacyRead(abs string, data []byte) privacyState {
	if e.check == nil {
		return e.filePrivacyUncached(abs, data)
	}
	memo := &e.check.privacy
	if st, ok := memo.get(abs); ok {
		return st
	}
	st := e.filePrivacyUncached(abs, data)
	memo.put(abs, st)
	return st
}

// filePrivacyUncached is the privacy of the file at abs: private if
// either the disk's copy or an editor buffer open over it holds a private
// node (a tag removed in an unsaved buffer hides nothing the disk holds; a
// tag added in one is private at once).
func (e *Env) filePrivacyUncached(abs string, data []byte) privacyState {
	return e.withBuffer(abs, e.diskPrivacy(abs, data))
}

// withBuffer adds to st, the privacy of the disk's copy of the file at
// the canonical path abs, that of an editor buffer the memex holds open
// over it (under the name the memex gives it, or abs).
func (e *Env) withBuffer(abs string, st privacyState) privacyState {
	if st.dir || st.private && st.whole {
		return st
	}
	b, ok := e.world.Memex.(bufferTexts)
	if !ok {
		return st
	}
	buf, open := b.BufferText(e.memexName(abs))
	if !open {
		if buf, open = b.BufferText(abs); !open {
			return st
		}
	}
	bs := e.setupFilePrivacy(abs, buf, e.privacyOfText(buf))
	switch {
	case bs.private && (!st.private || bs.whole):
		bs.why = "in the editor buffer open over it: " + bs.why
		bs.size = max(st.size, int64(len(buf)))
		if bs.unknown == "" {
			bs.unknown = st.unknown
		}
		return bs
	case st.unknown == "" && bs.unknown != "":
		st.unknown = bs.unknown
	}
	return st
}

// memexName is the memex's name for the file at the canonical path abs:
// under its root as the world gives it (the memex does not resolve a
// root's symlinks).
func (e *Env) memexName(abs string) string {
	if i, rel := e.rootOf(abs); i >= 0 && i < len(e.world.Roots) {
		if root, err := filepath.Abs(e.world.Roots[i]); err == nil {
			return filepath.Join(root, rel)
		}
	}
	return abs
}

// diskPrivacy is the privacy of the disk's copy of the file at abs (data,
// when not nil, its bytes).
func (e *Env) diskPrivacy(abs string, data []byte) privacyState {
	if data != nil {
		ps := e.privacyOfText(data)
		ps.size = int64(len(data))
		return e.setupFilePrivacy(abs, data, ps)
	}
	kind, size := statKind(abs)
	switch kind {
	case kindDir:
		return privacyState{dir: true}
	case kindRegular:
	case kindOther:
		// A FIFO, a socket or a device in the roots gives what another
		// process writes into it, or never ends (a symlink to /dev/zero is
		// judged as that, a FIFO as nothing): what a read gets is known
		// only when it runs. A read may be of a regular file or a folder.
		return privacyState{unknown: "no regular file (a FIFO, a socket or a device): what it gives is known only when it runs"}
	default:
		return privacyState{} // nothing there: no note
	}
	if size > maxPrivacyScan {
		return privacyState{unknown: fmt.Sprintf("a file of %d MiB, too large to check for private notes", size>>20)}
	}
	data, err := readBounded(abs, maxPrivacyScan)
	if err != nil {
		return privacyState{}
	}
	ps := e.privacyOfText(data)
	ps.size = int64(len(data))
	return e.setupFilePrivacy(abs, data, ps)
}

// setupFilePrivacy adds what a file's #+SETUPFILE: lines make of its
// privacy, by the one rule of internal/orgsetup: Org reads the keywords of
// the file each names (a path from the file's folder, ~, or a URL it
// fetches) as the file's own, so a #+FILETAGS: there carrying a privacy
// tag makes the whole file private (Org 9.5: org-file-tags). A URL, or a
// chain deeper than orgsetup.MaxDepth, cannot be read here: the file's
// privacy is then unknown.
func (e *Env) setupFilePrivacy(abs string, data []byte, ps privacyState) privacyState {
	if ps.private || len(e.privacyTags) == 0 || !orgsetup.Mentions(data) {
		return ps
	}
	r := orgsetup.Follow(abs, data, e.home, e.privacyTags, readSetupFile)
	switch {
	case r.Private:
		return privacyState{private: true, whole: true, size: ps.size,
			why: "private as a whole, by the #+FILETAGS: of its #+SETUPFILE: " + printable(r.Setup)}
	case r.Unknown != "":
		ps.unknown = "its #+SETUPFILE: " + printable(r.Setup) + " cannot be read before it runs, and may make it private"
	}
	return ps
}

// privacyOfText tells the privacy of a file's bytes.
func (e *Env) privacyOfText(data []byte) privacyState {
	if len(e.privacyTags) == 0 || !mentionsAnyTag(data, e.privacyTags) {
		return privacyState{} // PrivateSpans' own first test, without the memo
	}
	key := sha256.Sum256(data)
	if st, ok := e.privacyMemo.get(key); ok {
		return st
	}
	var st privacyState
	if spans, whole := PrivateSpans(data, e.privacyTags); len(spans) > 0 {
		st = privacyState{private: true, whole: whole, why: "a headline tagged " + strings.Join(e.privacyTags, " or ")}
		if whole {
			st.why = "private as a whole"
		}
	}
	e.privacyMemo.put(key, st)
	return st
}

// textPrivacyMemo remembers the privacy of file contents that mention a
// privacy tag, so that a note read by one check is not parsed again by the
// next: a search over the notes reads the same files check after check.
//
// It is keyed by the bytes themselves (their SHA-256: the memo keeps no
// note's text, and two texts with one key are beyond anyone's reach), read
// from the file at each check as before; only the parse they are a pure
// function of is remembered (with the environment's tags, fixed for its
// life). A key of the file's identity and times (device, inode, size,
// mtime, ctime) would also save the read, but can go stale in ways that
// let a private note through: a change within one tick of the coarse
// clock the kernel stamps ctime with, a clock set back, a write through a
// shared mapping to a page already dirty (no new stamp), a network file
// system whose stat answers from an attribute cache for up to a minute
// while open() sees the new bytes. Made private by any of these, a note
// would still read as public. Keyed by content, the memo can only ever
// give the answer the parse would.
type textPrivacyMemo struct {
	mu sync.Mutex
	m  map[[sha256.Size]byte]privacyState
}

// maxMemoTexts bounds the memo: past it, it starts again empty.
const maxMemoTexts = 4096

func (m *textPrivacyMemo) get(key [sha256.Size]byte) (privacyState, bool) {
	if m == nil {
		return privacyState{}, false
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	st, ok := m.m[key]
	return st, ok
}

func (m *textPrivacyMemo) put(key [sha256.Size]byte, st privacyState) {
	if m == nil {
		return
	}
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.m == nil || len(m.m) >= maxMemoTexts {
		m.m = map[[sha256.Size]byte]privacyState{}
	}
	m.m[key] = st
}

// walkFilter narrows a recursive read to the files a search program would
// open: its include and exclude globs on base names, as grep's --include,
// --exclude and --exclude-dir, rg's --glob and --iglob, and find's -name
// apply them. Anything it cannot read exactly it leaves out, so that the
// walk reads more, never less, than the program.
type walkFilter struct {
	include, exclude, excludeDirs []string
	fold                          bool
	// excludeDirsToo: an exclude glob matching a directory's name skips
	// the directory (rg's globs; grep's --exclude names files only).
	excludeDirsToo bool
	// rules, when set, are grep's --include and --exclude or rg's globs in
	// the order given, and replace include and exclude: the last rule that
	// matches a name decides. A name none matches is read unless readNone:
	// rg reads none once it has a glob that includes, grep when its first
	// such option is --include (grep(1) 3.8; 'grep -r --exclude=x
	// --include=*.txt' reads every Org file, 'rg -g !*.org -g private.org'
	// the private note).
	rules    []globRule
	readNone bool
}

// globRule is one include or exclude glob of a search's walkFilter.
type globRule struct {
	pat           string
	include, fold bool
}

// linksOut returns the symbolic links below dir (as a walk that does not
// follow them meets them) whose targets lie outside the roots, each with
// its target; complete is false when the walk stopped at its bound.
func (e *Env) linksOut(dir string, f walkFilter) (links [][2]string, complete bool) {
	entries := 0
	err := filepath.WalkDir(dir, func(p string, d fs.DirEntry, err error) error {
		if err != nil {
			return nil
		}
		if entries++; entries > maxWalkEntries {
			return filepath.SkipAll
		}
		switch {
		case d.IsDir() && p != dir && (d.Name() == ".git" || f.skipsDir(d.Name())):
			return filepath.SkipDir
		case d.Type()&fs.ModeSymlink != 0:
			target, err := filepath.EvalSymlinks(p)
			if err != nil {
				return nil
			}
			if fi, err := os.Stat(target); err != nil || fi.IsDir() && f.skipsDir(d.Name()) || !fi.IsDir() && f.skipsFile(d.Name()) {
				return nil
			}
			if i, _ := e.rootOf(target); i < 0 {
				links = append(links, [2]string{p, target})
			}
		}
		return nil
	})
	return links, err == nil && entries <= maxWalkEntries
}

// walkFilter builds the filter of a parsed search command.
func (pc parsedCmd) walkFilter(verb string) walkFilter {
	f := walkFilter{excludeDirsToo: verb == "rg", rules: []globRule{}}
	for _, v := range pc.values {
		pat := v.val
		switch {
		case verb == "rg" && (v.opt == "-g" || v.opt == "--glob" || v.opt == "--iglob"):
			neg := strings.HasPrefix(pat, "!")
			pat = strings.TrimPrefix(pat, "!")
			if strings.Contains(strings.TrimSuffix(pat, "/"), "/") {
				if !neg {
					// A path glob that includes: which names it takes back
					// from an exclude before it is not told here, so it
					// is read as taking every name.
					f.rules = append(f.rules, globRule{pat: "*", include: true})
				}
				continue
			}
			f.rules = append(f.rules, globRule{pat: pat, include: !neg, fold: v.opt == "--iglob"})
			f.readNone = f.readNone || !neg
		case verb != "rg" && (v.opt == "--include" || v.opt == "--exclude"):
			if len(f.rules) == 0 {
				f.readNone = v.opt == "--include"
			}
			f.rules = append(f.rules, globRule{pat: pat, include: v.opt == "--include"})
		case verb != "rg" && v.opt == "--exclude-dir":
			f.excludeDirs = append(f.excludeDirs, pat)
		}
	}
	pats := slices.Clone(f.excludeDirs)
	for _, r := range f.rules {
		pats = append(pats, r.pat)
	}
	for _, p := range pats {
		if _, err := path.Match(p, "x"); err != nil || strings.Contains(p, "{") || strings.Contains(p, "**") {
			return walkFilter{} // a pattern Go reads differently: filter nothing
		}
	}
	return f
}

func (f walkFilter) match(pats []string, name string) bool {
	if f.fold {
		name = strings.ToLower(name)
	}
	for _, p := range pats {
		if f.fold {
			p = strings.ToLower(p)
		}
		if ok, _ := path.Match(strings.TrimSuffix(p, "/"), name); ok {
			return true
		}
	}
	return false
}

// lastRule is the last of f.rules matching name, if one does.
func (f walkFilter) lastRule(name string) (globRule, bool) {
	for i := len(f.rules) - 1; i >= 0; i-- {
		r := f.rules[i]
		p, n := strings.TrimSuffix(r.pat, "/"), name
		if r.fold {
			p, n = strings.ToLower(p), strings.ToLower(n)
		}
		if ok, _ := path.Match(p, n); ok {
			return r, true
		}
	}
	return globRule{}, false
}

// skipsFile says whether the program would leave out a file of this name.
func (f walkFilter) skipsFile(name string) bool {
	if f.rules != nil {
		if r, ok := f.lastRule(name); ok {
			return !r.include
		}
		return f.readNone
	}
	if len(f.include) > 0 && !f.match(f.include, name) {
		return true
	}
	return f.match(f.exclude, name)
}

// skipsDir says whether the program would not descend into a directory.
func (f walkFilter) skipsDir(name string) bool {
	if f.match(f.excludeDirs, name) {
		return true
	}
	if !f.excludeDirsToo {
		return false
	}
	if f.rules != nil {
		r, ok := f.lastRule(name)
		return ok && !r.include
	}
	return f.match(f.exclude, name)
}

// Limits of a walk below a directory; past them its privacy is not told
// (the command then needs a human).
const (
	maxWalkEntries = 20000
	maxWalkBytes   = 256 << 20
)

// Limits of all the walks of one check together: a command that names
// many folders, or many relative files from a folder known only when it
// runs (each a walk of the roots), is checked in bounded time. A few whole
// walks fit; past them the walks are incomplete and the shell analysis
// refuses the command (padding a private read with a thousand names must
// not turn its deny into an ask).
const (
	maxCheckWalkEntries = 2 * maxWalkEntries
	maxCheckWalkBytes   = 2 * maxWalkBytes
)

// privateBelow returns the private files below the canonical directory
// dir that a search with filter f would read (at most a few), and whether
// the walk saw everything. Symlinks are followed as a search that follows
// them would, each directory once; .git directories hold no notes in clear
// and are not read. match, when set, leaves out the private files of
// which the search can print nothing.
func (e *Env) privateBelow(dir string, f walkFilter, match func([]byte) bool) (found []string, complete bool) {
	entries, bytesRead := 0, int64(0)
	maxEntries, maxBytes := maxWalkEntries, int64(maxWalkBytes)
	if c := e.check; c != nil {
		maxEntries = min(maxEntries, maxCheckWalkEntries-c.walkedEntries)
		maxBytes = min(maxBytes, maxCheckWalkBytes-c.walkedBytes)
		if maxEntries <= 0 || maxBytes <= 0 {
			c.walksSpent = true
			return nil, false
		}
		defer func() { c.walkedEntries, c.walkedBytes = c.walkedEntries+entries, c.walkedBytes+bytesRead }()
	}
	seen := map[string]bool{}
	var walk func(d string) bool
	walk = func(d string) bool {
		if seen[d] {
			return true
		}
		seen[d] = true
		list, err := os.ReadDir(d)
		if err != nil {
			return true
		}
		for _, de := range list {
			if entries++; entries > maxEntries || bytesRead > maxBytes {
				if e.check != nil && (entries > maxEntries && maxEntries < maxWalkEntries || bytesRead > maxBytes && maxBytes < maxWalkBytes) {
					e.check.walksSpent = true
				}
				return false
			}
			p := filepath.Join(d, de.Name())
			t := de.Type()
			if t&fs.ModeSymlink != 0 {
				target, err := filepath.EvalSymlinks(p)
				if err != nil {
					continue
				}
				if i, _ := e.rootOf(target); i < 0 {
					continue // outside the roots: not the memex's, and asked for anyway
				}
				fi, err := os.Stat(target)
				if err != nil {
					continue
				}
				t = fi.Mode().Type()
				p = target
			}
			switch {
			case t.IsDir():
				if de.Name() == ".git" || f.skipsDir(de.Name()) {
					continue
				}
				if !walk(p) {
					return false
				}
			case t.IsRegular():
				if f.skipsFile(de.Name()) {
					continue
				}
				var data []byte
				if match != nil {
					// A search that can print nothing of the file: its
					// privacy does not matter, and is not worked out.
					if b, err := readBounded(p, maxPrivacyScan); err == nil {
						if !match(b) {
							bytesRead += int64(len(b))
							continue
						}
						if int64(len(b)) < maxPrivacyScan {
							data = b // read whole: its privacy is told from these bytes
						}
					}
				}
				st := e.filePrivacyRead(p, data)
				bytesRead += st.size
				if st.unknown != "" {
					return false
				}
				if st.private {
					found = append(found, p)
					if len(found) >= 4 {
						return true
					}
				}
			}
		}
		return true
	}
	complete = walk(dir)
	return found, complete
}

// fileKind is what statKind found at a path.
type fileKind uint8

const (
	kindNone fileKind = iota // nothing, or nothing that can be looked at
	kindDir
	kindRegular
	kindOther // a device, a pipe, a socket
)
