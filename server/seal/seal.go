package seal

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"path/filepath"
	"strings"

	"pp-lsp/internal/plainerr"
	"pp-lsp/internal/regfile"
)

// FileName is the key's name in the data directory.
const FileName = "key"

// Size is the key's length in bytes.
const Size = 32

// prefix starts every seal, naming its algorithm.
const prefix = "hmac-sha256:"

// Key is the per-install key.
type Key struct {
	b [Size]byte
}

// Path is where the key of dataDir is.
func Path(dataDir string) string { return filepath.Join(dataDir, FileName) }

// Load reads the key of dataDir. A missing key is an error wrapping
// fs.ErrNotExist (doctor and Verify never make one); a key that is not a
// regular file of its owner's, readable by nobody else, of Size bytes, is
// refused with an error saying what to fix.
func Load(dataDir string) (*Key, error) {
	p := Path(dataDir)
	f, fi, err := regfile.Open(p, false)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		return nil, fmt.Errorf("the key %s does not exist yet (pp-lsp makes it at its first start): %w", p, fs.ErrNotExist)
	case errors.Is(err, regfile.ErrSymlink):
		// Wrapped, as a folder's is: errors.Is finds regfile.ErrSymlink.
		return nil, fmt.Errorf("the key %s is refused (%w): pp-lsp uses only a regular file of its own there", p, regfile.ErrSymlink)
	case errors.Is(err, regfile.ErrNotRegular):
		// The reason alone (what the file is), wrapped: errors.Is finds
		// regfile.ErrNotRegular, and the sentence names the path once.
		reason := err
		if pe := (*fs.PathError)(nil); errors.As(err, &pe) {
			reason = pe.Err
		}
		return nil, fmt.Errorf("the key %s is not a regular file (%w): remove it, and pp-lsp makes a new one at its next start", p, reason)
	case err != nil:
		return nil, plainerr.File("read", "the key", p, err)
	}
	defer f.Close()
	switch {
	case fi.Mode().Perm()&0o077 != 0:
		return nil, fmt.Errorf("the key %s has mode %04o: only its owner may read it (chmod 600 %s)", p, fi.Mode().Perm(), p)
	case fi.Size() != Size:
		return nil, fmt.Errorf("the key %s holds %d bytes, not %d: it is damaged (remove it, and every Flight Plan filed with it becomes foreign)", p, fi.Size(), Size)
	case !OwnedByMe(fi):
		return nil, fmt.Errorf("the key %s belongs to another user", p)
	}
	k := &Key{}
	if _, err := io.ReadFull(f, k.b[:]); err != nil {
		return nil, fmt.Errorf("reading the key %s: %w", p, err)
	}
	return k, nil
}

// LoadOrCreate reads the key of dataDir, making dataDir (mode 0700) and
// the key first when there is none. A dataDir other users could change is
// refused or, when it is ours, made ours alone first (CheckDir).
func LoadOrCreate(dataDir string) (*Key, error) {
	if err := prepareDir(dataDir); err != nil {
		return nil, err
	}
	k, err := Load(dataDir)
	if !errors.Is(err, fs.ErrNotExist) {
		return k, err
	}
	if err := create(dataDir); err != nil {
		return nil, err
	}
	return Load(dataDir)
}

// create writes a new key beside its place and links it in: the link
// fails when another process made one first, and then that one is kept.
func create(dataDir string) error {
	p := Path(dataDir)
	var b [Size]byte
	if _, err := rand.Read(b[:]); err != nil {
		return fmt.Errorf("making the key %s: %w", p, err)
	}
	tmp, err := os.CreateTemp(dataDir, ".key-*.tmp")
	if err != nil {
		return fmt.Errorf("making the key %s: %w", p, err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(b[:])
	cherr := tmp.Chmod(0o600)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, cherr, serr, cerr); err != nil {
		return fmt.Errorf("making the key %s: %w", p, err)
	}
	if err := os.Link(tmp.Name(), p); err != nil && !errors.Is(err, fs.ErrExist) {
		return fmt.Errorf("making the key %s: %w", p, err)
	}
	if d, err := os.Open(dataDir); err == nil {
		d.Sync()
		d.Close()
	}
	return nil
}

// Sum seals msg for purpose: "hmac-sha256:" and the hex of the HMAC of
// the purpose, a zero byte and msg.
func (k *Key) Sum(purpose string, msg []byte) string {
	m := hmac.New(sha256.New, k.b[:])
	m.Write([]byte(purpose))
	m.Write([]byte{0})
	m.Write(msg)
	return prefix + hex.EncodeToString(m.Sum(nil))
}

// Verify reports whether seal is msg's seal for purpose under k.
func (k *Key) Verify(purpose string, msg []byte, seal string) bool {
	if k == nil || !strings.HasPrefix(seal, prefix) {
		return false
	}
	got, err := hex.DecodeString(seal[len(prefix):])
	if err != nil {
		return false
	}
	want, _ := hex.DecodeString(k.Sum(purpose, msg)[len(prefix):])
	return hmac.Equal(got, want)
}

// String never shows the key.
func (k *Key) String() string { return "seal.Key(…)" }

// GoString never shows the key.
func (k *Key) GoString() string { return k.String() }
