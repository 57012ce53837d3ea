package orgfeat

import (
	"strconv"
	"strings"
	"unicode/utf8"

	"pp-lsp/memory"
	"pp-lsp/orgast"
)

// What org-roam keeps beside a node's title: its aliases (:ROAM_ALIASES:)
// and its refs (:ROAM_REFS:), read as org-roam 2.2 reads them
// (org-roam-db-insert-aliases, org-roam-db-insert-refs): the property's
// value as org-entry-get gives it, split by split-string-and-unquote.

// PropertyValue is a node's property as org-entry-get reads it without
// inheritance (org--property-local-values): the value of its first KEY
// line ("nil" counting as none), then the value of every KEY+ line,
// space-separated. ok is false when neither is written.
func PropertyValue(n memory.Node, key string) (string, bool) {
	return propertyValue(n.Properties(), key)
}

// Aliases are the node's :ROAM_ALIASES:, in order, without repeats and
// without the node's own title.
func Aliases(n memory.Node) []string {
	v, ok := PropertyValue(n, "ROAM_ALIASES")
	if !ok {
		return nil
	}
	return aliasesOf(v, n.Title())
}

// Ref is one of a node's :ROAM_REFS:: a citation key (Type "cite") or a
// link (Type its scheme, Path the rest, as org-roam stores it: "https" and
// "//example.com/x").
type Ref struct {
	Type, Path string
}

// Key is the ref as the refs index keys it: "cite:KEY", or for a URL its
// scheme-less form with http and https taken as one ("url://host/path"),
// so that a note keyed by http://x finds a link to https://x.
func (r Ref) Key() string {
	switch strings.ToLower(r.Type) {
	case "cite":
		return "cite:" + r.Path
	case "http", "https":
		return "url:" + strings.TrimSuffix(r.Path, "/")
	}
	return strings.ToLower(r.Type) + ":" + r.Path
}

// Refs are the node's :ROAM_REFS:, read as org-roam does: "@key" and
// "cite:key" (also in brackets) are citation keys, "[cite:@a;@b]" a
// citation of each key, a link a URL of its scheme; anything else is
// skipped (org-roam warns "Invalid ref").
func Refs(n memory.Node) []Ref {
	v, ok := PropertyValue(n, "ROAM_REFS")
	if !ok {
		return nil
	}
	return refsOf(v)
}

// parseRef reads one word of :ROAM_REFS:.
func parseRef(s string) []Ref {
	switch {
	case strings.HasPrefix(s, "@"):
		if k := strings.TrimSpace(s[1:]); k != "" {
			return []Ref{{Type: "cite", Path: k}}
		}
		return nil
	case strings.HasPrefix(s, "[cite:"):
		// org-cite: [cite:prefix @a suffix; @b] — each reference's key.
		body := strings.TrimSuffix(s, "]")
		if i := strings.IndexByte(body, ':'); i >= 0 {
			body = body[i+1:]
		}
		var out []Ref
		for part := range strings.SplitSeq(body, ";") {
			if i := strings.IndexByte(part, '@'); i >= 0 {
				key := part[i+1:]
				if j := strings.IndexFunc(key, func(r rune) bool { return !citeKeyRune(r) }); j >= 0 {
					key = key[:j]
				}
				if key != "" {
					out = append(out, Ref{Type: "cite", Path: key})
				}
			}
		}
		return out
	}
	if scheme, rest, ok := strings.Cut(strings.TrimPrefix(s, "[["), ":"); ok && strings.EqualFold(scheme, "cite") {
		// org-ref's cite: links (org-roam reads them once org-ref
		// registers the type).
		rest, _, _ = strings.Cut(rest, "]")
		if rest = strings.TrimPrefix(rest, "&"); rest != "" {
			return []Ref{{Type: "cite", Path: rest}}
		}
		return nil
	}
	// A link of a type Org registers, read as Org reads it: the ref is its
	// type and its path ("https" and "//example.com/x").
	// (org-roam matches org-link-any-re: a bracket link, or a plain one,
	// whose path Org wants two characters long at least.)
	org := orgast.Parse([]byte(s))
	if len(org.Links) == 0 || org.Links[0].Range.Start != 0 {
		return nil
	}
	l := org.Links[0]
	switch strings.ToLower(l.Type) {
	case "fuzzy", "custom-id", "coderef", "radio", "file":
		return nil
	}
	return []Ref{{Type: strings.ToLower(l.Type), Path: l.Path}}
}

// citeKeyRune: org-cite's key characters (org-element-citation-key-re:
// word constituents and -.:?!`'/*@+|(){}<>&_^$#%~).
func citeKeyRune(r rune) bool {
	return r >= 'a' && r <= 'z' || r >= 'A' && r <= 'Z' || r >= '0' && r <= '9' || r >= utf8.RuneSelf ||
		strings.ContainsRune("-.:?!`'/*@+|(){}<>&_^$#%~", r)
}

// LinkRef is the ref a link points to, when it can be one: a URL link
// (http, https) or an org-ref style [[cite:key]] (which Org without
// org-ref reads as a fuzzy link to "cite:key"); ok is false otherwise.
func LinkRef(typ, p string) (Ref, bool) {
	switch strings.ToLower(typ) {
	case "http", "https":
		if p != "" {
			return Ref{Type: strings.ToLower(typ), Path: p}, true
		}
	case "fuzzy":
		if k, ok := cutPrefixFold(p, "cite:"); ok && k != "" {
			return Ref{Type: "cite", Path: strings.TrimPrefix(k, "&")}, true
		}
	}
	return Ref{}, false
}

// RoamTitle is the title or alias a [[roam:Title]] link names (org-roam's
// link type; Org without org-roam reads it as a fuzzy link to
// "roam:Title"); ok is false for any other link.
func RoamTitle(typ, p string) (string, bool) {
	if !strings.EqualFold(typ, "fuzzy") && !strings.EqualFold(typ, "roam") {
		return "", false
	}
	if strings.EqualFold(typ, "roam") {
		return p, p != ""
	}
	t, ok := cutPrefixFold(p, "roam:")
	return t, ok && t != ""
}

func cutPrefixFold(s, prefix string) (string, bool) {
	if len(s) >= len(prefix) && strings.EqualFold(s[:len(prefix)], prefix) {
		return s[len(prefix):], true
	}
	return "", false
}

// SplitAndUnquote splits s as Emacs's split-string-and-unquote does with
// its default separators: at runs of white space, a double-quoted part
// read as an Emacs Lisp string ("a \"b\" c" is one word; escapes as the
// reader has them) and cut from the words around it. An unterminated
// quote is read to the end (where Emacs would signal an error).
func SplitAndUnquote(s string) []string {
	var out []string
	for {
		i := strings.IndexByte(s, '"')
		if i < 0 {
			return append(out, strings.FieldsFunc(s, isLispSpace)...)
		}
		out = append(out, strings.FieldsFunc(s[:i], isLispSpace)...)
		str, n := readLispString(s[i+1:])
		out = append(out, str)
		s = s[i+1+n:]
	}
}

// isLispSpace is white space in the standard syntax table ("\\s-").
func isLispSpace(r rune) bool {
	return r == ' ' || r == '\t' || r == '\n' || r == '\r' || r == '\f'
}

// readLispString reads an Emacs Lisp string's body (after its opening
// quote): the string and how many bytes it took, closing quote included.
func readLispString(s string) (string, int) {
	var b strings.Builder
	i := 0
	for i < len(s) {
		c := s[i]
		switch {
		case c == '"':
			return b.String(), i + 1
		case c != '\\':
			b.WriteByte(c)
			i++
			continue
		}
		i++
		if i >= len(s) {
			break
		}
		e := s[i]
		i++
		switch e {
		case '\n', ' ':
			// \<newline> and \<space> are ignored.
		case 'n':
			b.WriteByte('\n')
		case 't':
			b.WriteByte('\t')
		case 'r':
			b.WriteByte('\r')
		case 'f':
			b.WriteByte('\f')
		case 'a':
			b.WriteByte(7)
		case 'b':
			b.WriteByte('\b')
		case 'v':
			b.WriteByte('\v')
		case 'e':
			b.WriteByte(27)
		case 's':
			b.WriteByte(' ')
		case 'd':
			b.WriteByte(127)
		case 'x':
			j := i
			for j < len(s) && isHex(s[j]) {
				j++
			}
			if v, err := strconv.ParseUint(s[i:j], 16, 32); err == nil && j > i {
				b.WriteRune(rune(v))
			}
			i = j
		case 'u', 'U':
			n := 4
			if e == 'U' {
				n = 8
			}
			if i+n <= len(s) {
				if v, err := strconv.ParseUint(s[i:i+n], 16, 32); err == nil {
					b.WriteRune(rune(v))
					i += n
				}
			}
		case '0', '1', '2', '3', '4', '5', '6', '7':
			j := i - 1
			for j < len(s) && j < i+2 && s[j] >= '0' && s[j] <= '7' {
				j++
			}
			v, _ := strconv.ParseUint(s[i-1:j], 8, 32)
			b.WriteRune(rune(v))
			i = j
		default:
			b.WriteByte(e)
		}
	}
	return b.String(), len(s)
}

func isHex(c byte) bool {
	return c >= '0' && c <= '9' || c >= 'a' && c <= 'f' || c >= 'A' && c <= 'F'
}
