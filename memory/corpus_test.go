package memory

import (
	"bytes"
	"context"
	"encoding/json"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// outlineFile is what the corpus test reads of one Emacs outline.
type outlineFile struct {
	File           string          `json:"file"`
	Error          string          `json:"error"`
	FileProperties json.RawMessage `json:"file_properties"`
	Headlines      []struct {
		Properties json.RawMessage `json:"properties"`
	} `json:"headlines"`
	Links []struct {
		Type string `json:"type"`
		Path string `json:"path"`
	} `json:"links"`
}

// firstID returns the value of the first key equal (without case) to
// "ID" in a JSON object, keeping document order and duplicate keys, as
// org-entry-get reads a drawer.
func firstID(t *testing.T, raw json.RawMessage) (string, bool) {
	t.Helper()
	dec := json.NewDecoder(bytes.NewReader(raw))
	tok, err := dec.Token()
	require.NoError(t, err)
	require.Equal(t, json.Delim('{'), tok)
	for dec.More() {
		k, err := dec.Token()
		require.NoError(t, err)
		var v string
		require.NoError(t, dec.Decode(&v))
		if strings.EqualFold(k.(string), "ID") {
			return v, true
		}
	}
	return "", false
}

// expectedFromOutlines computes the index figures Emacs's outlines of the
// files under dir (relative to the corpus's org folder) imply.
func expectedFromOutlines(t *testing.T, outlineDir string) Figures {
	t.Helper()
	var fg Figures
	carriers := map[string]int{}
	type link struct{ path string }
	var idLinks []link
	err := filepath.WalkDir(outlineDir, func(p string, d fs.DirEntry, err error) error {
		require.NoError(t, err)
		if d.IsDir() || !strings.HasSuffix(p, ".org.json") {
			return nil
		}
		data, err := os.ReadFile(p)
		require.NoError(t, err)
		var of outlineFile
		require.NoError(t, json.Unmarshal(data, &of), p)
		require.Empty(t, of.Error, "Emacs could not outline %s", p)
		fg.Files++
		fg.Headlines += len(of.Headlines)
		if id, ok := firstID(t, of.FileProperties); ok && id != "" {
			carriers[id]++
		}
		for _, h := range of.Headlines {
			if id, ok := firstID(t, h.Properties); ok && id != "" {
				carriers[id]++
			}
		}
		fg.Links += len(of.Links)
		for _, l := range of.Links {
			if l.Type == "id" {
				idLinks = append(idLinks, link{l.Path})
			}
		}
		return nil
	})
	require.NoError(t, err)
	fg.IDs = len(carriers)
	for _, n := range carriers {
		if n > 1 {
			fg.DuplicateIDs++
		}
	}
	fg.IDLinks = len(idLinks)
	for _, l := range idLinks {
		if carriers[l.path] == 0 {
			fg.BrokenIDLinks++
		}
	}
	return fg
}

// TestCorpusFiguresMatchEmacs indexes each public corpus tree (an org-roam
// memex with file-level IDs, two documentation trees) and the whole corpus
// as one memex, and checks every DESIGN §4 figure against what Emacs's own
// outlines of the same files imply.
func TestCorpusFiguresMatchEmacs(t *testing.T) {
	shared := testenv.SharedDir(t)
	orgDir := filepath.Join(shared, "corpus", "org")
	outDir := filepath.Join(shared, "corpus", "outline")
	tests := []struct{ name, sub string }{
		{"braindump (org-roam, file-level IDs)", "braindump"},
		{"org-mode (manual and test files)", "org-mode"},
		{"worg (documentation tree)", "worg"},
		{"whole corpus", ""},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			want := expectedFromOutlines(t, filepath.Join(outDir, tt.sub))
			m, err := Open(context.Background(), Options{Roots: []string{filepath.Join(orgDir, tt.sub)}})
			require.NoError(t, err)
			defer m.Close(context.Background())
			got := m.Snapshot().Figures()
			assert.Equal(t, want.Files, got.Files, "files")
			assert.Equal(t, want.Headlines, got.Headlines, "headlines")
			assert.Equal(t, want.IDs, got.IDs, "ids")
			assert.Equal(t, want.Links, got.Links, "links")
			assert.Equal(t, want.IDLinks, got.IDLinks, "id_links")
			assert.Equal(t, want.BrokenIDLinks, got.BrokenIDLinks, "broken_id_links")
			assert.Equal(t, want.DuplicateIDs, got.DuplicateIDs, "duplicate_ids")
			t.Logf("%s: files %d, headlines %d, ids %d, links %d, id links %d, broken id links %d, duplicate ids %d",
				tt.name, got.Files, got.Headlines, got.IDs, got.Links, got.IDLinks, got.BrokenIDLinks, got.DuplicateIDs)
		})
	}
}
