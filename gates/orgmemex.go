package gates

import (
	"context"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"pp-lsp/orgast"
)

// OrgMemex implements Memex by parsing the Org files under the roots with
// orgast, for `pp-lsp gate --root` and tests, where no memory snapshot
// exists. The server hands the gates its memory snapshot instead.
type OrgMemex struct {
	ids   map[string]string // :ID: → file
	nodes []orgNode
}

type orgNode struct {
	file string
	tags []string // own, inherited and file tags
	body string
}

// maxOrgFileBytes bounds what LoadOrgMemex reads of one file.
const maxOrgFileBytes = 32 << 20

// LoadOrgMemex reads every *.org file below the roots (hidden folders
// skipped, symlinks not followed, as DESIGN §4 defines the memex).
func LoadOrgMemex(ctx context.Context, roots []string) (*OrgMemex, error) {
	m := &OrgMemex{ids: map[string]string{}}
	for _, root := range roots {
		err := filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
			if err != nil {
				return err
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			if d.IsDir() && p != root && strings.HasPrefix(d.Name(), ".") {
				return filepath.SkipDir
			}
			if d.Type()&fs.ModeSymlink != 0 || !d.Type().IsRegular() || !strings.HasSuffix(d.Name(), ".org") {
				return nil
			}
			fi, err := d.Info()
			if err != nil || fi.Size() > maxOrgFileBytes {
				return nil
			}
			src, err := os.ReadFile(p)
			if err != nil {
				return fmt.Errorf("memex file %s: %w", p, err)
			}
			m.add(p, src)
			return nil
		})
		if err != nil {
			return nil, fmt.Errorf("reading the memex under %s: %w", root, err)
		}
	}
	return m, nil
}

// add indexes one Org file with orgast: headlines with their tags (own,
// inherited from ancestors, and #+filetags:), :ID: properties (the file's
// own drawer included) and bodies (the section without its planning line
// and property drawer).
func (m *OrgMemex) add(file string, src []byte) {
	f := orgast.Parse(src)
	fileTags := f.FileTags()
	if id, ok := f.ID(); ok && id != "" {
		m.ids[id] = file
	}
	inherited := make([][]string, len(f.Headlines))
	for i := range f.Headlines {
		h := &f.Headlines[i]
		var tags []string
		if h.Parent >= 0 && h.Parent < i {
			tags = append(tags, inherited[h.Parent]...)
		} else {
			tags = append(tags, fileTags...)
		}
		tags = append(tags, h.Tags...)
		inherited[i] = tags
		if id, ok := h.Drawer.Get("ID"); ok && id != "" {
			m.ids[id] = file
		}
		m.nodes = append(m.nodes, orgNode{file: file, tags: tags, body: sectionBody(f, h)})
	}
}

// sectionBody is a headline's own text without its planning line and
// property drawer.
func sectionBody(f *orgast.File, h *orgast.Headline) string {
	sec := h.Section
	if sec.Start < 0 || sec.End > len(f.Src) || sec.Start >= sec.End {
		return ""
	}
	var skip []orgast.Range
	if h.Planning.Range.End > h.Planning.Range.Start {
		skip = append(skip, h.Planning.Range)
	}
	if h.Drawer != nil {
		skip = append(skip, h.Drawer.Range)
	}
	var b strings.Builder
	pos := sec.Start
	for _, r := range skip {
		if r.Start > pos && r.Start <= sec.End {
			b.Write(f.Src[pos:r.Start])
		}
		if r.End > pos {
			pos = min(r.End, sec.End)
		}
	}
	if pos < sec.End {
		b.Write(f.Src[pos:sec.End])
	}
	return strings.TrimSpace(b.String())
}

// PrivateTexts returns the bodies of nodes tagged (or inheriting) any of
// tags.
func (m *OrgMemex) PrivateTexts(tags []string) []string {
	var out []string
	for _, n := range m.nodes {
		if n.body != "" && hasAnyTag(n.tags, tags) {
			out = append(out, n.body)
		}
	}
	return out
}

func hasAnyTag(have, want []string) bool {
	for _, h := range have {
		for _, w := range want {
			if h == w {
				return true
			}
		}
	}
	return false
}

// FileOfID returns the file holding the node with that :ID:.
func (m *OrgMemex) FileOfID(id string) (string, bool) {
	f, ok := m.ids[id]
	return f, ok
}
