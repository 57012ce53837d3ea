package foveal

import (
	"bytes"
	"io/fs"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/google/uuid"
	tiktoken "github.com/pkoukk/tiktoken-go"
	tiktokenloader "github.com/pkoukk/tiktoken-go-loader"
	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestCountTokensCalibration measures CountTokens against two real
// tokenizers, OpenAI's cl100k_base and o200k_base (their vocabularies
// ship inside the test dependency; nothing is fetched), on every eighth
// paragraph of the public corpus and on a view-like outline of :ID:
// drawers: the estimate must be at least the real count for 98% of
// paragraphs and in total, and not above 1.5 times it — a budget that
// holds, without wasting a third of it.
func TestCountTokensCalibration(t *testing.T) {
	testenv.SkipShort(t, "tokenizes an eighth of the corpus twice")
	tiktoken.SetBpeLoader(tiktokenloader.NewOfflineLoader())
	var paragraphs []string
	root := filepath.Join(testenv.SharedDir(t), "corpus", "org")
	k := 0
	require.NoError(t, filepath.WalkDir(root, func(p string, d fs.DirEntry, err error) error {
		if err != nil || d.IsDir() || !strings.HasSuffix(p, ".org") {
			return err
		}
		data, err := os.ReadFile(p)
		if err != nil {
			return err
		}
		for _, para := range bytes.Split(data, []byte("\n\n")) {
			if k++; k%8 == 0 {
				paragraphs = append(paragraphs, string(para)+"\n")
			}
		}
		return nil
	}))
	var outline strings.Builder
	for i := range 200 {
		id := uuid.NewSHA1(uuid.NameSpaceURL, []byte{byte(i), byte(i >> 8)})
		outline.WriteString("*** A title of a node " + strings.Repeat("x", i%7) + "\n:PROPERTIES:\n:ID: " + id.String() + "\n:END:\n")
	}
	for _, name := range []string{"cl100k_base", "o200k_base"} {
		t.Run(name, func(t *testing.T) {
			enc, err := tiktoken.GetEncoding(name)
			require.NoError(t, err)
			est, real, under := 0, 0, 0
			for _, p := range paragraphs {
				e, r := CountTokens(p), len(enc.Encode(p, nil, nil))
				est += e
				real += r
				if e < r {
					under++
				}
			}
			share := float64(under) / float64(len(paragraphs))
			ratio := float64(est) / float64(real)
			o := outline.String()
			oe, or := CountTokens(o), len(enc.Encode(o, nil, nil))
			t.Logf("%s: %d paragraphs, estimate/real %.3f, %.2f%% estimated low; an outline of :ID: drawers %.3f (bytes/4: %.3f)",
				name, len(paragraphs), ratio, 100*share, float64(oe)/float64(or), float64(len(o)/4)/float64(or))
			assert.Less(t, share, 0.02, "paragraphs estimated low")
			assert.GreaterOrEqual(t, ratio, 1.0)
			assert.Less(t, ratio, 1.5)
			assert.GreaterOrEqual(t, oe, or, "an outline of :ID: drawers")
			assert.Less(t, float64(oe)/float64(or), 1.5)
		})
	}
}
