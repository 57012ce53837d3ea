package journal

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// FuzzEntries: whatever a title and a text hold, each entry stays one
// entry and the chain verifies.
func FuzzEntries(f *testing.F) {
	f.Add("shell: allow", "output\n* not an entry\n#+end_example")
	f.Add(":a:b:", "\x00\xff")
	f.Fuzz(func(t *testing.T, title, text string) {
		p := filepath.Join(t.TempDir(), FileName)
		j := Open(p, "", nil)
		for range 2 {
			_, err := j.Append(context.Background(), Entry{Kind: KindResult, Title: title, Text: text})
			require.NoError(t, err)
		}
		rep, err := Verify(context.Background(), p, "")
		require.NoError(t, err)
		assert.True(t, rep.OK(), "%+v", rep.Broken)
		assert.Equal(t, 2, rep.Entries)
	})
}

// FuzzVerify: any file verifies without panic, and a break names an entry
// that exists.
func FuzzVerify(f *testing.F) {
	f.Add([]byte(Header + "* e\n:PREV_HASH: sha256:00\n"))
	f.Add([]byte("* \n* \n"))
	f.Fuzz(func(t *testing.T, data []byte) {
		p := filepath.Join(t.TempDir(), FileName)
		require.NoError(t, os.WriteFile(p, data, 0o644))
		rep, err := Verify(context.Background(), p, "")
		require.NoError(t, err)
		if rep.Broken != nil {
			assert.GreaterOrEqual(t, rep.Broken.Entry, 1)
			assert.LessOrEqual(t, rep.Broken.Entry, rep.Entries)
		}
	})
}
