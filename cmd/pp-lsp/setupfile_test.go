package main

import (
	"encoding/json"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory/foveal"
)

// TestContextShowsNothingOfANotePrivateByItsSetupFile: `pp-lsp context`
// (what a model is given) shows nothing of a note Org reads as private
// through its #+SETUPFILE:'s #+FILETAGS: — not with the cursor in it, not
// as a neighbour, an outline entry or a link's target seen from a public
// note — and the public note is shown.
func TestContextShowsNothingOfANotePrivateByItsSetupFile(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{
		"a.org":             "#+SETUPFILE: ./private-setup.org\n* Harbour marzipan\n:PROPERTIES:\n:ID: harbour\n:END:\nThe keeper hides marzipan under the third stair.\n",
		"private-setup.org": "#+TITLE: Setup\n#+FILETAGS: :private:\n",
		"b.org":             "* Public plans\nShip the parser; the keeper's note is [[id:harbour]].\n",
	})
	for _, cursor := range []string{"a.org:6", "b.org:2"} {
		t.Run(cursor, func(t *testing.T) {
			code, out, errOut := runContextCLI(t, nil, "--json", "--root", root, filepath.Join(root, cursor))
			require.Equal(t, 0, code, errOut)
			var v foveal.View
			require.NoError(t, json.Unmarshal([]byte(out), &v))
			assert.NotContains(t, v.Text, "marzipan")
			assert.NotContains(t, v.Text, "Harbour")
			assert.NotContains(t, v.Text, "ID: harbour")
			assert.Contains(t, v.Text, "Public plans")
		})
	}
}
