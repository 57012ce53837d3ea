package gates

import (
	"context"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestRedactSecrets: every secret the rules find is replaced by its
// rule's mark, exactly its bytes, and every other byte is kept; the benign
// twin of each case (text that only looks like one) comes through whole.
func TestRedactSecrets(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		want       string // the text redacted; "" means unchanged
		gone       []string
	}{
		{name: "keys in prose",
			text: "* Servers\nThe deploy key is AKIAIOSFODNN7EXAMPLQ and ghp_abcdefghijklmnopqrstuvwxyz0123456789 here.\n",
			want: "* Servers\nThe deploy key is [secret aws-access-key] and [secret github-token] here.\n",
			gone: []string{"AKIAIOSFODNN7EXAMPLQ", "ghp_abcdefghijklmnopqrstuvwxyz0123456789"}},
		{name: "prose about keys", text: "The AKIA prefix marks an AWS key; commit 3f2a9c1 fixed id 0123abcd.\n"},
		{name: "property drawer",
			text: ":PROPERTIES:\n:API_KEY: sk-ant-api03-Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX\n:END:\n",
			want: ":PROPERTIES:\n:API_KEY: [secret anthropic-api-key]\n:END:\n",
			gone: []string{"sk-ant-api03-Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX"}},
		{name: "property drawer, a reference", text: ":PROPERTIES:\n:API_KEY: ${ANTHROPIC_API_KEY}\n:ID: 6f1c2a9e-1d7b-4c8e-9a5f-0b3d2e4c6a8f\n:END:\n"},
		{name: "a key in a link",
			text: "See [[https://api.example.com/v1?key=x&t=ghp_Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX0cV][the API]].",
			gone: []string{"ghp_Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX0cV"}},
		{name: "a link", text: "See [[https://api.example.com/v1/users?page=2][the API]] and [[id:6f1c2a9e-1d7b-4c8e-9a5f-0b3d2e4c6a8f][a note]]."},
		{name: "credentials in a URL",
			text: "clone https://bob:s3cr3tPassw0rd@git.example.com/x.git today",
			want: "clone https://bob:[secret credentials-in-a-url]@git.example.com/x.git today"},
		{name: "a URL with a user", text: "clone https://bob@git.example.com/x.git today"},
		{name: "a password said",
			text: "The wifi password: hunter2Xy7!q for guests.",
			want: "The wifi password: [secret password-or-code-written-out] for guests."},
		{name: "the word password", text: "Change the wifi password every month; it is long."},
		{name: "base64 of a key",
			text: "blob Z2hwX1pxOHdYM3JUNXlVN2lPOXBBMXNEMmZHNGhKNmtMOHpYMGNW end",
			want: "blob [secret high-entropy-token] end"},
		{name: "base64 of prose", text: "blob aGVsbG8gd29ybGQ= end"},
		{name: "a private key",
			text: "key:\n-----BEGIN RSA PRIVATE KEY-----\nMIIEpAIBAAKCAQEA1c9Zx7Qp3vT8kLmN2oP4rS6tU8vW0xY2zA4bC6dE8fG0hI2j\nkL4mN6oP8qR0sT2uV4wX6yZ8aB0cD2eF4gH6iJ8kL0mN2oP4qR6sT8uV0wX2yZ4a\n-----END RSA PRIVATE KEY-----\nafter",
			want: "key:\n[secret pem-private-key]\nafter"},
		{name: "a checksum", text: "sha256: 9f86d081884c7d659a2feaa0c55ad015a3bf4f1b2b0b822cd15d6c15b0f00a08\n"},
		{name: "a JSON Web Token",
			text: "Bearer eyJhbGciOiJIUzI1NiIsInR5cCI6IkpXVCJ9.eyJzdWIiOiIxMjM0NTY3ODkwIn0.dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U.",
			gone: []string{"dozjgNryP4J3jVmNHl0w5N_XgL0n3I9PlFUP0THsR8U", "eyJzdWIiOiIxMjM0NTY3ODkwIn0"}},
		{name: "a note that is all secret", text: "ghp_Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX0cV", want: "[secret github-token]"},
		{name: "an assignment",
			text: "export DB_PASSWORD='Tr0ub4dor&3x' # prod",
			want: "export DB_PASSWORD='[secret password-assigned-in-clear]' # prod"},
		{name: "an assignment of a variable", text: "export DB_PASSWORD=\"$PROD_PASSWORD\" # prod"},
		{name: "after eight look-alikes",
			text: strings.Repeat("AKIAIOSFODNN7EXAMPLE ", 9) + "AKIAZ5R2WQ7PLM3XK4TV",
			gone: []string{"AKIAZ5R2WQ7PLM3XK4TV"}},
		{name: "a mailgun key in brackets after -p",
			text: "mysql -p[secret key-3f9c1a7e5b2d4f6a8c0e1b3d5f7a9c2e] db",
			gone: []string{"key-3f9c1a7e5b2d4f6a8c0e1b3d5f7a9c2e"}},
		{name: "non-ASCII around", text: "clé : ghp_Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX0cV — fin", want: "clé : [secret github-token] — fin"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RedactSecrets(tc.text)
			want := tc.want
			if want == "" && tc.gone == nil {
				want = tc.text
			}
			if want != "" {
				assert.Equal(t, want, got)
			}
			for _, g := range tc.gone {
				assert.NotContains(t, got, g)
			}
			assert.Equal(t, got, RedactSecrets(got), "redacting twice changes more")
			// The kept bytes are the text's, in order, around the spans.
			at := 0
			for _, s := range FindSecrets(tc.text) {
				require.LessOrEqual(t, at, s.Start)
				require.Less(t, s.Start, s.End)
				at = s.End
			}
		})
	}
}

// TestSecretMarksAreNotSecrets: no mark of any rule, alone or after the
// keys and separators the rules read values after, is a finding.
func TestSecretMarksAreNotSecrets(t *testing.T) {
	names := append([]string{"a stripe_key credential", "secret assigned to api_key", "a value assigned to token",
		"hex secret next to the word password"}, structuralRules...)
	for _, r := range prefixRules {
		names = append(names, r.name)
	}
	for _, name := range names {
		require.True(t, markNames[markName(name)], name)
		m := SecretMark(name)
		require.Regexp(t, `^\[secret [a-z0-9]+(-[a-z0-9]+)*\]$`, m)
		for _, text := range []string{m, "password: " + m, "token=" + m, "api_key = \"" + m + "\"", "https://u:" + m + "@h.example",
			"mysql -p" + m, "Authorization: Bearer " + m, "secret " + m + " " + m} {
			assert.Empty(t, FindSecrets(text), "%q", text)
		}
	}
}

// TestRedactedCorpusActionsCarryNoSecret: for every action of the shared
// gate corpus, each argument redacted holds nothing the secrets vector
// finds, and an argument it finds nothing in is left as it was.
func TestRedactedCorpusActionsCarryNoSecret(t *testing.T) {
	shared := testenv.SharedDir(t)
	s := newSecretScanner()
	found := 0
	for _, recs := range readCorpus(t, filepath.Join(shared, "corpus", "gates")) {
		for _, r := range recs {
			var args map[string]any
			var a struct {
				Args map[string]any `json:"args"`
			}
			if json.Unmarshal(r.Action, &a) != nil {
				continue
			}
			args = a.Args
			for _, v := range args {
				text, ok := v.(string)
				if !ok {
					continue
				}
				_, hit := s.scan(text)
				red := RedactSecrets(text)
				if !hit {
					assert.Equal(t, text, red, "%s", r.ID)
					continue
				}
				found++
				assert.Empty(t, FindSecrets(red), "%s: %q redacted to %q", r.ID, text, red)
				s.each(text, true, func(f secretFinding) bool {
					assert.True(t, markNames[markName(f.rule)], "%s: the rule %q has no mark of its own", r.ID, f.rule)
					return true
				})
			}
		}
	}
	t.Logf("%d arguments held a secret", found)
	assert.Positive(t, found)
}

// BenchmarkRedactSecrets: a context's worth of Org text (about 4000
// tokens, 16 KB) with a few secrets in it, and the same without.
func BenchmarkRedactSecrets(b *testing.B) {
	var clean, dirty strings.Builder
	for i := 0; clean.Len() < 16<<10; i++ {
		para := "** TODO Call the plumber about the kitchen sink :home:\n:PROPERTIES:\n:ID: 6f1c2a9e-1d7b-4c8e-9a5f-0b3d2e4c6a8f\n:END:\nHe said the valve (part 3f2a9c1) needs replacing; see [[https://example.com/valves?page=2][the catalogue]] and [[id:0b3d2e4c][notes]].\n"
		clean.WriteString(para)
		dirty.WriteString(para)
		if i%8 == 0 {
			dirty.WriteString("The deploy key is AKIAZ5R2WQ7PLM3XK4TV and password: Tr0ub4dor&3x here.\n")
		}
	}
	// "escaped": the clean text as a JSON string holds it (a tool's JSON
	// output), so that its escapes are decoded and read again.
	escaped, err := json.Marshal(clean.String())
	if err != nil {
		b.Fatal(err)
	}
	for _, c := range []struct {
		name, text string
	}{{"clean", clean.String()}, {"secrets", dirty.String()}, {"escaped", string(escaped)}} {
		b.Run(c.name, func(b *testing.B) {
			b.SetBytes(int64(len(c.text)))
			b.ReportAllocs()
			for b.Loop() {
				RedactSecrets(c.text)
			}
		})
	}
}

// TestWritingAMarkBackAsks: an action that writes a redactor's mark into
// the notes — where the model was shown it instead of a secret or private
// text — needs the user's approval; the same write without one does not,
// and the same mark outside the notes' content is no concern of this
// check.
func TestWritingAMarkBackAsks(t *testing.T) {
	stack, env, _ := testEnv(t, DefaultConfig())
	for _, tc := range []struct {
		name, content string
		ask           bool
	}{
		{"a secret's mark", "* Servers\nThe deploy key is [secret aws-access-key] here.\n", true},
		{"a vault mark", "* Wifi\nThe password is [vault:wifi].\n", true},
		{"a private mark", "* Copy\n[private]\n", true},
		{"no mark", "* Servers\nThe deploy key is in the vault; the secret is kept elsewhere.\n", false},
		{"brackets", "* Servers\n[secret] is a word in brackets, [vault] too.\n", false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := stack.Check(context.Background(), act(ToolFileWrite, "path", "inbox.org", "content", tc.content), env)
			if tc.ask {
				assert.Equal(t, VerdictAsk, v.Verdict, "%+v", v)
				assert.Contains(t, v.Reason, "into the notes")
			} else {
				assert.Equal(t, VerdictAllow, v.Verdict, "%+v", v)
			}
		})
	}
}

// TestRedactSecretsAcrossLines: a secret a line break cuts in two (a key
// wrapped by a mail client, a long token in an indented block) is found
// in its two pieces; prose and paths whose lines merely end and start
// with letters are not joined into one.
func TestRedactSecretsAcrossLines(t *testing.T) {
	for _, tc := range []struct {
		name, text string
		gone       []string // pieces that must not survive
		want       string   // "" means unchanged
	}{
		{name: "an AWS key cut in half", text: "The key is AKIAZ5R2WQ\n7PLM3XK4TV here.\n",
			want: "The key is [secret aws-access-key]\n[secret aws-access-key] here.\n"},
		{name: "a GitHub token, CRLF and indentation", text: "token ghp_Zq8wX3rT5yU7i\r\n    O9pA1sD2fG4hJ6kL8zX0cV end\r\n",
			gone: []string{"ghp_Zq8wX3rT5yU7i", "O9pA1sD2fG4hJ6kL8zX0cV"}},
		{name: "prose", text: "The deployment documentation\nexplains everything, internationalization\nincluded.\n"},
		{name: "a path and a date", text: "see /srv/backups/daily/archive\n2026-11-26 for the rest\n"},
		{name: "a short id", text: "build 3f2a9c1\nb7e4 passed\n"},
		{name: "a word and a file name", text: "Defines title etc., includes\n      =printhead2.org=, =glossaries.org=\n"},
		{name: "a checksum and a key", text: "  checksum: eaac4cf978b6fbd480f1092cab8b233c9b949bcabfc9b598dd79a758f7243c28765ef7639c876fa72940dac687181b35486ea01ff\n  languageName: node\n"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RedactSecrets(tc.text)
			switch {
			case tc.want != "":
				assert.Equal(t, tc.want, got)
			case tc.gone == nil:
				assert.Equal(t, tc.text, got)
			}
			for _, g := range tc.gone {
				assert.NotContains(t, got, g)
			}
			assert.Equal(t, got, RedactSecrets(got))
		})
	}
}

// FuzzRedactSecrets: any text is redacted without a panic; the spans are
// in order and within the text, the bytes between them are the text's,
// and redacting again changes nothing more.
func FuzzRedactSecrets(f *testing.F) {
	for _, s := range []string{"The deploy key is AKIAZ5R2WQ7PLM3XK4TV here.", "password: Tr0ub4dor&3x\n",
		"key AKIAZ5R2WQ\n  7PLM3XK4TV", "mysql -p[secret aws-access-key]", "[secret [vault:x] [private]", "-----BEGIN RSA PRIVATE KEY-----\nMIIE\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		spans := FindSecrets(text)
		at := 0
		for _, s := range spans {
			require.LessOrEqual(t, at, s.Start)
			require.Less(t, s.Start, s.End)
			require.LessOrEqual(t, s.End, len(text))
			at = s.End
		}
		red := RedactSecrets(text)
		if len(spans) == 0 {
			require.Equal(t, text, red)
		}
		require.Equal(t, red, RedactSecrets(red))
	})
}

// TestRedactSecretsReadsEscapes: a secret held in a JSON string within a
// string, \u-escaped or percent-encoded is found as its escapes decode,
// and its mark covers the escaped bytes whole; text with escapes and no
// secret is kept byte for byte.
func TestRedactSecretsReadsEscapes(t *testing.T) {
	for _, tc := range []struct{ name, in, want string }{
		{"JSON within a string", `"last-applied": "{\"password\":\"Tr0ub4dorQ3xZ\"}"`, `"last-applied": "{\"password\":\"[secret password-assigned-in-clear]\"}"`},
		{"JSON within JSON within a string", `{\\\"password\\\":\\\"Tr0ub4dorQ3xZ\\\"}`, `{\\\"password\\\":\\\"[secret password-assigned-in-clear]\\\"}`},
		{"a \\u escape", `key \u0041KIAZ5R2WQ7PLM3XK4TV here`, `key [secret high-entropy-token] here`},
		{"percent-encoded", `next=%2Flogin%3Fpassword%3DTr0ub4dorQ3xZ done`, `next=%2Flogin%3F[secret password-or-code-written-out] done`},
		{"a benign twin: percents and paths", `50% off; see %20 and C:\new\table`, `50% off; see %20 and C:\new\table`},
		{"a benign twin: JSON escapes", `{"a":"\u00e9t\u00e9 \ud83d\ude00 \"quoted\" build 3f2a9c1"}`, `{"a":"\u00e9t\u00e9 \ud83d\ude00 \"quoted\" build 3f2a9c1"}`},
		{"a benign twin: a URL", `https://example.com/search?q=kitchen%20sink%26valves&page=2`, `https://example.com/search?q=kitchen%20sink%26valves&page=2`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := RedactSecrets(tc.in)
			assert.Equal(t, tc.want, got)
			assert.Equal(t, got, RedactSecrets(got), "redacting again changes nothing")
		})
	}
}
