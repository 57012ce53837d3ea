package memory

import (
	"bytes"
	"cmp"
	"os"
	"slices"
	"strconv"
	"strings"

	"pp-lsp/orgast"
)

// userHome is where "~" in a file link points.
func userHome() (string, error) { return os.UserHomeDir() }

// fileLookup holds what resolving a search inside one file needs, built
// once per file version on first use. Immutable once made. No string in it
// views the file's bytes: tables outlive their version when the next one
// shares or patches them.
type fileLookup struct {
	// titles holds (hash of normalised title, node) pairs sorted by hash
	// then node: a heading search hashes its words, finds the run of
	// equal hashes and checks the titles themselves. A slice of pairs
	// costs 16 bytes a headline, where a map of title strings cost 70.
	titles []titleEntry
	// customIDs maps a lower-cased CUSTOM_ID to its first node.
	customIDs map[string]int32
	// targets maps a <<target>>'s lower-cased words to the node holding it.
	targets map[string]int32
	// names maps a #+NAME: value to the node holding the first element
	// so named (see SearchName).
	names map[string]int32
}

func (f *fileIndex) lookupTables() *fileLookup {
	c := f.lookup
	if lk := c.v.Load(); lk != nil {
		return lk
	}
	c.mu.Lock()
	defer c.mu.Unlock()
	if lk := c.v.Load(); lk != nil {
		return lk
	}
	lk := f.buildLookup()
	c.v.Store(lk)
	return lk
}

// buildLookup makes the lookup tables of f from scratch.
func (f *fileIndex) buildLookup() *fileLookup {
	org := f.org
	lk := &fileLookup{titles: make([]titleEntry, 0, len(org.Headlines))}
	for i := range org.Headlines {
		lk.titles = append(lk.titles, titleEntry{hash: hashString(titleKey(org.Headlines[i].Title)), node: int32(i + 1)})
	}
	sortTitles(lk.titles)
	lk.customIDs = f.customIDTable()
	lk.targets = f.targetTable()
	lk.names = f.nameTable()
	return lk
}

func sortTitles(ts []titleEntry) {
	slices.SortFunc(ts, compareTitles)
}

func compareTitles(a, b titleEntry) int {
	if c := cmp.Compare(a.hash, b.hash); c != 0 {
		return c
	}
	return cmp.Compare(a.node, b.node)
}

// customIDTable maps each lower-cased CUSTOM_ID to its first node.
func (f *fileIndex) customIDTable() map[string]int32 {
	m := map[string]int32{}
	if v, ok := f.org.FileDrawer.Get("CUSTOM_ID"); ok {
		m[strings.ToLower(strings.Clone(v))] = 0
	}
	for i := range f.org.Headlines {
		if v, ok := f.org.Headlines[i].Drawer.Get("CUSTOM_ID"); ok {
			if k := strings.ToLower(v); !hasKey(m, k) {
				m[strings.Clone(k)] = int32(i + 1)
			}
		}
	}
	return m
}

// targetTable maps each <<target>>'s lower-cased words to its node.
func (f *fileIndex) targetTable() map[string]int32 {
	m := map[string]int32{}
	for _, t := range f.org.Targets {
		if t.Radio {
			continue
		}
		if k := strings.ToLower(strings.Join(strings.Fields(t.Name), " ")); !hasKey(m, k) {
			m[strings.Clone(k)] = int32(t.Node + 1)
		}
	}
	return m
}

func hasKey(m map[string]int32, k string) bool {
	_, ok := m[k]
	return ok
}

// nameTable maps each name org-link-search finds to the node of its
// first element. orgast's Names are the elements org-element names, so a
// #+NAME: line inside a block or before a blank line names nothing, as in
// Org.
func (f *fileIndex) nameTable() map[string]int32 {
	m := make(map[string]int32, len(f.org.Names))
	for _, n := range f.org.Names {
		if key, ok := SearchName(f.org.Src, n); ok && !hasKey(m, key) {
			m[strings.Clone(key)] = int32(n.Node + 1)
		}
	}
	return m
}

// SearchName returns the words a fuzzy link finds the element n (one of
// the Names of src's outline) by, and whether one does: org-link-search looks for a line "#+NAME:" (any
// case), spaces (not a tab), the words (any spaces between them) and
// nothing but blanks after, and then compares the words with the
// element's :name, case and all. So a name written as #+TBLNAME: or with
// a tab after the colon is never found, nor a name an element's later
// #+NAME: line replaced.
func SearchName(src []byte, n orgast.Named) (string, bool) {
	if !nameLine(src, n) {
		return "", false
	}
	return strings.Join(strings.Fields(n.Name), " "), true
}

// nameLine reports whether n's name is written on a line org-link-search
// looks at (see SearchName).
func nameLine(src []byte, n orgast.Named) bool {
	v := n.NameRange
	if n.Name == "" || v.Start < 0 || v.End > len(src) || v.Start > v.End {
		return false
	}
	bol := v.Start
	for bol > 0 && src[bol-1] != '\n' && src[bol-1] != '\r' {
		bol--
	}
	const kw = "#+NAME:"
	head := bytes.TrimLeft(src[bol:v.Start], " \t")
	if len(head) <= len(kw) || !bytes.EqualFold(head[:len(kw)], []byte(kw)) || len(bytes.Trim(head[len(kw):], " ")) != 0 {
		return false
	}
	eol := v.End
	for eol < len(src) && src[eol] != '\n' && src[eol] != '\r' {
		eol++
	}
	return len(bytes.Trim(src[v.End:eol], " \t")) == 0
}

// sameNames reports whether two versions of a file name the same
// elements, in the same nodes, for a fuzzy link. An edit away from every
// "#+NAME:" line can change that: a blank line after one unnames the
// element.
func sameNames(prev, f *fileIndex) bool {
	if len(prev.org.Names) != len(f.org.Names) {
		return false
	}
	for k := range f.org.Names {
		a, b := &f.org.Names[k], &prev.org.Names[k]
		if a.Name != b.Name || a.Node != b.Node || nameLine(f.org.Src, *a) != nameLine(prev.org.Src, *b) {
			return false
		}
	}
	return true
}

// patched returns the lookup tables of f, a version reindex made from
// prev (whose tables are lk) as nm says: the titles of the nodes kept are
// kept (moved), those of the nodes indexed again are added; the names are
// orgast's, already made for f. CUSTOM_IDs are looked for again only when
// the nodes indexed again carry one, before or after.
func (lk *fileLookup) patched(prev, f *fileIndex, nm *nodeMap) *fileLookup {
	oldHi := nm.hi - nm.shift
	H := f.org.Headlines
	out := &fileLookup{titles: make([]titleEntry, 0, len(H))}
	fresh := make([]titleEntry, 0, nm.hi-nm.lo)
	for i := nm.lo; i < nm.hi; i++ {
		fresh = append(fresh, titleEntry{hash: hashString(titleKey(H[i-1].Title)), node: i})
	}
	sortTitles(fresh)
	k := 0
	for _, t := range lk.titles {
		switch {
		case t.node >= nm.lo && t.node < oldHi:
			continue
		case t.node >= oldHi:
			t.node += nm.shift
		}
		for k < len(fresh) && compareTitles(fresh[k], t) < 0 {
			out.titles = append(out.titles, fresh[k])
			k++
		}
		out.titles = append(out.titles, t)
	}
	out.titles = append(out.titles, fresh[k:]...)

	customs := false
	for i := nm.lo; i < nm.hi && !customs; i++ {
		_, customs = H[i-1].Drawer.Get("CUSTOM_ID")
	}
	for i := nm.lo; i < oldHi && !customs; i++ {
		_, customs = prev.org.Headlines[i-1].Drawer.Get("CUSTOM_ID")
	}
	a, _ := f.org.FileDrawer.Get("CUSTOM_ID")
	b, _ := prev.org.FileDrawer.Get("CUSTOM_ID")
	switch {
	case customs || a != b:
		out.customIDs = f.customIDTable()
	case nm.shift == 0:
		out.customIDs = lk.customIDs
	default:
		out.customIDs = make(map[string]int32, len(lk.customIDs))
		for id, n := range lk.customIDs {
			if n >= oldHi {
				n += nm.shift
			}
			out.customIDs[id] = n
		}
	}
	out.targets = f.targetTable()

	out.names = f.nameTable()
	return out
}

type titleEntry struct {
	hash uint64
	node int32
}

// hashString is FNV-1a, 64 bits.
func hashString(s string) uint64 {
	h := uint64(14695981039346656037)
	for i := 0; i < len(s); i++ {
		h ^= uint64(s[i])
		h *= 1099511628211
	}
	return h
}

// findTitle returns the first node (in document order) whose normalised
// title is key.
func (f *fileIndex) findTitle(lk *fileLookup, key string) (int32, bool) {
	h := hashString(key)
	i, _ := slices.BinarySearchFunc(lk.titles, h, func(e titleEntry, h uint64) int { return cmp.Compare(e.hash, h) })
	for ; i < len(lk.titles) && lk.titles[i].hash == h; i++ {
		n := lk.titles[i].node
		if titleKey(f.org.Headlines[n-1].Title) == key {
			return n, true
		}
	}
	return -1, false
}

// removeStatsCookies replaces Org's statistics cookies, [3/5] or [60%],
// with a space, as org-link--normalize-string does before comparing
// headings: "[", digits, then "%" or "/" and digits, then "]".
func removeStatsCookies(s string) string {
	var b strings.Builder
	for i := 0; i < len(s); i++ {
		if s[i] == '[' {
			j := i + 1
			for j < len(s) && s[j] >= '0' && s[j] <= '9' {
				j++
			}
			ok := false
			switch {
			case j < len(s) && s[j] == '%':
				j++
				ok = true
			case j < len(s) && s[j] == '/':
				j++
				for j < len(s) && s[j] >= '0' && s[j] <= '9' {
					j++
				}
				ok = true
			}
			if ok && j < len(s) && s[j] == ']' {
				b.WriteByte(' ')
				i = j
				continue
			}
		}
		b.WriteByte(s[i])
	}
	return b.String()
}

// titleKey normalises a headline title as org-link-search compares it:
// statistics cookies removed, words split at white space, case kept.
func titleKey(title string) string {
	if strings.IndexByte(title, '[') >= 0 {
		title = removeStatsCookies(title)
	}
	if singleSpaced(title) {
		return title
	}
	return strings.Join(strings.Fields(title), " ")
}

// singleSpaced reports text whose words are already separated by single
// spaces, with none around them: its key is itself (no allocation).
func singleSpaced(s string) bool {
	prevSpace := true
	for i := 0; i < len(s); i++ {
		switch c := s[i]; {
		case c == ' ':
			if prevSpace {
				return false
			}
			prevSpace = true
		case c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v' || c >= 0x80:
			return false // Unicode spaces too: leave them to strings.Fields
		default:
			prevSpace = false
		}
	}
	return !prevSpace || s == ""
}

// resolveSearch resolves a search inside this file as org-link-search
// does, returning the node it lands in and whether it resolves. fileLink
// says the search comes from a file link's "::" part, where a number is a
// line; in a fuzzy link it is text.
//
// Searches Org evaluates with Emacs regexps ("/regexp/") or that point
// into source blocks ("(coderef)") are not checked: they resolve to the
// file node, never to a finding.
func (f *fileIndex) resolveSearch(s string, fileLink bool) (int32, bool) {
	r := f.search(s, fileLink)
	return r.node, r.ok
}

// search is resolveSearch, also saying what the answer depends on.
func (f *fileIndex) search(s string, fileLink bool) internalLink {
	miss := internalLink{node: -1}
	if strings.TrimSpace(s) == "" {
		return miss
	}
	norm := strings.Join(strings.Fields(s), " ")
	switch {
	case strings.HasPrefix(s, "#"):
		miss.dep = depCustomID
		if n, ok := f.lookupTables().customIDs[strings.ToLower(norm[1:])]; ok {
			return internalLink{node: n, ok: true, dep: depCustomID}
		}
		return miss
	case strings.HasPrefix(norm, "(") && strings.HasSuffix(norm, ")"):
		return internalLink{node: 0, ok: true}
	case len(norm) >= 2 && strings.HasPrefix(norm, "/") && strings.HasSuffix(norm, "/"):
		return internalLink{node: 0, ok: true}
	}
	if fileLink {
		if n, err := strconv.Atoi(s); err == nil {
			miss.dep = depLine
			if n < 1 || n > f.org.Lines.LineCount() {
				return miss
			}
			off := f.org.Lines.LineRange(n - 1).Start
			return internalLink{node: int32(f.org.NodeAt(off) + 1), ok: true, dep: depLine}
		}
	}
	lk := f.lookupTables()
	starred := strings.HasPrefix(s, "*")
	words := strings.Fields(strings.TrimPrefix(s, "*"))
	key := strings.Join(words, " ")
	found := internalLink{ok: true, dep: depWords, key: hashString(key)}
	miss.dep, miss.key = found.dep, found.key
	if !starred {
		if n, ok := lk.targets[strings.ToLower(key)]; ok {
			found.node = n
			return found
		}
		if n, ok := lk.names[key]; ok {
			found.node = n
			return found
		}
	}
	if key == "" {
		return miss
	}
	if n, ok := f.findTitle(lk, key); ok {
		found.node = n
		return found
	}
	return miss
}
