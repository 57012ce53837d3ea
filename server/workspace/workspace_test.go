package workspace

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// editor is a stand-in for the editor side: one buffer, and whether it
// applies what it is asked to.
type editor struct {
	path   string
	doc    Document
	open   bool
	refuse bool
	edits  []Edit
}

func (e *editor) OpenDocument(p string) (Document, bool) {
	if !e.open || p != e.path {
		return Document{}, false
	}
	return e.doc, true
}

func (e *editor) ApplyEdit(_ context.Context, ed Edit) (bool, error) {
	e.edits = append(e.edits, ed)
	if e.refuse {
		return false, nil
	}
	text, err := ed.Apply()
	if err != nil {
		return false, err
	}
	e.doc = Document{Text: text, Version: e.doc.Version + 1}
	return true, nil
}

func TestWriteFileIsAtomicAndKeepsTheMode(t *testing.T) {
	dir := t.TempDir()
	p := filepath.Join(dir, "a.org")
	require.NoError(t, os.WriteFile(p, []byte("old"), 0o600))
	require.NoError(t, WriteFile(p, []byte("new"), 0o644))
	b, _ := os.ReadFile(p)
	assert.Equal(t, "new", string(b))
	fi, _ := os.Stat(p)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm(), "an existing file keeps its permissions")
	ents, _ := os.ReadDir(dir)
	assert.Len(t, ents, 1, "no temp file is left behind")

	require.NoError(t, os.Symlink(p, filepath.Join(dir, "link.org")))
	assert.ErrorContains(t, WriteFile(filepath.Join(dir, "link.org"), []byte("x"), 0o644), "symlink")

	root, err := os.OpenRoot(dir)
	require.NoError(t, err)
	defer root.Close()
	require.NoError(t, WriteFileIn(root, "sub/deep/new.org", []byte("x"), 0o644))
	assert.FileExists(t, filepath.Join(dir, "sub/deep/new.org"))
	assert.Error(t, WriteFileIn(root, "../escape.org", []byte("x"), 0o644), "nothing outside the root")
}

func TestFilesWrite(t *testing.T) {
	ctx := context.Background()
	dir := t.TempDir()
	p := filepath.Join(dir, "n.org")
	require.NoError(t, os.WriteFile(p, []byte("* a\nbody\n"), 0o644))
	change := []Change{{Start: 4, End: 8, NewText: "new body"}}

	t.Run("on disk", func(t *testing.T) {
		f := Files{}
		cur, err := f.Read(p)
		require.NoError(t, err)
		text, err := f.Write(ctx, cur, change, Meta{})
		require.NoError(t, err)
		assert.Equal(t, "* a\nnew body\n", string(text))
		b, _ := os.ReadFile(p)
		assert.Equal(t, "* a\nnew body\n", string(b))
	})
	t.Run("changed meanwhile", func(t *testing.T) {
		f := Files{}
		cur, err := f.Read(p)
		require.NoError(t, err)
		require.NoError(t, os.WriteFile(p, []byte("* someone else\n"), 0o644))
		_, err = f.Write(ctx, cur, change, Meta{})
		assert.ErrorIs(t, err, ErrChangedMeanwhile)
		b, _ := os.ReadFile(p)
		assert.Equal(t, "* someone else\n", string(b), "their change stands")
	})
	t.Run("through the editor", func(t *testing.T) {
		ed := &editor{path: p, open: true, doc: Document{Text: []byte("* a\nbody\n"), Version: 3}}
		f := Files{Workspace: ed}
		cur, err := f.Read(p)
		require.NoError(t, err)
		assert.True(t, cur.Open)
		_, err = f.Write(ctx, cur, change, Meta{Label: "L", Description: "D", Confirm: true})
		require.NoError(t, err)
		assert.Equal(t, "* a\nnew body\n", string(ed.doc.Text))
		b, _ := os.ReadFile(p)
		assert.Equal(t, "* someone else\n", string(b), "never behind the buffer")
		ed.refuse = true
		cur, _ = f.Read(p)
		_, err = f.Write(ctx, cur, change, Meta{})
		assert.ErrorIs(t, err, ErrNotApplied)
	})
	t.Run("a new file", func(t *testing.T) {
		q := filepath.Join(dir, "new.org")
		f := Files{}
		cur, err := f.Read(q)
		require.NoError(t, err)
		assert.False(t, cur.Exists)
		_, err = f.Write(ctx, cur, []Change{{NewText: "* new\n"}}, Meta{})
		require.NoError(t, err)
		b, _ := os.ReadFile(q)
		assert.Equal(t, "* new\n", string(b))
	})
}

func TestEditApplyRefusesOverlaps(t *testing.T) {
	e := Edit{Base: []byte("abcdef"), Changes: []Change{{Start: 4, End: 6, NewText: "X"}, {Start: 0, End: 1, NewText: "Y"}}}
	out, err := e.Apply()
	require.NoError(t, err)
	assert.Equal(t, "YbcdX", string(out), "changes may come in any order")
	_, err = Edit{Base: []byte("abc"), Changes: []Change{{0, 2, ""}, {1, 3, ""}}}.Apply()
	assert.Error(t, err)
	_, err = Edit{Base: []byte("abc"), Changes: []Change{{2, 9, ""}}}.Apply()
	assert.Error(t, err)
}

// TestEditsKeepTheFilesLineEnds: text put into a file ends its lines as
// the file does, as Emacs reads it; a change of the whole text is kept as
// given.
func TestEditsKeepTheFilesLineEnds(t *testing.T) {
	for _, tc := range []struct {
		name, base string
		change     Change
		want       string
	}{
		{"unix", "* A\nx\n", Change{4, 4, "y\nz\n"}, "* A\ny\nz\nx\n"},
		{"unix keeps a CR given", "* A\nx\n", Change{4, 4, "y\r\n"}, "* A\ny\r\nx\n"},
		{"dos", "* A\r\nx\r\n", Change{5, 5, "y\nz\n"}, "* A\r\ny\r\nz\r\nx\r\n"},
		{"dos keeps CR LF given", "* A\r\nx\r\n", Change{5, 5, "y\r\nz\n"}, "* A\r\ny\r\nz\r\nx\r\n"},
		{"dos append", "* A\r\n", Change{5, 5, "** B\n"}, "* A\r\n** B\r\n"},
		{"mac", "* A\rx\r", Change{4, 4, "y\nz\r\n"}, "* A\ry\rz\rx\r"},
		{"a stray CR is no dos", "* A\rb\nx\n", Change{6, 6, "y\n"}, "* A\rb\ny\nx\n"},
		{"whole text kept", "* A\r\nx\r\n", Change{0, 8, "* B\n"}, "* B\n"},
		{"empty file", "", Change{0, 0, "* A\n"}, "* A\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			out, err := Edit{Base: []byte(tc.base), Changes: []Change{tc.change}}.Apply()
			require.NoError(t, err)
			assert.Equal(t, tc.want, string(out))
		})
	}
}
