package memory

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestPrivateTextsAndFileOfID checks what the gates ask of a snapshot
// (gates.Memex): the bodies of private nodes, by own, inherited and file
// tags, and which file holds an ID.
func TestPrivateTextsAndFileOfID(t *testing.T) {
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "a.org"), []byte("#+filetags: :work:\n* Plan :private:\n:PROPERTIES:\n:ID: n1\n:END:\nSecret plan body.\n** Child\nInherited body.\n* Public\n:PROPERTIES:\n:ID: n2\n:END:\nOpen text.\n"), 0o644))
	require.NoError(t, os.MkdirAll(filepath.Join(root, ".hidden"), 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, ".hidden", "h.org"), []byte("* H :private:\n:PROPERTIES:\n:ID: hid\n:END:\nhidden\n"), 0o644))
	mx, err := Open(context.Background(), Options{Roots: []string{root}})
	require.NoError(t, err)
	defer mx.Close(context.Background())
	s := mx.Snapshot()

	assert.Subset(t, s.PrivateTexts([]string{"private"}), []string{"Secret plan body.", "Inherited body."})
	assert.NotContains(t, s.PrivateTexts([]string{"private"}), "Open text.")
	assert.Subset(t, s.PrivateTexts([]string{"WORK"}), []string{"Secret plan body.", "Inherited body.", "Open text."}, "file tags count, without case")
	f, ok := s.FileOfID("n2")
	assert.True(t, ok)
	assert.Equal(t, filepath.Join(root, "a.org"), f)
	_, ok = s.FileOfID("n1")
	assert.False(t, ok, "a private node is no node a model may name")
	_, ok = s.FileOfID("hid")
	assert.False(t, ok, "hidden folders are not part of the memex")
}
