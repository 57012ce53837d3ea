package chat

import (
	"bytes"
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"time"
	"unicode"

	"pp-lsp/gates"
	"pp-lsp/internal/orgsetup"
	"pp-lsp/server/internal/flock"
	"pp-lsp/server/workspace"
)

// DefaultDir is the folder of conversations under the first root (the
// chatDir setting's default): the one the gates guard when told no other.
const DefaultDir = gates.DefaultChatDir

// Config is what a Store is made from.
type Config struct {
	// Roots are the memex roots, absolute; conversations are made in the
	// first, and a follow-up's file must lie in one of them.
	Roots []string
	// Dir is the folder of new conversations, relative to the first root
	// ("": DefaultDir).
	Dir string
	// LockDir holds the conversations' cross-process locks (in the data
	// dir, never in a root).
	LockDir string
	// Files reads and writes them (the buffer when one is open).
	Files workspace.Files
	// Write, when set, makes Files' writes (the agent's: its own changes
	// are told from its actions').
	Write func(ctx context.Context, cur workspace.Current, changes []workspace.Change, m workspace.Meta) ([]byte, error)
	// Reserved are file names that are never a conversation
	// (flightplans.org, journal.org).
	Reserved []string
	// Home is the home folder "~/" stands for in a conversation's
	// #+SETUPFILE: (the world's, as the gates read it; "" knows none: a
	// conversation with such a setup file is private).
	Home string
}

// Store makes, reads and appends to conversations.
type Store struct {
	cfg Config
	dir string // absolute

	mu    sync.Mutex
	held  map[string]*pathLock
	cache map[string]*parsed
}

// parsed is a conversation as last read: its text and what it parsed to,
// with the privacy tags it was parsed with. A Chat in the cache is never
// changed; a longer text makes a new one.
type parsed struct {
	src  []byte
	chat *Chat
	tags string
	// tailable: nothing in src changes how appended text parses (no TODO
	// set-up or other keyword), so an append can be parsed alone.
	tailable bool
}

// maxCached bounds the conversations kept parsed.
const maxCached = 64

type pathLock struct {
	ch   chan struct{}
	refs int
}

// New makes a Store. Dir must be a relative path inside the first root.
func New(cfg Config) (*Store, error) {
	if len(cfg.Roots) == 0 || cfg.LockDir == "" {
		return nil, errors.New("chat: roots and a lock folder are required")
	}
	if cfg.Dir == "" {
		cfg.Dir = DefaultDir
	}
	if !filepath.IsLocal(cfg.Dir) {
		return nil, fmt.Errorf("the chat folder %q is not a relative path inside the first root", cfg.Dir)
	}
	return &Store{cfg: cfg, dir: filepath.Join(cfg.Roots[0], cfg.Dir), held: map[string]*pathLock{}, cache: map[string]*parsed{}}, nil
}

// Dir is the folder of new conversations, absolute.
func (s *Store) Dir() string { return s.dir }

// InDir reports whether path (absolute, clean) is an Org file in the
// conversations' folder: a question asked from it is a follow-up.
func (s *Store) InDir(p string) bool {
	rel, err := filepath.Rel(s.dir, p)
	return err == nil && filepath.IsLocal(rel) && strings.EqualFold(filepath.Ext(p), ".org") && !s.reserved(p)
}

func (s *Store) reserved(p string) bool {
	for _, r := range s.cfg.Reserved {
		if strings.EqualFold(filepath.Base(p), r) {
			return true
		}
	}
	return false
}

// Resolve checks a conversation named by a client (absolute, or relative to
// the first root): an existing regular .org file, not a symlink, inside a
// root, not one of the reserved files. It returns the clean absolute path.
func (s *Store) Resolve(name string) (string, error) {
	if strings.ContainsRune(name, 0) || strings.TrimSpace(name) == "" {
		return "", fmt.Errorf("the conversation %q is not a file name", name)
	}
	p := name
	if !filepath.IsAbs(p) {
		p = filepath.Join(s.cfg.Roots[0], p)
	}
	p = filepath.Clean(p)
	if !strings.EqualFold(filepath.Ext(p), ".org") {
		return "", fmt.Errorf("the conversation %s is not an Org file", p)
	}
	if s.reserved(p) {
		return "", fmt.Errorf("%s is the server's own file, not a conversation", p)
	}
	inside := false
	for _, r := range s.cfg.Roots {
		if rel, err := filepath.Rel(r, p); err == nil && filepath.IsLocal(rel) {
			inside = true
			break
		}
	}
	if !inside {
		return "", fmt.Errorf("the conversation %s is outside the memex roots", p)
	}
	if _, open := s.open(p); open {
		return p, nil
	}
	fi, err := os.Lstat(p)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return "", fmt.Errorf("the conversation %s does not exist", p)
	case err != nil:
		return "", fmt.Errorf("the conversation %s cannot be read: %w", p, err)
	case fi.Mode()&fs.ModeSymlink != 0:
		return "", fmt.Errorf("the conversation %s is a symlink", p)
	case !fi.Mode().IsRegular():
		return "", fmt.Errorf("the conversation %s is not a regular file", p)
	}
	return p, nil
}

func (s *Store) open(p string) (workspace.Document, bool) {
	if s.cfg.Files.Workspace == nil {
		return workspace.Document{}, false
	}
	return s.cfg.Files.Workspace.OpenDocument(p)
}

// Load reads a conversation as the user sees it (the open buffer, else the
// disk) and parses it; privacyTags make it private. The Chat may be shared
// with other callers: it must not be changed.
func (s *Store) Load(p string, privacyTags []string) (*Chat, error) {
	cur, err := s.cfg.Files.Read(p)
	if err != nil {
		return nil, err
	}
	if !cur.Exists {
		return nil, fmt.Errorf("the conversation %s does not exist", p)
	}
	return s.parseCached(p, cur.Text, privacyTags), nil
}

// parseCached parses src, the text of p: from the cache when it is the
// text last parsed, only the appended turns when it is that text with
// whole headlines after it, in full otherwise. The result equals
// Parse(src, tags) (TestTheCacheParsesAsParse).
func (s *Store) parseCached(p string, src []byte, tags []string) *Chat {
	key := strings.Join(tags, "\x00")
	s.mu.Lock()
	prev := s.cache[p]
	s.mu.Unlock()
	var c *Chat
	tailable := false
	if orgsetup.Mentions(src) {
		// Its privacy hangs on its setup files too: read whole each time.
		c, _, _ := parse(src, tags, filepath.Dir(p), s.cfg.Home)
		return c
	}
	switch {
	case prev != nil && prev.tags == key && bytes.Equal(prev.src, src):
		return prev.chat
	case prev != nil && prev.tags == key && prev.tailable && len(prev.src) > 0 && prev.src[len(prev.src)-1] == '\n' &&
		bytes.HasPrefix(src, prev.src) && startsTurns(src[len(prev.src):]):
		tail, _, kw := parse(src[len(prev.src):], tags, filepath.Dir(p), s.cfg.Home)
		if !kw {
			c = &Chat{Title: prev.chat.Title, Model: prev.chat.Model, Private: prev.chat.Private || tail.Private, End: len(src)}
			c.Turns = append(append(make([]Turn, 0, len(prev.chat.Turns)+len(tail.Turns)), prev.chat.Turns...), tail.Turns...)
			tailable = true
		}
	}
	if c == nil {
		var setup bool
		c, setup, _ = parse(src, tags, filepath.Dir(p), s.cfg.Home)
		tailable = !setup
	}
	s.mu.Lock()
	if len(s.cache) >= maxCached {
		for k := range s.cache {
			delete(s.cache, k)
			break
		}
	}
	s.cache[p] = &parsed{src: bytes.Clone(src), chat: c, tags: key, tailable: tailable}
	s.mu.Unlock()
	return c
}

// relative is from relative to the folder of the conversation p when both
// lie in one root, so that the link keeps working when the notes move;
// from as it is otherwise.
func (s *Store) relative(p, from string) string {
	if from == "" || !filepath.IsAbs(from) {
		return from
	}
	for _, r := range s.cfg.Roots {
		rp, err1 := filepath.Rel(r, p)
		rf, err2 := filepath.Rel(r, from)
		if err1 == nil && err2 == nil && filepath.IsLocal(rp) && filepath.IsLocal(rf) {
			if rel, err := filepath.Rel(filepath.Dir(p), from); err == nil {
				return rel
			}
		}
	}
	return from
}

// startsTurns reports whether text appended to a file that ends a line
// starts with a headline (after blank lines).
func startsTurns(tail []byte) bool {
	t := bytes.TrimLeft(tail, "\n")
	return bytes.HasPrefix(t, []byte("* "))
}

// Create makes a new conversation for question, asked at now:
// DIR/YYYY-MM-DD-<slug>.org (with -2, -3… when taken), holding its header
// with fileTags (a privacy tag: the conversation is private from its first
// byte).
// The file appears whole (written, fsynced, then linked into place, which
// never replaces a file) inside the first root, whatever symlinks the
// folder holds.
func (s *Store) Create(question string, now time.Time, fileTags ...string) (string, error) {
	root, err := os.OpenRoot(s.cfg.Roots[0])
	if err != nil {
		return "", fmt.Errorf("making a conversation: %w", err)
	}
	defer root.Close()
	dir := filepath.ToSlash(s.cfg.Dir)
	if err := root.MkdirAll(dir, 0o755); err != nil {
		return "", fmt.Errorf("making the conversations' folder %s: %w", s.dir, err)
	}
	var rnd [6]byte
	rand.Read(rnd[:])
	tmp := path.Join(dir, ".chat-"+hex.EncodeToString(rnd[:])+".tmp")
	f, err := root.OpenFile(tmp, os.O_WRONLY|os.O_CREATE|os.O_EXCL, 0o644)
	if err != nil {
		return "", fmt.Errorf("making a conversation in %s: %w", s.dir, err)
	}
	defer root.Remove(tmp)
	_, err = f.WriteString(Header(question, fileTags...))
	if err == nil {
		err = f.Sync()
	}
	if cerr := f.Close(); err == nil {
		err = cerr
	}
	if err != nil {
		return "", fmt.Errorf("making a conversation in %s: %w", s.dir, err)
	}
	base := now.Format("2006-01-02") + "-" + Slug(question)
	for n := 1; n < 1000; n++ {
		name := base + ".org"
		if n > 1 {
			name = base + "-" + strconv.Itoa(n) + ".org"
		}
		err := root.Link(tmp, path.Join(dir, name))
		if errors.Is(err, fs.ErrExist) {
			continue
		}
		if err != nil {
			return "", fmt.Errorf("making the conversation %s: %w", filepath.Join(s.dir, name), err)
		}
		if d, err := root.Open(dir); err == nil {
			d.Sync()
			d.Close()
		}
		return filepath.Join(s.dir, name), nil
	}
	return "", fmt.Errorf("making a conversation: %s has too many named %s", s.dir, base)
}

// Slug is a file-name form of a question's first words: lower-case
// letters and digits joined by "-", at most 40 bytes; "chat" when none.
func Slug(q string) string {
	var b strings.Builder
	dash := false
	for _, r := range strings.ToLower(firstLine(q)) {
		switch {
		case r < 128 && (unicode.IsLetter(r) || unicode.IsDigit(r)):
			if dash && b.Len() > 0 {
				b.WriteByte('-')
			}
			dash = false
			b.WriteRune(r)
		default:
			dash = true
		}
		if b.Len() >= 40 {
			break
		}
	}
	if b.Len() == 0 {
		return "chat"
	}
	return strings.TrimRight(b.String(), "-")
}

// Lock takes a conversation for one question: within this Store and
// across processes sharing the lock folder, one holder at a time, in
// order of arrival within a process. It waits until ctx ends.
func (s *Store) Lock(ctx context.Context, p string) (release func(), err error) {
	s.mu.Lock()
	pl := s.held[p]
	if pl == nil {
		pl = &pathLock{ch: make(chan struct{}, 1)}
		s.held[p] = pl
	}
	pl.refs++
	s.mu.Unlock()
	drop := func() {
		s.mu.Lock()
		if pl.refs--; pl.refs == 0 {
			delete(s.held, p)
		}
		s.mu.Unlock()
	}
	select {
	case pl.ch <- struct{}{}:
	case <-ctx.Done():
		drop()
		return nil, fmt.Errorf("waiting for the conversation %s: %w", p, ctx.Err())
	}
	sum := sha256.Sum256([]byte(p))
	fl, err := flock.Acquire(ctx, filepath.Join(s.cfg.LockDir, hex.EncodeToString(sum[:12])+".lock"))
	if err != nil {
		<-pl.ch
		drop()
		return nil, fmt.Errorf("waiting for the conversation %s: %w", p, err)
	}
	var once sync.Once
	return func() {
		once.Do(func() {
			fl.Release()
			<-pl.ch
			drop()
		})
	}, nil
}

// Append adds turn t at the end of the conversation p (held with Lock):
// through the editor when the file is open, else by an atomic write that
// first checks the file is still the text it was read as. It returns the
// new text.
func (s *Store) Append(ctx context.Context, p string, t Turn) ([]byte, error) {
	cur, err := s.cfg.Files.Read(p)
	if err != nil {
		return nil, err
	}
	if !cur.Exists {
		return nil, fmt.Errorf("the conversation %s no longer exists", p)
	}
	t.From = s.relative(p, t.From)
	text := Render(t)
	n := len(cur.Text)
	switch {
	case n == 0:
	case cur.Text[n-1] != '\n':
		text = "\n\n" + text
	default:
		text = "\n" + text
	}
	write := s.cfg.Files.Write
	if s.cfg.Write != nil {
		write = s.cfg.Write
	}
	out, err := write(ctx, cur, []workspace.Change{{Start: n, End: n, NewText: text}},
		workspace.Meta{Label: "Passepartout: the conversation's new turn"})
	if err != nil {
		return nil, fmt.Errorf("adding the turn to %s: %w", p, err)
	}
	return out, nil
}
