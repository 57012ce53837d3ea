package bridge

import (
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/hex"
	"errors"
	"fmt"
	"io/fs"
	"net"
	"os"
	"path/filepath"
	"strconv"
	"strings"

	"pp-lsp/internal/regfile"
	"pp-lsp/server/seal"
)

// tokenBytes is the token's entropy; the file holds it hex-encoded.
const tokenBytes = 32

// TokenPath returns where the token lives: $XDG_RUNTIME_DIR/passepartout/token,
// or, when XDG_RUNTIME_DIR is unset or not absolute (macOS, cron, containers),
// $XDG_CACHE_HOME/passepartout/token, else $HOME/.cache/passepartout/token:
// per-user directories that other users cannot read, unlike /tmp. Clients
// (passepartout-bridge.el) look in the same places in the same order.
func TokenPath(getenv func(string) string) (string, error) {
	if d := getenv("XDG_RUNTIME_DIR"); filepath.IsAbs(d) {
		return filepath.Join(d, "passepartout", "token"), nil
	}
	if d := getenv("XDG_CACHE_HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, "passepartout", "token"), nil
	}
	if d := getenv("HOME"); filepath.IsAbs(d) {
		return filepath.Join(d, ".cache", "passepartout", "token"), nil
	}
	return "", errors.New("no place for the bridge token: set XDG_RUNTIME_DIR (or XDG_CACHE_HOME or HOME) to an absolute directory")
}

// LoadOrCreateToken returns the token stored at path, creating it (and its
// directory, mode 0700) if there is none. The file is mode 0600 and holds 64
// hex digits. A file that is not a regular file owned by this user with no
// group or other permission, or does not hold a well-formed token, may have
// been read or planted by someone else: it is replaced by a fresh token.
// created reports whether a new token was written.
func LoadOrCreateToken(path string) (token string, created bool, err error) {
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return "", false, fmt.Errorf("creating the token directory %s: %w", dir, err)
	}
	if err := securePrivateDir(dir); err != nil {
		return "", false, err
	}
	for range 3 {
		if tok, ok := readToken(path); ok {
			return tok, false, nil
		}
		tmp, tok, err := writeTempToken(dir)
		if err != nil {
			return "", false, err
		}
		// Link fails if a file appeared meanwhile: of two daemons starting
		// at once, one installs its token and the other adopts it.
		err = os.Link(tmp, path)
		if err == nil {
			os.Remove(tmp)
			return tok, true, nil
		}
		if !errors.Is(err, fs.ErrExist) {
			os.Remove(tmp)
			return "", false, fmt.Errorf("installing the token file %s: %w", path, err)
		}
		if theirs, ok := readToken(path); ok {
			os.Remove(tmp)
			return theirs, false, nil
		}
		// What is there cannot be trusted: replace it, then read back what
		// is installed (another daemon may be replacing it too).
		if err := os.Rename(tmp, path); err != nil {
			os.Remove(tmp)
			return "", false, fmt.Errorf("replacing the token file %s: %w", path, err)
		}
		if installed, ok := readToken(path); ok {
			return installed, installed == tok, nil
		}
	}
	return "", false, fmt.Errorf("the token file %s keeps changing under us", path)
}

// readToken returns the token at path if the file is trustworthy, as
// judged by the file opened (regfile): a regular file, not through a
// symlink, never waited on (a FIFO swapped in is refused at once).
func readToken(path string) (string, bool) {
	f, info, err := regfile.Open(path, false)
	if err != nil {
		return "", false
	}
	defer f.Close()
	if info.Mode().Perm()&0o077 != 0 || !seal.OwnedByMe(info) {
		return "", false
	}
	data, err := regfile.ReadAll(f, 2*tokenBytes+2)
	if err != nil {
		return "", false
	}
	tok := strings.TrimSpace(string(data))
	if b, err := hex.DecodeString(tok); err != nil || len(b) != tokenBytes {
		return "", false
	}
	return tok, true
}

// writeTempToken writes a fresh token to a private temporary file in dir,
// synced, so that installing it (link or rename) is atomic.
func writeTempToken(dir string) (tmp, tok string, err error) {
	raw := make([]byte, tokenBytes)
	if _, err := rand.Read(raw); err != nil {
		return "", "", fmt.Errorf("generating a token: %w", err)
	}
	tok = hex.EncodeToString(raw)
	f, err := os.CreateTemp(dir, ".token-*")
	if err != nil {
		return "", "", fmt.Errorf("creating a token file in %s: %w", dir, err)
	}
	tmp = f.Name()
	fail := func(what string, err error) (string, string, error) {
		f.Close()
		os.Remove(tmp)
		return "", "", fmt.Errorf("%s %s: %w", what, tmp, err)
	}
	if err := f.Chmod(0o600); err != nil {
		return fail("restricting to its owner", err)
	}
	if _, err := f.WriteString(tok + "\n"); err != nil {
		return fail("writing the token to", err)
	}
	if err := f.Sync(); err != nil {
		return fail("syncing", err)
	}
	if err := f.Close(); err != nil {
		os.Remove(tmp)
		return "", "", fmt.Errorf("closing %s: %w", tmp, err)
	}
	return tmp, tok, nil
}

// securePrivateDir makes sure dir is a directory of ours that nobody else
// can enter: it tightens our own directory to 0700, and refuses one owned by
// another user or a symlink.
func securePrivateDir(dir string) error {
	info, err := os.Lstat(dir)
	if err != nil {
		return fmt.Errorf("checking the token directory %s: %w", dir, err)
	}
	if !info.IsDir() {
		return fmt.Errorf("the token directory %s is not a directory (a symlink?)", dir)
	}
	if !seal.OwnedByMe(info) {
		return fmt.Errorf("the token directory %s belongs to another user", dir)
	}
	if info.Mode().Perm()&0o077 != 0 {
		if err := os.Chmod(dir, 0o700); err != nil {
			return fmt.Errorf("restricting the token directory %s to its owner: %w", dir, err)
		}
	}
	return nil
}

// tokenDigest is what the daemon keeps of the token: comparing digests in
// constant time hides both the token's content and its length.
func tokenDigest(tok string) [sha256.Size]byte { return sha256.Sum256([]byte(tok)) }

// tokenMatches reports whether offered is the token whose digest is want.
func tokenMatches(want [sha256.Size]byte, offered string) bool {
	got := tokenDigest(offered)
	return subtle.ConstantTimeCompare(want[:], got[:]) == 1
}

// proofLabel starts what the daemon's proof covers, so that it can serve
// no other purpose.
const proofLabel = "pp-lsp bridge daemon proof"

// daemonProof is what the daemon's handshake carries as :PROOF beside its
// :NONCE: the hex HMAC-SHA256, keyed with the token's digest, of the
// label, the nonce, the client's end of the connection and the daemon's,
// as the daemon sees them (addressKey), each followed by a zero byte.
// A client checks it before it sends the token: a program that merely
// listens on the port (the daemon not running, or elsewhere) cannot make
// it, and a program that relays the real daemon's handshake holds the
// proof of its own connection, whose ends are not the client's.
func daemonProof(digest [sha256.Size]byte, nonce string, client, daemon net.Addr) string {
	m := hmac.New(sha256.New, digest[:])
	for _, part := range []string{proofLabel, nonce, addressKey(client), addressKey(daemon)} {
		m.Write([]byte(part))
		m.Write([]byte{0})
	}
	return hex.EncodeToString(m.Sum(nil))
}

// addressKey names one end of a TCP connection as both sides can spell
// it: the IP's bytes in hex (4 for IPv4, IPv4-mapped included; 16 for
// IPv6), a colon and the port in decimal. Emacs gives the same from
// process-contact's address vectors.
func addressKey(a net.Addr) string {
	ta, ok := a.(*net.TCPAddr)
	if !ok {
		return a.String()
	}
	ip := ta.IP.To4()
	if ip == nil {
		ip = ta.IP.To16()
	}
	return hex.EncodeToString(ip) + ":" + strconv.Itoa(ta.Port)
}
