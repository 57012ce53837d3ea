package memory

import (
	"bytes"
	"cmp"
	"os"
	"slices"
	"strconv"
	"strings"
)

// userHome is where "~" in a file link points.
func userHome() (string, error) { return os.UserHomeDir() }

// fileLookup holds what resolving a search inside one file needs, built
// once per file version on first use.
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
	// names maps a #+NAME: value's words to the node holding the element.
	names map[string]int32
}

func (f *fileIndex) lookupTables() *fileLookup {
	f.lookup.once.Do(func() {
		org := f.org
		lk := &fileLookup{
			titles:    make([]titleEntry, 0, len(org.Headlines)),
			customIDs: map[string]int32{},
			targets:   map[string]int32{},
			names:     map[string]int32{},
		}
		if v, ok := org.FileDrawer.Get("CUSTOM_ID"); ok {
			lk.customIDs[strings.ToLower(v)] = 0
		}
		for i := range org.Headlines {
			h := &org.Headlines[i]
			lk.titles = append(lk.titles, titleEntry{hash: hashString(titleKey(h.Title)), node: int32(i + 1)})
			if v, ok := h.Drawer.Get("CUSTOM_ID"); ok {
				if _, dup := lk.customIDs[strings.ToLower(v)]; !dup {
					lk.customIDs[strings.ToLower(v)] = int32(i + 1)
				}
			}
		}
		for _, t := range org.Targets {
			if t.Radio {
				continue
			}
			k := strings.ToLower(strings.Join(strings.Fields(t.Name), " "))
			if _, dup := lk.targets[k]; !dup {
				lk.targets[k] = int32(t.Node + 1)
			}
		}
		slices.SortFunc(lk.titles, func(a, b titleEntry) int {
			if c := cmp.Compare(a.hash, b.hash); c != 0 {
				return c
			}
			return cmp.Compare(a.node, b.node)
		})
		f.scanNames(lk)
		f.lookup.v = lk
	})
	return f.lookup.v
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

// scanNames finds "#+NAME:" lines, which orgast does not report (they are
// affiliated keywords, not keyword elements): a fuzzy link may point to a
// named table or block. This is a line scan, as org-link-search's own
// regexp search is; unlike Org it does not check that an element follows
// the line, so a #+NAME: line inside a block also counts as a name. The
// cost of that difference is a missed broken-link finding, never a false one.
func (f *fileIndex) scanNames(lk *fileLookup) {
	src := f.org.Src
	for at := 0; ; {
		i := bytes.Index(src[at:], []byte("#+"))
		if i < 0 {
			return
		}
		i += at
		at = i + 2
		if i+7 > len(src) || !strings.EqualFold(string(src[i+2:i+7]), "name:") {
			continue
		}
		bol := i
		for bol > 0 && (src[bol-1] == ' ' || src[bol-1] == '\t') {
			bol--
		}
		if bol > 0 && src[bol-1] != '\n' && src[bol-1] != '\r' {
			continue
		}
		eol := i + 7
		for eol < len(src) && src[eol] != '\n' && src[eol] != '\r' {
			eol++
		}
		v := strings.Join(strings.Fields(string(src[i+7:eol])), " ")
		if _, dup := lk.names[v]; v != "" && !dup {
			lk.names[v] = int32(f.org.NodeAt(i) + 1)
		}
	}
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
	if strings.TrimSpace(s) == "" {
		return -1, false
	}
	norm := strings.Join(strings.Fields(s), " ")
	switch {
	case strings.HasPrefix(s, "#"):
		if n, ok := f.lookupTables().customIDs[strings.ToLower(norm[1:])]; ok {
			return n, true
		}
		return -1, false
	case strings.HasPrefix(norm, "(") && strings.HasSuffix(norm, ")"):
		return 0, true
	case len(norm) >= 2 && strings.HasPrefix(norm, "/") && strings.HasSuffix(norm, "/"):
		return 0, true
	}
	if fileLink {
		if n, err := strconv.Atoi(s); err == nil {
			if n < 1 || n > f.org.Lines.LineCount() {
				return -1, false
			}
			off := f.org.Lines.LineRange(n - 1).Start
			return int32(f.org.NodeAt(off) + 1), true
		}
	}
	lk := f.lookupTables()
	starred := strings.HasPrefix(s, "*")
	words := strings.Fields(strings.TrimPrefix(s, "*"))
	key := strings.Join(words, " ")
	if !starred {
		if n, ok := lk.targets[strings.ToLower(key)]; ok {
			return n, true
		}
		if n, ok := lk.names[key]; ok {
			return n, true
		}
	}
	if key == "" {
		return -1, false
	}
	return f.findTitle(lk, key)
}
