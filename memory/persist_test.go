package memory

import (
	"bufio"
	"context"
	"log/slog"
	"math/rand/v2"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory/memexgen"
	"pp-lsp/memory/trigram"
)

// logRecorder keeps the messages of every record logged at Warn or above.
type logRecorder struct {
	mu   sync.Mutex
	msgs []string
}

func (r *logRecorder) Enabled(_ context.Context, l slog.Level) bool { return l >= slog.LevelWarn }
func (r *logRecorder) Handle(_ context.Context, rec slog.Record) error {
	r.mu.Lock()
	defer r.mu.Unlock()
	r.msgs = append(r.msgs, rec.Message)
	return nil
}
func (r *logRecorder) WithAttrs([]slog.Attr) slog.Handler { return r }
func (r *logRecorder) WithGroup(string) slog.Handler      { return r }
func (r *logRecorder) warnings() []string {
	r.mu.Lock()
	defer r.mu.Unlock()
	return append([]string(nil), r.msgs...)
}

// storedVectors opens the memex over root with the data folder, without
// embedding, and returns how many vectors the store loaded and the
// warnings logged.
func storedVectors(t *testing.T, root, dataDir string) (int, []string) {
	t.Helper()
	rec := &logRecorder{}
	m, err := Open(context.Background(), Options{Roots: []string{root}, DataDir: dataDir, Logger: slog.New(rec)})
	require.NoError(t, err)
	m.store.mu.Lock()
	n := len(m.store.vecs)
	m.store.mu.Unlock()
	m.stopBG()
	m.bg.Wait()
	return n, rec.warnings()
}

// TestStoreSurvivesKill9 runs a child process that saves the store over
// and over, kills it with SIGKILL at random moments — in the middle of a
// write as often as not — and checks after every kill that the store
// loads cleanly and holds either the last completed save or the one in
// flight: never a torn or corrupt file.
func TestStoreSurvivesKill9(t *testing.T) {
	testenv.SkipShort(t, "kills a child process 60 times")
	o := memexgen.Defaults()
	o.Files, o.Headlines = 10, 600
	root, _ := writeGenerated(t, memexgen.BuiltinSource(), o)
	dataDir := t.TempDir()
	rng := rand.New(rand.NewPCG(5, 9))
	const rounds = 60
	midWrite := 0
	for k := range rounds {
		cmd := testenv.ChildCommand(t, "store", nil, root, dataDir)
		out, err := cmd.StdoutPipe()
		require.NoError(t, err)
		require.NoError(t, cmd.Start())
		lines := make(chan string, 1<<16)
		started := make(chan struct{})
		go func() {
			sc := bufio.NewScanner(out)
			first := true
			for sc.Scan() {
				lines <- sc.Text()
				if first {
					close(started)
					first = false
				}
			}
			close(lines)
		}()
		// Kill at a random moment once the child is in its save loop (every
		// fourth round, at a random moment of its start-up instead).
		if k%4 == 0 {
			time.Sleep(time.Duration(rng.IntN(300)) * time.Millisecond)
		} else {
			select {
			case <-started:
			case <-time.After(time.Minute):
				t.Fatalf("round %d: the child never started saving", k)
			}
			time.Sleep(time.Duration(rng.IntN(60_000)) * time.Microsecond)
		}
		require.NoError(t, cmd.Process.Signal(syscall.SIGKILL))
		_ = cmd.Wait()
		lastSaved, inFlight := -1, -1
		for l := range lines {
			verb, num, _ := strings.Cut(l, " ")
			n, err := strconv.Atoi(num)
			require.NoError(t, err, l)
			switch verb {
			case "saving":
				inFlight = n
			case "saved":
				lastSaved, inFlight = n, -1
			}
		}
		if inFlight >= 0 {
			midWrite++
		}
		n, warns := storedVectors(t, root, dataDir)
		require.Empty(t, warns, "round %d: the store must load without damage", k)
		if lastSaved < 0 && inFlight < 0 {
			continue // killed before its first save: the previous round's store stands
		}
		assert.True(t, n == lastSaved || n == inFlight || (lastSaved < 0 && n >= 0),
			"round %d: loaded %d vectors, last save %d, in flight %d", k, n, lastSaved, inFlight)
	}
	t.Logf("%d kills, %d of them during a save", rounds, midWrite)
	assert.Positive(t, midWrite, "some kills must land during a save")
}

// TestDamagedStoreIsRebuilt feeds the memex a truncated, altered, foreign,
// future-version and other-kind store file: each is recognised, set aside
// with a warning, the memex starts without it and embeds again, and the
// next save writes a good store.
func TestDamagedStoreIsRebuilt(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Headlines = 5, 60
	root, _ := writeGenerated(t, memexgen.BuiltinSource(), o)
	good := t.TempDir()
	m := openMemex(t, Options{Roots: []string{root}, DataDir: good, Embed: true})
	require.NoError(t, m.WaitEmbedded(context.Background()))
	require.NoError(t, m.Close(context.Background()))
	vecPath := filepath.Join(m.StoreDir(), vectorsFile)
	pristine, err := os.ReadFile(vecPath)
	require.NoError(t, err)
	want, warns := storedVectors(t, root, good)
	require.Empty(t, warns)
	require.Positive(t, want)

	flip := func(b []byte, at int) []byte { b = append([]byte(nil), b...); b[at] ^= 0x40; return b }
	tests := []struct {
		name string
		data []byte
	}{
		{"truncated", pristine[:len(pristine)/2]},
		{"empty", nil},
		{"a byte flipped in the payload", flip(pristine, len(pristine)/2)},
		{"a byte flipped in the checksum", flip(pristine, len(pristine)-1)},
		{"a foreign file", []byte("this is not a memex store at all, just some text")},
		{"a future version", func() []byte { b := append([]byte(nil), pristine...); b[12] = 99; return b }()},
		{"another kind", func() []byte { b := append([]byte(nil), pristine...); copy(b[8:12], "FILE"); return b }()},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			dataDir := t.TempDir()
			m := openMemex(t, Options{Roots: []string{root}, DataDir: dataDir})
			require.NoError(t, m.Close(context.Background()))
			require.NoError(t, os.MkdirAll(m.StoreDir(), 0o700))
			p := filepath.Join(m.StoreDir(), vectorsFile)
			require.NoError(t, os.WriteFile(p, tt.data, 0o600))

			n, warns := storedVectors(t, root, dataDir)
			assert.Zero(t, n)
			require.Len(t, warns, 1)
			assert.Contains(t, warns[0], "damaged")
			assert.FileExists(t, p+".corrupt")
			assert.NoFileExists(t, p)

			m2 := openMemex(t, Options{Roots: []string{root}, DataDir: dataDir, Embed: true})
			require.NoError(t, m2.WaitEmbedded(context.Background()))
			require.NoError(t, m2.Close(context.Background()))
			n, warns = storedVectors(t, root, dataDir)
			assert.Empty(t, warns)
			assert.Equal(t, want, n, "rebuilt and saved again")
		})
	}
}

// countingEmbedder is the trigram embedder behind the generic interface,
// counting the texts it is asked to embed.
type countingEmbedder struct {
	inner *trigram.Embedder
	mu    sync.Mutex
	texts []string
}

func (c *countingEmbedder) ID() string { return c.inner.ID() }
func (c *countingEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	c.mu.Lock()
	c.texts = append(c.texts, texts...)
	c.mu.Unlock()
	return c.inner.Embed(ctx, texts)
}
func (c *countingEmbedder) count() int {
	c.mu.Lock()
	defer c.mu.Unlock()
	return len(c.texts)
}

// TestRestartDoesNotReembed checks that vectors and per-file hashes
// survive a restart: nothing unchanged is embedded again, a changed node
// is, and the last run's file changes are reported.
func TestRestartDoesNotReembed(t *testing.T) {
	o := memexgen.Defaults()
	o.Files, o.Headlines = 8, 120
	root, g := writeGenerated(t, memexgen.BuiltinSource(), o)
	dataDir := t.TempDir()
	ctx := context.Background()

	first := &countingEmbedder{inner: trigram.New()}
	m := openMemex(t, Options{Roots: []string{root}, DataDir: dataDir, Embed: true, Embedder: first})
	require.NoError(t, m.WaitEmbedded(ctx))
	embedded := m.Snapshot().Figures().Embedded
	require.Positive(t, first.count())
	require.NoError(t, m.Close(ctx))

	second := &countingEmbedder{inner: trigram.New()}
	m2 := openMemex(t, Options{Roots: []string{root}, DataDir: dataDir, Embed: true, Embedder: second})
	require.NoError(t, m2.WaitEmbedded(ctx))
	assert.Zero(t, second.count(), "nothing changed: nothing embedded")
	assert.Equal(t, embedded, m2.Snapshot().Figures().Embedded)
	assert.Equal(t, RunChanges{Known: true, Unchanged: len(g.Files)}, m2.LastRun())
	require.NoError(t, m2.Close(ctx))

	// One file changes while the memex is down: only its new node is embedded.
	p := filepath.Join(root, filepath.FromSlash(g.Files[0].Path))
	require.NoError(t, os.WriteFile(p, append(append([]byte(nil), g.Files[0].Data...), "* A new note\nWith words never seen before: quokka, zeppelin.\n"...), 0o644))
	third := &countingEmbedder{inner: trigram.New()}
	m3 := openMemex(t, Options{Roots: []string{root}, DataDir: dataDir, Embed: true, Embedder: third})
	require.NoError(t, m3.WaitEmbedded(ctx))
	assert.Equal(t, RunChanges{Known: true, Changed: 1, Unchanged: len(g.Files) - 1}, m3.LastRun())
	require.Len(t, third.texts, 1, "only the new headline: the file node's own text (title and zeroth section) did not change")
}

// TestStoreFollowsTheEmbedder keeps vectors of one embedder from ever
// being read as another's: a different ID starts afresh, without a warning.
func TestStoreFollowsTheEmbedder(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"a.org": "* Alpha\nSome words.\n"})
	dataDir := t.TempDir()
	ctx := context.Background()
	m := openMemex(t, Options{Roots: []string{root}, DataDir: dataDir, Embed: true})
	require.NoError(t, m.WaitEmbedded(ctx))
	require.NoError(t, m.Close(ctx))
	other := &renamedEmbedder{countingEmbedder{inner: trigram.New()}}
	rec := &logRecorder{}
	m2 := openMemex(t, Options{Roots: []string{root}, DataDir: dataDir, Embed: true, Embedder: other, Logger: slog.New(rec)})
	require.NoError(t, m2.WaitEmbedded(ctx))
	assert.Positive(t, other.count(), "another embedder embeds everything again")
	assert.Empty(t, rec.warnings())
}

type renamedEmbedder struct{ countingEmbedder }

func (r *renamedEmbedder) ID() string { return "test:other:256" }

// TestSaveWritesOnlyWhatChanged: an idle memex closes without rewriting
// its store; auto-save picks up an edit by itself.
func TestSaveWritesOnlyWhatChanged(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"notes.org": "* Alpha\nSome words.\n"})
	dataDir := t.TempDir()
	ctx := context.Background()
	m := openMemex(t, Options{Roots: []string{root}, DataDir: dataDir, Embed: true})
	require.NoError(t, m.WaitEmbedded(ctx))
	require.NoError(t, m.Close(ctx))
	stat := func(name string) time.Time {
		fi, err := os.Stat(filepath.Join(m.StoreDir(), name))
		require.NoError(t, err)
		return fi.ModTime()
	}
	v0, f0 := stat(vectorsFile), stat(filesFile)
	time.Sleep(20 * time.Millisecond)

	m2 := openMemex(t, Options{Roots: []string{root}, DataDir: dataDir, Embed: true, AutoSave: 10 * time.Millisecond})
	require.NoError(t, m2.WaitEmbedded(ctx))
	time.Sleep(50 * time.Millisecond)
	assert.Equal(t, v0, stat(vectorsFile), "nothing changed: nothing written")
	assert.Equal(t, f0, stat(filesFile))

	_, err := m2.SetBuffer(ctx, filepath.Join(root, "notes.org"), 1, []byte("* Alpha\nSome words.\n* Beta\nMore words here.\n"))
	require.NoError(t, err)
	require.NoError(t, m2.WaitEmbedded(ctx))
	require.Eventually(t, func() bool { return stat(filesFile).After(f0) && stat(vectorsFile).After(v0) }, 5*time.Second, 5*time.Millisecond, "auto-save")
}
