package orgast

import (
	"bytes"
	"encoding/json"
	"fmt"
	"reflect"
	"strings"
)

// The comparison below reads two outline objects (Emacs's and ours) and
// counts agreement the way the acceptance criteria state it: headlines
// identical in every field, links, and file-level fields.

type kv struct {
	K, V string
}

// orderedProps decodes a JSON object of strings keeping key order. With
// dedupe, a repeated key keeps its first position and its last value, as
// Python's json module (which wrote the shared corpus) leaves it.
type orderedProps []kv

func decodeProps(raw json.RawMessage, dedupe bool) (orderedProps, error) {
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	if err != nil {
		return nil, fmt.Errorf("reading properties: %w", err)
	}
	if d, ok := tok.(json.Delim); !ok || d != '{' {
		return nil, fmt.Errorf("properties are not an object: %s", raw)
	}
	var out orderedProps
	for dec.More() {
		kt, err := dec.Token()
		if err != nil {
			return nil, fmt.Errorf("reading a property key: %w", err)
		}
		var v string
		if err := dec.Decode(&v); err != nil {
			return nil, fmt.Errorf("reading property %v: %w", kt, err)
		}
		k := kt.(string)
		if dedupe {
			replaced := false
			for i := range out {
				if out[i].K == k {
					out[i].V = v
					replaced = true
				}
			}
			if replaced {
				continue
			}
		}
		out = append(out, kv{k, v})
	}
	return out, nil
}

type outlineHeadline struct {
	Level      int             `json:"level"`
	Todo       *string         `json:"todo"`
	TodoType   *string         `json:"todo_type"`
	Priority   *string         `json:"priority"`
	Title      string          `json:"title"`
	Tags       []string        `json:"tags"`
	Commented  bool            `json:"commented"`
	Archived   bool            `json:"archived"`
	Scheduled  *string         `json:"scheduled"`
	Deadline   *string         `json:"deadline"`
	Closed     *string         `json:"closed"`
	RawProps   json.RawMessage `json:"properties"`
	BeginLine  int             `json:"begin_line"`
	EndLine    int             `json:"end_line"`
	Properties orderedProps    `json:"-"`
}

type outlineLink struct {
	Type   string  `json:"type"`
	Path   string  `json:"path"`
	Search *string `json:"search"`
	Line   int     `json:"line"`
}

type outlineFile struct {
	File           string            `json:"file"`
	Title          *string           `json:"title"`
	FileTags       []string          `json:"filetags"`
	RawFileProps   json.RawMessage   `json:"file_properties"`
	TodoKeywords   []string          `json:"todo_keywords"`
	Headlines      []outlineHeadline `json:"headlines"`
	Links          []outlineLink     `json:"links"`
	Error          *string           `json:"error"`
	FileProperties orderedProps      `json:"-"`
}

func decodeOutline(data []byte, dedupe bool) (*outlineFile, error) {
	var o outlineFile
	if err := json.Unmarshal(data, &o); err != nil {
		return nil, fmt.Errorf("decoding an outline: %w", err)
	}
	var err error
	if o.FileProperties, err = decodeProps(o.RawFileProps, dedupe); err != nil {
		return nil, err
	}
	for i := range o.Headlines {
		if o.Headlines[i].Properties, err = decodeProps(o.Headlines[i].RawProps, dedupe); err != nil {
			return nil, err
		}
		o.Headlines[i].RawProps = nil
	}
	return &o, nil
}

// agreement accumulates counts over files.
type agreement struct {
	headlines, headlinesSame     int
	extraHeadlines               int
	links, linksSame, extraLinks int
	fileFields, fileFieldsSame   int
	mismatches                   []string
	fieldMisses                  map[string]int
}

func (a *agreement) miss(format string, args ...any) {
	a.mismatches = append(a.mismatches, fmt.Sprintf(format, args...))
}

func str(p *string) string {
	if p == nil {
		return "null"
	}
	return fmt.Sprintf("%q", *p)
}

// add compares our outline with Emacs's for one file.
func (a *agreement) add(name string, want, got *outlineFile) {
	if a.fieldMisses == nil {
		a.fieldMisses = map[string]int{}
	}
	fileField := func(field string, same bool, w, g any) {
		a.fileFields++
		if same {
			a.fileFieldsSame++
			return
		}
		a.fieldMisses["file."+field]++
		a.miss("%s: %s: want %v, got %v", name, field, w, g)
	}
	fileField("title", str(want.Title) == str(got.Title), str(want.Title), str(got.Title))
	fileField("filetags", slicesEqual(want.FileTags, got.FileTags), want.FileTags, got.FileTags)
	fileField("file_properties", reflect.DeepEqual(want.FileProperties, got.FileProperties), want.FileProperties, got.FileProperties)
	fileField("todo_keywords", slicesEqual(want.TodoKeywords, got.TodoKeywords), want.TodoKeywords, got.TodoKeywords)

	byLine := map[int]*outlineHeadline{}
	for i := range got.Headlines {
		byLine[got.Headlines[i].BeginLine] = &got.Headlines[i]
	}
	a.headlines += len(want.Headlines)
	matched := 0
	for i := range want.Headlines {
		w := &want.Headlines[i]
		g := byLine[w.BeginLine]
		if g == nil {
			a.fieldMisses["headline.missing"]++
			a.miss("%s:%d: headline %q missing", name, w.BeginLine, w.Title)
			continue
		}
		matched++
		if diff := headlineDiff(w, g); diff != "" {
			a.miss("%s:%d: headline %q: %s", name, w.BeginLine, w.Title, diff)
			for _, f := range strings.Split(diff, "; ") {
				a.fieldMisses["headline."+strings.SplitN(f, " ", 2)[0]]++
			}
			continue
		}
		a.headlinesSame++
	}
	if extra := len(got.Headlines) - matched; extra > 0 {
		a.extraHeadlines += extra
		a.fieldMisses["headline.extra"] += extra
		a.miss("%s: %d headlines Emacs does not see", name, extra)
	}

	count := map[outlineLink]int{}
	for _, l := range got.Links {
		count[linkKey(l)]++
	}
	a.links += len(want.Links)
	for _, l := range want.Links {
		k := linkKey(l)
		if count[k] > 0 {
			count[k]--
			a.linksSame++
			continue
		}
		a.fieldMisses["link.missing"]++
		a.miss("%s:%d: link %s %q search %s missing", name, l.Line, l.Type, l.Path, str(l.Search))
	}
	for k, n := range count {
		if n > 0 {
			a.extraLinks += n
			a.fieldMisses["link.extra"] += n
			a.miss("%s:%d: extra link %s %q", name, k.Line, k.Type, k.Path)
		}
	}
}

// linkKey makes a comparable link (the search option's pointer folded in).
func linkKey(l outlineLink) outlineLink {
	if l.Search != nil {
		s := "\x00" + *l.Search
		l.Search = &s
		l.Path += s
		l.Search = nil
	}
	return l
}

func headlineDiff(w, g *outlineHeadline) string {
	var d []string
	cmp := func(field string, same bool, wv, gv any) {
		if !same {
			d = append(d, fmt.Sprintf("%s want %v got %v", field, wv, gv))
		}
	}
	cmp("level", w.Level == g.Level, w.Level, g.Level)
	cmp("todo", str(w.Todo) == str(g.Todo), str(w.Todo), str(g.Todo))
	cmp("todo_type", str(w.TodoType) == str(g.TodoType), str(w.TodoType), str(g.TodoType))
	cmp("priority", str(w.Priority) == str(g.Priority), str(w.Priority), str(g.Priority))
	cmp("title", w.Title == g.Title, fmt.Sprintf("%q", w.Title), fmt.Sprintf("%q", g.Title))
	cmp("tags", slicesEqual(w.Tags, g.Tags), w.Tags, g.Tags)
	cmp("commented", w.Commented == g.Commented, w.Commented, g.Commented)
	cmp("archived", w.Archived == g.Archived, w.Archived, g.Archived)
	cmp("scheduled", str(w.Scheduled) == str(g.Scheduled), str(w.Scheduled), str(g.Scheduled))
	cmp("deadline", str(w.Deadline) == str(g.Deadline), str(w.Deadline), str(g.Deadline))
	cmp("closed", str(w.Closed) == str(g.Closed), str(w.Closed), str(g.Closed))
	cmp("properties", reflect.DeepEqual(w.Properties, g.Properties), w.Properties, g.Properties)
	cmp("end_line", w.EndLine == g.EndLine, w.EndLine, g.EndLine)
	return strings.Join(d, "; ")
}

func slicesEqual(a, b []string) bool {
	if len(a) != len(b) {
		return false
	}
	for i := range a {
		if a[i] != b[i] {
			return false
		}
	}
	return true
}

func pct(n, d int) float64 {
	if d == 0 {
		return 100
	}
	return 100 * float64(n) / float64(d)
}

func (a *agreement) summary() string {
	return fmt.Sprintf("headlines identical in every field: %d/%d (%.3f%%), %d extra; links: %d/%d (%.3f%%), %d extra; file-level fields: %d/%d (%.3f%%)",
		a.headlinesSame, a.headlines, pct(a.headlinesSame, a.headlines), a.extraHeadlines,
		a.linksSame, a.links, pct(a.linksSame, a.links), a.extraLinks,
		a.fileFieldsSame, a.fileFields, pct(a.fileFieldsSame, a.fileFields))
}
