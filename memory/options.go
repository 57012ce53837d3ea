package memory

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"path/filepath"
	"strconv"
	"strings"
	"time"
)

// Embedder turns texts into vectors. The providers package implements it
// for Ollama and OpenAI-compatible servers without importing memory; the
// built-in default is memory/trigram.
type Embedder interface {
	// Embed returns one vector per text, in order.
	Embed(ctx context.Context, texts []string) ([][]float32, error)
	// ID names the embedder stably: kind, model and dimension. Vectors
	// embedded under another ID are never mixed with this one's; when the
	// ID changes, nodes are embedded again.
	ID() string
}

// Options configure a memex.
type Options struct {
	// Roots are the folders whose Org files make the memex (at least one).
	Roots []string
	// DataDir is where vectors and per-file hashes persist across runs
	// (see DataDir); "" keeps everything in memory.
	DataDir string
	// Embedder computes vectors; nil means the built-in trigram embedder.
	Embedder Embedder
	// Embed starts the background embedding of new and changed nodes.
	// Without it no vector is ever computed (vectors loaded from DataDir
	// are still used).
	Embed bool
	// PrivacyTags make a node private (nil: DefaultPrivacyTags).
	PrivacyTags []string
	// MaxFileBytes bounds an Org file's size (0: 64 MiB); larger files are
	// left out with a finding.
	MaxFileBytes int64
	// AutoSave saves the store this often when something changed (0: only
	// on Save and Close). MEMORY_AUTO_SAVE_INTERVAL sets it (see EnvOptions).
	AutoSave time.Duration
	// Progress, when set, is called while the memex is first read, with
	// the files indexed so far and the total.
	Progress func(done, total int)
	// Home is the user's home folder, what "~/" means in a #+SETUPFILE:
	// and a file link: every caller gives its world's (gates.World.Home),
	// so that the memex, the gates and the redactor agree on it, never
	// the process's $HOME behind it. "" knows none: a note whose setup
	// file is named from "~/" is private (it cannot be judged), and a
	// file link from "~" leads nowhere.
	Home string
	// Logger receives warnings (a corrupt store rebuilt, an embedder
	// failing); nil discards them.
	Logger *slog.Logger

	// backoffMin overrides the first retry delay (tests).
	backoffMin time.Duration
}

// Environment variables memory reads through EnvOptions (DESIGN §11).
const (
	EnvDataDir  = "PASSEPARTOUT_DATA_DIR"
	EnvAutoSave = "MEMORY_AUTO_SAVE_INTERVAL"
)

// DefaultMaxFileBytes is the default Options.MaxFileBytes.
const DefaultMaxFileBytes = 64 << 20

// DataDir returns the data folder: PASSEPARTOUT_DATA_DIR, else
// $XDG_DATA_HOME/passepartout, else ~/.local/share/passepartout.
func DataDir(getenv func(string) string) (string, error) {
	if d := strings.TrimSpace(getenv(EnvDataDir)); d != "" {
		return filepath.Abs(d)
	}
	if x := strings.TrimSpace(getenv("XDG_DATA_HOME")); x != "" && filepath.IsAbs(x) {
		return filepath.Join(x, "passepartout"), nil
	}
	home := getenv("HOME")
	if home == "" {
		h, err := userHome()
		if err != nil {
			return "", fmt.Errorf("no data folder: set %s or HOME: %w", EnvDataDir, err)
		}
		home = h
	}
	return filepath.Join(home, ".local", "share", "passepartout"), nil
}

// AutoSaveInterval reads MEMORY_AUTO_SAVE_INTERVAL (seconds; default 300).
func AutoSaveInterval(getenv func(string) string) (time.Duration, error) {
	v := strings.TrimSpace(getenv(EnvAutoSave))
	if v == "" {
		return 300 * time.Second, nil
	}
	n, err := strconv.Atoi(v)
	if err != nil || n < 0 {
		return 0, fmt.Errorf("%s=%q is not a number of seconds", EnvAutoSave, v)
	}
	return time.Duration(n) * time.Second, nil
}

// ErrNotInMemex is wrapped by errors about a path that is no memex file:
// outside every root, hidden, or not named *.org.
var ErrNotInMemex = errors.New("not a file of the memex")
