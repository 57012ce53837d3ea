package journal

import (
	"bytes"
	"context"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/internal/testenv"
	"pp-lsp/orgast"
	"pp-lsp/server/seal"
)

// TestMain lets the test binary act as a second process appending to a
// journal (see TestAppendFromTwoProcesses).
func TestMain(m *testing.M) { testenv.Main(m, testenv.Child("appender", appender)) }

// appender appends N entries to the journal at PATH, sealing its head
// with the key in DATA: args PATH N DATA [deferred]. With "deferred" it
// appends with AppendDeferred and closes the journal at the end; N 0 is
// for ever (until it is killed).
func appender(args []string) int {
	if len(args) != 3 && (len(args) != 4 || args[3] != "deferred") {
		fmt.Fprintln(os.Stderr, "want PATH N DATA [deferred]")
		return 2
	}
	p, data := args[0], args[2]
	n, _ := strconv.Atoi(args[1])
	if len(args) == 4 {
		return deferredAppender(p, n, data)
	}
	key, err := seal.LoadOrCreate(data)
	if err != nil {
		fmt.Fprintln(os.Stderr, err)
		return 1
	}
	j := Open(p, data, key)
	for i := range n {
		if _, err := j.Append(context.Background(), Entry{Kind: KindResult, Title: fmt.Sprintf("child %d", i), Text: "x"}); err != nil {
			fmt.Fprintln(os.Stderr, err)
			return 1
		}
	}
	return 0
}

func sampleVerdict() *gates.Verdict {
	return &gates.Verdict{Verdict: "deny", Gate: "dispatcher", Reason: "shell: destroys data",
		Trace: []gates.TraceEntry{{Gate: "permissions", Priority: 600, Result: "passed"}, {Gate: "dispatcher", Priority: 150, Result: "blocked"}}}
}

func TestAppendAndVerify(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, FileName)
	j := Open(p, data, mustKey(t, data))
	ctx := context.Background()
	a := gates.Build(gates.ShellArgs{Cmd: "rm -rf notes"}, "tidy")
	entries := []Entry{
		{Kind: KindProposal, Title: "shell: deny (dispatcher)", Tool: "shell", ActionHash: a.Hash(), Try: 1, Verdict: sampleVerdict(), Action: Summary(a)},
		{Kind: KindPlan, Title: "Run `make test`", PlanID: "p1", Status: "PLAN"},
		// Text that would end a block or start a headline stays inside.
		{Kind: KindResult, Title: "done :tag:", PlanID: "p1", Status: "DONE", Text: "* not a headline\n#+end_example\n:END:\n"},
	}
	for _, e := range entries {
		_, err := j.Append(ctx, e)
		require.NoError(t, err)
	}
	rep, err := Verify(ctx, p, data)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v", rep.Broken)
	assert.Equal(t, 3, rep.Entries)
	assert.Equal(t, HeadOK, rep.Head)

	src, err := os.ReadFile(p)
	require.NoError(t, err)
	f := orgast.Parse(src)
	require.Len(t, f.Headlines, 3, "each entry is exactly one headline")
	for _, h := range f.Headlines {
		assert.Empty(t, h.Tags)
		require.NotNil(t, h.Drawer)
		_, ok := h.Drawer.Get("PREV_HASH")
		assert.True(t, ok)
	}
	assert.True(t, strings.HasPrefix(string(src), Header))
	assert.NotContains(t, string(src), "rm -rf", "a denied action's arguments are not kept")
	hdr, ents, _ := split(src)
	first, _ := property(ents[0], "PREV_HASH")
	assert.Equal(t, HashOf(hdr), first, "the first entry chains to the header")
	second, _ := property(ents[1], "PREV_HASH")
	assert.Equal(t, HashOf(ents[0]), second)
}

func TestVerifyNamesTheFirstBrokenEntry(t *testing.T) {
	ctx := context.Background()
	build := func(t *testing.T) (string, string, []byte) {
		dir, data := t.TempDir(), t.TempDir()
		p := filepath.Join(dir, FileName)
		j := Open(p, data, mustKey(t, data))
		for i := range 4 {
			_, err := j.Append(ctx, Entry{Kind: KindResult, Title: fmt.Sprintf("entry %d", i+1), Text: fmt.Sprintf("output %d", i+1)})
			require.NoError(t, err)
		}
		src, err := os.ReadFile(p)
		require.NoError(t, err)
		return p, data, src
	}
	for _, tc := range []struct {
		name   string
		tamper func([]byte) []byte
		entry  int
		head   HeadStatus
	}{
		{"a middle entry's text", func(b []byte) []byte { return bytes.Replace(b, []byte("output 2"), []byte("output X"), 1) }, 3, HeadOK},
		{"the header", func(b []byte) []byte { return bytes.Replace(b, []byte("Audit Journal"), []byte("Audit journal"), 1) }, 1, HeadOK},
		{"the last entry", func(b []byte) []byte { return bytes.Replace(b, []byte("output 4"), []byte("output X"), 1) }, 4, HeadMismatch},
		{"a removed entry", func(b []byte) []byte {
			_, ents, _ := split(b)
			return bytes.Replace(b, ents[1], nil, 1)
		}, 2, HeadMismatch},
		{"a truncated end", func(b []byte) []byte {
			_, ents, _ := split(b)
			return b[:len(b)-len(ents[3])]
		}, 3, HeadMismatch},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p, data, src := build(t)
			require.NoError(t, os.WriteFile(p, tc.tamper(src), 0o644))
			rep, err := Verify(ctx, p, data)
			require.NoError(t, err)
			assert.False(t, rep.OK())
			require.NotNil(t, rep.Broken)
			assert.Equal(t, tc.entry, rep.Broken.Entry, rep.Broken.Reason)
			assert.Equal(t, tc.head, rep.Head)
			assert.NotEmpty(t, rep.Broken.Reason)
		})
	}
}

func TestAppendAfterAFileWithoutFinalNewline(t *testing.T) {
	ctx := context.Background()
	p := filepath.Join(t.TempDir(), FileName)
	require.NoError(t, os.WriteFile(p, []byte(Header+"* hand-made entry without newline"), 0o644))
	j := Open(p, "", nil)
	_, err := j.Append(ctx, Entry{Kind: KindResult, Title: "after"})
	require.NoError(t, err)
	rep, err := Verify(ctx, p, "")
	require.NoError(t, err)
	require.NotNil(t, rep.Broken, "the hand-made entry has no :PREV_HASH:")
	assert.Equal(t, 1, rep.Broken.Entry)
	_, ents, _ := split(mustRead(t, p))
	second, _ := property(ents[1], "PREV_HASH")
	assert.Equal(t, HashOf(ents[0]), second, "the new entry chains to the old one as Verify splits it")
}

func TestConcurrentAppendsChain(t *testing.T) {
	ctx := context.Background()
	dir, data := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, FileName)
	var wg sync.WaitGroup
	for g := range 8 {
		wg.Go(func() {
			j := Open(p, data, mustKey(t, data))
			for i := range 10 {
				_, err := j.Append(ctx, Entry{Kind: KindProposal, Title: fmt.Sprintf("g%d-%d", g, i), Time: time.Now()})
				assert.NoError(t, err)
			}
		})
	}
	wg.Wait()
	rep, err := Verify(ctx, p, data)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v", rep.Broken)
	assert.Equal(t, 80, rep.Entries)
	assert.Equal(t, 80, rep.HeadEntries)
}

func TestAppendFromTwoProcesses(t *testing.T) {
	ctx := context.Background()
	dir, data := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, FileName)
	var cmds []*exec.Cmd
	for range 2 {
		c := testenv.ChildCommand(t, "appender", nil, p, "25", data)
		c.Stderr = os.Stderr
		require.NoError(t, c.Start())
		cmds = append(cmds, c)
	}
	j := Open(p, data, mustKey(t, data))
	for i := range 25 {
		_, err := j.Append(ctx, Entry{Kind: KindResult, Title: fmt.Sprintf("parent %d", i)})
		require.NoError(t, err)
	}
	for _, c := range cmds {
		require.NoError(t, c.Wait())
	}
	rep, err := Verify(ctx, p, data)
	require.NoError(t, err)
	assert.True(t, rep.OK(), "%+v", rep.Broken)
	assert.Equal(t, 75, rep.Entries)
	assert.Equal(t, []string{p}, Known(data))
}

func TestVerifyMissingJournal(t *testing.T) {
	rep, err := Verify(context.Background(), filepath.Join(t.TempDir(), FileName), t.TempDir())
	require.NoError(t, err)
	assert.True(t, rep.OK())
	assert.Zero(t, rep.Entries)
}

func mustRead(t *testing.T, p string) []byte {
	t.Helper()
	b, err := os.ReadFile(p)
	require.NoError(t, err)
	return b
}

// mustKey is the install key of the data directory data.
func mustKey(t testing.TB, data string) *seal.Key {
	t.Helper()
	k, err := seal.LoadOrCreate(data)
	require.NoError(t, err)
	return k
}

// TestAnEntrySetsNoEditorOption: an action (the model writes its strings)
// and a verdict journalled into journal.org set nothing in the Neovim that
// opens the file, and the journal still verifies.
func TestAnEntrySetsNoEditorOption(t *testing.T) {
	dir, data := t.TempDir(), t.TempDir()
	p := filepath.Join(dir, FileName)
	j := Open(p, data, mustKey(t, data))
	ctx := context.Background()
	a := gates.Build(gates.ShellArgs{Cmd: "echo hi  vim: set tw=7 :"}, "Say hi. vim: set tw=7 :")
	_, err := j.Append(ctx, Entry{Kind: KindProposal, Title: "shell: ask", Tool: "shell", ActionHash: a.Hash(), Try: 1,
		Verdict: &gates.Verdict{Verdict: gates.VerdictAsk, Gate: "permissions", Reason: "x vim: set tw=7 :"}, Action: a.CanonicalJSON()})
	require.NoError(t, err)
	assert.Equal(t, "0", testenv.NvimOption(t, p, "textwidth"))
	_, err = Verify(ctx, p, data)
	require.NoError(t, err)
}
