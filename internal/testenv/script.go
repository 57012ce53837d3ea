package testenv

import (
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strconv"
	"strings"
	"testing"
	"time"

	"golang.org/x/tools/txtar"
)

// Scenarios runs run on each file glob names (testdata/*.txtar), each in a
// parallel subtest named after the file.
func Scenarios(t *testing.T, glob string, run func(t *testing.T, file string)) {
	t.Helper()
	files, err := filepath.Glob(glob)
	if err != nil || len(files) == 0 {
		t.Fatalf("no scenario matches %s (%v)", glob, err)
	}
	for _, f := range files {
		t.Run(strings.TrimSuffix(filepath.Base(f), filepath.Ext(f)), func(t *testing.T) {
			t.Parallel()
			run(t, f)
		})
	}
}

// Script runs the "script" section of a txtar scenario, in the style of
// gopls's marker tests: one command a line (blank lines and lines starting
// with # are skipped), each followed by the output it must print, as lines
// starting with "> " (">" alone for an empty line); a command followed by
// none must print nothing. A command's words are split as Fields splits
// them. With UPDATE_SCENARIOS=1 the expected outputs are rewritten from
// what the commands printed (review the diff).
type Script struct {
	// Do runs one command and returns what it printed.
	Do func(args []string) []string
	// Normalize rewrites each line printed before it is compared (nil:
	// as it is). NormalizeIn is the usual one.
	Normalize func(string) string
	// Eventually names the commands whose output arrives on its own (a
	// server's notifications, a file it writes): they run again until it
	// matches, for up to 10 seconds.
	Eventually map[string]bool
	// Done, when set, gets each command's final output.
	Done func(args, out []string)
}

// Run runs the script of ar, read from file; with UPDATE_SCENARIOS=1 it
// writes the outputs back into file, unless a command failed. It stops at
// the first command that fails.
func (s Script) Run(t *testing.T, file string, ar *txtar.Archive) {
	t.Helper()
	var script string
	for _, f := range ar.Files {
		if f.Name == "script" {
			script = string(f.Data)
		}
	}
	if script == "" {
		t.Fatalf("%s has no script", file)
	}
	update := os.Getenv("UPDATE_SCENARIOS") == "1"
	lines := strings.Split(script, "\n")
	var rewritten []string
	for i := 0; i < len(lines); i++ {
		rewritten = append(rewritten, lines[i])
		cmd := strings.TrimSpace(lines[i])
		if cmd == "" || strings.HasPrefix(cmd, "#") {
			continue
		}
		lineNo := i + 1
		var want []string
		for i+1 < len(lines) && strings.HasPrefix(lines[i+1], ">") {
			i++
			want = append(want, strings.TrimPrefix(strings.TrimPrefix(lines[i], ">"), " "))
		}
		got := s.run(t, lineNo, cmd, want, update)
		for _, l := range got {
			rewritten = append(rewritten, strings.TrimRight("> "+l, " "))
		}
		if t.Failed() {
			return
		}
	}
	if update {
		for i := range ar.Files {
			if ar.Files[i].Name == "script" {
				ar.Files[i].Data = []byte(strings.Join(rewritten, "\n"))
			}
		}
		if err := os.WriteFile(file, txtar.Format(ar), 0o644); err != nil {
			t.Fatal(err)
		}
	}
}

// run runs one command and compares its output, which it returns; with
// update, a difference is no failure.
func (s Script) run(t *testing.T, lineNo int, line string, want []string, update bool) []string {
	t.Helper()
	args := Fields(t, line)
	got := func() []string {
		out := s.Do(args)
		if s.Normalize != nil {
			for i := range out {
				out[i] = s.Normalize(out[i])
			}
		}
		return out
	}
	out := got()
	if s.Eventually[args[0]] && !(update && len(want) == 0) {
		deadline := time.Now().Add(10 * time.Second)
		for !slices.Equal(out, want) && time.Now().Before(deadline) {
			time.Sleep(20 * time.Millisecond)
			out = got()
		}
	}
	if !slices.Equal(out, want) && !update {
		t.Errorf("script line %d: %s\n--- want\n%s\n--- got\n%s", lineNo, line, quoted(want), quoted(out))
	}
	if s.Done != nil {
		s.Done(args, out)
	}
	return out
}

func quoted(lines []string) string {
	var b strings.Builder
	for _, l := range lines {
		b.WriteString("> " + l + "\n")
	}
	return b.String()
}

// Fields splits a command line into words, keeping Go-quoted strings
// whole (unquoted) and raw JSON (from a { or [ to the end of the line).
func Fields(t testing.TB, line string) []string {
	t.Helper()
	var out []string
	for line = strings.TrimSpace(line); line != ""; line = strings.TrimSpace(line) {
		if line[0] == '"' {
			q, err := strconv.QuotedPrefix(line)
			if err != nil {
				t.Fatalf("in %q: %v", line, err)
			}
			s, _ := strconv.Unquote(q)
			out = append(out, s)
			line = line[len(q):]
			continue
		}
		if line[0] == '{' || line[0] == '[' { // raw JSON runs to the end
			out = append(out, line)
			break
		}
		i := strings.IndexAny(line, " \t")
		if i < 0 {
			i = len(line)
		}
		out = append(out, line[:i])
		line = line[i:]
	}
	return out
}

var (
	// reUUID matches the UUIDs a server makes (new IDs, plan IDs).
	reUUID = regexp.MustCompile(`[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}`)
	// reOrgTime matches an Org inactive timestamp with a time.
	reOrgTime = regexp.MustCompile(`\[\d{4}-\d\d-\d\d \w+ \d\d:\d\d\]`)
	// reRevision matches a plan's revision (keyed with a test's own key).
	reRevision = regexp.MustCompile(`hmac-sha256:[0-9a-f]{64}`)
	// reDuration matches how long an action took.
	reDuration = regexp.MustCompile(`after [0-9.]+[µmn]?s`)
)

// NormalizeIn is the usual Script.Normalize for a scenario in folder dir:
// dir is written $TMP, a UUID <uuid>, an Org timestamp with a time
// [<time>], a plan's revision hmac-sha256:<revision>, and how long an
// action took "after <time>".
func NormalizeIn(dir string) func(string) string {
	return func(s string) string {
		s = reUUID.ReplaceAllString(strings.ReplaceAll(s, dir, "$TMP"), "<uuid>")
		s = reOrgTime.ReplaceAllString(s, "[<time>]")
		s = reRevision.ReplaceAllString(s, "hmac-sha256:<revision>")
		return reDuration.ReplaceAllString(s, "after <time>")
	}
}
