package journal

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// threeEntries is a journal of three entries written by pp-lsp.
func threeEntries(t *testing.T) (p, data string, j *Journal) {
	t.Helper()
	p, data = filepath.Join(t.TempDir(), FileName), t.TempDir()
	j = Open(p, data, mustKey(t, data))
	for i := range 3 {
		_, err := j.Append(context.Background(), Entry{Kind: KindResult, Title: fmt.Sprintf("entry %d", i+1)})
		require.NoError(t, err)
	}
	return p, data, j
}

// forgeTail appends an entry the way pp-lsp would, with a correct
// :PREV_HASH:, but behind its back (no head recorded).
func forgeTail(t *testing.T, p string) {
	t.Helper()
	src := mustRead(t, p)
	_, ents, _ := split(src)
	forged := render(Entry{Kind: KindApproval, Title: "plan approved (forged)", Time: time.Now(), Status: "APPROVED"}, "f0f0f0f0-0000-4000-8000-000000000000", HashOf(ents[len(ents)-1]))
	require.NoError(t, os.WriteFile(p, append(src, forged...), 0o644))
}

func TestAnEntryAppendedAfterTheHeadIsUnrecorded(t *testing.T) {
	ctx := context.Background()
	p, data, j := threeEntries(t)
	forgeTail(t, p)

	rep, err := Verify(ctx, p, data)
	require.NoError(t, err)
	assert.Nil(t, rep.Broken, "the chain itself holds: the forger computed :PREV_HASH:")
	assert.Equal(t, HeadOK, rep.Head)
	assert.False(t, rep.OK())
	assert.Equal(t, 1, rep.Unrecorded)
	require.NotNil(t, rep.FirstUnrecorded)
	assert.Equal(t, 4, rep.FirstUnrecorded.Entry)
	assert.Contains(t, rep.FirstUnrecorded.Title, "plan approved (forged)")
	assert.Contains(t, rep.FirstUnrecorded.Reason, "follows the head recorded in the data directory (entry 3)")

	// pp-lsp appends after it: the head moves on, the finding stays.
	_, err = j.Append(ctx, Entry{Kind: KindResult, Title: "entry 5"})
	require.NoError(t, err)
	rep, err = Verify(ctx, p, data)
	require.NoError(t, err)
	assert.Nil(t, rep.Broken)
	assert.Equal(t, HeadOK, rep.Head)
	assert.Zero(t, rep.Unrecorded)
	assert.False(t, rep.OK(), "an append never hides an unrecorded entry")
	require.Len(t, rep.Anomalies, 1)
	assert.Equal(t, 4, rep.Anomalies[0].Entry)
	assert.Equal(t, 1, rep.Anomalies[0].Count)
	_, ents, _ := split(mustRead(t, p))
	assert.Equal(t, HashOf(ents[3]), rep.Anomalies[0].Hash)

	_, err = j.Append(ctx, Entry{Kind: KindResult, Title: "entry 6"})
	require.NoError(t, err)
	rep, err = Verify(ctx, p, data)
	require.NoError(t, err)
	assert.Len(t, rep.Anomalies, 1, "carried on, not repeated")
}

func TestAChangedHeadEntryIsFoundByTheNextAppend(t *testing.T) {
	ctx := context.Background()
	p, data, j := threeEntries(t)
	src := mustRead(t, p)
	require.NoError(t, os.WriteFile(p, []byte(string(src[:len(src)-1])+" (changed)\n"), 0o644))
	_, err := j.Append(ctx, Entry{Kind: KindResult, Title: "entry 4"})
	require.NoError(t, err)
	rep, err := Verify(ctx, p, data)
	require.NoError(t, err)
	assert.Nil(t, rep.Broken, "the new entry chains to the changed one")
	assert.False(t, rep.OK())
	require.Len(t, rep.Anomalies, 1)
	assert.Equal(t, 3, rep.Anomalies[0].Entry)
	assert.Contains(t, rep.Anomalies[0].What, "was changed")
}

func TestAHeadWithoutAValidSealIsNotTrusted(t *testing.T) {
	ctx := context.Background()
	p, data, _ := threeEntries(t)
	forgeTail(t, p)
	hp := headPath(data, p)
	var h head
	require.NoError(t, json.Unmarshal(mustRead(t, hp), &h))
	// The forger moves the head over its entry, keeping the old seal.
	_, ents, _ := split(mustRead(t, p))
	h.Entries, h.LastHash = 4, HashOf(ents[3])
	b, _ := json.Marshal(h)
	require.NoError(t, os.WriteFile(hp, b, 0o600))
	rep, err := Verify(ctx, p, data)
	require.NoError(t, err)
	assert.Equal(t, HeadMismatch, rep.Head)
	assert.False(t, rep.OK())
	assert.Contains(t, rep.HeadProblem, "does not carry a valid seal")

	// Sealed with another install's key: the same.
	other := t.TempDir()
	h.Seal = mustKey(t, other).Sum(headPurpose, h.sealed())
	b, _ = json.Marshal(h)
	require.NoError(t, os.WriteFile(hp, b, 0o600))
	rep, err = Verify(ctx, p, data)
	require.NoError(t, err)
	assert.Equal(t, HeadMismatch, rep.Head)

	// And an append records what it found.
	j := Open(p, data, mustKey(t, data))
	_, err = j.Append(ctx, Entry{Kind: KindResult, Title: "entry 5"})
	require.NoError(t, err)
	rep, err = Verify(ctx, p, data)
	require.NoError(t, err)
	assert.Equal(t, HeadOK, rep.Head)
	require.Len(t, rep.Anomalies, 1)
	assert.Contains(t, rep.Anomalies[0].What, "did not carry a valid seal")
	assert.False(t, rep.OK())
}

func TestAnUnsealedHeadFromAnOlderVersion(t *testing.T) {
	ctx := context.Background()
	p, data, j := threeEntries(t)
	hp := headPath(data, p)
	var h head
	require.NoError(t, json.Unmarshal(mustRead(t, hp), &h))
	h.Seal = ""
	b, _ := json.Marshal(h)
	require.NoError(t, os.WriteFile(hp, b, 0o600))
	rep, err := Verify(ctx, p, data)
	require.NoError(t, err)
	assert.Equal(t, HeadUnknown, rep.Head)
	assert.Contains(t, rep.HeadProblem, "carries no seal")
	assert.True(t, rep.OK())
	_, err = j.Append(ctx, Entry{Kind: KindResult, Title: "entry 4"})
	require.NoError(t, err)
	rep, err = Verify(ctx, p, data)
	require.NoError(t, err)
	assert.Equal(t, HeadOK, rep.Head)
	assert.Empty(t, rep.HeadProblem)
	assert.True(t, rep.OK())
}

func TestASymlinkedOrHardLinkedJournalIsRefused(t *testing.T) {
	ctx := context.Background()
	for _, tc := range []struct {
		name, want string
		link       func(target, p string) error
	}{
		{"symlink", "is a symlink", os.Symlink},
		{"hard link", "has 2 hard links", os.Link},
	} {
		t.Run(tc.name, func(t *testing.T) {
			synced := filepath.Join(t.TempDir(), "synced.org")
			require.NoError(t, os.WriteFile(synced, []byte("not yours\n"), 0o644))
			p, data := filepath.Join(t.TempDir(), FileName), t.TempDir()
			require.NoError(t, tc.link(synced, p))
			j := Open(p, data, mustKey(t, data))
			_, err := j.Append(ctx, Entry{Kind: KindResult, Title: "x"})
			assert.ErrorContains(t, err, tc.want)
			assert.Equal(t, "not yours\n", string(mustRead(t, synced)), "the file behind the link is unchanged")
			_, err = Verify(ctx, p, data)
			assert.ErrorContains(t, err, tc.want)
		})
	}
	// A dangling symlink is not followed to create its target either.
	dir := t.TempDir()
	p := filepath.Join(dir, FileName)
	require.NoError(t, os.Symlink(filepath.Join(dir, "elsewhere.org"), p))
	_, err := Open(p, "", nil).Append(ctx, Entry{Kind: KindResult, Title: "x"})
	assert.ErrorContains(t, err, "is a symlink")
	assert.NoFileExists(t, filepath.Join(dir, "elsewhere.org"))
}

func TestAppendNeedsTheKeyWithADataDir(t *testing.T) {
	p := filepath.Join(t.TempDir(), FileName)
	_, err := Open(p, t.TempDir(), nil).Append(context.Background(), Entry{Kind: KindResult, Title: "x"})
	assert.ErrorContains(t, err, "no key")
	assert.NoFileExists(t, p)
}
