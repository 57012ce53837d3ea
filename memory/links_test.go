package memory

import (
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"

	"pp-lsp/internal/testenv"
	"pp-lsp/orgast"
)

// loadScenario writes a txtar scenario's memex files (all but want/…) to
// a temporary root and returns it with the archive.
func loadScenario(t *testing.T, name string) (string, *txtar.Archive) {
	t.Helper()
	ar, err := txtar.ParseFile(filepath.Join("testdata", name))
	require.NoError(t, err)
	root := t.TempDir()
	files := map[string]string{}
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "want/") {
			files[f.Name] = string(f.Data)
		}
	}
	testenv.WriteTree(t, root, files)
	return root, ar
}

func want(ar *txtar.Archive, name string) string {
	for _, f := range ar.Files {
		if f.Name == name {
			return string(f.Data)
		}
	}
	return ""
}

// TestLinksScenario checks link resolution, findings and backlinks
// against testdata/links.txtar.
func TestLinksScenario(t *testing.T) {
	root, ar := loadScenario(t, "links.txtar")
	m := openMemex(t, Options{Roots: []string{root}})
	s := m.Snapshot()
	rel := func(p string) string {
		r, _ := filepath.Rel(root, p)
		return filepath.ToSlash(r)
	}
	var findings strings.Builder
	for _, f := range s.Findings() {
		fmt.Fprintf(&findings, "%s:%d %s\n", rel(f.Path), f.Line+1, f.Code)
	}
	assert.Equal(t, want(ar, "want/findings"), findings.String())

	var backlinks strings.Builder
	for n := range s.Nodes() {
		bl := s.Backlinks(n)
		if len(bl) == 0 {
			continue
		}
		key := strings.TrimPrefix(n.SyntheticKey(), "file:"+root+"/")
		fmt.Fprintf(&backlinks, "%s <-", key)
		for _, l := range bl {
			fmt.Fprintf(&backlinks, " %s:%d", rel(l.From.Path()), l.From.Org().Lines.Line(l.Link().Range.Start)+1)
		}
		backlinks.WriteString("\n")
	}
	assert.Equal(t, want(ar, "want/backlinks"), backlinks.String())

	h1, ok := s.NodeByID("h1")
	require.True(t, ok)
	r, ok := h1.IDRange()
	require.True(t, ok)
	assert.Equal(t, "h1", string(h1.Org().Src[r.Start:r.End]))
	assert.Len(t, s.IDLinks("h1"), 2)
	broken := s.IDLinks("missing-id")
	require.Len(t, broken, 1, "a link to an ID nobody carries is still a link")
	assert.Equal(t, "Heading  Two [1/2]", broken[0].From.Title())
	assert.Empty(t, s.IDLinks("nobody-links-here"))

	fg := s.Figures()
	assert.Equal(t, 4, fg.IDs, "file-a, h1, file-b, dup")
	assert.Equal(t, 1, fg.DuplicateIDs)
	assert.Equal(t, 1, fg.BrokenIDLinks)
	assert.Equal(t, 3, fg.BrokenFileLinks)
	assert.Equal(t, 3, fg.BrokenInternalLinks)
}

// TestResolveLink checks what ResolveLink says for each kind of link.
func TestResolveLink(t *testing.T) {
	root, _ := loadScenario(t, "links.txtar")
	m := openMemex(t, Options{Roots: []string{root}})
	s := m.Snapshot()
	a := filepath.Join(root, "a.org")
	fa, ok := s.File(a)
	require.True(t, ok)
	find := func(raw string) int {
		i := slices.IndexFunc(fa.Org().Links, func(l orgast.Link) bool { return l.Raw == raw })
		require.GreaterOrEqual(t, i, 0, raw)
		return i
	}
	tests := []struct {
		raw    string
		status LinkStatus
		target string // title of the target node, "" for none
	}{
		{"*Heading One", LinkResolved, "Heading One"},
		{"#ONE", LinkResolved, "Heading One"},
		{"Heading Two", LinkResolved, "Heading  Two [1/2]"},
		{"my target", LinkResolved, "Heading One"},
		{"*Missing", LinkBroken, ""},
		{"id:file-b", LinkResolved, "B"},
		{"id:dup", LinkResolved, "B heading"},
		{"id:missing-id", LinkBroken, ""},
		{"file:b.org::5", LinkResolved, "B heading"},
		{"file:b.org::999", LinkSearchBroken, ""},
		{"file:missing.org", LinkBroken, ""},
		{"file:b.org::/regex/", LinkResolved, "B"},
		{"https://orgmode.org", LinkExternal, ""},
	}
	for _, tt := range tests {
		t.Run(tt.raw, func(t *testing.T) {
			r := s.ResolveLink(a, find(tt.raw))
			assert.Equal(t, tt.status, r.Status)
			if tt.target != "" {
				require.True(t, r.Target.Valid())
				assert.Equal(t, tt.target, r.Target.Title())
			}
			if tt.status == LinkBroken || tt.status == LinkSearchBroken {
				assert.NotEmpty(t, r.Reason)
			}
		})
	}
}

// TestNameLinks checks fuzzy links to #+NAME: lines against what Emacs
// answers (testdata/names.txtar), then that an edit which unnames an
// element breaks the links to it.
func TestNameLinks(t *testing.T) {
	root, ar := loadScenario(t, "names.txtar")
	m := openMemex(t, Options{Roots: []string{root}})
	path := filepath.Join(root, "n.org")
	resolved := func(s *Snapshot) string {
		f, ok := s.File(path)
		require.True(t, ok)
		var b strings.Builder
		for i, l := range f.Org().Links {
			r := s.ResolveLink(path, i)
			answer := "broken"
			if r.Status == LinkResolved {
				answer = r.Target.Title()
			}
			fmt.Fprintf(&b, "%s %s\n", l.Raw, answer)
		}
		return b.String()
	}
	assert.Equal(t, want(ar, "want/resolved"), resolved(m.Snapshot()))

	ctx := t.Context()
	text, err := os.ReadFile(path)
	require.NoError(t, err)
	_, err = m.SetBuffer(ctx, path, 1, text)
	require.NoError(t, err)
	at := strings.Index(string(text), "| a |")
	require.Positive(t, at)
	s, err := m.EditBuffer(ctx, path, 2, TextEdit{Start: at, End: at, Text: "\n"})
	require.NoError(t, err)
	assert.Equal(t, strings.Replace(want(ar, "want/resolved"), "table-one Names", "table-one broken", 1), resolved(s))
}

// TestFileFindingsNCountsTheRest: the first limit findings are
// FileFindings' first limit, and the rest are counted — duplicate IDs,
// broken id, file and internal links mixed.
func TestFileFindingsNCountsTheRest(t *testing.T) {
	root := t.TempDir()
	var b strings.Builder
	b.WriteString("* Dup\n:PROPERTIES:\n:ID: same\n:END:\n* Dup again\n:PROPERTIES:\n:ID: same\n:END:\n")
	for i := range 40 {
		fmt.Fprintf(&b, "* Note %d\nSee [[id:missing-%d]], [[file:gone-%d.org]], [[*Nowhere %d]] and [[file:a.org]].\n", i, i, i%3, i)
	}
	testenv.WriteTree(t, root, map[string]string{"a.org": b.String()})
	m := openMemex(t, Options{Roots: []string{root}})
	path := filepath.Join(root, "a.org")
	all := m.Snapshot().FileFindings(path)
	require.Len(t, all, 2+3*40)
	for _, limit := range []int{0, 1, 2, 5, 50, 121, 122, 500} {
		got, more := m.Snapshot().FileFindingsN(path, limit)
		want := all[:min(limit, len(all))]
		assert.Equal(t, want, got, "limit %d", limit)
		assert.Equal(t, len(all)-len(want), more, "limit %d", limit)
	}
}
