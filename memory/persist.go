package memory

import (
	"bytes"
	"context"
	"crypto/sha256"
	"encoding/gob"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"log/slog"
	"path/filepath"
	"slices"
	"sync"

	chromem "github.com/philippgille/chromem-go"

	"pp-lsp/memory/internal/vecmath"
	"pp-lsp/memory/store"
)

// Persisted state lives in DataDir/memex/<key>/, key naming the roots (so
// two memexes never share or overwrite each other's store):
//
//	vectors.ppv  every vector, by content key, for one embedder: a store
//	             file (memory/store) whose chunks are a JSON header and a
//	             chromem-go export (NewDB, then ExportToWriter) of each
//	             non-empty shard of the vectors, in float32
//	files.ppf    the per-file hashes of the last save: relative path and
//	             Merkle hash of every file, and the root hash
//
// Both are written atomically and checked on load; a damaged or foreign
// file is set aside with a warning and the memex starts without it (the
// vectors are computed again). Vectors are keyed by content, so a node
// whose text is unchanged since the last run is never embedded again,
// wherever it moved.
const (
	vectorsFile = "vectors.ppv"
	filesFile   = "files.ppf"
)

const (
	kindVectors store.Kind = "VECS"
	kindFiles   store.Kind = "FILE"
)

const (
	vectorsVersion = 1
	filesVersion   = 1
)

// persister reads and writes one memex's store.
type persister struct {
	dir string
	log *slog.Logger
	// mu serialises saves.
	mu sync.Mutex
	// last describes the files of the previous run, once loaded.
	last       map[string]Hash
	lastLoaded bool
	changes    RunChanges
	// savedRoot is the root hash files.ppf holds; vectorsOnDisk says
	// vectors.ppv holds the store as loaded or last saved.
	savedRoot     Hash
	vectorsOnDisk bool
}

// RunChanges compares the memex at Open with the last saved one.
type RunChanges struct {
	// Known reports whether a previous save was found.
	Known bool
	// New, Changed, Removed and Unchanged count files by what happened to
	// them since the last save.
	New, Changed, Removed, Unchanged int
}

func newPersister(dataDir string, roots []root, log *slog.Logger) *persister {
	h := sha256.New()
	for _, r := range roots {
		h.Write([]byte(r.path))
		h.Write([]byte{0})
	}
	key := hex.EncodeToString(h.Sum(nil)[:8])
	return &persister{dir: filepath.Join(dataDir, "memex", key), log: log}
}

// StoreDir is the folder holding this memex's store, "" without one.
func (m *Memex) StoreDir() string {
	if m.disk == nil {
		return ""
	}
	return m.disk.dir
}

// LastRun compares the memex as Open found it with the last save.
func (m *Memex) LastRun() RunChanges {
	if m.disk == nil {
		return RunChanges{}
	}
	return m.disk.changes
}

// vectorsHeader is the first chunk of vectors.ppv.
type vectorsHeader struct {
	Embedder string `json:"embedder"`
	Dim      int    `json:"dim"`
	Count    int    `json:"count"`
}

// chromemExport mirrors the value chromem-go's DB.ExportToWriter encodes
// (gob matches fields by name), so the documents can be read back with
// their vectors without the copy that Collection.GetByID makes.
type chromemExport struct {
	Collections map[string]*struct {
		Name      string
		Metadata  map[string]string
		Documents map[string]*chromem.Document
	}
}

// load fills st from vectors.ppv and remembers files.ppf. Anything wrong
// is logged and leaves st empty: the store is rebuilt, never trusted half.
func (p *persister) load(ctx context.Context, st *vectorStore) {
	if err := p.loadVectors(ctx, st); err != nil {
		p.damaged(filepath.Join(p.dir, vectorsFile), err)
		st.reset()
	} else {
		p.vectorsOnDisk = true
	}
	if err := p.loadFiles(); err != nil {
		p.damaged(filepath.Join(p.dir, filesFile), err)
		p.last, p.lastLoaded = nil, false
	}
}

// damaged reports a store file that cannot be used.
func (p *persister) damaged(path string, err error) {
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	if store.IsDamaged(err) {
		aside, aerr := store.SetAside(path)
		if aerr != nil {
			p.log.Warn("the memex store is damaged and will be rebuilt; it could not be set aside", "file", path, "err", err, "set_aside_err", aerr)
			return
		}
		p.log.Warn("the memex store is damaged and will be rebuilt; the old file is kept aside", "file", path, "aside", aside, "err", err)
		return
	}
	p.log.Warn("the memex store could not be read and will be rebuilt", "file", path, "err", err)
}

func (p *persister) loadVectors(ctx context.Context, st *vectorStore) error {
	path := filepath.Join(p.dir, vectorsFile)
	f, err := store.Open(path, kindVectors, func(v uint32) bool { return v == vectorsVersion })
	if err != nil {
		return err
	}
	defer f.Close()
	chunks := store.NewChunks(f.Payload)
	first, err := chunks.Next()
	if err != nil {
		return fmt.Errorf("%s: %w (no header: %v)", path, store.ErrCorrupt, err)
	}
	var hdr vectorsHeader
	if err := json.Unmarshal(first, &hdr); err != nil {
		return fmt.Errorf("%s: %w (header: %v)", path, store.ErrCorrupt, err)
	}
	if hdr.Embedder != st.id {
		// Vectors of another embedder: not damaged, just not ours any more.
		p.log.Info("the stored vectors come from another embedder; nodes will be embedded again", "stored", hdr.Embedder, "now", st.id)
		return nil
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for {
		if err := ctx.Err(); err != nil {
			return fmt.Errorf("loading %s: %w", path, err)
		}
		b, err := chunks.Next()
		if errors.Is(err, io.EOF) {
			break
		}
		if err != nil {
			return fmt.Errorf("%s: %w", path, err)
		}
		var ex chromemExport
		if err := gob.NewDecoder(bytes.NewReader(b)).Decode(&ex); err != nil {
			return fmt.Errorf("%s: %w (a shard does not decode: %v)", path, store.ErrCorrupt, err)
		}
		for _, c := range ex.Collections {
			if c == nil {
				continue
			}
			for id, d := range c.Documents {
				k, ok := parseContentKey(id)
				if !ok || d == nil {
					return fmt.Errorf("%s: %w (document %q)", path, store.ErrCorrupt, id)
				}
				if hdr.Dim > 0 && len(d.Embedding) != hdr.Dim {
					return fmt.Errorf("%s: %w (a vector of dimension %d, not %d)", path, store.ErrCorrupt, len(d.Embedding), hdr.Dim)
				}
				if err := st.add(k, d.Embedding); err != nil {
					return fmt.Errorf("%s: %w (%v)", path, store.ErrCorrupt, err)
				}
			}
		}
	}
	st.dirty = false
	return nil
}

func parseContentKey(s string) (ContentKey, bool) {
	var k ContentKey
	if len(s) != 2*len(k) {
		return k, false
	}
	if _, err := hex.Decode(k[:], []byte(s)); err != nil {
		return k, false
	}
	return k, true
}

// reset empties the store (after a failed load).
func (s *vectorStore) reset() {
	s.mu.Lock()
	defer s.mu.Unlock()
	fresh, err := newVectorStore(s.id, s.center)
	if err != nil {
		return
	}
	s.dim, s.vecs, s.failed, s.proj, s.dirty = 0, fresh.vecs, fresh.failed, nil, false
}

// filesRecord is files.ppf's payload.
type filesRecord struct {
	Roots    []string     `json:"roots"`
	RootHash Hash         `json:"root_hash"`
	Files    []fileRecord `json:"files"`
}

type fileRecord struct {
	Root int    `json:"root"`
	Rel  string `json:"rel"`
	Hash Hash   `json:"hash"`
}

func (p *persister) loadFiles() error {
	path := filepath.Join(p.dir, filesFile)
	f, err := store.Open(path, kindFiles, func(v uint32) bool { return v == filesVersion })
	if err != nil {
		return err
	}
	defer f.Close()
	b, err := store.NewChunks(f.Payload).Next()
	if err != nil {
		return fmt.Errorf("%s: %w", path, err)
	}
	var rec filesRecord
	if err := json.Unmarshal(b, &rec); err != nil {
		return fmt.Errorf("%s: %w (%v)", path, store.ErrCorrupt, err)
	}
	p.last = make(map[string]Hash, len(rec.Files))
	p.savedRoot = rec.RootHash
	for _, fr := range rec.Files {
		p.last[fmt.Sprintf("%d/%s", fr.Root, fr.Rel)] = fr.Hash
	}
	p.lastLoaded = true
	return nil
}

// noteStart compares the snapshot Open made with the last save.
func (p *persister) noteStart(s *Snapshot) {
	if !p.lastLoaded {
		return
	}
	c := RunChanges{Known: true}
	seen := 0
	for n := range s.Files() {
		h, ok := p.last[fmt.Sprintf("%d/%s", n.f.root, n.f.rel)]
		switch {
		case !ok:
			c.New++
		case h == n.Hash():
			c.Unchanged++
			seen++
		default:
			c.Changed++
			seen++
		}
	}
	c.Removed = len(p.last) - seen
	p.changes = c
	p.log.Info("memex compared with the last save", "new", c.New, "changed", c.Changed, "removed", c.Removed, "unchanged", c.Unchanged)
}

// save writes what changed since the last save: vectors.ppv when the
// store changed (vectors no node of s uses any more are dropped first, so
// the store does not grow with every edit), files.ppf when the root hash
// moved. With nothing changed it writes nothing.
func (p *persister) save(ctx context.Context, st *vectorStore, s *Snapshot) error {
	p.mu.Lock()
	defer p.mu.Unlock()
	st.gc(s)
	st.mu.Lock()
	dirty := st.dirty
	st.mu.Unlock()
	if dirty || !p.vectorsOnDisk {
		if err := p.saveVectors(ctx, st); err != nil {
			return err
		}
		p.vectorsOnDisk = true
	}
	if h := s.Hash(); h != p.savedRoot || !p.lastLoaded {
		if err := p.saveFiles(s); err != nil {
			return err
		}
		p.savedRoot, p.lastLoaded = h, true
	}
	return nil
}

// gc deletes vectors whose content key no node of s has.
func (st *vectorStore) gc(s *Snapshot) {
	live := make(map[ContentKey]bool, len(st.vecs))
	for _, p := range s.order {
		e, _ := s.files.get(p)
		for i := range e.idx.nodes {
			live[e.idx.nodes[i].content] = true
		}
	}
	st.mu.Lock()
	defer st.mu.Unlock()
	for k := range st.vecs {
		if !live[k] {
			delete(st.vecs, k)
			st.dirty = true
		}
	}
}

// saveVectors writes vectors.ppv: a JSON header, then one chromem-go
// export per non-empty shard. The store's lock is held only to list a
// shard's vectors (never while encoding or writing), so embedding and
// editing go on during a save.
func (p *persister) saveVectors(ctx context.Context, st *vectorStore) error {
	path := filepath.Join(p.dir, vectorsFile)
	st.mu.Lock()
	hdr := vectorsHeader{Embedder: st.id, Dim: st.dim, Count: len(st.vecs)}
	shards := make([][]ContentKey, storeShards)
	for k := range st.vecs {
		shards[shardOfKey(k)] = append(shards[shardOfKey(k)], k)
	}
	st.dirty = false
	st.mu.Unlock()
	err := store.Write(path, kindVectors, vectorsVersion, func(w io.Writer) error {
		hb, err := json.Marshal(hdr)
		if err != nil {
			return err
		}
		if err := store.WriteChunk(w, hb); err != nil {
			return err
		}
		var buf bytes.Buffer
		for i, keys := range shards {
			if len(keys) == 0 {
				continue
			}
			if err := ctx.Err(); err != nil {
				return err
			}
			buf.Reset()
			if err := exportShard(ctx, st, i, keys, &buf); err != nil {
				return err
			}
			if err := store.WriteChunk(w, buf.Bytes()); err != nil {
				return err
			}
		}
		return nil
	})
	if err != nil {
		st.mu.Lock()
		st.dirty = true
		st.mu.Unlock()
	}
	return err
}

// exportShard writes one shard as a chromem-go export: a fresh DB with one
// collection holding the shard's vectors in float32, exported, dropped.
func exportShard(ctx context.Context, st *vectorStore, shard int, keys []ContentKey, w io.Writer) error {
	db := chromem.NewDB()
	name := collectionName(st.id, shard)
	col, err := db.CreateCollection(name, nil, noEmbed)
	if err != nil {
		return fmt.Errorf("exporting vectors: %w", err)
	}
	slices.SortFunc(keys, func(a, b ContentKey) int { return bytes.Compare(a[:], b[:]) })
	st.mu.Lock()
	docs := make([]chromem.Document, 0, len(keys))
	for _, k := range keys {
		if h := st.get(k); h != nil {
			docs = append(docs, chromem.Document{ID: k.String(), Embedding: vecmath.FromHalf(h, nil)})
		}
	}
	st.mu.Unlock()
	for _, d := range docs {
		if err := col.AddDocument(ctx, d); err != nil {
			return fmt.Errorf("exporting vectors: %w", err)
		}
	}
	if err := db.ExportToWriter(w, false, "", name); err != nil {
		return fmt.Errorf("exporting vectors: %w", err)
	}
	return nil
}

func (p *persister) saveFiles(s *Snapshot) error {
	rec := filesRecord{RootHash: s.Hash()}
	rec.Roots = s.Roots()
	for n := range s.Files() {
		rec.Files = append(rec.Files, fileRecord{Root: n.f.root, Rel: n.f.rel, Hash: n.Hash()})
	}
	b, err := json.Marshal(rec)
	if err != nil {
		return fmt.Errorf("encoding the file hashes: %w", err)
	}
	return store.Write(filepath.Join(p.dir, filesFile), kindFiles, filesVersion, func(w io.Writer) error {
		return store.WriteChunk(w, b)
	})
}
