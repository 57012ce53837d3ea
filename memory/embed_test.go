package memory

import (
	"context"
	"errors"
	"math"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/memory/trigram"
)

// flakyEmbedder fails its first `failures` calls, then embeds with
// trigram; `poison` texts get a zero, NaN or short vector.
type flakyEmbedder struct {
	mu       sync.Mutex
	failures int
	calls    int
	texts    []string
	poison   map[string]string // substring → "zero" | "nan" | "short"
	inner    *trigram.Embedder
}

func (f *flakyEmbedder) ID() string { return "test:flaky:256" }

func (f *flakyEmbedder) Embed(ctx context.Context, texts []string) ([][]float32, error) {
	f.mu.Lock()
	f.calls++
	if f.calls <= f.failures {
		f.mu.Unlock()
		return nil, errors.New("the embedding server is down")
	}
	f.texts = append(f.texts, texts...)
	f.mu.Unlock()
	vs, err := f.inner.Embed(ctx, texts)
	if err != nil {
		return nil, err
	}
	for i, t := range texts {
		for sub, kind := range f.poison {
			if strings.Contains(t, sub) {
				switch kind {
				case "zero":
					vs[i] = make([]float32, trigram.Dim)
				case "nan":
					vs[i][3] = float32(math.NaN())
				case "short":
					vs[i] = vs[i][:100]
				}
			}
		}
	}
	return vs, nil
}

// TestEmbeddingBacksOffAndRecovers checks that a failing embedder is
// retried with growing delays, its error reported meanwhile, and every
// node embedded once it answers.
func TestEmbeddingBacksOffAndRecovers(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"projects.org": "* Garden sensors\nSoil moisture over LoRa.\n* Thesis\nSparse context for language models.\n"})
	emb := &flakyEmbedder{failures: 3, inner: trigram.New()}
	m := openMemex(t, Options{Roots: []string{root}, Embed: true, Embedder: emb, backoffMin: 20 * time.Millisecond})
	require.Eventually(t, func() bool { return m.EmbeddingStatus().LastError != nil }, 5*time.Second, time.Millisecond)
	st := m.EmbeddingStatus()
	assert.Contains(t, st.LastError.Error(), "down")
	assert.Positive(t, st.Pending)
	assert.False(t, st.RetryAt.IsZero())
	start := time.Now()
	ctx, cancel := context.WithTimeout(context.Background(), 10*time.Second)
	defer cancel()
	require.NoError(t, m.WaitEmbedded(ctx))
	assert.GreaterOrEqual(t, time.Since(start), 20*time.Millisecond, "retries wait")
	assert.Equal(t, 4, emb.calls, "three failures, then one batch")
	assert.Nil(t, m.EmbeddingStatus().LastError)
	assert.Equal(t, 3, m.Snapshot().Figures().Embedded, "the file node and both headlines")
}

// TestBadVectorsAreNeverStored gives the memex zero and NaN vectors: the
// nodes stay without a vector, the others are embedded, and a later query
// is never poisoned.
func TestBadVectorsAreNeverStored(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"notes.org": "* Zero\nzero body\n* NaN\nnan body\n* Fine one\ngood words\n* Fine two\ngood words too\n"})
	emb := &flakyEmbedder{inner: trigram.New(), poison: map[string]string{"zero body": "zero", "nan body": "nan"}}
	m := openMemex(t, Options{Roots: []string{root}, Embed: true, Embedder: emb})
	require.NoError(t, m.WaitEmbedded(context.Background()))
	s := m.Snapshot()
	for n := range s.Nodes() {
		_, has := s.Vector(n)
		assert.Equal(t, !strings.HasPrefix(n.Title(), "Zero") && !strings.HasPrefix(n.Title(), "NaN"), has, n.Title())
	}
	n, _ := s.NodeAt(s.order[0], 4)
	res, err := s.Nearest(context.Background(), n, NearestOptions{K: 10})
	require.NoError(t, err)
	for _, r := range res {
		assert.False(t, math.IsNaN(float64(r.Score)))
	}
	// Refused nodes are not asked for again.
	calls := emb.calls
	_, err = m.Refresh(context.Background())
	require.NoError(t, err)
	require.NoError(t, m.WaitEmbedded(context.Background()))
	assert.Equal(t, calls, emb.calls)
}

// TestWrongDimensionIsRefused keeps a vector of another dimension out of
// the store (it would break every later query) and reports the embedder.
func TestWrongDimensionIsRefused(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"a.org": "* One\nfirst\n"})
	emb := &flakyEmbedder{inner: trigram.New(), poison: map[string]string{"second": "short"}}
	m := openMemex(t, Options{Roots: []string{root}, Embed: true, Embedder: emb, backoffMin: time.Hour})
	require.NoError(t, m.WaitEmbedded(context.Background()))
	_, err := m.SetBuffer(context.Background(), root+"/a.org", 1, []byte("* One\nfirst\n* Two\nsecond\n"))
	require.NoError(t, err)
	require.Eventually(t, func() bool { return m.EmbeddingStatus().LastError != nil }, 5*time.Second, time.Millisecond)
	assert.Contains(t, m.EmbeddingStatus().LastError.Error(), "dimension 100")
	m.store.mu.Lock()
	assert.Equal(t, trigram.Dim, m.store.dim, "the store's vectors are the embedder's dimension")
	for k := range m.store.vecs {
		assert.Len(t, m.store.get(k), trigram.Dim)
	}
	m.store.mu.Unlock()
}

// TestPrivateTextNeverReachesTheEmbedder: nodes carrying a privacy tag —
// their own, inherited, or from #+FILETAGS: — are never sent to the
// embedder (which may be a remote service), never have a vector, and are
// never anyone's neighbour.
func TestPrivateTextNeverReachesTheEmbedder(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{
		"pub.org":  "* Public note about gardens\nTomatoes and soil moisture.\n* Diary :@personal:\nSECRET-ONE tomatoes and soil.\n** Child of the diary\nSECRET-TWO inherits privacy.\n* Mixed case :Private:\nSECRET-THREE tomatoes.\n",
		"priv.org": "#+filetags: :private:\n* Whole file private\nSECRET-FOUR tomatoes and soil moisture.\n",
	})
	emb := &flakyEmbedder{inner: trigram.New()}
	m := openMemex(t, Options{Roots: []string{root}, Embed: true, Embedder: emb})
	require.NoError(t, m.WaitEmbedded(context.Background()))
	for _, text := range emb.texts {
		assert.NotContains(t, text, "SECRET", "private text sent to the embedder")
	}
	s := m.Snapshot()
	private := 0
	for n := range s.Nodes() {
		_, has := s.Vector(n)
		if n.Private() {
			private++
			assert.False(t, has, n.Title())
		}
	}
	assert.Equal(t, 5, private, "Diary, its child, Mixed case, the private file and its headline")
	pub, _ := s.NodeAt(root+"/pub.org", 0)
	res, err := s.Nearest(context.Background(), pub, NearestOptions{K: 10, Exact: true})
	require.NoError(t, err)
	for _, r := range res {
		assert.False(t, r.Node.Private(), r.Node.Title())
	}
	_, err = s.Nearest(context.Background(), Node{pub.f, 2}, NearestOptions{})
	assert.ErrorIs(t, err, ErrNoVector, "a private node has no vector to search from")

	// Changing the privacy tags re-decides: "@personal" no longer private.
	s2, err := m.SetPrivacyTags(context.Background(), []string{"private"})
	require.NoError(t, err)
	require.NoError(t, m.WaitEmbedded(context.Background()))
	diary, _ := m.Snapshot().NodeAt(root+"/pub.org", 2)
	assert.False(t, diary.Private())
	assert.Equal(t, []string{"private"}, s2.PrivacyTags())
	_, has := m.Snapshot().Vector(diary)
	assert.True(t, has, "now public: embedded")
}

// TestServerFilesAreNeverEmbedded: the plans and the audit journal at the
// top of a root are never sent to the embedder nor searched by meaning —
// the journal grows at every call — while a note of the same name below
// the top is embedded like any other.
func TestServerFilesAreNeverEmbedded(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{
		"notes.org":       "* Tomatoes\nTomatoes and soil moisture.\n",
		"journal.org":     "* Audit Journal\n** JOURNAL-ENTRY tomatoes and soil moisture\n",
		"FlightPlans.org": "* Flight Plans\n** PLAN-ENTRY tomatoes and soil moisture\n",
		"old/journal.org": "* Old journal\nKEPT-NOTE tomatoes and soil moisture.\n",
	})
	emb := &flakyEmbedder{inner: trigram.New()}
	m := openMemex(t, Options{Roots: []string{root}, Embed: true, Embedder: emb})
	require.NoError(t, m.WaitEmbedded(context.Background()))
	sent := strings.Join(emb.texts, "\n")
	assert.NotContains(t, sent, "JOURNAL-ENTRY")
	assert.NotContains(t, sent, "PLAN-ENTRY")
	assert.Contains(t, sent, "KEPT-NOTE", "a journal.org below the top is a note")
	s := m.Snapshot()
	for n := range s.Nodes() {
		_, has := s.Vector(n)
		if n.InServerFile() {
			assert.False(t, has, n.Title())
		}
	}
	from, _ := s.NodeAt(root+"/notes.org", 0)
	res, err := s.Nearest(context.Background(), from, NearestOptions{K: 10, Exact: true})
	require.NoError(t, err)
	require.NotEmpty(t, res)
	for _, r := range res {
		assert.False(t, r.Node.InServerFile(), r.Node.Title())
	}
}
