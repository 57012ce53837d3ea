package checkpoint

import (
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/seal"
)

func newStore(t *testing.T, capBytes int) (*Store, string) {
	t.Helper()
	dir := t.TempDir()
	key, err := seal.LoadOrCreate(dir)
	require.NoError(t, err)
	tick := time.Date(2026, 11, 26, 7, 0, 0, 0, time.UTC)
	return Open(dir, key, capBytes, func() time.Time { tick = tick.Add(time.Second); return tick }), dir
}

func TestSaveListLoad(t *testing.T) {
	s, _ := newStore(t, 0)
	_, err := s.Load("")
	require.ErrorIs(t, err, ErrNotFound)

	id, err := s.Save(Checkpoint{Title: "unchanged", Files: []File{{Path: "/r/a", Existed: true, Before: []byte("x"), Exists: true, After: []byte("x")}}})
	require.NoError(t, err)
	assert.Empty(t, id, "a change that changed nothing is not recorded")

	first, err := s.Save(Checkpoint{Title: "one", Files: []File{{Path: "/r/a", Existed: true, Before: []byte("a"), Exists: true, After: []byte("b")}}})
	require.NoError(t, err)
	second, err := s.Save(Checkpoint{Title: "two", PlanID: "p", Files: []File{
		{Path: "/r/new", Exists: true, After: []byte("made")},
		{Path: "/r/same", Existed: true, Before: []byte("s"), Exists: true, After: []byte("s")},
	}})
	require.NoError(t, err)

	list, err := s.List()
	require.NoError(t, err)
	require.Len(t, list, 2)
	assert.Equal(t, []string{second, first}, []string{list[0].ID, list[1].ID}, "newest first")
	assert.Equal(t, []string{"/r/new"}, list[0].Paths(), "files the change left as they were are not kept")

	latest, err := s.Load("")
	require.NoError(t, err)
	assert.Equal(t, second, latest.ID)
	c, err := s.Load(first)
	require.NoError(t, err)
	assert.Equal(t, "b", string(c.Files[0].After))

	for _, bad := range []string{"nope", "../x", strings.ToUpper(first)} {
		_, err := s.Load(bad)
		assert.ErrorContains(t, err, "is not a change's ID", bad)
	}
	_, err = s.Load("0b6f2d1e-3c4a-4e5f-8a9b-0c1d2e3f4a5b")
	assert.ErrorIs(t, err, ErrNotFound)
}

func TestTheStorageIsPrivateAndSealed(t *testing.T) {
	s, _ := newStore(t, 0)
	id, err := s.Save(Checkpoint{Title: "t", Files: []File{{Path: "/r/a", Existed: true, Before: []byte("secret diary"), Exists: true, After: []byte("b")}}})
	require.NoError(t, err)
	fi, err := os.Stat(s.Dir())
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o700), fi.Mode().Perm())
	es, err := os.ReadDir(s.Dir())
	require.NoError(t, err)
	require.Len(t, es, 1)
	p := filepath.Join(s.Dir(), es[0].Name())
	fi, err = os.Stat(p)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// A checkpoint edited (or written) by anyone without the key is never
	// read back.
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	forged := strings.Replace(string(b), `"path":"/r/a"`, `"path":"/etc/passwd"`, 1)
	require.NotEqual(t, string(b), forged)
	require.NoError(t, os.WriteFile(p, []byte(forged), 0o600))
	_, err = s.Load(id)
	assert.ErrorContains(t, err, "does not verify")
	list, err := s.List()
	require.NoError(t, err)
	assert.Empty(t, list)
}

func TestTheOldestAreDroppedToKeepTheCap(t *testing.T) {
	s, _ := newStore(t, 3000)
	var ids []string
	for i := range 6 {
		id, err := s.Save(Checkpoint{Title: "c", Files: []File{{Path: "/r/a", Existed: true, Before: []byte(strings.Repeat("a", 400)), Exists: true, After: []byte(strings.Repeat("b", 400+i))}}})
		require.NoError(t, err)
		ids = append(ids, id)
	}
	list, err := s.List()
	require.NoError(t, err)
	require.NotEmpty(t, list)
	assert.Less(t, len(list), 6, "some were dropped")
	assert.Equal(t, ids[5], list[0].ID, "the newest is kept")
	assert.Equal(t, ids[6-len(list):], reversed(list), "the oldest went first")

	// One change larger than the cap is still kept, alone.
	big, err := s.Save(Checkpoint{Title: "big", Files: []File{{Path: "/r/b", Exists: true, After: []byte(strings.Repeat("x", 5000))}}})
	require.NoError(t, err)
	list, err = s.List()
	require.NoError(t, err)
	require.Len(t, list, 1)
	assert.Equal(t, big, list[0].ID)
}

func reversed(list []Checkpoint) []string {
	out := make([]string, len(list))
	for i, c := range list {
		out[len(list)-1-i] = c.ID
	}
	return out
}
