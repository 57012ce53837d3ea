package main

import (
	"bytes"
	"context"
	"encoding/json"
	"net"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
	"pp-lsp/server/actuate/sandbox"
	"pp-lsp/server/journal"
	"pp-lsp/server/seal"
)

// doctorWorld is a hermetic surrounding for doctor: its own home,
// configuration and data folders, a root with one Org file, and a PATH
// with nothing on it.
type doctorWorld struct {
	env  map[string]string
	root string
}

func newDoctorWorld(t *testing.T) *doctorWorld {
	t.Helper()
	home := t.TempDir()
	root := filepath.Join(home, "org")
	require.NoError(t, os.MkdirAll(root, 0o755))
	require.NoError(t, os.WriteFile(filepath.Join(root, "notes.org"), []byte("* Notes\n"), 0o644))
	return &doctorWorld{root: root, env: map[string]string{
		"HOME":                  home,
		"XDG_CONFIG_HOME":       filepath.Join(home, "config"),
		"PASSEPARTOUT_DATA_DIR": filepath.Join(home, "data"),
		"PATH":                  filepath.Join(home, "bin"),
	}}
}

// run runs `pp-lsp doctor --root ROOT args…` and returns the exit code,
// stdout and stderr.
func (w *doctorWorld) run(t *testing.T, args ...string) (int, string, string) {
	t.Helper()
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(k string) string { return w.env[k] }}
	code := run(t.Context(), c, append([]string{"doctor", "--root", w.root}, args...))
	return code, stdout.String(), stderr.String()
}

// lineAbout returns doctor's line whose subject starts with subject.
func lineAbout(t *testing.T, out, subject string) string {
	t.Helper()
	for _, l := range strings.Split(out, "\n") {
		if len(l) > 6 && strings.HasPrefix(l[6:], subject) && strings.ContainsAny(l[6+len(subject):][:1], " :") {
			return l
		}
	}
	t.Fatalf("no line about %q in:\n%s", subject, out)
	return ""
}

// TestDoctorChecks puts each check in each of its states and reads its
// line: the verdict, what it found, and for warn and FAIL what to do.
func TestDoctorChecks(t *testing.T) {
	type want struct {
		subject string
		line    string // the line starts with it
		fix     string // the part after " — ", if any
	}
	cases := []struct {
		name  string
		setup func(t *testing.T, w *doctorWorld) []string // extra arguments
		code  int
		want  []want
	}{
		{"a fresh machine", nil, 0, []want{
			{"configuration", "ok    configuration: no file at ", ""},
			{"environment", "ok    environment: PASSEPARTOUT_DATA_DIR set, over the configuration file", ""},
			{"root", "ok    root ", ""},
			{"data dir", "ok    data dir ", ""},
			{"journal", "ok    journal: none yet under ", ""},
			{"editors", "warn  editors: pp-lsp is not on PATH, so eglot and Neovim cannot start it", "put pp-lsp on PATH"},
		}},
		{"configuration missing", func(t *testing.T, w *doctorWorld) []string {
			return []string{"--config", filepath.Join(w.root, "none.json")}
		}, 1, []want{{"configuration", "FAIL  configuration: cannot read the configuration file " + "", "create it"}}},
		{"configuration not JSON", func(t *testing.T, w *doctorWorld) []string {
			return []string{"--config", writeFile(t, w.root, "c.json", "{\n  \"gates\": nul\n}")}
		}, 1, []want{{"configuration", "FAIL  configuration: the configuration file ", "correct the file"}}},
		{"configuration with a bad section", func(t *testing.T, w *doctorWorld) []string {
			return []string{"--config", writeFile(t, w.root, "c.json", `{"gates": {"defualt": "ask"}, "agent": {"heartbeat_interval": "often"}}`)}
		}, 1, []want{{"configuration", "FAIL  configuration ", "correct the file"}}},
		{"configuration valid", func(t *testing.T, w *doctorWorld) []string {
			writeFile(t, filepath.Join(w.env["XDG_CONFIG_HOME"], "passepartout"), "config.json", `{"gates": {"default": "ask"}}`)
			return nil
		}, 0, []want{{"configuration", "ok    configuration " + "", ""}}},
		{"environment with bad values", func(t *testing.T, w *doctorWorld) []string {
			w.env["CONTEXT_BUDGET"], w.env["PASSEPARTOUT_LOG"], w.env["HEARTBEAT_INTERVAL"] = "many", "loud", "-3"
			return nil
		}, 1, []want{{"environment", "FAIL  environment: CONTEXT_BUDGET=\"many\"", "correct or unset the variable"}}},
		{"root with a binary .org", func(t *testing.T, w *doctorWorld) []string {
			writeFile(t, w.root, "photo.org", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
			return nil
		}, 0, []want{{"root", "warn  root ", "`pp-lsp index --findings --root "}}},
		{"data dir is a file", func(t *testing.T, w *doctorWorld) []string {
			w.env["PASSEPARTOUT_DATA_DIR"] = writeFile(t, w.root, "data", "")
			return nil
		}, 1, []want{{"data dir", "FAIL  data dir ", "move the file"}}},
		{"data dir in a folder others can write", func(t *testing.T, w *doctorWorld) []string {
			open := filepath.Join(t.TempDir(), "open")
			require.NoError(t, os.Mkdir(open, 0o777))
			require.NoError(t, os.Chmod(open, 0o777))
			w.env["PASSEPARTOUT_DATA_DIR"] = filepath.Join(open, "data")
			return nil
		}, 1, []want{{"data dir", "FAIL  data dir ", "set PASSEPARTOUT_DATA_DIR to a folder of your own that only you can change"}}},
		{"data dir with records and a loose key", func(t *testing.T, w *doctorWorld) []string {
			data := w.env["PASSEPARTOUT_DATA_DIR"]
			writeFile(t, filepath.Join(data, "plans"), "0c0c0c0c-0000-4000-8000-000000000000", "{}")
			require.NoError(t, os.WriteFile(filepath.Join(data, "key"), make([]byte, 32), 0o644))
			return nil
		}, 1, []want{{"data dir", "ok    data dir ", ""}, {"key", "FAIL  key ", "fix what it says"}}},
		{"data dir with records and a key", func(t *testing.T, w *doctorWorld) []string {
			data := w.env["PASSEPARTOUT_DATA_DIR"]
			writeFile(t, filepath.Join(data, "plans"), "0c0c0c0c-0000-4000-8000-000000000000", "{}")
			require.NoError(t, os.WriteFile(filepath.Join(data, "key"), make([]byte, 32), 0o600))
			return nil
		}, 0, []want{{"data dir", "ok    data dir ", ""}}},
		{"journal verified", func(t *testing.T, w *doctorWorld) []string {
			writeJournal(t, w, 3)
			return nil
		}, 0, []want{{"journal", "ok    journal ", ""}}},
		{"journal without its head", func(t *testing.T, w *doctorWorld) []string {
			writeJournal(t, w, 2)
			require.NoError(t, os.RemoveAll(filepath.Join(w.env["PASSEPARTOUT_DATA_DIR"], "journal")))
			return nil
		}, 0, []want{{"journal", "warn  journal ", "if another data dir wrote it"}}},
		{"journal edited", func(t *testing.T, w *doctorWorld) []string {
			p := writeJournal(t, w, 3)
			b, err := os.ReadFile(p)
			require.NoError(t, err)
			require.NoError(t, os.WriteFile(p, bytes.Replace(b, []byte("step 1"), []byte("step 9"), 1), 0o644))
			return nil
		}, 1, []want{{"journal", "FAIL  journal ", "someone changed the past"}}},
		{"pp-lsp on PATH is another", func(t *testing.T, w *doctorWorld) []string {
			bin := filepath.Join(w.env["HOME"], "bin")
			require.NoError(t, os.MkdirAll(bin, 0o755))
			require.NoError(t, os.WriteFile(filepath.Join(bin, "pp-lsp"), []byte("#!/bin/sh\n"), 0o755))
			return nil
		}, 0, []want{{"editors", "warn  editors: the pp-lsp on PATH is ", "reinstall it"}}},
		{"pp-lsp on PATH is this one", func(t *testing.T, w *doctorWorld) []string {
			self, err := os.Executable()
			require.NoError(t, err)
			bin := filepath.Join(w.env["HOME"], "bin")
			require.NoError(t, os.MkdirAll(bin, 0o755))
			require.NoError(t, os.Symlink(self, filepath.Join(bin, "pp-lsp")))
			return nil
		}, 0, []want{{"editors", "ok    editors: pp-lsp on PATH is ", ""}}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newDoctorWorld(t)
			var args []string
			if tc.setup != nil {
				args = tc.setup(t, w)
			}
			code, out, errOut := w.run(t, args...)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			for _, wl := range tc.want {
				l := lineAbout(t, out, wl.subject)
				assert.True(t, strings.HasPrefix(l, wl.line), "got  %q\nwant %q…", l, wl.line)
				if wl.fix != "" {
					_, fix, found := strings.Cut(l, " — ")
					assert.True(t, found && strings.HasPrefix(fix, wl.fix), "the fix of %q is not %q…", l, wl.fix)
				}
				assertPlainText(t, l)
			}
			if code == 1 {
				assert.Equal(t, 1, strings.Count(errOut, "\n"), errOut)
				assert.Contains(t, errOut, "pp-lsp doctor: ")
				assert.Contains(t, errOut, "failed (see the FAIL lines above)")
			} else {
				assert.Empty(t, errOut)
				assert.Contains(t, out, "no failures")
			}
		})
	}
}

// TestDoctorRootStates reads the roots check's lines: a missing root, a
// file, an empty folder, and one holding a binary .org file.
func TestDoctorRootStates(t *testing.T) {
	w := newDoctorWorld(t)
	writeFile(t, w.root, "photo.org", "\x89PNG\r\n\x1a\n\x00\x00\x00\rIHDR")
	writeFile(t, w.root, "more.org", "* More\n")
	empty := t.TempDir()
	gone := filepath.Join(w.root, "gone")
	file := filepath.Join(w.root, "notes.org")
	code, out, _ := w.run(t, "--root", empty, "--root", gone, "--root", file)
	assert.Equal(t, 1, code)
	assert.Equal(t, "warn  root "+w.root+": 2 Org files; 1 left out: photo.org (not text) — `pp-lsp index --findings --root "+w.root+"` says why; save them as UTF-8 text, or move them out", lineAbout(t, out, "root "+w.root))
	assert.Equal(t, "warn  root "+empty+": no Org files in it — is this the folder of your notes? give it with --root DIR", lineAbout(t, out, "root "+empty))
	assert.Equal(t, "FAIL  root "+gone+": it does not exist — give the folder of your Org files with --root DIR", lineAbout(t, out, "root "+gone))
	assert.Equal(t, "FAIL  root "+file+": it is a file, not a folder — give the folder of your Org files with --root DIR", lineAbout(t, out, "root "+file))
}

// TestDoctorDataDirUnwritable: a data dir doctor cannot write is a
// failure. (Root may write anywhere, so as root the case cannot arise.)
func TestDoctorDataDirUnwritable(t *testing.T) {
	if os.Geteuid() == 0 {
		t.Log("running as root: every folder is writable, nothing to check")
		return
	}
	w := newDoctorWorld(t)
	data := w.env["PASSEPARTOUT_DATA_DIR"]
	require.NoError(t, os.MkdirAll(data, 0o500))
	code, out, _ := w.run(t)
	assert.Equal(t, 1, code)
	assert.True(t, strings.HasPrefix(lineAbout(t, out, "data dir"), "FAIL  data dir "+data+": cannot be written"))
}

// TestDoctorSandbox: how shell and eval would be confined — ok where the
// kernel's Landlock enforces all of DESIGN §12, a warning for gaps or
// best-effort without Landlock, a failure when "required" cannot be had.
func TestDoctorSandbox(t *testing.T) {
	full := func() sandbox.Status { return sandbox.Status{ABI: 7, Seccomp: true} }
	none := func() sandbox.Status { return sandbox.Status{Reason: "this kernel was built without it"} }
	cases := []struct {
		name    string
		setting string
		probe   func() sandbox.Status
		line    string
	}{
		{"required with Landlock", "", full, "ok    sandbox: required: Landlock ABI 7 confines shell and eval commands to the roots"},
		{"required without Landlock", "required", none, "FAIL  sandbox: "},
		{"best-effort without Landlock", "best-effort", none, "warn  sandbox: best-effort, no Landlock: this kernel was built without it"},
		{"off", "off", full, "warn  sandbox: "},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			env := map[string]string{"PASSEPARTOUT_SANDBOX": tc.setting}
			d := &doctorEnv{c: &cli{getenv: func(k string) string { return env[k] }}, sandboxProbe: tc.probe}
			l := checkSandbox(t.Context(), d)
			require.Len(t, l, 1)
			assert.True(t, strings.HasPrefix(l[0].String(), tc.line), "got  %q\nwant %q…", l[0].String(), tc.line)
			assertPlainText(t, l[0].String())
		})
	}
	// A bad setting is named.
	env := map[string]string{"PASSEPARTOUT_SANDBOX": "sometimes"}
	l := checkSandbox(t.Context(), &doctorEnv{c: &cli{getenv: func(k string) string { return env[k] }}, sandboxProbe: full})
	assert.True(t, strings.HasPrefix(l[0].String(), "FAIL  sandbox: "), l[0].String())
}

func TestDoctorProviders(t *testing.T) {
	const secret = "sk-doctor-test-SECRET-1234"

	ollama := providertest.NewServer(t)
	ollama.Route("GET /api/tags", providertest.Reply{Body: `{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest"}]}`})
	vec, _ := json.Marshal([][]float32{{0.1, 0.2, 0.3}})
	ollama.Route("POST /api/embed", providertest.Reply{Body: `{"model":"nomic-embed-text","embeddings":` + string(vec) + `}`})
	llamacpp := providertest.NewServer(t)
	llamacpp.Route("GET /models", providertest.Reply{Body: `{"object":"list","data":[{"id":"local","object":"model"}]}`})
	refusing := providertest.NewServer(t)
	refusing.Route("GET /models", providertest.Reply{Status: 401, Body: `{"error":{"message":"Incorrect API key provided: ` + secret + `","type":"invalid_request_error","param":null,"code":"invalid_api_key"}}`})

	dead := closedPortURL(t)
	cases := []struct {
		name  string
		env   map[string]string
		code  int
		lines []string // each a prefix of one output line, in order
	}{
		{"nothing configured is a warning", map[string]string{}, 0, []string{
			"warn  providers: none configured: asking a model will fail until PASSEPARTOUT_PROVIDERS is set",
			"ok    embedder: trigram (memory's built-in",
		}},
		{"all well", map[string]string{
			"PASSEPARTOUT_PROVIDERS": "ollama:llama3.2@" + ollama.URL + ",openai:local@" + llamacpp.URL + ",replay:../../providers/testdata/replay/demo.jsonl",
			"EMBEDDING_PROVIDER":     "ollama", "EMBEDDING_BASE_URL": ollama.URL,
		}, 0, []string{
			"ok    provider ollama:llama3.2@" + ollama.URL + `: reachable, model "llama3.2" present, no key needed`,
			"ok    provider openai:local@" + llamacpp.URL + `: reachable, model "local" present, no key (OPENAI_API_KEY is unset; a local server needs none)`,
			"ok    provider replay:../../providers/testdata/replay/demo.jsonl: 3 entries; answers come from this transcript, not a model",
			"ok    embedder ollama:nomic-embed-text@" + ollama.URL + ": reachable, ollama:nomic-embed-text:3 (dimension 3)",
		}},
		{"model not pulled, key missing", map[string]string{
			"PASSEPARTOUT_PROVIDERS": "ollama:mistral@" + ollama.URL + ",anthropic:claude-sonnet-4-5@" + llamacpp.URL,
		}, 1, []string{
			"FAIL  provider ollama:mistral@" + ollama.URL + ": reachable, but model \"mistral\" is not pulled: run `ollama pull mistral`",
			"FAIL  provider anthropic:claude-sonnet-4-5@" + llamacpp.URL + ": no API key: set ANTHROPIC_API_KEY",
			"ok    embedder: trigram",
		}},
		{"key refused, and never printed", map[string]string{
			"PASSEPARTOUT_PROVIDERS": "openai:gpt-4o@" + refusing.URL, "OPENAI_API_KEY": secret,
		}, 1, []string{
			"FAIL  provider openai:gpt-4o@" + refusing.URL + ": the server refused the key (HTTP 401): invalid_request_error/invalid_api_key: Incorrect API key provided: [redacted] — check OPENAI_API_KEY",
		}},
		{"unreachable", map[string]string{"PASSEPARTOUT_PROVIDERS": "ollama:llama3.2@" + dead}, 1, []string{
			"FAIL  provider ollama:llama3.2@" + dead + ": not reachable: the connection to " + dead + " was refused — start it with `ollama serve`, or correct the base URL",
		}},
		{"a bad entry is named", map[string]string{"PASSEPARTOUT_PROVIDERS": "ollama:llama3.2,gemini:pro"}, 1, []string{
			`FAIL  providers: PASSEPARTOUT_PROVIDERS entry "gemini:pro": provider kind "gemini" is not one of ollama, openai, anthropic, replay`,
			"ok    embedder: trigram",
		}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			w := newDoctorWorld(t)
			for k, v := range tc.env {
				w.env[k] = v
			}
			code, out, errOut := w.run(t)
			assert.Equal(t, tc.code, code, "stdout:\n%s\nstderr:\n%s", out, errOut)
			rest := out
			for _, want := range tc.lines {
				i := strings.Index(rest, "\n"+want)
				if !assert.GreaterOrEqual(t, i, 0, "no line (in order) starting %q in:\n%s", want, out) {
					break
				}
				rest = rest[i+1:]
			}
			assert.NotContains(t, out+errOut, secret)
		})
	}
}

// TestDoctorProvidersFromTheFile: the configuration file's "providers"
// section is the cascade doctor checks, as the server reads it.
func TestDoctorProvidersFromTheFile(t *testing.T) {
	w := newDoctorWorld(t)
	dead := closedPortURL(t)
	cfg := writeFile(t, w.root, "c.json", `{"providers": {"providers": [{"kind": "ollama", "model": "llama3.2", "base_url": "`+dead+`"}]}}`)
	code, out, _ := w.run(t, "--config", cfg)
	assert.Equal(t, 1, code)
	assert.Contains(t, out, "FAIL  provider ollama:llama3.2@"+dead+": not reachable")
}

func TestDoctorUsage(t *testing.T) {
	w := newDoctorWorld(t)
	code, _, errOut := w.run(t, "extra")
	assert.Equal(t, 2, code)
	assert.Equal(t, "pp-lsp doctor: takes no operands, got \"extra\" (roots go after --root)\n", errOut)

	code, out, errOut := w.run(t, "-h")
	assert.Equal(t, 0, code)
	assert.Empty(t, errOut)
	assert.Contains(t, out, "Usage: pp-lsp doctor [--root DIR]... [--config FILE]")
}

func TestPlural(t *testing.T) {
	assert.Equal(t, "0 checks", plural(0, "check"))
	assert.Equal(t, "1 check", plural(1, "check"))
	assert.Equal(t, "3 warnings", plural(3, "warning"))
}

// writeFile writes text to dir/name (making dir) and returns its path.
func writeFile(t *testing.T, dir, name, text string) string {
	t.Helper()
	require.NoError(t, os.MkdirAll(dir, 0o755))
	p := filepath.Join(dir, name)
	require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	return p
}

// writeJournal appends n entries to the journal under the world's root,
// recording its head in the world's data dir, and returns its path.
func writeJournal(t *testing.T, w *doctorWorld, n int) string {
	t.Helper()
	data := w.env["PASSEPARTOUT_DATA_DIR"]
	key, err := seal.LoadOrCreate(data)
	require.NoError(t, err)
	j := journal.Open(filepath.Join(w.root, journal.FileName), data, key)
	for i := range n {
		_, err := j.Append(context.Background(), journal.Entry{Kind: journal.KindResult, Title: "step " + string(rune('0'+i)), Text: "done"})
		require.NoError(t, err)
	}
	return j.Path()
}

// closedPortURL is an http:// URL on loopback where nothing listens (a
// port just listened on and closed).
func closedPortURL(t *testing.T) string {
	t.Helper()
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	addr := ln.Addr().String()
	require.NoError(t, ln.Close())
	return "http://" + addr
}
