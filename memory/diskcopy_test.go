package memory

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestAFileIsPrivateByItsBufferOrItsDiskCopy: a file open in an editor
// is private if either its buffer or the disk's copy holds a private
// node. A privacy tag removed in an unsaved buffer leaves every node of
// the buffer private while the disk holds the note as private (what a
// model is shown, what the gates' shingles and the output filter hide);
// a tag added in the buffer is private at once; a note made private on
// the disk by another process while its buffer is open is private after
// the next Recheck; saved, the buffer is judged by itself again.
func TestAFileIsPrivateByItsBufferOrItsDiskCopy(t *testing.T) {
	ctx := context.Background()
	const secret = "The courier leaves the key under the blue geranium pot."
	const private = "* Errands\nBuy bread.\n* Courier :private:\n" + secret + "\n"
	const public = "* Errands\nBuy bread.\n* Courier\n" + secret + "\n"
	old := time.Now().Add(-time.Hour)
	tests := []struct {
		name       string
		disk       string
		buffer     func(t *testing.T, mx *Memex, p string)
		afterwards func(t *testing.T, p string) // on the disk, while the buffer is open
		// errands and courier: whether each headline is private in the
		// snapshot after the buffer (and, after Recheck, afterwards).
		errands, courier bool
		// late: the file is written after the memex was read (it does
		// not hold it when the buffer opens).
		late bool
	}{
		{"the tag removed in the buffer", private, setBuffer(public), nil, true, true, false},
		{"the tag removed and the headline renamed", private, setBuffer(strings.Replace(public, "* Courier", "* Deliveries", 1)), nil, true, true, false},
		{"the tag removed by an edit", private, editBuffer(private, " :private:", ""), nil, true, true, false},
		{"the file tagged on the disk, the buffer not", "#+FILETAGS: :private:\n" + public, setBuffer(public), nil, true, true, false},
		{"the tag kept, the buffer edited", private, setBuffer(strings.Replace(private, "Buy bread.", "Buy bread and milk.", 1)), nil, false, true, false},
		{"the tag added in the buffer", public, setBuffer(private), nil, false, true, false},
		{"the tag added by an edit", public, editBuffer(public, "* Courier", "* Courier :private:"), nil, false, true, false},
		{"the note tagged on the disk meanwhile", public, setBuffer(public), func(t *testing.T, p string) {
			write(t, p, private, time.Time{})
		}, true, true, false},
		{"the note tagged on the disk meanwhile, its size and time kept", public + "xxxxxxxxx", setBuffer(public), func(t *testing.T, p string) {
			fi, err := os.Stat(p)
			require.NoError(t, err)
			write(t, p, private, fi.ModTime())
		}, true, true, false},
		{"the buffer saved without the tag", private, setBuffer(public), func(t *testing.T, p string) {
			write(t, p, public, time.Time{})
		}, false, false, false},
		{"the file made a FIFO on the disk", public, setBuffer(public), func(t *testing.T, p string) {
			require.NoError(t, os.Remove(p))
			testenv.MakeFIFO(t, p)
		}, true, true, false},
		{"the tag removed in the buffer of a file the memex had not read", private, setBuffer(public), nil, true, true, true},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			root := t.TempDir()
			p := filepath.Join(root, "a.org")
			testenv.WriteTree(t, root, map[string]string{"b.org": "* Other\nNothing here.\n"})
			if !tt.late {
				write(t, p, tt.disk, old)
			}
			mx, err := Open(ctx, Options{Roots: []string{root}})
			require.NoError(t, err)
			defer mx.Close(ctx)
			if tt.late {
				write(t, p, tt.disk, old)
			}
			tt.buffer(t, mx, p)
			if tt.afterwards != nil {
				tt.afterwards(t, p)
			}
			s, err := mx.Recheck(ctx)
			require.NoError(t, err)
			buf, open := s.BufferText(p)
			require.True(t, open)
			errands, ok := s.NodeAt(p, 0)
			require.True(t, ok)
			assert.Equal(t, tt.errands, errands.Private(), "Errands")
			courier, ok := s.NodeAt(p, 2)
			require.True(t, ok)
			assert.Equal(t, tt.courier, courier.Private(), "the headline holding the secret")
			texts := strings.Join(s.PrivateTexts(s.PrivacyTags()), "\n")
			assert.Equal(t, tt.courier && strings.Contains(string(buf), secret), strings.Contains(texts, secret),
				"the gates' private texts hold the secret when it is private")
			for n := range s.Nodes() {
				if tt.courier && !n.Private() {
					assert.NotContains(t, n.Body(), "geranium", "a public node shows the secret")
				}
			}

			// Closed, the file is the disk's again.
			s, err = mx.CloseBuffer(ctx, p)
			require.NoError(t, err)
			if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
				n, ok := s.NodeAt(p, 2)
				require.True(t, ok)
				data, err := os.ReadFile(p)
				require.NoError(t, err)
				assert.Equal(t, strings.Contains(string(data), ":private:"), n.Private())
			}
		})
	}
}

// setBuffer opens a buffer holding text.
func setBuffer(text string) func(t *testing.T, mx *Memex, p string) {
	return func(t *testing.T, mx *Memex, p string) {
		t.Helper()
		_, err := mx.SetBuffer(context.Background(), p, 1, []byte(text))
		require.NoError(t, err)
	}
}

// editBuffer opens a buffer holding text as the disk does, then replaces
// old by new in it with one edit, as an editor's didChange does.
func editBuffer(text, old, new string) func(t *testing.T, mx *Memex, p string) {
	return func(t *testing.T, mx *Memex, p string) {
		t.Helper()
		ctx := context.Background()
		_, err := mx.SetBuffer(ctx, p, 1, []byte(text))
		require.NoError(t, err)
		i := strings.Index(text, old)
		require.GreaterOrEqual(t, i, 0)
		_, err = mx.EditBuffer(ctx, p, 2, TextEdit{Start: i, End: i + len(old), Text: new})
		require.NoError(t, err)
	}
}
