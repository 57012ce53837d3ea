package lsp

import (
	"encoding/json"
	"fmt"
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"sync"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/protocol"
	"go.lsp.dev/uri"
	"golang.org/x/tools/txtar"

	"pp-lsp/internal/testenv"
)

// Scenario tests: each testdata/*.txtar file is one whole session, in the
// style of gopls's marker tests. The marker language:
//
// The archive's comment holds settings, one per line ("key: value"; any
// other line is description):
//
//	client: full | eglot | nvim       the capabilities announced (clientKind)
//	settings: {JSON}                  initializationOptions
//	config: {JSON}                    the answer to workspace/configuration
//	env: KEY=VALUE                    an environment variable (repeatable)
//
// Files named memex/… are the memex (the workspace folder); any other
// path but the ones below is written as it is, relative to the scenario's
// temporary folder (outside/… is outside the memex). replay.jsonl is the
// model's transcript (PASSEPARTOUT_PROVIDERS=replay:it); config.json is
// the configuration file; want/… and new/… are texts a command names.
//
// In the files, «name» marks a place, and «name» … «/name» a range; the
// marks are removed before the files are written. Names are unique over
// the scenario, so a command names a place by its mark alone. Marks
// follow the client's edits to their file.
//
// The file "script" is the session, run by testenv.Script: one command
// per line, each followed by its expected output (UPDATE_SCENARIOS=1
// rewrites them from what the server answered). Places in outputs are
// written as the mark that names them exactly («name»), else as
// path:line:col-line:col (0-based, UTF-16 columns); the scenario's folder
// is written $TMP, a UUID (the server makes them) <uuid>, and an Org
// timestamp with a time [<time>], a duration "after <time>"
// (testenv.NormalizeIn). Outputs that arrive on their own (diagnostics,
// text the server changes) are awaited until they match, for up to 10
// seconds.
//
//	open FILE / close FILE / save FILE      didOpen (the file's text), didClose, didSave
//	edit «m» "TEXT"                         didChange: «m»'s place (or range) becomes TEXT (a Go string)
//	type «m» "TEXT"                         the same, one didChange per character
//	write FILE new/NAME                     the file on disk becomes new/NAME (outside the editor)
//	symbols FILE                            documentSymbol: name [detail] «selection» (first-last line)
//	wsymbols QUERY                          workspace/symbol: name (container) «place»
//	definition «m»                          definition: the locations
//	references «m» [decl]                   references (with the declaration)
//	hover «m»                               hover: its text, then "@ «range»"
//	complete «m»                            completion: label => "newText" @ «range»
//	folding FILE                            foldingRange: first-last [kind]
//	diagnostics FILE                        the latest diagnostics: «range» severity code: message
//	prepare-rename «m»                      prepareRename: «range» placeholder
//	rename «m» NAME                         rename: the edit per file, then applied as an editor does
//	actions «m»                             code actions: title [kind] edit|command NAME
//	apply-action «m» N                      apply the Nth action's edit, or run its command
//	hold-actions «m»                        as actions, and keep them for apply-held
//	apply-held N                            run the Nth kept action's command now, as it was offered
//	context «m» [BUDGET]                    passepartout.context: the figures, then the text
//	ask «m»|- "TEXT" [chat=FILE] [no-chat]  passepartout.ask: outcome, streamed text, plan
//	chat-ask «m»|- "TEXT" [chat=FILE] [no-chat]  the same, with the conversation, the model and the usage
//	ask-cancel «m» "TEXT" request|progress  an ask cancelled by $/cancelRequest or progress cancel
//	approve|reject last|«m»                 the last ask's plan, or the plan at «m»
//	undo [list|ID]                          passepartout.undo: its summary, or each change's title: files
//	text FILE                               the editor's text of an open FILE
//	disk FILE                               the file's text on disk (the same)
//	notify METHOD JSON / request METHOD JSON  raw messages ($URI(«m»), $POS(«m»), $TMP substituted)
//	mark NAME FILE "TEXT"                   «NAME» becomes the range of the first TEXT in FILE now
//	messages                                window/showMessage and logMessage since the last "messages"
//	echo                                    once indexed, the last showMessage or $/progress end: what one echo area shows
//	settle                                  until the server has read the files it was told changed
//	wait-embedded                           until the memex has embedded every node
//	sleep DURATION                          let the server's background work run (to show something does not happen)
//	lenses FILE                             codeLens: «range» title → command
//	doclinks FILE                           documentLink: «range» → target (tooltip)
//	backlinks «m» / unlinked «m»            passepartout.backlinks / .unlinked: «range» [title]: context
//	daily [DATE]                            passepartout.daily: the note's path
//	create-node «m»                         passepartout.createNode: the new file's path
//	skills                                  passepartout.skills: a line per skill
//	run-skill NAME                          passepartout.runSkill: the status and summary
//	will-rename OLD NEW                     willRenameFiles: the edits, applied and saved; then the file renamed on disk
//	editor-edits apply|decline|cancel|quit  applyEdit: applied, applied: false, eglot's "User cancelled", never (C-g)

// mark is a marked place: byte offsets into the file's current text.
type mark struct {
	path       string // relative to the scenario's folder
	start, end int
	isRange    bool
}

type scenario struct {
	t       *testing.T
	dir     string // the scenario's folder
	root    string // dir/memex
	archive *txtar.Archive
	files   map[string][]byte // every section, by name
	marks   map[string]*mark
	// marksMu guards the marks: the client's handler shifts them when
	// the server edits or reloads a file, beside the scenario's own edits.
	marksMu sync.Mutex
	c       *testClient
	kind    clientKind
	lastAsk askResult
	// commands is the scenario language (scenarioCommands).
	commands map[string]scenarioCommand
	// seenMessages counts the messages a "messages" command showed.
	seenMessages int
	// held are the code actions a "hold-actions" was offered, for an
	// "apply-held" after the file changed: a menu picked late.
	held []*command
}

// markRE matches «name» and «/name».
func markRE() *regexp.Regexp { return regexp.MustCompile(`«(/?)([A-Za-z0-9_.-]+)»`) }

func TestScenarios(t *testing.T) { testenv.Scenarios(t, "testdata/*.txtar", runScenario) }

func runScenario(t *testing.T, file string) {
	ar, err := txtar.ParseFile(file)
	require.NoError(t, err)
	sc := &scenario{t: t, dir: t.TempDir(), archive: ar, files: map[string][]byte{}, marks: map[string]*mark{}, kind: clientFull, commands: scenarioCommands()}
	sc.root = filepath.Join(sc.dir, "memex")
	require.NoError(t, os.MkdirAll(sc.root, 0o755))
	env := map[string]string{
		"HOME": sc.dir, "XDG_CONFIG_HOME": filepath.Join(sc.dir, "xdg-config"), "XDG_DATA_HOME": filepath.Join(sc.dir, "xdg-data"),
		"XDG_RUNTIME_DIR": filepath.Join(sc.dir, "run"), "PASSEPARTOUT_DATA_DIR": filepath.Join(sc.dir, "data"),
		"PATH": os.Getenv("PATH"), "HEARTBEAT_INTERVAL": "3600",
	}
	var settings, config json.RawMessage
	for line := range strings.Lines(string(ar.Comment)) {
		k, v, ok := strings.Cut(strings.TrimSpace(line), ": ")
		if !ok {
			continue
		}
		switch k {
		case "client":
			sc.kind = clientKind(v)
		case "settings":
			settings = json.RawMessage(v)
		case "config":
			config = json.RawMessage(v)
		case "env":
			kv := strings.SplitN(v, "=", 2)
			require.Len(t, kv, 2, "env: KEY=VALUE")
			env[kv[0]] = kv[1]
		}
	}
	for _, f := range ar.Files {
		switch {
		case f.Name == "script":
		case f.Name == "replay.jsonl":
			p := filepath.Join(sc.dir, f.Name)
			require.NoError(t, os.WriteFile(p, f.Data, 0o644))
			env["PASSEPARTOUT_PROVIDERS"] = "replay:" + p
		case f.Name == "config.json":
			p := filepath.Join(env["XDG_CONFIG_HOME"], "passepartout", "config.json")
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, f.Data, 0o644))
		case strings.HasPrefix(f.Name, "want/") || strings.HasPrefix(f.Name, "new/"):
			sc.files[f.Name] = f.Data
		default:
			text := sc.strip(f.Name, string(f.Data))
			p := filepath.Join(sc.dir, filepath.FromSlash(f.Name))
			require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
			require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
		}
	}
	sc.c = newTestClient(t, Options{Getenv: func(k string) string { return env[k] }, WorkDir: sc.root})
	sc.c.config = config
	sc.c.onEdit = sc.shift
	sc.c.initialize(sc.root, sc.kind, settings)

	testenv.Script{
		Do:         sc.do,
		Normalize:  testenv.NormalizeIn(sc.dir),
		Eventually: map[string]bool{"diagnostics": true, "text": true, "disk": true, "messages": true, "echo": true},
		Done: func(args, out []string) {
			if args[0] == "messages" {
				sc.seenMessages += len(out)
			}
		},
	}.Run(t, file, ar)
	if t.Failed() {
		return
	}
	assert.NoError(t, sc.c.shutdown(), "shutdown then exit: a clean end")
}

// strip removes the marks of a file, recording them.
func (sc *scenario) strip(name, text string) string {
	var out strings.Builder
	last := 0
	for _, m := range markRE().FindAllStringSubmatchIndex(text, -1) {
		out.WriteString(text[last:m[0]])
		last = m[1]
		closing, label := text[m[2]:m[3]], text[m[4]:m[5]]
		off := out.Len()
		if closing == "/" {
			mk, ok := sc.marks[label]
			require.True(sc.t, ok && mk.path == name, "«/%s» closes no «%s» in %s", label, label, name)
			mk.end, mk.isRange = off, true
			continue
		}
		require.NotContains(sc.t, sc.marks, label, "the mark «%s» is used twice", label)
		sc.marks[label] = &mark{path: name, start: off, end: off}
	}
	out.WriteString(text[last:])
	return out.String()
}

// shift moves the marks of path past an edit of [s, e) into text.
func (sc *scenario) shift(abs string, s, e int, text string) {
	sc.marksMu.Lock()
	defer sc.marksMu.Unlock()
	rel := sc.rel(abs)
	delta := len(text) - (e - s)
	move := func(x int, isStart bool) int {
		switch {
		case x < s:
			return x
		case x > e:
			return x + delta
		case s == e && x == s && !isStart:
			return x + len(text)
		case s == e && x == s:
			return x + len(text)
		case isStart:
			return s
		}
		return s + len(text)
	}
	for _, m := range sc.marks {
		if m.path != rel {
			continue
		}
		if m.isRange {
			m.start, m.end = move(m.start, true), move(m.end, false)
		} else {
			m.start = move(m.start, false)
			m.end = m.start
		}
	}
}

func (sc *scenario) abs(rel string) string { return filepath.Join(sc.dir, filepath.FromSlash(rel)) }

func (sc *scenario) rel(abs string) string {
	r, err := filepath.Rel(sc.dir, abs)
	if err != nil {
		return abs
	}
	return filepath.ToSlash(r)
}

// currentText is the text a mark's offsets refer to: the editor's copy of
// an open file, else the disk's.
func (sc *scenario) currentText(rel string) string {
	if t, ok := sc.c.text(sc.abs(rel)); ok {
		return t
	}
	data, err := os.ReadFile(sc.abs(rel))
	require.NoError(sc.t, err)
	return string(data)
}

// mark resolves «name».
func (sc *scenario) mark(arg string) *mark {
	sc.t.Helper()
	name := strings.TrimSuffix(strings.TrimPrefix(arg, "«"), "»")
	sc.marksMu.Lock()
	m, ok := sc.marks[name]
	sc.marksMu.Unlock()
	require.True(sc.t, ok, "no mark «%s»", name)
	return m
}

// position is the LSP position of a mark's start.
func (sc *scenario) position(m *mark) protocol.Position {
	return utf16Pos(sc.currentText(m.path), m.start)
}

func (sc *scenario) docParams(m *mark) map[string]any {
	return map[string]any{"textDocument": map[string]any{"uri": uri.File(sc.abs(m.path))}, "position": sc.position(m)}
}

// place writes a location: the mark that names it exactly, else path:range.
func (sc *scenario) place(u uri.URI, r protocol.Range) string {
	abs := uriPath(u)
	rel := sc.rel(abs)
	text := sc.currentTextOr(rel)
	if text != nil {
		s, e := utf16Offset(*text, r.Start), utf16Offset(*text, r.End)
		sc.marksMu.Lock()
		defer sc.marksMu.Unlock()
		for _, name := range slices.Sorted(maps.Keys(sc.marks)) {
			m := sc.marks[name]
			if m.path == rel && m.start == s && m.end == e {
				return "«" + name + "»"
			}
		}
	}
	return fmt.Sprintf("%s:%d:%d-%d:%d", rel, r.Start.Line, r.Start.Character, r.End.Line, r.End.Character)
}

func (sc *scenario) currentTextOr(rel string) *string {
	if t, ok := sc.c.text(sc.abs(rel)); ok {
		return &t
	}
	data, err := os.ReadFile(sc.abs(rel))
	if err != nil {
		return nil
	}
	s := string(data)
	return &s
}

// subst replaces $URI(«m»), $POS(«m») and $TMP in raw JSON.
func (sc *scenario) subst(s string) string {
	re := regexp.MustCompile(`\$(URI|POS)\(«([A-Za-z0-9_.-]+)»\)`)
	s = re.ReplaceAllStringFunc(s, func(x string) string {
		g := re.FindStringSubmatch(x)
		m := sc.mark(g[2])
		if g[1] == "URI" {
			return string(uri.File(sc.abs(m.path)))
		}
		b, _ := json.Marshal(sc.position(m))
		return string(b)
	})
	return strings.ReplaceAll(s, "$TMP", sc.dir)
}
