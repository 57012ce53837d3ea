package foveal

import (
	"context"
	"encoding/json"
	"flag"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"golang.org/x/tools/txtar"
)

var update = flag.Bool("update", false, "rewrite the want/ files of testdata/*.txtar with what the renderer makes")

// scenario is one golden test: a memex, a cursor and options (in the
// archive's comment, as "key: value" lines), and the view they must give.
type scenario struct {
	files   map[string][]byte
	cursor  string // FILE:LINE, LINE 1-based; "" for none
	budget  int
	opts    Options
	privacy []string
}

func readScenario(t *testing.T, ar *txtar.Archive) scenario {
	t.Helper()
	sc := scenario{files: map[string][]byte{}}
	for _, line := range strings.Split(string(ar.Comment), "\n") {
		key, val, ok := strings.Cut(line, ": ")
		if !ok {
			continue
		}
		var err error
		switch key {
		case "cursor":
			sc.cursor = val
		case "budget":
			sc.budget, err = strconv.Atoi(val)
		case "threshold":
			sc.opts.Threshold, err = strconv.ParseFloat(val, 64)
		case "neighbours":
			sc.opts.Neighbours, err = strconv.Atoi(val)
		case "privacy":
			sc.privacy = strings.Fields(val)
		}
		require.NoError(t, err, "option %q", line)
	}
	for _, f := range ar.Files {
		if !strings.HasPrefix(f.Name, "want/") {
			sc.files[f.Name] = f.Data
		}
	}
	return sc
}

// figures is want/figures.json: the view's JSON without its text, with
// the memex's folder written $ROOT.
func figures(t *testing.T, v *View, root string) []byte {
	t.Helper()
	b, err := json.Marshal(v)
	require.NoError(t, err)
	var m map[string]any
	require.NoError(t, json.Unmarshal(b, &m))
	delete(m, "text")
	b, err = json.MarshalIndent(m, "", "  ")
	require.NoError(t, err)
	return append([]byte(strings.ReplaceAll(string(b), root, "$ROOT")), '\n')
}

// TestGolden renders every scenario of testdata/*.txtar and compares the
// text and figures with want/view.org and want/figures.json (go test
// -run Golden -update rewrites them), and checks the view's invariants.
func TestGolden(t *testing.T) {
	paths, err := filepath.Glob(filepath.Join("testdata", "*.txtar"))
	require.NoError(t, err)
	require.NotEmpty(t, paths)
	for _, path := range paths {
		t.Run(strings.TrimSuffix(filepath.Base(path), ".txtar"), func(t *testing.T) {
			ar, err := txtar.ParseFile(path)
			require.NoError(t, err)
			sc := readScenario(t, ar)
			root, snap := openMemex(t, sc.files, sc.privacy)
			r, err := NewRenderer(sc.opts)
			require.NoError(t, err)
			var cur Cursor
			if sc.cursor != "" {
				file, line, ok := strings.Cut(sc.cursor, ":")
				require.True(t, ok, "cursor %q is not FILE:LINE", sc.cursor)
				n, err := strconv.Atoi(line)
				require.NoError(t, err)
				cur = Cursor{Path: filepath.Join(root, filepath.FromSlash(file)), Line: n - 1}
			}
			v, err := r.View(context.Background(), snap, cur, sc.budget)
			require.NoError(t, err)
			at, _ := snap.NodeAt(cur.Path, cur.Line)
			checkView(t, newMemexFacts(snap), v, at)

			again, err := r.View(context.Background(), snap, cur, sc.budget)
			require.NoError(t, err)
			assert.Equal(t, v, again, "the same memex and cursor give the same view")

			got := map[string][]byte{"want/view.org": []byte(v.Text), "want/figures.json": figures(t, v, root)}
			if *update {
				var files []txtar.File
				for _, f := range ar.Files {
					if !strings.HasPrefix(f.Name, "want/") {
						files = append(files, f)
					}
				}
				for _, name := range []string{"want/view.org", "want/figures.json"} {
					files = append(files, txtar.File{Name: name, Data: got[name]})
				}
				ar.Files = files
				require.NoError(t, os.WriteFile(path, txtar.Format(ar), 0o644))
				return
			}
			for _, name := range []string{"want/view.org", "want/figures.json"} {
				var want []byte
				for _, f := range ar.Files {
					if f.Name == name {
						want = f.Data
					}
				}
				require.NotNil(t, want, "%s has no %s (run with -update)", path, name)
				assert.Equal(t, string(want), string(got[name]), name)
			}
		})
	}
}
