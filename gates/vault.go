package gates

import (
	"bytes"
	"context"
	"crypto/sha256"
	"crypto/subtle"
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"errors"
	"fmt"
	"io"
	"net/url"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"unicode/utf16"

	"pp-lsp/internal/regfile"
)

// Vault holds credentials by name. It lives in one JSON file, mode 0600:
//
//	{"version":1,"secrets":{"openai":"sk-…"},"sha256":"<hex>"}
//
// where sha256 is the hash of the canonical secrets object (keys sorted,
// compact JSON). OpenVault refuses a file whose hash does not match (it
// was changed other than through WriteVault), whose permissions let anyone
// but its owner read it, or that is a symlink. Providers fetch keys with
// Get; the vault gate keeps every value (and its usual encodings) out of
// outgoing arguments; Redact scrubs them from prompts and logs.
type Vault struct {
	path    string
	secrets map[string]string
	needles []vaultNeedle
}

type vaultNeedle struct {
	name, text string
}

// vaultFile is the on-disk form.
type vaultFile struct {
	Version int               `json:"version"`
	Secrets map[string]string `json:"secrets"`
	SHA256  string            `json:"sha256"`
}

// ErrVaultChanged is returned when the integrity hash does not match.
var ErrVaultChanged = errors.New("the vault was changed outside pp-lsp (its integrity hash does not match)")

// DefaultVaultPath is where the vault lives unless the configuration says
// otherwise: beside the configuration file.
func DefaultVaultPath(w World) string { return filepath.Join(w.ConfigDir, "vault.json") }

// maxVault bounds the vault file read.
const maxVault = 4 << 20

// OpenVault reads and verifies a vault file. A missing file is an error
// wrapping os.ErrNotExist (no vault is not a refused vault). The file is
// checked as opened — never followed through a symlink, never waited on
// (a FIFO opens at once and is refused), its type and mode read from the
// open file — so that no other process can swap the path between a check
// and the read.
func OpenVault(path string) (*Vault, error) {
	f, fi, err := regfile.Open(path, false)
	switch {
	case errors.Is(err, regfile.ErrSymlink):
		return nil, fmt.Errorf("vault %s is a symlink; refusing it", path)
	case errors.Is(err, regfile.ErrNotRegular):
		return nil, fmt.Errorf("vault %s is not a regular file", path)
	case err != nil:
		return nil, fmt.Errorf("vault %s: %w", path, err)
	}
	defer f.Close()
	if perm := fi.Mode().Perm(); perm&0o077 != 0 {
		return nil, fmt.Errorf("vault %s has mode %04o; it must be readable by its owner only (chmod 600)", path, perm)
	}
	if fi.Size() > maxVault {
		return nil, fmt.Errorf("vault %s is larger than %d bytes; it is not a vault file", path, maxVault)
	}
	data, err := io.ReadAll(io.LimitReader(f, maxVault))
	if err != nil {
		return nil, fmt.Errorf("vault %s: %w", path, err)
	}
	var vf vaultFile
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&vf); err != nil {
		return nil, fmt.Errorf("vault %s is not a vault file: %w", path, err)
	}
	if vf.Version != 1 {
		return nil, fmt.Errorf("vault %s has version %d; this pp-lsp reads version 1", path, vf.Version)
	}
	want := secretsHash(vf.Secrets)
	if subtle.ConstantTimeCompare([]byte(want), []byte(vf.SHA256)) != 1 {
		return nil, fmt.Errorf("vault %s: %w", path, ErrVaultChanged)
	}
	return newVault(path, vf.Secrets), nil
}

// VaultSecretsForRedaction reads the secrets of the vault file at path
// however OpenVault would refuse it — edited by hand (its hash no longer
// matches), readable by others, a symlink to a regular file — for
// redacting only: a refused vault's secrets are still secrets (a vault
// edited by hand most of all), and text bound for a model or a log is
// scrubbed of them while the vault gate denies every action. It is nil
// when nothing can be read of it (missing, not a regular file, not a
// vault's JSON).
func VaultSecretsForRedaction(path string) *Vault {
	// readBounded: a regular file only, and a FIFO swapped in after that
	// was asked never blocks the read.
	data, err := readBounded(path, maxVault)
	if err != nil {
		return nil
	}
	var vf vaultFile
	if json.NewDecoder(bytes.NewReader(data)).Decode(&vf) != nil {
		return nil
	}
	return newVault(path, vf.Secrets)
}

// WriteVault writes secrets as a vault file with its integrity hash,
// atomically (temp file, fsync, rename) and with mode 0600.
func WriteVault(path string, secrets map[string]string) error {
	for name := range secrets {
		if name == "" || strings.ContainsAny(name, " \t\n") {
			return fmt.Errorf("vault secret name %q must be one word", name)
		}
	}
	data, err := json.MarshalIndent(vaultFile{Version: 1, Secrets: secrets, SHA256: secretsHash(secrets)}, "", "  ")
	if err != nil {
		return fmt.Errorf("vault %s: %w", path, err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return fmt.Errorf("vault %s: %w", path, err)
	}
	tmp, err := os.CreateTemp(dir, ".vault-*.json")
	if err != nil {
		return fmt.Errorf("vault %s: %w", path, err)
	}
	defer os.Remove(tmp.Name())
	if err := tmp.Chmod(0o600); err != nil {
		tmp.Close()
		return fmt.Errorf("vault %s: %w", path, err)
	}
	if _, err := tmp.Write(append(data, '\n')); err != nil {
		tmp.Close()
		return fmt.Errorf("vault %s: %w", path, err)
	}
	if err := tmp.Sync(); err != nil {
		tmp.Close()
		return fmt.Errorf("vault %s: %w", path, err)
	}
	if err := tmp.Close(); err != nil {
		return fmt.Errorf("vault %s: %w", path, err)
	}
	if err := os.Rename(tmp.Name(), path); err != nil {
		return fmt.Errorf("vault %s: %w", path, err)
	}
	return nil
}

// secretsHash is the hex sha256 of the canonical secrets object.
func secretsHash(secrets map[string]string) string {
	if secrets == nil {
		secrets = map[string]string{}
	}
	canon, _ := json.Marshal(secrets) // maps marshal with sorted keys
	sum := sha256.Sum256(canon)
	return hex.EncodeToString(sum[:])
}

func newVault(path string, secrets map[string]string) *Vault {
	v := &Vault{path: path, secrets: make(map[string]string, len(secrets))}
	names := make([]string, 0, len(secrets))
	for k, s := range secrets {
		v.secrets[k] = s
		names = append(names, k)
	}
	sort.Strings(names)
	for _, name := range names {
		s := v.secrets[name]
		if len(s) < 4 {
			continue // too short to tell from ordinary text
		}
		forms := []string{s, base64.StdEncoding.EncodeToString([]byte(s)), base64.RawStdEncoding.EncodeToString([]byte(s)),
			base64.URLEncoding.EncodeToString([]byte(s)), base64.RawURLEncoding.EncodeToString([]byte(s)),
			hex.EncodeToString([]byte(s)), url.QueryEscape(s), url.PathEscape(s), reverse(s),
			// As a JSON string holds it (a config file, a tool's JSON
			// output): Go's escapes (<, >, & too) and none of them, and
			// Python's and JavaScript's \uXXXX for every non-ASCII rune.
			jsonEscape(s, true, false), jsonEscape(s, false, false), jsonEscape(s, false, true)}
		seen := map[string]bool{}
		for _, f := range forms {
			if !seen[f] {
				seen[f] = true
				v.needles = append(v.needles, vaultNeedle{name: name, text: f})
			}
		}
		if u := strings.ToUpper(hex.EncodeToString([]byte(s))); !seen[u] {
			v.needles = append(v.needles, vaultNeedle{name: name, text: u})
		}
	}
	return v
}

// jsonEscape is s as a JSON string holds it, without its quotes: '"',
// '\\' and control characters escaped, with html '<', '>' and '&' as
// \u003c (Go's encoder), with ascii every other rune past ASCII as
// \uXXXX, by UTF-16 halves past the first plane (Python's json.dumps).
func jsonEscape(s string, html, ascii bool) string {
	var b strings.Builder
	for _, r := range s {
		switch {
		case r == '"' || r == '\\':
			b.WriteByte('\\')
			b.WriteRune(r)
		case r == '\n':
			b.WriteString(`\n`)
		case r == '\r':
			b.WriteString(`\r`)
		case r == '\t':
			b.WriteString(`\t`)
		case r < 0x20 || html && (r == '<' || r == '>' || r == '&') || r == 0x2028 || r == 0x2029 || ascii && r > 0x7f:
			if r > 0xffff {
				r1, r2 := utf16.EncodeRune(r)
				fmt.Fprintf(&b, `\u%04x\u%04x`, r1, r2)
			} else {
				fmt.Fprintf(&b, `\u%04x`, r)
			}
		default:
			b.WriteRune(r)
		}
	}
	return b.String()
}

func reverse(s string) string {
	r := []rune(s)
	for i, j := 0, len(r)-1; i < j; i, j = i+1, j-1 {
		r[i], r[j] = r[j], r[i]
	}
	return string(r)
}

// Get returns the secret stored under name.
func (v *Vault) Get(name string) (string, bool) {
	if v == nil {
		return "", false
	}
	s, ok := v.secrets[name]
	return s, ok
}

// Names lists the stored names, sorted; never the values.
func (v *Vault) Names() []string {
	if v == nil {
		return nil
	}
	out := make([]string, 0, len(v.secrets))
	for k := range v.secrets {
		out = append(out, k)
	}
	sort.Strings(out)
	return out
}

// Path is the vault file's path.
func (v *Vault) Path() string { return v.path }

// Leak returns the name of a vault secret whose value, or an encoding of
// it (base64, hex, URL-escaped, reversed), appears in s.
func (v *Vault) Leak(s string) (string, bool) {
	if v == nil {
		return "", false
	}
	for _, n := range v.needles {
		if strings.Contains(s, n.text) {
			return n.name, true
		}
	}
	return "", false
}

// Redact replaces every vault secret (and its encodings) in s with
// [vault:NAME], for prompts and logs.
func (v *Vault) Redact(s string) string {
	if v == nil {
		return s
	}
	for _, n := range v.needles {
		if strings.Contains(s, n.text) {
			s = strings.ReplaceAll(s, n.text, "[vault:"+n.name+"]")
		}
	}
	return s
}

// vaultGate keeps vault secrets out of every argument, and refuses to let
// anything run while the vault itself is refused.
type vaultGate struct{}

func (vaultGate) Name() string  { return gateVault }
func (vaultGate) Priority() int { return prioVault }

func (vaultGate) Check(_ context.Context, a Action, env *Env) Result {
	w := env.world
	if w.VaultErr != nil {
		return Denied("the credential vault is refused (" + w.VaultErr.Error() + "); nothing runs until it is fixed")
	}
	if w.Vault == nil {
		return Passed("")
	}
	for _, k := range sortedArgNames(a) {
		if name, ok := w.Vault.Leak(a.Args[k]); ok {
			return Denied(fmt.Sprintf("the %s argument %q carries the vault secret %q; secrets never leave the vault in an action", a.Tool, k, name))
		}
	}
	if name, ok := w.Vault.Leak(a.Explanation); ok {
		return Denied(fmt.Sprintf("the explanation carries the vault secret %q", name))
	}
	return Passed("")
}

func sortedArgNames(a Action) []string {
	ks := make([]string, 0, len(a.Args))
	for k := range a.Args {
		ks = append(ks, k)
	}
	sort.Strings(ks)
	return ks
}
