package journal

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/seal"
)

// deferredAppender is the appender child with AppendDeferred: n entries
// (0: until it is killed), then Close.
func deferredAppender(p string, n int, data string) int {
	key, err := seal.LoadOrCreate(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	j := Open(p, data, key)
	for i := 0; n == 0 || i < n; i++ {
		if _, err := j.AppendDeferred(context.Background(), Entry{Kind: KindCall, Title: fmt.Sprintf("memex_search child %d", i)}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	if err := j.Close(); err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	return 0
}

// pending reports whether j has entries written and not yet fsynced, and
// a sync due for them.
func pending(j *Journal) (bool, bool) {
	j.mu.Lock()
	defer j.mu.Unlock()
	return j.pending, j.timer != nil
}

// TestDeferredAppendsAreChainedAndSynced: a deferred entry is in the file,
// chained and recorded in the head, as soon as AppendDeferred returns; its
// fsync waits for the next durable Append, Sync or Close.
func TestDeferredAppendsAreChainedAndSynced(t *testing.T) {
	ctx := context.Background()
	dir, data := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, FileName)
	j := Open(p, data, mustKey(t, data))
	j.syncDelay = time.Hour // only an Append, Sync or Close syncs here

	deferred := func(title string) func() error {
		return func() error { _, err := j.AppendDeferred(ctx, Entry{Kind: KindCall, Title: title}); return err }
	}
	durable := func(title string) func() error {
		return func() error { _, err := j.Append(ctx, Entry{Kind: KindProposal, Title: title}); return err }
	}
	steps := []struct {
		name    string
		do      func() error
		pending bool
	}{
		{"deferred", deferred("memex_search a"), true},
		{"deferred again", deferred("memex_search b"), true},
		{"durable", durable("shell ls"), false},
		{"deferred after it", deferred("node_read c"), true},
		{"sync", j.Sync, false},
		{"deferred last", deferred("backlinks d"), true},
		{"close", j.Close, false},
	}
	entries := 0
	for _, st := range steps {
		require.NoError(t, st.do(), st.name)
		if st.name != "sync" && st.name != "close" {
			entries++
		}
		pend, due := pending(j)
		assert.Equal(t, st.pending, pend, "%s: pending", st.name)
		assert.Equal(t, st.pending, due, "%s: a sync due", st.name)
		rep, err := Verify(ctx, p, data)
		require.NoError(t, err)
		assert.True(t, rep.OK(), "%s: %+v %+v", st.name, rep.Broken, rep.FirstUnrecorded)
		assert.Equal(t, entries, rep.Entries, st.name)
		assert.Equal(t, entries, rep.HeadEntries, st.name)
		assert.Equal(t, HeadOK, rep.Head, st.name)
	}
	assert.Contains(t, string(mustRead(t, p)), "backlinks d")
}

// TestADeferredEntryIsSyncedWithinTheDelay: without any other append, the
// sync scheduled by AppendDeferred runs on its own.
func TestADeferredEntryIsSyncedWithinTheDelay(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	j := Open(filepath.Join(dir, FileName), data, mustKey(t, data))
	j.syncDelay = time.Millisecond
	_, err := j.AppendDeferred(context.Background(), Entry{Kind: KindCall, Title: "memex_search a"})
	require.NoError(t, err)
	require.Eventually(t, func() bool { p, due := pending(j); return !p && !due }, 10*time.Second, time.Millisecond)
	assert.NoError(t, j.Close())
}

// TestDeferredAndDurableAppendsFromThreeProcesses: deferred entries of two
// processes and durable ones of a third chain, and no append takes
// another's deferred entry for one it did not write.
func TestDeferredAndDurableAppendsFromThreeProcesses(t *testing.T) {
	ctx := context.Background()
	dir, data := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, FileName)
	j := Open(p, data, mustKey(t, data))
	cmds := make([]interface{ Wait() error }, 0, 2)
	for range 2 {
		c := testenv.ChildCommand(t, "appender", nil, p, "25", data, "deferred")
		c.Stderr = os.Stderr
		require.NoError(t, c.Start())
		cmds = append(cmds, c)
	}
	for i := range 25 {
		var err error
		if i%2 == 0 {
			_, err = j.Append(ctx, Entry{Kind: KindResult, Title: fmt.Sprintf("parent %d", i)})
		} else {
			_, err = j.AppendDeferred(ctx, Entry{Kind: KindCall, Title: fmt.Sprintf("parent call %d", i)})
		}
		require.NoError(t, err)
	}
	for _, c := range cmds {
		require.NoError(t, c.Wait())
	}
	require.NoError(t, j.Close())
	rep, err := Verify(ctx, p, data)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v %+v %+v", rep.Broken, rep.FirstUnrecorded, rep.Anomalies)
	assert.Equal(t, 75, rep.Entries)
	assert.Equal(t, 75, rep.HeadEntries)
}

// TestADeferredAppenderKilled: a process appending deferred entries is
// killed (SIGKILL) in the middle. What it wrote is in the page cache, so
// nothing written is lost: the chain holds and the head is the file's last
// entry — or, killed between writing an entry and recording it, the one
// before, which named the entry coming (Next): Verify counts that entry as
// pp-lsp's (Interrupted), never as one someone else appended, and so does
// the next append.
func TestADeferredAppenderKilled(t *testing.T) {
	ctx := context.Background()
	interrupted := 0
	for round := range 6 {
		dir, data := t.TempDir(), t.TempDir()
		p := filepath.Join(dir, FileName)
		c := testenv.ChildCommand(t, "appender", nil, p, "0", data, "deferred")
		c.Stderr = os.Stderr
		require.NoError(t, c.Start())
		// Kill it once it has written some entries, at whatever point of
		// an append it then is.
		for {
			b, err := os.ReadFile(p)
			if err == nil && bytes.Count(b, []byte("\n* ")) >= 20*(round+1) {
				break
			}
			time.Sleep(time.Millisecond)
		}
		require.NoError(t, c.Process.Kill())
		assert.Error(t, c.Wait(), "it was killed")

		rep, err := Verify(ctx, p, data)
		require.NoError(t, err)
		assert.True(t, rep.OK(), "round %d: %+v %+v %+v", round, rep.Broken, rep.FirstUnrecorded, rep.Anomalies)
		assert.Equal(t, HeadOK, rep.Head, "round %d", round)
		assert.Equal(t, rep.Entries, rep.HeadEntries, "round %d: every entry is pp-lsp's", round)
		if rep.Interrupted {
			interrupted++
		}

		// The next start appends on: its append chains to the last entry
		// and finds nothing wrong.
		j := Open(p, data, mustKey(t, data))
		_, err = j.Append(ctx, Entry{Kind: KindStart, Title: "sandbox"})
		require.NoError(t, err)
		after, err := Verify(ctx, p, data)
		require.NoError(t, err)
		assert.True(t, after.OK(), "round %d: %+v %+v", round, after.Broken, after.Anomalies)
		assert.False(t, after.Interrupted)
		assert.Equal(t, rep.Entries+1, after.HeadEntries)
	}
	t.Logf("%d of 6 kills came between an entry and its head", interrupted)
}

// TestAnInterruptedAppendIsToldFromAForeignEntry: the entry after a head
// that names it as the one coming is pp-lsp's; any other entry there — a
// different one in its place, or more after it — is unrecorded, and the
// next append records the finding.
func TestAnInterruptedAppendIsToldFromAForeignEntry(t *testing.T) {
	ctx := context.Background()
	cases := []struct {
		name        string
		next        func(third []byte) string // the Next of the head before the third entry
		extra       bool                      // a chained entry appended after the third
		unrecorded  int
		interrupted bool
	}{
		{"the entry named", func(e []byte) string { return HashOf(e) }, false, 0, true},
		{"another entry", func(e []byte) string { return HashOf(append([]byte("x"), e...)) }, false, 1, false},
		{"no entry named", func([]byte) string { return "" }, false, 1, false},
		{"the entry named and one more", func(e []byte) string { return HashOf(e) }, true, 1, true},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			dir, data := t.TempDir(), t.TempDir()
			p := filepath.Join(dir, FileName)
			key := mustKey(t, data)
			j := Open(p, data, key)
			for i := range 2 {
				_, err := j.Append(ctx, Entry{Kind: KindResult, Title: fmt.Sprint("entry ", i)})
				require.NoError(t, err)
			}
			h, hs := readHead(data, p, key)
			require.Equal(t, headValid, hs)
			_, err := j.Append(ctx, Entry{Kind: KindResult, Title: "entry 2"})
			require.NoError(t, err)
			_, ents, _ := split(mustRead(t, p))
			require.Len(t, ents, 3)
			// As if the third append had been killed after writing its
			// entry: the head is the one it wrote first.
			h.Next = c.next(ents[2])
			h.Seal = key.Sum(headPurpose, h.sealed())
			b, err := json.Marshal(h)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(headPath(data, p), b, 0o600))
			if c.extra {
				f, err := os.OpenFile(p, os.O_WRONLY|os.O_APPEND, 0)
				require.NoError(t, err)
				_, err = f.WriteString("* forged\n:PROPERTIES:\n:PREV_HASH:   " + HashOf(ents[2]) + "\n:END:\n")
				require.NoError(t, err)
				require.NoError(t, f.Close())
			}
			rep, err := Verify(ctx, p, data)
			require.NoError(t, err)
			assert.Nil(t, rep.Broken)
			assert.Equal(t, HeadOK, rep.Head)
			assert.Equal(t, c.unrecorded, rep.Unrecorded)
			assert.Equal(t, c.interrupted, rep.Interrupted)
			_, err = j.Append(ctx, Entry{Kind: KindStart, Title: "sandbox"})
			require.NoError(t, err)
			after, err := Verify(ctx, p, data)
			require.NoError(t, err)
			assert.Nil(t, after.Broken)
			assert.Zero(t, after.Unrecorded)
			if c.unrecorded == 0 {
				assert.True(t, after.OK(), "%+v", after.Anomalies)
			} else {
				require.Len(t, after.Anomalies, 1, "the finding is kept")
				assert.Equal(t, c.unrecorded, max(after.Anomalies[0].Count, 1))
			}
		})
	}
}

// TestAppendAfterLargeEntries: the last entry is found however large it
// is (it is read backwards in growing steps), so the next append chains to
// it and takes its count from the head.
func TestAppendAfterLargeEntries(t *testing.T) {
	ctx := context.Background()
	for _, size := range []int{10, 4 << 10, 70 << 10, 2 << 20} {
		t.Run(fmt.Sprint(size), func(t *testing.T) {
			dir, data := t.TempDir(), t.TempDir()
			p := filepath.Join(dir, FileName)
			j := Open(p, data, mustKey(t, data))
			for i := range 3 {
				_, err := j.AppendDeferred(ctx, Entry{Kind: KindResult, Title: fmt.Sprint("big ", i), Text: strings.Repeat("output line\n", size/12+1)})
				require.NoError(t, err)
			}
			_, err := j.Append(ctx, Entry{Kind: KindResult, Title: "small"})
			require.NoError(t, err)
			rep, err := Verify(ctx, p, data)
			require.NoError(t, err)
			assert.True(t, rep.OK(), "%+v %+v", rep.Broken, rep.Anomalies)
			assert.Equal(t, 4, rep.HeadEntries)
		})
	}
}

// TestADeferredHeadOverwritesInPlace: a deferred entry's head is written
// over the recorded one; a shorter record is padded to the file's length
// with spaces, and still verifies.
func TestADeferredHeadOverwritesInPlace(t *testing.T) {
	ctx := context.Background()
	dir, data := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, FileName)
	key := mustKey(t, data)
	j := Open(p, data, key)
	_, err := j.Append(ctx, Entry{Kind: KindResult, Title: "first"})
	require.NoError(t, err)
	hp := headPath(data, p)
	// A longer record in the head's place (as an older head with more in
	// it would be): the deferred head is shorter.
	long := append(bytes.TrimRight(mustRead(t, hp), "\n"), []byte(strings.Repeat(" ", 500)+"\n")...)
	require.NoError(t, os.WriteFile(hp, long, 0o600))
	_, err = j.AppendDeferred(ctx, Entry{Kind: KindCall, Title: "memex_search x"})
	require.NoError(t, err)
	b := mustRead(t, hp)
	assert.Len(t, b, len(long), "overwritten in place, padded")
	h, hs := readHead(data, p, key)
	assert.Equal(t, headValid, hs)
	assert.Equal(t, 2, h.Entries)
	require.NoError(t, j.Close())
	rep, err := Verify(ctx, p, data)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v", rep.Broken)
	assert.Equal(t, 2, rep.HeadEntries)
}

// TestADeferredHeadIsNeverWrittenThroughALink: a head hard-linked to
// another file (something else planted in the data directory) is replaced,
// not written through: the other file keeps its bytes.
func TestADeferredHeadIsNeverWrittenThroughALink(t *testing.T) {
	ctx := context.Background()
	dir, data := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, FileName)
	j := Open(p, data, mustKey(t, data))
	_, err := j.Append(ctx, Entry{Kind: KindResult, Title: "first"})
	require.NoError(t, err)
	hp := headPath(data, p)
	victim := filepath.Join(t.TempDir(), "bashrc")
	require.NoError(t, os.WriteFile(victim, []byte("export PATH=/usr/bin\n"), 0o600))
	require.NoError(t, os.Remove(hp))
	require.NoError(t, os.Link(victim, hp))
	_, err = j.AppendDeferred(ctx, Entry{Kind: KindCall, Title: "memex_search x"})
	require.NoError(t, err)
	assert.Equal(t, "export PATH=/usr/bin\n", string(mustRead(t, victim)))
	fi, err := os.Lstat(hp)
	require.NoError(t, err)
	assert.True(t, fi.Mode().IsRegular())
	require.NoError(t, j.Close())
	rep, err := Verify(ctx, p, data)
	require.NoError(t, err)
	assert.Nil(t, rep.Broken)
	assert.Equal(t, 2, rep.HeadEntries, "the head was replaced and names the new entry")
}

// TestConcurrentDeferredAppendsAndSyncs: goroutines of one process append
// deferred and durable entries and sync, all at once, with the timer's
// syncs among them; the chain holds and the head counts every entry.
func TestConcurrentDeferredAppendsAndSyncs(t *testing.T) {
	ctx := context.Background()
	dir, data := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, FileName)
	j := Open(p, data, mustKey(t, data))
	j.syncDelay = time.Millisecond
	var wg sync.WaitGroup
	for g := range 6 {
		wg.Go(func() {
			for i := range 10 {
				var err error
				switch (g + i) % 3 {
				case 0:
					_, err = j.Append(ctx, Entry{Kind: KindResult, Title: fmt.Sprintf("g%d-%d", g, i)})
				case 1:
					_, err = j.AppendDeferred(ctx, Entry{Kind: KindCall, Title: fmt.Sprintf("g%d-%d", g, i)})
				default:
					if _, err = j.AppendDeferred(ctx, Entry{Kind: KindCall, Title: fmt.Sprintf("g%d-%d", g, i)}); err == nil {
						err = j.Sync()
					}
				}
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	require.NoError(t, j.Close())
	pend, due := pending(j)
	assert.False(t, pend)
	assert.False(t, due)
	rep, err := Verify(ctx, p, data)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v %+v", rep.Broken, rep.FirstUnrecorded)
	assert.Equal(t, 60, rep.Entries)
	assert.Equal(t, 60, rep.HeadEntries)
}
