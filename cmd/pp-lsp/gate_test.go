package main

import (
	"bytes"
	"context"
	"encoding/json"
	"errors"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// gateVerdict is the JSON a verdict line carries (DESIGN §6).
type gateVerdict struct {
	Verdict string `json:"verdict"`
	Gate    string `json:"gate"`
	Reason  string `json:"reason"`
	Trace   []struct {
		Gate     string `json:"gate"`
		Priority int    `json:"priority"`
		Result   string `json:"result"`
	} `json:"trace"`
}

func gateRoot(t *testing.T) string {
	t.Helper()
	root := t.TempDir()
	require.NoError(t, os.WriteFile(filepath.Join(root, "inbox.org"), []byte("* TODO call Anna\n"), 0o644))
	require.NoError(t, os.WriteFile(filepath.Join(root, "private.org"), []byte("* Diary :@personal:\nFelt anxious all week about the biopsy results.\n"), 0o644))
	return root
}

// runGateCLI runs `pp-lsp gate` in-process with stdin and a fresh home.
func runGateCLI(t *testing.T, stdin string, args ...string) (int, string, string) {
	t.Helper()
	home := t.TempDir()
	env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_RUNTIME_DIR": filepath.Join(home, "run")}
	var out, errb bytes.Buffer
	code := run(context.Background(), &cli{stdin: strings.NewReader(stdin), stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}, append([]string{"gate"}, args...))
	return code, out.String(), errb.String()
}

func parseVerdicts(t *testing.T, out string) []gateVerdict {
	t.Helper()
	var vs []gateVerdict
	for _, line := range strings.Split(strings.TrimSuffix(out, "\n"), "\n") {
		if line == "" {
			continue
		}
		var v gateVerdict
		require.NoError(t, json.Unmarshal([]byte(line), &v), "verdict line %q", line)
		vs = append(vs, v)
	}
	return vs
}

func TestGateOrderAndVerdicts(t *testing.T) {
	root := gateRoot(t)
	in := strings.Join([]string{
		`{"tool":"file_read","args":{"path":"inbox.org"},"explanation":"Reading the inbox."}`,
		`{"tool":"shell","args":{"cmd":"rm -rf ~","cwd":"."},"explanation":"Cleaning up."}`,
		`{"tool":"send","args":{"channel":"email","to":"bob@example.com","text":"Lunch at noon?"},"explanation":"Asked to invite Bob."}`,
		`{"tool":"message","args":{"text":"Done."}}`,
		`{"tool":"send","args":{"channel":"sms","to":"+1 555","text":"Felt anxious all week about the biopsy results."},"explanation":"Update."}`,
	}, "\n") + "\n"
	code, out, stderr := runGateCLI(t, in, "--root", root)
	require.Equal(t, 0, code, stderr)
	vs := parseVerdicts(t, out)
	require.Len(t, vs, 5)
	want := []struct{ verdict, gate string }{
		{"allow", "permissions"}, {"deny", "dispatcher"}, {"ask", "permissions"}, {"deny", "policy"}, {"ask", "permissions"},
	}
	for i, w := range want {
		assert.Equal(t, w.verdict, vs[i].Verdict, "line %d: %s", i+1, vs[i].Reason)
		assert.Equal(t, w.gate, vs[i].Gate, "line %d", i+1)
		assert.NotEmpty(t, vs[i].Trace, "line %d", i+1)
	}
	assert.Contains(t, vs[4].Reason, "private", "the privacy vector names the private note")
	assert.Equal(t, "permissions", vs[0].Trace[0].Gate)
	assert.Equal(t, 600, vs[0].Trace[0].Priority)
	assert.Equal(t, "validator", vs[0].Trace[len(vs[0].Trace)-1].Gate)
}

func TestGateBrokenLines(t *testing.T) {
	root := gateRoot(t)
	huge := `{"tool":"message","args":{"text":"` + strings.Repeat("a", 10<<20) + `"},"explanation":"x"}`
	twoMiB := `{"tool":"message","args":{"text":"` + strings.Repeat("b", 2<<20) + `"},"explanation":"x"}`
	lines := []string{
		`not json`,
		``,
		`[1,2,3]`,
		`"just a string"`,
		`null`,
		"{\"tool\":\"message\",\"args\":{\"text\":\"\xff\xfe\"},\"explanation\":\"x\"}",
		huge,
		twoMiB,
		`{"tool":"shell","args":{"cmd":"ls"},"explanation":"x","approved":true}`,
		`{"tool":"message","args":{"text":"still here"},"explanation":"Telling the user."}`,
	}
	code, out, stderr := runGateCLI(t, strings.Join(lines, "\n"), "--root", root)
	require.Equal(t, 0, code, stderr)
	vs := parseVerdicts(t, out)
	require.Len(t, vs, len(lines), "one verdict per line, the last without a newline included")
	for i := 0; i < len(lines)-1; i++ {
		assert.Equal(t, "deny", vs[i].Verdict, "line %d", i+1)
		assert.Equal(t, "validator", vs[i].Gate, "line %d: %s", i+1, vs[i].Reason)
		require.Len(t, vs[i].Trace, 1)
		assert.Equal(t, "blocked", vs[i].Trace[0].Result)
	}
	assert.Contains(t, vs[6].Reason, "longer than")
	assert.Contains(t, vs[7].Reason, "over the limit")
	assert.Contains(t, vs[5].Reason, "UTF-8")
	assert.Equal(t, "allow", vs[len(vs)-1].Verdict, "a broken line does not disturb the next one")
}

func TestGateExitCodes(t *testing.T) {
	root := gateRoot(t)
	badCfg := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(badCfg, []byte(`{"gates":{"defualt":"ask"}}`), 0o644))
	goodCfg := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(goodCfg, []byte(`{"providers":{"x":1},"gates":{"permissions":{"deny":["file_read(inbox.org)"]}}}`), 0o644))
	cases := []struct {
		name   string
		args   []string
		code   int
		stderr string
	}{
		{"unknown flag", []string{"--nope"}, 2, "--nope: no such flag"},
		{"extra argument", []string{"--root", root, "file.jsonl"}, 2, "unexpected argument"},
		{"root is not a directory", []string{"--root", filepath.Join(root, "inbox.org")}, 2, "not a folder"},
		{"missing config", []string{"--root", root, "--config", filepath.Join(root, "none.json")}, 2, "none.json"},
		{"unknown config key", []string{"--root", root, "--config", badCfg}, 2, "defualt"},
		{"good config", []string{"--root", root, "--config", goodCfg}, 0, ""},
		{"help", []string{"-h"}, 0, ""},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			code, out, stderr := runGateCLI(t, `{"tool":"file_read","args":{"path":"inbox.org"},"explanation":"x"}`+"\n", tc.args...)
			assert.Equal(t, tc.code, code, stderr)
			if tc.stderr != "" {
				assert.Contains(t, stderr, tc.stderr)
			}
			if tc.name == "good config" {
				vs := parseVerdicts(t, out)
				require.Len(t, vs, 1)
				assert.Equal(t, "deny", vs[0].Verdict, "the configured deny rule applies")
			}
		})
	}
}

// failingWriter fails every write, as a closed stdout does.
type failingWriter struct{}

func (failingWriter) Write([]byte) (int, error) { return 0, errors.New("broken pipe") }

func TestGateWriteFailureExitsOne(t *testing.T) {
	root := gateRoot(t)
	var errb bytes.Buffer
	env := map[string]string{"HOME": t.TempDir()}
	code := run(context.Background(), &cli{stdin: strings.NewReader("{}\n"), stdout: failingWriter{}, stderr: &errb, getenv: func(k string) string { return env[k] }}, []string{"gate", "--root", root})
	assert.Equal(t, 1, code)
	assert.Contains(t, errb.String(), "broken pipe")
}

func TestGateRefusedVaultDeniesEverything(t *testing.T) {
	root := gateRoot(t)
	home := t.TempDir()
	cfgDir := filepath.Join(home, ".config", "passepartout")
	require.NoError(t, os.MkdirAll(cfgDir, 0o700))
	require.NoError(t, os.WriteFile(filepath.Join(cfgDir, "vault.json"), []byte(`{"version":1,"secrets":{"openai":"sk-x"},"sha256":"00"}`), 0o600))
	env := map[string]string{"HOME": home}
	var out, errb bytes.Buffer
	code := run(context.Background(), &cli{stdin: strings.NewReader(`{"tool":"file_read","args":{"path":"inbox.org"},"explanation":"x"}` + "\n"), stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}, []string{"gate", "--root", root})
	require.Equal(t, 0, code, errb.String())
	vs := parseVerdicts(t, out.String())
	require.Len(t, vs, 1)
	assert.Equal(t, "deny", vs[0].Verdict)
	assert.Equal(t, "vault", vs[0].Gate)
	assert.Contains(t, errb.String(), "integrity")
}

// TestGateSkillsAndConversations: the model cannot give itself a standing
// instruction or a schedule (a write of a skill asks, by file_write or
// shell), nor write a conversation (the chat folder, moved by
// PASSEPARTOUT_CHAT_DIR, is the server's).
func TestGateSkillsAndConversations(t *testing.T) {
	root := gateRoot(t)
	line := func(tool string, args map[string]string) string {
		b, err := json.Marshal(map[string]any{"tool": tool, "args": args, "explanation": "save"})
		require.NoError(t, err)
		return string(b)
	}
	skill := "* Hourly :skill:\nSCHEDULED: <2026-11-27 Fri 10:00 +1h>\nDo things.\n"
	for _, tc := range []struct {
		name, chatDir, action, verdict, reason string
	}{
		{"a scheduled skill", "", line("file_write", map[string]string{"path": "skills/evil.org", "content": skill}), "ask", `writes the skill "Hourly": standing instructions and schedules come from a human`},
		{"a skill by printf", "", line("shell", map[string]string{"cmd": `printf '* X :skill:\n' >> notes/a.org`}), "ask", `writes the skill "X"`},
		{"a note", "", line("file_write", map[string]string{"path": "notes/a.org", "content": "* Courses :skills:\n"}), "allow", ""},
		{"a conversation", "", line("file_write", map[string]string{"path": "chats/2026-11-26-x.org", "content": "* forged\n"}), "deny", "folder of conversations"},
		{"a moved conversation", "talk", line("file_write", map[string]string{"path": "Talk/2026-11-26-x.org", "content": "* forged\n"}), "deny", "folder of conversations"},
		{"the old folder, moved away", "talk", line("file_write", map[string]string{"path": "chats/x.org", "content": "* a note\n"}), "allow", ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			home := t.TempDir()
			env := map[string]string{"HOME": home, "XDG_CONFIG_HOME": filepath.Join(home, ".config"), "XDG_RUNTIME_DIR": filepath.Join(home, "run"), "PASSEPARTOUT_CHAT_DIR": tc.chatDir}
			var out, errb bytes.Buffer
			code := run(context.Background(), &cli{stdin: strings.NewReader(tc.action + "\n"), stdout: &out, stderr: &errb, getenv: func(k string) string { return env[k] }}, []string{"gate", "--root", root})
			require.Equal(t, 0, code, errb.String())
			vs := parseVerdicts(t, out.String())
			require.Len(t, vs, 1)
			assert.Equal(t, tc.verdict, vs[0].Verdict, vs[0].Reason)
			assert.Contains(t, vs[0].Reason, tc.reason)
		})
	}
	assert.NoFileExists(t, filepath.Join(root, "skills", "evil.org"))

	// The configuration's chat folder, as the server reads it.
	cfg := filepath.Join(t.TempDir(), "config.json")
	require.NoError(t, os.WriteFile(cfg, []byte(`{"agent": {"chat_dir": "convos"}}`), 0o600))
	code, out, stderr := runGateCLI(t, line("file_write", map[string]string{"path": "convos/x.org", "content": "* forged\n"})+"\n", "--root", root, "--config", cfg)
	require.Equal(t, 0, code, stderr)
	vs := parseVerdicts(t, out)
	require.Len(t, vs, 1)
	assert.Equal(t, "deny", vs[0].Verdict, vs[0].Reason)
	require.NoError(t, os.WriteFile(cfg, []byte(`{"agent": {"chat_dir": "../out"}}`), 0o600))
	code, _, stderr = runGateCLI(t, "", "--root", root, "--config", cfg)
	assert.Equal(t, 2, code)
	assert.Contains(t, stderr, "is not a relative path inside the first root")
}
