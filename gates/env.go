package gates

import (
	"context"
	"errors"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"time"
)

// Memex is what the gates need to know about the user's notes. memory's
// *Snapshot implements it; the gates never read the notes themselves.
type Memex interface {
	// PrivateTexts returns the body text of every node that carries one of
	// tags, by its own tags, by inheritance from an ancestor, or through the
	// file's #+filetags:. Titles are not included: a title is shown in
	// outlines, a body never is.
	PrivateTexts(tags []string) []string
	// FileOfID returns the absolute path of the file holding the node whose
	// :ID: is id.
	FileOfID(id string) (string, bool)
	// PrivacyTags are the tags the memex itself treats as private (what the
	// context renderer hides). The gates guard the union of these and their
	// own configured tags, so that a tag set in one place is never
	// forgotten in the other.
	PrivacyTags() []string
}

// World is what an environment is made of: where the user's notes are and
// where pp-lsp keeps its own files. DefaultWorld fills it from the process
// environment.
type World struct {
	Roots      []string // the memex roots; Roots[0] holds flightplans.org
	Home       string   // the user's home directory
	ConfigDir  string   // $XDG_CONFIG_HOME/passepartout
	DataDir    string   // PASSEPARTOUT_DATA_DIR or $XDG_DATA_HOME/passepartout
	RuntimeDir string   // $XDG_RUNTIME_DIR/passepartout (the bridge token)
	ConfigFile string   // the configuration file in use, if any
	Memex      Memex    // may be nil: no privacy or node-ownership checks possible
	Vault      *Vault   // may be nil: no vault
	// VaultErr is why the vault was refused (changed, loose permissions);
	// while set, the vault gate denies every action (fail closed).
	VaultErr error
	Now      func() time.Time // the clock for rate limits; nil is time.Now
	// Narrowing are further deny and ask rules for this environment only
	// (the rules of the skills a pass applies); they never allow anything.
	Narrowing []Narrowing
	// ChatDir is the folder of conversations (DESIGN §13), absolute; ""
	// is DefaultChatDir under the first root. The server makes them, never
	// the model: a write into it is a protected place's.
	ChatDir string
}

// DefaultWorld fills a World's directories the way DESIGN §11 defines them,
// from getenv (os.Getenv in the binary, a map in tests).
func DefaultWorld(getenv func(string) string, roots []string) World {
	home := getenv("HOME")
	if home == "" {
		home, _ = os.UserHomeDir()
	}
	pick := func(env, fallback string) string {
		if v := getenv(env); v != "" && filepath.IsAbs(v) {
			return v
		}
		return fallback
	}
	w := World{Roots: roots, Home: home}
	w.ConfigDir = filepath.Join(pick("XDG_CONFIG_HOME", filepath.Join(home, ".config")), "passepartout")
	w.DataDir = filepath.Join(pick("XDG_DATA_HOME", filepath.Join(home, ".local", "share")), "passepartout")
	// As memory.DataDir reads it: a relative PASSEPARTOUT_DATA_DIR is made
	// absolute, so that the folder the server writes is the one guarded.
	if d := strings.TrimSpace(getenv("PASSEPARTOUT_DATA_DIR")); d != "" {
		if abs, err := filepath.Abs(d); err == nil {
			w.DataDir = abs
		}
	}
	// As server/bridge.TokenPath places the token: $XDG_RUNTIME_DIR, else
	// $XDG_CACHE_HOME, else ~/.cache.
	w.RuntimeDir = filepath.Join(pick("XDG_RUNTIME_DIR", pick("XDG_CACHE_HOME", filepath.Join(home, ".cache"))), "passepartout")
	// As server/agent reads the chat folder's setting: a relative folder
	// inside the first root (the agent sets the Store's own when it runs).
	if d := getenv(EnvChatDir); d != "" && filepath.IsLocal(d) && len(roots) > 0 {
		w.ChatDir = filepath.Join(roots[0], d)
	}
	return w
}

// DefaultChatDir is the folder of conversations under the first root
// (server/chat.DefaultDir), and EnvChatDir the variable that moves it
// (server/agent.EnvChatDir).
const (
	DefaultChatDir = "chats"
	EnvChatDir     = "PASSEPARTOUT_CHAT_DIR"
)

// Env is a prepared World: roots made absolute and symlink-free, each
// opened as an os.Root for confinement checks, the privacy index built.
// It is immutable and safe for concurrent use; build a new one when the
// memex snapshot changes, and Close it when done.
type Env struct {
	world   World
	roots   []string   // canonical absolute roots
	osRoots []*os.Root // the same, opened
	home    string
	homes   []string // directories whose credential stores are protected
	// homeDots is "HOME/." when a root holds the home folder (or is it):
	// its dot-entries are then no part of the roots (see classify).
	homeDots string
	private  *privacyIndex
	// privacyTags are the tags guarded: the configuration's and the memex's.
	privacyTags []string
	// privacyMemo is shared by the checks of this environment (the one
	// thing they share that they may change): see textPrivacyMemo.
	privacyMemo *textPrivacyMemo
	rate        *rateCounter
	now         func() time.Time
	own         []string // pp-lsp's own directories, cleaned, with a trailing slash
	// chatDirs are the folder of conversations, as given and with its
	// symlinks resolved, each with a trailing slash.
	chatDirs []string

	// known are the variables whose values the gates know (knownVars),
	// computed once.
	known []knownVar

	// check is the per-check memo: set on the copy a check runs with
	// (Stack.beginCheck), nil on the shared Env.
	check *checkState

	// configFile is the configuration file, absolute and with its symlinks
	// resolved ("" when none); configFiles its spellings (as given,
	// absolute, resolved).
	configFile  string
	configFiles []string
	// selfWords are what code reaching pp-lsp's governance names
	// (selfmod.go), lower-cased.
	selfWords []string
	// narrowDeny and narrowAsk are World.Narrowing's rules.
	narrowDeny, narrowAsk []narrowRule
}

// checkEnv is a check's environment and memo, allocated together.
type checkEnv struct {
	env   Env
	state checkState
}

// beginCheck returns a check's environment: a copy of env with a fresh
// memo, recycled from an earlier check when one is free.
func (s *Stack) beginCheck(env *Env) *checkEnv {
	ce, _ := s.checks.Get().(*checkEnv)
	if ce == nil {
		ce = &checkEnv{}
	}
	ce.env = *env
	ce.env.check = &ce.state
	return ce
}

// endCheck hands a check's environment back once nothing of the check
// refers to it: the memo is emptied (its slices keep their room), the
// environment dropped.
func (s *Stack) endCheck(ce *checkEnv) {
	ce.env = Env{}
	ce.state.reset()
	s.checks.Put(ce)
}

// view is the check's file-system view (nil, which asks the system every
// time, outside a check).
func (e *Env) view() *fsView {
	if e.check == nil {
		return nil
	}
	return &e.check.fs
}

// NewEnv prepares a World for checks under the stack's configuration.
// A root that does not exist or is not a directory is an error.
func (s *Stack) NewEnv(ctx context.Context, w World) (*Env, error) {
	e := &Env{world: w, now: w.Now, rate: s.rate, privacyMemo: &textPrivacyMemo{}}
	var err error
	if e.narrowDeny, e.narrowAsk, err = parseNarrowing(w.Narrowing, s.tools); err != nil {
		return nil, err
	}
	if e.now == nil {
		e.now = time.Now
	}
	for _, r := range w.Roots {
		abs, err := filepath.Abs(r)
		if err != nil {
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		canon, err := filepath.EvalSymlinks(abs)
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		root, err := os.OpenRoot(canon)
		if err != nil {
			e.Close()
			return nil, fmt.Errorf("root %s: %w", r, err)
		}
		e.roots = append(e.roots, canon)
		e.osRoots = append(e.osRoots, root)
	}
	e.home = filepath.Clean(w.Home)
	if h, err := filepath.EvalSymlinks(e.home); err == nil {
		e.home = h
	}
	e.homes = []string{e.home}
	if e.home != "/" && e.home != "." && filepath.IsAbs(e.home) {
		for _, r := range e.roots {
			if e.home == r || strings.HasPrefix(e.home, r+"/") || r == "/" {
				e.homeDots = e.home + "/."
				break
			}
		}
	}
	// pp-lsp's own directories, as written and with their symlinks
	// resolved: a path is located to its resolved form, so a symlinked
	// ~/.config must be known under both.
	for _, own := range []string{w.ConfigDir, w.DataDir, w.RuntimeDir} {
		if own == "" || own == "/" || !filepath.IsAbs(own) {
			continue
		}
		c := filepath.Clean(own)
		e.own = appendUnique(e.own, c+"/")
		if r, _ := (*fsView)(nil).resolveExisting(c); r != c {
			e.own = appendUnique(e.own, r+"/")
		}
	}
	chat := w.ChatDir
	if chat == "" && len(w.Roots) > 0 {
		chat = filepath.Join(w.Roots[0], DefaultChatDir)
	}
	if abs, err := filepath.Abs(chat); err == nil && chat != "" {
		c := filepath.Clean(abs)
		e.chatDirs = appendUnique(e.chatDirs, c+"/")
		// Resolved as far as it exists: a folder not made yet is still
		// known below its root's canonical name.
		if r, _ := (*fsView)(nil).resolveExisting(c); r != c {
			e.chatDirs = appendUnique(e.chatDirs, r+"/")
		}
	}
	if w.ConfigFile != "" {
		abs, err := filepath.Abs(w.ConfigFile)
		if err == nil {
			r, _ := (*fsView)(nil).resolveExisting(filepath.Clean(abs))
			e.configFile = r
			e.configFiles = appendUnique(appendUnique(nil, filepath.Clean(abs)), r)
		}
	}
	e.selfWords = e.selfWordsFor()
	e.known = e.knownVars()
	e.privacyTags = s.cfg.Privacy.Tags
	if w.Memex != nil {
		e.privacyTags = unionFold(s.cfg.Privacy.Tags, w.Memex.PrivacyTags())
		idx, err := buildPrivacyIndex(ctx, w.Memex.PrivateTexts(e.privacyTags))
		if err != nil {
			e.Close()
			return nil, err
		}
		e.private = idx
	}
	return e, nil
}

// Close releases the opened roots.
func (e *Env) Close() error {
	var errs []error
	for _, r := range e.osRoots {
		errs = append(errs, r.Close())
	}
	e.osRoots = nil
	return errors.Join(errs...)
}

// World returns the world the environment was prepared from.
func (e *Env) World() World { return e.world }

// Roots returns the canonical roots.
func (e *Env) Roots() []string { return append([]string(nil), e.roots...) }

// firstRoot is where relative paths start (DESIGN §6).
func (e *Env) firstRoot() string {
	if len(e.roots) == 0 {
		return "/nonexistent-root"
	}
	return e.roots[0]
}

// rootOf returns the index of the root holding the canonical path abs and
// the path relative to it, or -1.
func (e *Env) rootOf(abs string) (int, string) {
	for i, r := range e.roots {
		if abs == r {
			return i, "."
		}
		if strings.HasPrefix(abs, r) && len(abs) > len(r) && (abs[len(r)] == '/' || r == "/") {
			rel := strings.TrimPrefix(abs[len(r):], "/")
			return i, rel
		}
	}
	return -1, ""
}

// unionFold is a followed by the tags of b not already in it, compared
// without case (Org tags are case-sensitive, but a privacy tag errs on the
// side of hiding).
func unionFold(a, b []string) []string {
	out := append([]string(nil), a...)
	for _, t := range b {
		if !slices.ContainsFunc(out, func(o string) bool { return strings.EqualFold(o, t) }) {
			out = append(out, t)
		}
	}
	return out
}
