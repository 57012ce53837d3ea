package agent

import (
	"bytes"
	"encoding/json"
	"errors"
	"log/slog"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/providers"
	"pp-lsp/providers/providertest"
)

// The secrets of these tests, and the benign twins beside them that must
// reach the model as they are.
const (
	awsKey      = "AKIAZ5R2WQ7PLM3XK4TV"
	githubToken = "ghp_Zq8wX3rT5yU7iO9pA1sD2fG4hJ6kL8zX0cV"
	dbPassword  = "Tr0ub4dorQ3xZ"
	vaultValue  = "correct-horse-battery-staple-42"
	twins       = "The AKIA prefix names AWS keys; build 3f2a9c1 passed."
)

// oddVault is a vault secret with characters JSON and URLs escape, and
// the forms a JSON file (Go's, Python's) and a URL's path hold it in.
const (
	oddVault    = `wïfi "r<0>ut&r" \ k€y 42`
	jsonVaultGo = `wïfi \"r\u003c0\u003eut\u0026r\" \\ k€y 42`
	jsonVaultPy = `w\u00effi \"r<0>ut&r\" \\ k\u20acy 42`
	pathVault   = `w%C3%AFfi%20%22r%3C0%3Eut&r%22%20%5C%20k%E2%82%ACy%2042`
)

// opsOrg holds secrets in a body, a property drawer and a link.
const opsOrg = "#+title: Ops\n* Servers\nThe deploy key is " + awsKey + " and " + githubToken + " here.\n" + twins + "\n" +
	"** Database\n:PROPERTIES:\n:DB_PASSWORD: " + dbPassword + "\n:END:\nSee [[https://ci.example.com/?t=" + githubToken + "][the CI]] today.\n"

// keysTxt is a file the model reads with a tool.
const keysTxt = "deploy notes\nThe deploy key is " + awsKey + " and password: " + dbPassword + " for now.\n" + twins + "\n"

// TestNoSecretReachesTheModel: whatever path a note's, a file's or a
// question's text takes to the model — the foveal context, a tool's
// result, an earlier turn of a conversation, a skill's body, the vault —
// the secrets the gates' rules find never reach it, in any of the three
// wire formats, and the words around them (and text that only looks like
// a secret) do. Private text is cut as before, the two filters together.
func TestNoSecretReachesTheModel(t *testing.T) {
	type tc struct {
		name    string
		files   map[string]string
		answers []providertest.Answer
		vault   map[string]string
		ask     func(t *testing.T, fx *fixture)
		secrets []string // absent from every request
		kept    []string // present in some request
	}
	say := providertest.Answer{Text: []string{"Noted."}}
	call := func(name, args string) providertest.Answer {
		return providertest.Answer{Calls: []providertest.Call{{ID: "toolu_1", Name: name, Args: args, Pieces: 2}}}
	}
	askAt := func(file string, line int, q string) func(*testing.T, *fixture) {
		return func(t *testing.T, fx *fixture) {
			_, _, err := fx.ask(t, file, line, q)
			require.NoError(t, err)
		}
	}
	cases := []tc{
		{name: "the foveal context", files: map[string]string{"ops.org": opsOrg},
			answers: []providertest.Answer{say}, ask: askAt("ops.org", 3, "what is here?"),
			secrets: []string{awsKey, githubToken, dbPassword},
			kept: []string{"The deploy key is [secret aws-access-key] and [secret github-token] here.", twins,
				":DB_PASSWORD: [secret password-assigned-in-clear]", "today."}},
		{name: "a file_read result", files: map[string]string{"notes.org": notesOrg, "out/keys.txt": keysTxt},
			answers: []providertest.Answer{call("file_read", `{"path":"out/keys.txt","explanation":"read the deploy notes"}`), say},
			ask:     askAt("notes.org", 2, "read the deploy notes"), secrets: []string{awsKey, dbPassword},
			kept: []string{"The deploy key is [secret aws-access-key] and password: [secret password-or-code-written-out] for now.", twins}},
		{name: "a shell output", files: map[string]string{"notes.org": notesOrg, "out/keys.txt": keysTxt},
			answers: []providertest.Answer{call("shell", `{"cmd":"cat out/keys.txt","explanation":"show the deploy notes"}`), say},
			ask:     askAt("notes.org", 2, "show the deploy notes"), secrets: []string{awsKey, dbPassword},
			kept: []string{"The deploy key is [secret aws-access-key]", twins}},
		{name: "the question and a follow-up", files: map[string]string{"notes.org": notesOrg},
			answers: []providertest.Answer{say, say},
			ask: func(t *testing.T, fx *fixture) {
				first, err := fx.askChat(t, "", "notes.org", 2, "keep this: my token is "+githubToken+" ok? "+twins)
				require.NoError(t, err)
				require.NotEmpty(t, first.Chat)
				_, err = fx.askChat(t, first.Chat, "", 0, "and what did I tell you?")
				require.NoError(t, err)
			},
			secrets: []string{githubToken}, kept: []string{"keep this: my token is [secret github-token] ok?", twins, "and what did I tell you?"}},
		{name: "a skill's body", files: map[string]string{"notes.org": notesOrg,
			"skills.org": "* Deploys :skill:\n:PROPERTIES:\n:TRIGGER: (?i)deploy\n:END:\nMANDATE-DEPLOY: deploy with the key " + awsKey + " only.\n"},
			answers: []providertest.Answer{say}, ask: askAt("notes.org", 2, "deploy it"),
			secrets: []string{awsKey}, kept: []string{"MANDATE-DEPLOY: deploy with the key [secret aws-access-key] only."}},
		{name: "the vault and the rules", files: map[string]string{"ops.org": "* Wifi\nThe wifi is " + vaultValue + " and the key " + awsKey + ".\n" + twins + "\n"},
			vault: map[string]string{"wifi": vaultValue}, answers: []providertest.Answer{say}, ask: askAt("ops.org", 2, "what is the wifi?"),
			secrets: []string{vaultValue, awsKey}, kept: []string{"The wifi is [vault:wifi] and the key [secret aws-access-key].", twins}},
		{name: "a vault secret as JSON and a URL hold it", files: map[string]string{"notes.org": notesOrg,
			// Go's encoder, Python's json.dumps (every non-ASCII rune
			// escaped) and a URL's path, each its own line.
			"out/wifi.json": `{"go": "` + jsonVaultGo + `", "py": "` + jsonVaultPy + `", "twin": "` + twins + `"}` + "\nhttps://router.example/set/" + pathVault + "/ok\n"},
			vault:   map[string]string{"wifi": oddVault},
			answers: []providertest.Answer{call("file_read", `{"path":"out/wifi.json","explanation":"read the router settings"}`), say},
			ask:     askAt("notes.org", 2, "read the router settings"), secrets: []string{oddVault, jsonVaultGo, jsonVaultPy, pathVault},
			kept: []string{`{"go": "[vault:wifi]", "py": "[vault:wifi]", "twin": "` + twins + `"}`, "https://router.example/set/[vault:wifi]/ok"}},
		{name: "a secret in JSON within a string", files: map[string]string{"notes.org": notesOrg,
			"out/deploy.yaml": "metadata:\n  annotations:\n    last-applied: \"{\\\"password\\\":\\\"" + dbPassword + "\\\",\\\"replicas\\\":3}\"\n" + twins + "\n"},
			answers: []providertest.Answer{call("shell", `{"cmd":"cat out/deploy.yaml","explanation":"show the deployment"}`), say},
			ask:     askAt("notes.org", 2, "show the deployment"), secrets: []string{dbPassword},
			kept: []string{`last-applied: "{\"password\":\"[secret password-assigned-in-clear]\",\"replicas\":3}"`, twins}},
		{name: "private text and secrets", files: map[string]string{
			"notes.org":     notesOrg + "* Diary :private:\nI met Alice at the harbour cafe on Tuesday evening.\n",
			"out/mixed.txt": "copied: I met Alice at the harbour cafe on Tuesday evening.\nkey " + awsKey + " end.\n" + twins + "\n"},
			answers: []providertest.Answer{call("file_read", `{"path":"out/mixed.txt","explanation":"read the copy"}`), say},
			ask:     askAt("notes.org", 2, "read the copy"), secrets: []string{awsKey, "harbour cafe", "Alice"},
			kept: []string{"[private]", "key [secret aws-access-key] end.", twins}},
	}
	for _, w := range wireFormats {
		for _, c := range cases {
			t.Run(w.kind+"/"+c.name, func(t *testing.T) {
				p, srv := w.provider(t, c.answers...)
				var opts []fixtureOption
				if c.vault != nil {
					path := filepath.Join(t.TempDir(), "vault.json")
					require.NoError(t, gates.WriteVault(path, c.vault))
					v, err := gates.OpenVault(path)
					require.NoError(t, err)
					opts = append(opts, func(o *Options) { o.World.Vault = v })
				}
				fx := newFixture(t, c.files, p, opts...)
				c.ask(t, fx)
				reqs := srv.Requests()
				require.Len(t, reqs, len(c.answers), "every answer was asked for")
				var all strings.Builder
				for _, r := range reqs {
					text := requestText(t, r)
					for _, s := range c.secrets {
						assert.NotContains(t, text, s)
					}
					all.WriteString(text)
				}
				for _, k := range c.kept {
					assert.Contains(t, all.String(), k)
				}
			})
		}
	}
}

// requestText is every string of a request's JSON body, one a line: what
// the model was sent, unescaped.
func requestText(t *testing.T, r providertest.Recorded) string {
	t.Helper()
	var v any
	require.NoError(t, json.Unmarshal(r.Body, &v))
	var b strings.Builder
	var walk func(any)
	walk = func(v any) {
		switch x := v.(type) {
		case string:
			b.WriteString(x + "\n")
			// Tool call arguments travel as JSON text in some formats.
			var inner any
			if json.Unmarshal([]byte(x), &inner) == nil {
				walk(inner)
			}
		case []any:
			for _, e := range x {
				walk(e)
			}
		case map[string]any:
			for _, e := range x {
				walk(e)
			}
		}
	}
	walk(v)
	return b.String()
}

// TestLogsAreRedacted: a log record carrying a secret — in its message,
// a value, an error, a group, an attribute given before — is kept in the
// ring for the prompt's LOGS, and written by the next handler, with its
// mark; what carries none is as it was.
func TestLogsAreRedacted(t *testing.T) {
	ring := NewLogRing(10)
	ring.SetRedactor(gates.Redactor(nil))
	var out bytes.Buffer
	log := slog.New(ring.Handler(slog.NewTextHandler(&out, nil))).With("key", awsKey)
	log.Warn("a tool said "+awsKey+" twice", "value", githubToken, "err", errors.New("bad "+githubToken),
		slog.Group("g", "inner", awsKey), "twins", twins, "n", 3)
	for name, text := range map[string]string{"ring": strings.Join(ring.Lines(), "\n"), "next": out.String()} {
		assert.NotContains(t, text, awsKey, name)
		assert.NotContains(t, text, githubToken, name)
		assert.Contains(t, text, "a tool said [secret aws-access-key] twice", name)
		assert.Contains(t, text, "bad [secret github-token]", name)
		assert.Contains(t, text, twins, name)
		assert.Contains(t, text, "n=3", name)
	}
}

// TestRedactJSON: strings are redacted as they read, escapes and all, and
// JSON stays JSON; JSON without a secret comes back byte for byte.
func TestRedactJSON(t *testing.T) {
	redact := gates.Redactor(nil)
	for _, tc := range []struct{ name, in, want string }{
		{"nothing", `{"cmd":"ls -l","n":1.50}`, `{"cmd":"ls -l","n":1.50}`},
		{"a key after an escaped newline", `{"content":"x\n` + awsKey + ` <b>"}`, `{"content":"x\n[secret aws-access-key] <b>"}`},
		{"a key in a list", `{"a":["` + githubToken + `",2]}`, `{"a":["[secret github-token]",2]}`},
		{"not JSON", `cmd ` + awsKey, `cmd [secret aws-access-key]`},
		{"JSON then a closing bracket and text", `{"a":1}] ` + awsKey, `{"a":1}] [secret aws-access-key]`},
		{"JSON then text", `{"a":1} ` + awsKey, `{"a":1} [secret aws-access-key]`},
		{"JSON and blanks", "[\"" + githubToken + "\"]\n", `["[secret github-token]"]`},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := redactJSON([]byte(tc.in), redact)
			assert.Equal(t, tc.want, string(got))
		})
	}
}

// TestTheSystemPromptAloneHoldsNoSecret: the prompt's own text (tools,
// mandates) is no finding, so redaction changes only what came in.
func TestTheSystemPromptAloneHoldsNoSecret(t *testing.T) {
	provider, _ := openAI(t)
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, provider)
	p := systemPrompt("Passepartout", fx.agent.tools, "", nil, Signal{}, "", fx.agent.redact)
	assert.Empty(t, gates.FindSecrets(p))
}

// TestThePrivateFilesNamesReachNoModel: the name of a file private as a
// whole (a conversation's is its first question's words) reaches no
// model — not in a listing an allowed command returns, not in the reason
// a gate gives for denying a glob that reaches it, not in the
// conversation's note of what the turn did, not where the question was
// asked from — in any wire format. (A question asked from the private
// file is private, and goes to a local model only:
// TestAConversationAskedFromAPrivatePlaceIsPrivate,
// TestAQuestionFromAPrivatePlaceInNoConversationIsPrivate.)
func TestThePrivateFilesNamesReachNoModel(t *testing.T) {
	const name = "divorce-lawyer-meeting"
	// Asked in a conversation from a public note (one asked from the
	// private file is private, and goes to no remote model at all), and
	// in none from the private file.
	for _, mode := range []struct {
		name, from string
		chat       bool
	}{{"in a conversation", "notes/a.org", true}, {"from the private file", "notes/" + name + ".org", false}} {
		for _, w := range wireFormats {
			t.Run(mode.name+"/"+w.kind, func(t *testing.T) {
				call := func(cmd string) providertest.Answer {
					return providertest.Answer{Calls: []providertest.Call{{ID: "c1", Name: "shell", Args: `{"cmd":"` + cmd + `","explanation":"to look"}`}}, InputTokens: 1, OutputTokens: 1}
				}
				p, srv := w.provider(t, call("ls notes"), call("head -c 300 notes/*"), call("head -c 300 notes/*"), call("head -c 300 notes/*"))
				fx := newFixture(t, map[string]string{
					"notes/a.org":            "* Garden\nTomatoes need water.\n",
					"notes/" + name + ".org": "#+filetags: :private:\n* Friday\nBring the papers.\n",
				}, p)
				var res AskResult
				var err error
				if mode.chat {
					res, err = fx.askChat(t, "", mode.from, 2, "what is in my notes?")
				} else {
					res, _, err = fx.ask(t, mode.from, 2, "what is in my notes?")
				}
				require.NoError(t, err)
				if !mode.chat && !providers.IsLocal(p) {
					// Asked from the private file: a private question,
					// which no remote model hears.
					require.Len(t, res.Passes, 1, "%+v", res)
					assert.Equal(t, StatusFailed, res.Passes[0].Status)
					assert.Empty(t, srv.Requests())
					return
				}
				require.Len(t, res.Passes, 2, "%+v", res)
				assert.Equal(t, StatusRan, res.Passes[0].Status)
				assert.Equal(t, StatusDenied, res.Passes[1].Status)
				assert.Contains(t, res.Passes[1].Tries[0].Verdict.Reason, name, "the user is told which file")
				reqs := srv.Requests()
				require.Len(t, reqs, 4)
				assert.Contains(t, string(reqs[1].Body), "a.org", "the listing reached the model")
				assert.Contains(t, string(reqs[2].Body), "a private note", "the reason reached the model")
				for i, r := range reqs {
					assert.False(t, strings.Contains(string(r.Body), name), "request %d names the private file", i+1)
				}
				if !mode.chat {
					assert.Empty(t, res.Chat)
					return
				}
				note := fx.read(t, strings.TrimPrefix(res.Chat, fx.root+"/"))
				assert.Contains(t, note, "denied shell", "the turn's note says what was denied")
				assert.NotContains(t, note, name, "the conversation's note names it")
			})
		}
	}
}

// TestAPrivateNodeIsNoNodeToEdit: a model that learns a private node's
// :ID: from a public link cannot overwrite the note it cannot see: its
// memory_edit is judged as one of an ID no node has (the same verdict and
// reason, so nothing tells it the node exists), waits for a human, and
// the private body is as it was.
func TestAPrivateNodeIsNoNodeToEdit(t *testing.T) {
	edit := func(id string) providertest.Answer {
		return providertest.Answer{Calls: []providertest.Call{{ID: "c1", Name: "memory_edit", Args: `{"id":"` + id + `","content":"gone","explanation":"tidy"}`}}, InputTokens: 1, OutputTokens: 1}
	}
	const notes = "* Links\nSee [[id:diary-1][the diary]].\n* Diary :private:\n:PROPERTIES:\n:ID: diary-1\n:END:\nThe letter from the clinic.\n"
	for _, w := range wireFormats {
		t.Run(w.kind, func(t *testing.T) {
			p, _ := w.provider(t, edit("diary-1"), edit("no-such-node"))
			fx := newFixture(t, map[string]string{"notes.org": notes}, p)
			var reasons []string
			for _, q := range []string{"tidy the diary", "tidy the other one"} {
				res, err := fx.askChat(t, "", "notes.org", 1, q)
				require.NoError(t, err)
				require.NotEmpty(t, res.Passes)
				last := res.Passes[len(res.Passes)-1]
				assert.Equal(t, StatusFiled, last.Status, "%+v", last)
				reasons = append(reasons, strings.ReplaceAll(last.Verdict.Reason, "no-such-node", "diary-1"))
			}
			assert.Equal(t, reasons[0], reasons[1], "a private ID is judged as a missing one")
			assert.Equal(t, notes, fx.read(t, "notes.org"), "the private body is untouched")
		})
	}
}
