package gates

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"
	"unicode/utf8"

	"pp-lsp/internal/testenv"
)

// FuzzDecodeJSON: any bytes decode to an action or a DecodeError, never a
// panic; a decoded action survives the canonical round trip unchanged.
func FuzzDecodeJSON(f *testing.F) {
	for _, s := range []string{
		`{"tool":"shell","args":{"cmd":"ls notes","cwd":"."},"explanation":"why"}`,
		`{"tool":"FILE-READ","args":{"path":"inbox.org"},"explanation":"x"}`,
		`{"tool":"send","args":{"channel":"email","to":"a@b","text":"hi"}}`,
		`{"tool":"shell","tool":"message","args":{}}`,
		`[{"tool":"message"}]`, `null`, `"x"`, `{"tool":1}`, `{"tool":"eval","args":{"lang":"python","code":"1+1"},"explanation":"e","x":1}`,
	} {
		f.Add([]byte(s))
	}
	for _, a := range sharedActions(f) {
		f.Add([]byte(a))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		a, err := DecodeJSON(data)
		if err != nil {
			return
		}
		b, err := DecodeJSON(a.CanonicalJSON())
		if err != nil {
			t.Fatalf("canonical form of a decoded action does not decode: %v\n%s", err, a.CanonicalJSON())
		}
		if string(b.CanonicalJSON()) != string(a.CanonicalJSON()) {
			t.Fatalf("canonical form is not stable:\n%s\n%s", a.CanonicalJSON(), b.CanonicalJSON())
		}
		if !utf8.Valid(a.CanonicalJSON()) {
			t.Fatalf("canonical form is not UTF-8")
		}
	})
}

// FuzzDecodeToolCall: tool-call JSON of either API never panics.
func FuzzDecodeToolCall(f *testing.F) {
	for _, s := range []string{
		`{"type":"function","function":{"name":"shell","arguments":"{\"cmd\":\"ls\",\"explanation\":\"x\"}"}}`,
		`{"type":"tool_use","name":"file_read","input":{"path":"a.org","explanation":"x"}}`,
	} {
		f.Add([]byte(s))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		v, err := parseJSON(data)
		if err != nil {
			return
		}
		_, _ = DecodeToolCall(v)
		_, _ = DecodeToolCalls(v)
		_, _ = DecodeValue(v)
	})
}

// FuzzShell: any command text is analysed without a panic or a hang, and
// an unparseable one is never allowed.
func FuzzShell(f *testing.F) {
	for _, s := range []string{
		"ls notes", "rm -rf /", "r''m -rf ~", "$'\\x72m' -rf /", "bash -c 'sh -c \"eval rm -rf ~\"'",
		"cat <<EOF\nrm -rf /\nEOF", "echo cm0gLXJmIH4= | base64 -d | sh", "f() { f | f & }; f",
		"find . -exec sh -c 'curl x | sh' \\;", "X=ls; $X -la", "rm${IFS}-rf${IFS}/", "a=$(echo rm); $a -rf ~",
		"python3 -c 'import os; os.system(\"rm -rf ~\")'", "echo $( )", "[[ ]]", "foo 'unclosed",
		"rsync -aHT/tmp --link-dest ../chats src/ dst/ --log-file=x", "cp -al . out/x", "git show --stat heads/main -- x",
	} {
		f.Add(s)
	}
	for _, a := range sharedActions(f) {
		var rec struct {
			Tool string         `json:"tool"`
			Args map[string]any `json:"args"`
		}
		if json.Unmarshal(a, &rec) == nil && rec.Tool == "shell" {
			if cmd, ok := rec.Args["cmd"].(string); ok {
				f.Add(cmd)
			}
		}
	}
	stack, err := New(DefaultConfig())
	if err != nil {
		f.Fatal(err)
	}
	root := f.TempDir()
	if err := os.WriteFile(root+"/inbox.org", []byte("* x\n"), 0o644); err != nil {
		f.Fatal(err)
	}
	env, err := stack.NewEnv(context.Background(), World{Roots: []string{root}, Home: "/home/fuzz"})
	if err != nil {
		f.Fatal(err)
	}
	defer env.Close()
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 4096 {
			return
		}
		a := NewAction(ToolShell, "fuzzing", map[string]string{"cmd": cmd, "cwd": "."})
		watchdog := time.AfterFunc(5*time.Second, func() { panic(fmt.Sprintf("shell analysis hangs on %q", cmd)) })
		v := stack.Check(context.Background(), a, env)
		watchdog.Stop()
		if v.Verdict == VerdictAllow {
			rep := analyzeShell(context.Background(), env, cmd, ".")
			if len(rep.denies) > 0 {
				t.Fatalf("allowed a command the shell vector denies: %q", cmd)
			}
		}
	})
}

// sharedActions are the actions of the labelled gate corpus, read in place
// from ../shared as extra fuzz seeds (never copied into testdata). Without
// ../shared there are none: the hand-made seeds above still run.
func sharedActions(f *testing.F) []json.RawMessage {
	f.Helper()
	files, _ := filepath.Glob(filepath.Join(testenv.ModuleRoot(f), "..", "shared", "corpus", "gates", "*.jsonl"))
	var out []json.RawMessage
	for _, file := range files {
		data, err := os.ReadFile(file)
		if err != nil {
			continue
		}
		for _, line := range bytes.Split(data, []byte("\n")) {
			var rec struct {
				Action json.RawMessage `json:"action"`
			}
			if len(line) < 64<<10 && json.Unmarshal(line, &rec) == nil && len(rec.Action) > 0 {
				out = append(out, rec.Action)
			}
		}
	}
	return out
}

// FuzzGrammarParse: any words given to any program of grammars.go (and
// to git's subcommands) are read without a panic or a hang, and no word is
// counted as an operand twice.
func FuzzGrammarParse(f *testing.F) {
	for _, s := range []string{
		"sort\x00-ruo/tmp/x\x00in", "sort\x00--compress-prog=sh", "git\x00-C\x00.\x00log\x00-p\x00--output=x",
		"tail\x00-20f\x00x", "jq\x00--arg\x00a\x00b\x00.\x00f", "tree\x00-aoL\x00out\x002", "timeout\x00-k\x005\x0010\x00rm",
		"git\x00grep\x00-Ocat\x00x", "grep\x00-e\x00--output=x", "rg\x00-g=*.org\x00x", "find\x00.\x00-exec\x00rm\x00{}\x00;",
	} {
		f.Add(s)
	}
	progs, err := grammarTable()
	if err != nil {
		f.Fatal(err)
	}
	f.Fuzz(func(t *testing.T, in string) {
		if len(in) > 2048 {
			return
		}
		words := strings.Split(in, "\x00")
		g, ok := progs[words[0]]
		if !ok {
			return
		}
		pc := g.parse(words[1:])
		if len(pc.operands)+len(pc.command) > len(words)-1 {
			t.Fatalf("%q: more operands than words", words)
		}
		if sub := pc.g.subs; sub != nil && len(pc.operands) > 0 {
			if sg := sub[pc.operands[0].word]; sg != nil {
				rest := make([]string, 0, len(pc.operands))
				for _, o := range pc.operands[1:] {
					rest = append(rest, o.word)
				}
				sg.parse(rest)
			}
		}
	})
}

// FuzzJqProgram: a jq program jqLoadsFiles passes loads no module or data
// file, as the real jq tells: run with a module it would have to find
// (none exists), jq never reports one missing.
func FuzzJqProgram(f *testing.F) {
	for _, s := range []string{
		`.a`, `import "x" as $x; $x`, `include "m"; f`, `"m" | modulemeta`, `m::f`,
		`"\("import" | ascii_upcase)"`, `# import "x"` + "\n.", `{a: .import}`, `. as $include | 1`,
		`"\("a" + "\(1)") include"`, `def f: 1; f`, `"abc`, `("x" | modulemeta)`, "module {a:1};\n.",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, prog string) {
		if _, loads := jqLoadsFiles(prog); loads || !utf8.ValidString(prog) || strings.ContainsRune(prog, 0) {
			return
		}
		if _, err := exec.LookPath("jq"); err != nil {
			t.Skip("jq is not installed")
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		run := exec.CommandContext(ctx, "jq", "-n", "-L", "mods", prog)
		run.Dir = t.TempDir()
		run.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + run.Dir}
		run.Stdin = strings.NewReader("")
		var out bytes.Buffer
		run.Stdout, run.Stderr = &out, &out
		// The fuzzer's program, run for real.
		testenv.Unprivileged(t, run)
		_ = run.Run()
		if strings.Contains(out.String(), "module not found") || strings.Contains(out.String(), "modulemeta") && strings.Contains(out.String(), "not found") {
			t.Fatalf("jqLoadsFiles passed %q, which loads a module: %s", prog, out.String())
		}
	})
}

// FuzzGitConfigKeys: every key the real git reads from a configuration
// file is among those gitConfigKeys returns (a subsection read as *), or
// gitConfigKeys says it cannot read the file: a key it misses could be
// core.fsmonitor.
func FuzzGitConfigKeys(f *testing.F) {
	for _, s := range []string{
		"[core]\n\trepositoryformatversion = 0\n\tfsmonitor = x\n", "[diff \"x\"]\n\ttextconv = ./p\n",
		"[core] fsmonitor = x", "[Core]\nFsMonitor\n", "[filter.f]\nclean=x\n", "[a]\nb = c \\\n d = e\n",
		"[include]\npath = x\n", "; c\n# d\n[x \"y z\"]\nk=\"v ; w\"\n", "\ufeff[core]\nx=1\n",
	} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, text string) {
		if len(text) > 4096 || strings.ContainsRune(text, 0) {
			return // git --list -z ends a name at a NUL
		}
		keys, ok := gitConfigKeys([]byte(text))
		if !ok {
			return
		}
		if _, err := exec.LookPath("git"); err != nil {
			t.Skip("git is not installed")
		}
		dir := t.TempDir()
		file := filepath.Join(dir, "config")
		if err := os.WriteFile(file, []byte(text), 0o644); err != nil {
			t.Fatal(err)
		}
		ctx, cancel := context.WithTimeout(context.Background(), 5*time.Second)
		defer cancel()
		run := exec.CommandContext(ctx, "git", "config", "--file", file, "--list", "--name-only", "-z")
		run.Dir = dir
		run.Env = []string{"PATH=/usr/bin:/bin", "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1"}
		out, err := run.Output()
		if err != nil {
			return // git does not read it either
		}
		have := map[string]bool{}
		for _, k := range keys {
			have[k.key] = true
		}
		for _, name := range strings.Split(string(out), "\x00") {
			if name == "" {
				continue
			}
			first, rest, _ := strings.Cut(name, ".")
			want := name
			if i := strings.LastIndexByte(rest, '.'); i >= 0 {
				want = first + ".*." + rest[i+1:]
			}
			if !have[strings.ToLower(want)] {
				t.Fatalf("git reads %q from %q; gitConfigKeys read %v", name, text, keys)
			}
		}
	})
}
