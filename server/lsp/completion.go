package lsp

import (
	"cmp"
	"context"
	"fmt"
	"maps"
	"regexp"
	"slices"
	"strings"
	"unicode"
	"unicode/utf8"

	"go.lsp.dev/jsonrpc2"
	"go.lsp.dev/protocol"

	"pp-lsp/memory/orgfeat"
)

// completionList is an LSP CompletionList.
type completionList struct {
	IsIncomplete bool             `json:"isIncomplete"`
	Items        []completionItem `json:"items"`
}

// completionItem is an LSP CompletionItem.
type completionItem struct {
	Label      string            `json:"label"`
	Kind       int               `json:"kind,omitempty"`
	Detail     string            `json:"detail,omitempty"`
	SortText   string            `json:"sortText,omitempty"`
	FilterText string            `json:"filterText,omitempty"`
	TextEdit   protocol.TextEdit `json:"textEdit"`
}

// LSP completion item kinds the server uses.
const (
	kindText      = 1
	kindKeyword   = 14
	kindReference = 18
	kindConstant  = 21
)

// maxIDCompletions bounds the answer for [[id:: the list is marked
// incomplete, so the client asks again as the user types on.
const maxIDCompletions = 50

// completion completes, at the cursor:
//   - "[[id:" by headline (or file) title, fuzzily, inserting the ID (and
//     the title as the description when the link has none yet);
//   - "[[*" by the titles of this file's headlines, "[[#" by its
//     CUSTOM_IDs;
//   - a tag on a headline line (":tag") or on #+FILETAGS: from every tag
//     in the memex, most used first;
//   - the first word of a headline from the file's TODO keywords.
func (s *Server) completion(ctx context.Context, v *view, params jsonrpc2.RawMessage) (any, error) {
	var p protocol.CompletionParams
	if err := decode(protocol.MethodTextDocumentCompletion, params, &p); err != nil {
		return nil, err
	}
	f, err := v.file(p.TextDocument.URI)
	if err != nil {
		return nil, err
	}
	off := offsetAt(f.org, p.Position)
	lineStart := f.org.Lines.LineRange(f.org.Lines.Line(off)).Start
	before := string(f.org.Src[lineStart:off])
	after := f.org.Src[off:min(len(f.org.Src), lineEnd(f.org, off))]

	empty := completionList{Items: []completionItem{}}
	if i := strings.LastIndex(before, "[["); i >= 0 && !strings.Contains(before[i:], "]") {
		link := before[i+2:]
		switch {
		case strings.HasPrefix(strings.ToLower(link), "id:"):
			return s.completeID(ctx, v, f, link[3:], off-len(link)+3, off, after), nil
		case strings.HasPrefix(link, "*"):
			return completeHeading(f, link[1:], off-len(link)+1, off, after, f.org.NodeAt(off)), nil
		case strings.HasPrefix(link, "#"):
			return completeCustomID(f, link[1:], off-len(link)+1, off, after), nil
		}
		return empty, nil
	}
	if m := todoPrefix().FindStringSubmatch(before); m != nil {
		return completeTodo(f, m[1], off), nil
	}
	if m := tagPrefix().FindStringSubmatch(before); m != nil && (isHeadlineLine(before) || isFiletags(before)) {
		return s.completeTag(v, f, m[1], off), nil
	}
	return empty, nil
}

// The contexts, read from the line before the cursor.
func todoPrefix() *regexp.Regexp { return regexp.MustCompile(`^\*+[ \t]+(\S*)$`) }
func tagPrefix() *regexp.Regexp  { return regexp.MustCompile(`[ \t]:(?:[^\s:]+:)*([^\s:]*)$`) }

func isHeadlineLine(before string) bool {
	t := strings.TrimLeft(before, "*")
	return len(t) < len(before) && (strings.HasPrefix(t, " ") || strings.HasPrefix(t, "\t"))
}

func isFiletags(before string) bool {
	return strings.HasPrefix(strings.ToLower(before), "#+filetags:")
}

// editRange is the LSP range of [start, end) in f.
func editRange(f *orgFile, start, end int) protocol.Range {
	return protocol.Range{Start: positionAt(f.org, start), End: positionAt(f.org, end)}
}

// clientWord is the run of word characters before the cursor: the text a
// client compares an item's filterText with (eglot's symbol at point,
// Neovim's keyword). Starting filterText with it lets through what the
// server's fuzzy match chose.
func clientWord(typed string) string {
	i := len(typed)
	for i > 0 {
		r, n := utf8.DecodeLastRuneInString(typed[:i])
		if !(unicode.IsLetter(r) || unicode.IsDigit(r) || r == '_' || r == '-') {
			break
		}
		i -= n
	}
	return typed[i:]
}

// completeID offers the nodes with an ID whose title matches query.
func (s *Server) completeID(ctx context.Context, v *view, f *orgFile, query string, start, end int, after []byte) completionList {
	list := completionList{IsIncomplete: true, Items: []completionItem{}}
	if v.snap == nil {
		return list
	}
	closing := ""
	switch {
	case strings.HasPrefix(string(after), "]["):
	case strings.HasPrefix(string(after), "]]"):
		closing = "]["
	default:
		closing = "]]"
	}
	word := clientWord(query)
	matches := s.dailyCompletions(v, query)
	for _, h := range s.symbols.SearchIDs(ctx, v.snap, query, maxIDCompletions) {
		if !slices.ContainsFunc(matches, func(d orgfeat.IDMatch) bool { return d.ID == h.ID }) {
			matches = append(matches, h)
		}
	}
	for rank, h := range matches[:min(len(matches), maxIDCompletions)] {
		text := h.ID
		switch closing {
		case "][":
			text += "][" + h.Title
		case "]]":
			text += "][" + h.Title + "]]"
		}
		detail := h.Detail
		if h.Alias {
			detail = "alias of " + h.NodeTitle + " · " + detail
		}
		list.Items = append(list.Items, completionItem{
			Label: h.Title, Kind: kindReference, Detail: detail,
			SortText: fmt.Sprintf("%04d", rank), FilterText: word + h.Title,
			TextEdit: protocol.TextEdit{Range: editRange(f, start, end), NewText: text},
		})
	}
	return list
}

// completeHeading offers the titles of the file's headlines for [[*.
func completeHeading(f *orgFile, query string, start, end int, after []byte, here int) completionList {
	list := completionList{Items: []completionItem{}}
	pat := orgfeat.CompilePattern(query)
	closing := "]]"
	if strings.HasPrefix(string(after), "]") {
		closing = ""
	}
	seen := map[string]bool{}
	for i := range f.org.Headlines {
		t := f.org.Headlines[i].Title
		if t == "" || seen[t] || (i == here && f.org.Headlines[i].Line.Contains(start)) {
			continue
		}
		seen[t] = true
		if _, ok := pat.Match(t); !ok {
			continue
		}
		list.Items = append(list.Items, completionItem{
			Label: t, Kind: kindReference, Detail: orgfeat.HeadlineDetail(&f.org.Headlines[i]),
			SortText: fmt.Sprintf("%06d", i), FilterText: clientWord(query) + t,
			TextEdit: protocol.TextEdit{Range: editRange(f, start, end), NewText: t + closing},
		})
	}
	return list
}

// completeCustomID offers the file's CUSTOM_IDs for [[#.
func completeCustomID(f *orgFile, query string, start, end int, after []byte) completionList {
	list := completionList{Items: []completionItem{}}
	pat := orgfeat.CompilePattern(query)
	closing := "]]"
	if strings.HasPrefix(string(after), "]") {
		closing = ""
	}
	for i := range f.org.Headlines {
		h := &f.org.Headlines[i]
		if h.Drawer == nil {
			continue
		}
		cid, ok := h.Drawer.Get("CUSTOM_ID")
		if !ok || cid == "" {
			continue
		}
		if _, ok := pat.Match(cid); !ok {
			continue
		}
		list.Items = append(list.Items, completionItem{
			Label: cid, Kind: kindReference, Detail: h.Title,
			SortText: fmt.Sprintf("%06d", i), FilterText: clientWord(query) + cid,
			TextEdit: protocol.TextEdit{Range: editRange(f, start, end), NewText: cid + closing},
		})
	}
	return list
}

// completeTodo offers the file's TODO keywords as a headline's first word.
func completeTodo(f *orgFile, typed string, off int) completionList {
	list := completionList{Items: []completionItem{}}
	for i, kw := range f.org.Todo.Keywords {
		if !strings.HasPrefix(strings.ToUpper(kw), strings.ToUpper(typed)) {
			continue
		}
		detail := "todo state"
		if f.org.Todo.IsDone(kw) {
			detail = "done state"
		}
		list.Items = append(list.Items, completionItem{
			Label: kw, Kind: kindKeyword, Detail: detail, SortText: fmt.Sprintf("%03d", i), FilterText: kw,
			TextEdit: protocol.TextEdit{Range: editRange(f, off-len(typed), off), NewText: kw + " "},
		})
	}
	return list
}

// completeTag offers every tag of the memex (and the file's own), most
// used first.
func (s *Server) completeTag(v *view, f *orgFile, typed string, off int) completionList {
	list := completionList{Items: []completionItem{}}
	count := map[string]int{}
	if v.snap != nil {
		count = s.symbols.TagCounts(v.snap)
	}
	for i := range f.org.Headlines {
		for _, t := range f.org.Headlines[i].Tags {
			count[t] += 0
		}
	}
	tags := slices.Collect(maps.Keys(count))
	slices.SortFunc(tags, func(a, b string) int { return cmp.Or(cmp.Compare(count[b], count[a]), strings.Compare(a, b)) })
	low := strings.ToLower(typed)
	for rank, t := range tags {
		if !strings.HasPrefix(strings.ToLower(t), low) {
			continue
		}
		list.Items = append(list.Items, completionItem{
			Label: t, Kind: kindConstant, Detail: uses(count[t]),
			SortText: fmt.Sprintf("%06d", rank), FilterText: t,
			TextEdit: protocol.TextEdit{Range: editRange(f, off-len(typed), off), NewText: t + ":"},
		})
	}
	return list
}

// uses says how many times a tag is used.
func uses(n int) string {
	if n == 1 {
		return "1 use"
	}
	return fmt.Sprintf("%d uses", n)
}
