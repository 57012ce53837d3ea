package memory

import (
	"cmp"
	"context"
	"errors"
	"fmt"
	"runtime"
	"slices"
	"sync"
	"time"

	"pp-lsp/memory/internal/vecmath"
	"pp-lsp/memory/trigram"
)

// embedQueue holds nodes waiting for a vector, first in first out, each
// content key once.
type embedQueue struct {
	mu sync.Mutex
	// keys is the FIFO; refs the latest node seen for each key in it (a
	// newer file version needing the same text replaces an older one).
	keys []ContentKey
	refs map[ContentKey]queued
	busy bool
	// changed is closed and replaced whenever the queue drains or the
	// worker goes idle, so WaitEmbedded can wait without polling.
	changed chan struct{}
	// signal wakes the worker.
	signal chan struct{}
	// lastErr and retryAt describe the embedder's latest failure.
	lastErr error
	retryAt time.Time
}

// queued is one node to embed: its file's path and its index in the
// version it was seen in. It holds no file version: a queue of 150,000
// nodes must not keep every version of a file being edited alive (an
// edit re-queues what the new version still misses, and an item whose
// node the current version no longer has at that index with that text is
// stale).
type queued struct {
	key  ContentKey
	path string
	i    int32
}

// embedItem is a queued node found in the current snapshot.
type embedItem struct {
	key ContentKey
	f   *fileIndex
	i   int32
}

func newEmbedQueue() *embedQueue {
	return &embedQueue{refs: map[ContentKey]queued{}, changed: make(chan struct{}), signal: make(chan struct{}, 1)}
}

// addAll queues items; an item whose key is queued already replaces the
// queued one (the newer file version), keeping its place.
func (q *embedQueue) addAll(items []queued) {
	if len(items) == 0 {
		return
	}
	q.mu.Lock()
	defer q.mu.Unlock()
	for _, it := range items {
		if _, ok := q.refs[it.key]; !ok {
			q.keys = append(q.keys, it.key)
		}
		q.refs[it.key] = it
	}
}

// wake tells the worker there may be work.
func (q *embedQueue) wake() {
	select {
	case q.signal <- struct{}{}:
	default:
	}
}

// take removes up to n items; the worker is busy until done is called.
func (q *embedQueue) take(n int) []queued {
	q.mu.Lock()
	defer q.mu.Unlock()
	n = min(n, len(q.keys))
	batch := make([]queued, n)
	for k, key := range q.keys[:n] {
		batch[k] = q.refs[key]
		delete(q.refs, key)
	}
	q.keys = q.keys[n:]
	if len(q.keys) == 0 {
		// Let the backing array and the map's buckets go: a first index
		// queues every node, and maps never shrink.
		q.keys = nil
		q.refs = map[ContentKey]queued{}
	}
	q.busy = n > 0
	return batch
}

// done ends a batch: failed items go back to the front, the rest leave.
func (q *embedQueue) done(batch []queued, retry bool, err error, retryAt time.Time) {
	q.mu.Lock()
	defer q.mu.Unlock()
	if retry {
		var front []ContentKey
		for _, it := range batch {
			if _, ok := q.refs[it.key]; !ok {
				front = append(front, it.key)
				q.refs[it.key] = it
			}
		}
		q.keys = append(front, q.keys...)
	}
	q.busy = false
	q.lastErr, q.retryAt = err, retryAt
	close(q.changed)
	q.changed = make(chan struct{})
}

// idle reports an empty queue and an idle worker, and the channel to wait
// on otherwise.
func (q *embedQueue) idle() (bool, <-chan struct{}) {
	q.mu.Lock()
	defer q.mu.Unlock()
	return len(q.keys) == 0 && !q.busy, q.changed
}

// EmbeddingStatus says how the background embedding stands.
type EmbeddingStatus struct {
	// Pending counts nodes waiting for a vector.
	Pending int
	// LastError is the embedder's latest failure (nil after a success),
	// and RetryAt when it will be asked again.
	LastError error
	RetryAt   time.Time
}

// EmbeddingStatus reports the queue.
func (m *Memex) EmbeddingStatus() EmbeddingStatus {
	q := m.queue
	q.mu.Lock()
	defer q.mu.Unlock()
	return EmbeddingStatus{Pending: len(q.keys), LastError: q.lastErr, RetryAt: q.retryAt}
}

// WaitEmbedded blocks until every queued node is embedded (or refused),
// or ctx is done. Without Options.Embed it returns at once.
func (m *Memex) WaitEmbedded(ctx context.Context) error {
	if !m.opts.Embed {
		return nil
	}
	for {
		ok, ch := m.queue.idle()
		if ok {
			return nil
		}
		select {
		case <-ctx.Done():
			return fmt.Errorf("waiting for embeddings: %w", ctx.Err())
		case <-ch:
		}
	}
}

// Embedding batches and the backoff on embedder errors: the first retry
// after backoffMin, doubling up to backoffMax, back to nothing after a
// success.
const (
	embedBatch = 256
	backoffMin = 500 * time.Millisecond
	backoffMax = 5 * time.Minute
	// embedTimeout bounds one Embed call.
	embedTimeout = 2 * time.Minute
)

// embedLoop drains the queue in the background.
func (m *Memex) embedLoop(ctx context.Context) {
	backoff := time.Duration(0)
	for {
		batch := m.queue.take(embedBatch)
		if len(batch) == 0 {
			m.queue.done(nil, false, nil, time.Time{})
			select {
			case <-ctx.Done():
				return
			case <-m.queue.signal:
				continue
			}
		}
		err := m.embedBatch(ctx, batch)
		if err == nil {
			backoff = 0
			continue
		}
		if ctx.Err() != nil {
			m.queue.done(batch, true, nil, time.Time{})
			return
		}
		backoff = min(max(2*backoff, cmp.Or(m.opts.backoffMin, backoffMin)), backoffMax)
		retryAt := time.Now().Add(backoff)
		m.log.Warn("embedding failed; will retry", "embedder", m.emb.ID(), "pending", len(batch), "retry_in", backoff.String(), "err", err)
		m.queue.done(batch, true, err, retryAt)
		select {
		case <-ctx.Done():
			return
		case <-time.After(backoff):
		}
	}
}

// embedBatch embeds one batch, stores the vectors and publishes them.
func (m *Memex) embedBatch(ctx context.Context, batch []queued) error {
	// Drop what is stale: a file version no longer current, or a key that
	// got a vector meanwhile (the same text in another node). The writer
	// lock is taken to read the snapshot: a writer queues a node before it
	// publishes the snapshot holding it, under that lock.
	m.mu.Lock()
	cur := m.cur.Load()
	m.mu.Unlock()
	var live []embedItem
	m.store.mu.Lock()
	for _, it := range batch {
		e, ok := cur.entry(it.path)
		if !ok || int(it.i) >= len(e.idx.nodes) || e.idx.nodes[it.i].content != it.key || !eligible(e.idx, it.i) ||
			m.store.get(it.key) != nil || m.store.failed[it.key] {
			continue
		}
		live = append(live, embedItem{key: it.key, f: e.idx, i: it.i})
	}
	m.store.mu.Unlock()
	if _, own := m.emb.(*trigram.Embedder); !own {
		live = m.stillOnDisk(ctx, cur, live)
	}
	if len(live) == 0 {
		m.queue.done(batch, false, nil, time.Time{})
		return nil
	}
	var vecs [][]float32
	m.store.mu.Lock()
	dim := m.store.dim
	m.store.mu.Unlock()
	sigs := make([][vecmath.SigWords]uint64, len(live))
	if te, ok := m.emb.(*trigram.Embedder); ok {
		vecs = embedLocal(ctx, te, live, &m.localBlock, sigs, m.cfg.Load().signCenter)
	} else {
		texts := make([]string, len(live))
		for k, it := range live {
			texts[k] = Node{it.f, it.i}.EmbedText()
		}
		ectx, cancel := context.WithTimeout(ctx, embedTimeout)
		var err error
		vecs, err = m.emb.Embed(ectx, texts)
		cancel()
		if err != nil {
			return fmt.Errorf("embedder %s: %w", m.emb.ID(), err)
		}
		if len(vecs) != len(texts) {
			return fmt.Errorf("embedder %s returned %d vectors for %d texts", m.emb.ID(), len(vecs), len(texts))
		}
	}
	if err := ctx.Err(); err != nil {
		return err
	}
	fresh := make(map[ContentKey]*[vecmath.SigWords]uint64, len(live))
	if dim != 0 {
		for k := range live {
			if sigs[k] != ([vecmath.SigWords]uint64{}) {
				fresh[live[k].key] = &sigs[k]
			}
		}
	}
	m.store.mu.Lock()
	var refused int
	var firstErr, dimErr error
	for k, it := range live {
		if err := m.store.add(it.key, vecs[k]); err != nil {
			refused++
			firstErr = cmp.Or(firstErr, err)
			if m.store.dim != 0 && len(vecs[k]) != m.store.dim && len(vecs[k]) > 0 {
				dimErr = err
			}
		}
	}
	m.store.mu.Unlock()
	if dimErr != nil {
		return dimErr
	}
	if refused > 0 {
		// A zero vector is what a text without features (a one-letter
		// title) gives: such nodes simply have no neighbours.
		m.log.Debug("some nodes get no vector", "embedder", m.emb.ID(), "count", refused, "first", firstErr)
	}
	m.publishVectors(live, fresh)
	m.queue.done(batch, false, nil, time.Time{})
	return nil
}

// stillOnDisk drops from live the nodes of files the disk no longer holds
// as read (Recheck's test, recheckStale: for a file open in a buffer, the
// disk's copy under it, which may make it private), after reading those
// files again,
// and those of notes their setup files, as they are now, make private: a
// note tagged private on disk since it was read, by its own text or its
// setup file's, which no editor reported, sends its old text to no
// embedder. A file read again whose text is the same keeps its nodes; one
// whose text changed has its new version queued by the reading. Each
// setup file is read once: by the reading again (ReloadFiles judges
// every note naming one), or, when no file was stale or the reading
// failed, by setupStillPublic.
func (m *Memex) stillOnDisk(ctx context.Context, cur *Snapshot, live []embedItem) []embedItem {
	var stale []string
	looked := map[*fileIndex]bool{}
	for _, it := range live {
		if !looked[it.f] {
			looked[it.f] = true
			if cur.recheckStale(it.f.path) {
				stale = append(stale, it.f.path)
			}
		}
	}
	if len(stale) == 0 {
		return m.setupStillPublic(live)
	}
	now, err := m.ReloadFiles(ctx, stale...)
	out := live[:0]
	for _, it := range live {
		if err != nil {
			if !slices.Contains(stale, it.f.path) {
				out = append(out, it)
			}
			continue
		}
		// Read again and judged again: a node whose file's index is
		// not the one it was queued with (its text, or its privacy by
		// a setup file, changed) is dropped.
		if e, ok := now.entry(it.f.path); ok && e.idx == it.f {
			out = append(out, it)
		}
	}
	if err != nil {
		return m.setupStillPublic(out)
	}
	return out
}

// setupStillPublic drops from live the nodes of notes that their setup
// files, read again now, make private: a note judged public when read may
// have been made so since by a setup file no one reported, and its text
// is about to leave for an embedder that is not this process's own (a
// model too, often on another machine). The next Recheck or rescan makes
// it private in the memex.
func (m *Memex) setupStillPublic(live []embedItem) []embedItem {
	var j *setupJudge
	private := map[*fileIndex]bool{}
	out := live[:0]
	for _, it := range live {
		if it.f.usesSetup {
			if j == nil {
				j = newSetupJudge(m.cfg.Load())
			}
			priv, ok := private[it.f]
			if !ok {
				priv = it.f.rejudged(j).setupPrivate
				private[it.f] = priv
			}
			if priv {
				continue
			}
		}
		out = append(out, it)
	}
	return out
}

// embedLocal runs the built-in trigram embedder without the interface's
// per-text strings: each worker writes a node's text into one reused
// buffer and its vector into a block reused from batch to batch (the
// store keeps its own half-precision copy of each vector), so embedding a
// large memex makes almost no garbage. Only the embedding worker calls it.
//
// Each worker also computes the signature of each vector it made (into
// sigs, zero for a vector the store will refuse), so that publishing the
// batch does no Hadamard transforms under the writer lock.
func embedLocal(ctx context.Context, te *trigram.Embedder, items []embedItem, reuse *[]float32, sigs [][vecmath.SigWords]uint64, center []float32) [][]float32 {
	vecs := make([][]float32, len(items))
	if cap(*reuse) < len(items)*trigram.Dim {
		*reuse = make([]float32, len(items)*trigram.Dim)
	}
	block := (*reuse)[:len(items)*trigram.Dim]
	workers := min(runtime.GOMAXPROCS(0), max(1, len(items)/32))
	per := (len(items) + workers - 1) / workers
	var wg sync.WaitGroup
	for lo := 0; lo < len(items); lo += per {
		hi := min(lo+per, len(items))
		wg.Go(func() {
			var buf []byte
			var sc trigram.Scratch
			proj := vecmath.NewCenteredProjector(trigram.Dim, center)
			scratch := make([]float32, 2*trigram.Dim+vecmath.SigBits)
			for k := lo; k < hi; k++ {
				if ctx.Err() != nil {
					return
				}
				it := items[k]
				buf = buf[:0]
				it.f.embedText(it.i, func(b []byte) { buf = append(buf, b...) })
				out := block[k*trigram.Dim : (k+1)*trigram.Dim : (k+1)*trigram.Dim]
				te.EmbedInto(buf, out, &sc)
				vecs[k] = out
				if vecmath.Check(out) == "" && vecmath.IsUnit(out) {
					// Signed as stored: in half precision, like every
					// signature vectorsFor computes.
					copy(scratch, out)
					vecmath.RoundHalf(scratch[:trigram.Dim])
					proj.Signature(scratch[:trigram.Dim], sigs[k][:], scratch[trigram.Dim:])
				}
			}
		})
	}
	wg.Wait()
	return vecs
}

// publishVectors gives the current snapshot's files the vectors just
// stored, as a new snapshot.
func (m *Memex) publishVectors(items []embedItem, fresh map[ContentKey]*[vecmath.SigWords]uint64) {
	m.mu.Lock()
	defer m.mu.Unlock()
	if m.closed {
		return
	}
	cur := m.cur.Load()
	touched := map[string]bool{}
	for _, it := range items {
		touched[it.f.path] = true
	}
	b := newBuilder(cur)
	any := false
	for p := range touched {
		e, ok := cur.entry(p)
		if !ok {
			continue
		}
		nv := m.vectorsFor(e.idx, prevVectors{idx: e.idx, seg: e.vecs, fresh: fresh})
		if nv.rows() == e.vecs.rows() {
			continue
		}
		ne := *e
		ne.vecs = nv
		b.put(&ne)
		any = true
	}
	if any {
		m.publish(b.build(m.nextGen()))
	}
}

// autoSaveLoop saves the store every interval (writing only what changed).
func (m *Memex) autoSaveLoop(ctx context.Context, every time.Duration) {
	t := time.NewTicker(every)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
			if err := m.disk.save(ctx, m.store, m.cur.Load()); err != nil && !errors.Is(err, context.Canceled) {
				m.log.Warn("auto-save failed", "err", err)
			}
		}
	}
}
