package memexgen

import (
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestBuiltinGeneration checks what the generator promises without the
// corpus: the requested counts, deterministic bytes, and its own counts of
// what it wrote (the index tests in package memory check them against a
// real index).
func TestBuiltinGeneration(t *testing.T) {
	tests := []struct {
		name string
		mod  func(*Options)
	}{
		{"defaults", func(*Options) {}},
		{"more files than headlines", func(o *Options) { o.Files, o.Headlines = 30, 10 }},
		{"no headlines", func(o *Options) { o.Headlines = 0 }},
		{"duplicates", func(o *Options) { o.DuplicateIDs = 5 }},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			o := Defaults()
			tt.mod(&o)
			g, err := Generate(BuiltinSource(), o)
			require.NoError(t, err)
			require.Len(t, g.Files, o.Files)
			assert.Equal(t, o.Headlines, g.Expected.Headlines)
			assert.Equal(t, o.DuplicateIDs, g.Expected.DuplicateIDs)
			stars := regexp.MustCompile(`(?m)^\*+ `)
			links := regexp.MustCompile(`\[\[`)
			nh, nl := 0, 0
			seen := map[string]bool{}
			for _, f := range g.Files {
				assert.False(t, seen[f.Path], "unique paths")
				seen[f.Path] = true
				assert.True(t, strings.HasSuffix(f.Path, ".org"))
				nh += len(stars.FindAll(f.Data, -1))
				nl += len(links.FindAll(f.Data, -1))
			}
			assert.Equal(t, o.Headlines, nh, "one headline line per headline")
			assert.Equal(t, g.Expected.Links, nl, "every link is a bracket link")
			again, err := Generate(BuiltinSource(), o)
			require.NoError(t, err)
			assert.Equal(t, g, again)
		})
	}
}

// TestGenerateErrors: impossible requests are errors, not panics.
func TestGenerateErrors(t *testing.T) {
	o := Defaults()
	o.Files = 0
	_, err := Generate(BuiltinSource(), o)
	assert.Error(t, err)
	o = Defaults()
	o.DuplicateIDs = 1 << 20
	_, err = Generate(BuiltinSource(), o)
	assert.Error(t, err)
	_, err = Generate(nil, Defaults())
	assert.Error(t, err)
}

// TestCorpusSource reads the public corpus: prose only, no Org syntax.
func TestCorpusSource(t *testing.T) {
	dir := filepath.Join(testenv.SharedDir(t), "corpus", "org")
	src, err := LoadSource(dir)
	require.NoError(t, err)
	assert.True(t, src.FromCorpus)
	assert.Greater(t, len(src.sentences), 1000)
	for _, s := range src.sentences {
		require.NotContains(t, s, "[[")
		require.NotContains(t, s, ":")
		require.False(t, strings.HasPrefix(s, "*") || strings.HasPrefix(s, "#"), s)
	}
	_, err = LoadSource(filepath.Join(t.TempDir(), "missing"))
	assert.Error(t, err)
}
