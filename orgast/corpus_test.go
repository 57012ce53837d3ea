package orgast

import (
	"io/fs"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestCorpus compares the outline of every file of ../shared/corpus/org
// with what Emacs 28.2 / Org 9.5.5 printed for it (../shared/corpus/outline),
// field by field, and fails below the acceptance thresholds.
func TestCorpus(t *testing.T) {
	shared := testenv.SharedDir(t)
	orgDir := filepath.Join(shared, "corpus", "org")
	outDir := filepath.Join(shared, "corpus", "outline")
	var names []string
	err := filepath.WalkDir(orgDir, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if !d.IsDir() && strings.HasSuffix(path, ".org") {
			rel, err := filepath.Rel(orgDir, path)
			if err != nil {
				return err
			}
			names = append(names, filepath.ToSlash(rel))
		}
		return nil
	})
	require.NoError(t, err)
	require.NotEmpty(t, names)
	sort.Strings(names)

	var a agreement
	for _, name := range names {
		src, err := os.ReadFile(filepath.Join(orgDir, name))
		require.NoError(t, err)
		ref, err := os.ReadFile(filepath.Join(outDir, name+".json"))
		require.NoError(t, err, "the corpus has no reference for %s", name)
		want, err := decodeOutline(ref, true)
		require.NoError(t, err, name)
		got, err := decodeOutline(Parse(src).AppendJSON(nil, name), true)
		require.NoError(t, err, name)
		a.add(name, want, got)
	}
	t.Logf("%d files: %s", len(names), a.summary())
	for i, m := range a.mismatches {
		if i == 40 {
			t.Logf("… and %d more mismatches", len(a.mismatches)-i)
			break
		}
		t.Log(m)
	}
	if len(a.fieldMisses) > 0 {
		t.Logf("mismatches by field: %v", a.fieldMisses)
	}
	assert.GreaterOrEqual(t, pct(a.headlinesSame, a.headlines), 99.5, "headlines identical in every field")
	assert.GreaterOrEqual(t, pct(a.linksSame, a.links), 99.0, "links")
	assert.LessOrEqual(t, pct(a.extraLinks, a.links), 1.0, "links Emacs does not see")
	assert.GreaterOrEqual(t, pct(a.fileFieldsSame, a.fileFields), 99.0, "file-level fields")
}
