package flightplan

import (
	"os"
	"path/filepath"
	"strings"
	"sync"
	"sync/atomic"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/internal/testenv"
	"pp-lsp/orgast"
	"pp-lsp/server/internal/orgtext"
	"pp-lsp/server/seal"
	"pp-lsp/server/workspace"
)

const testID = "0b6f2d1e-3c4a-4e5f-8a9b-0c1d2e3f4a5b"

func testFiling() Filing {
	return Filing{
		ID:      testID,
		Created: time.Date(2026, 11, 21, 20, 40, 0, 0, time.Local),
		Action:  gates.Build(gates.ShellArgs{Cmd: "make test", Cwd: "project/"}, "Run the tests before the release.\n* not a headline"),
		Gate:    "permissions",
	}
}

func apply(t *testing.T, src []byte, cs ...workspace.Change) []byte {
	t.Helper()
	out, err := workspace.Edit{Base: src, Changes: cs}.Apply()
	require.NoError(t, err)
	return out
}

func TestRenderIsDesignSection8(t *testing.T) {
	f := testFiling()
	got := string(apply(t, nil, AppendTo(nil, Render(f))...))
	want := "#+TITLE: Flight Plans\n" +
		"#+TODO: PLAN(p) APPROVED(a) | DONE(d) FAILED(f) REJECTED(r)\n" +
		"* PLAN Run `make test` in project/\n" +
		":PROPERTIES:\n" +
		":ID:          " + testID + "\n" +
		":CREATED:     [2026-11-21 Sat 20:40]\n" +
		":TOOL:        shell\n" +
		":GATE:        permissions\n" +
		":ACTION_HASH: " + f.Action.Hash() + "\n" +
		":END:\n" +
		"Run the tests before the release.\n" +
		",* not a headline\n" +
		"#+begin_src json\n" +
		"{\n  \"tool\": \"shell\",\n  \"args\": {\n    \"cmd\": \"make test\",\n    \"cwd\": \"project/\"\n  },\n" +
		"  \"explanation\": \"Run the tests before the release.\\n* not a headline\"\n}\n" +
		"#+end_src\n"
	assert.Equal(t, want, got)

	plans := Parse([]byte(got))
	require.Len(t, plans, 1)
	p := plans[0]
	assert.Equal(t, testID, p.ID)
	assert.Equal(t, StatePlan, p.State)
	assert.Equal(t, "shell", p.Tool)
	assert.Equal(t, "permissions", p.Gate)
	require.NotNil(t, p.Action, "%v", p.ActionErr)
	assert.Equal(t, f.Action, *p.Action, "the block decodes to exactly the action filed")
	assert.False(t, p.Edited())
	assert.Equal(t, 2, p.Line)
}

func TestAppendToExistingFiles(t *testing.T) {
	plan := Render(testFiling())
	for _, tc := range []struct{ name, cur, prefix string }{
		{"with its header", Header + "* DONE old\n", Header + "* DONE old\n"},
		{"no final newline", Header + "* DONE old", Header + "* DONE old\n"},
		{"without the TODO line", "#+TITLE: mine\n", TodoLine + "\n#+TITLE: mine\n"},
		{"blank", "\n\n", Header},
	} {
		t.Run(tc.name, func(t *testing.T) {
			got := string(apply(t, []byte(tc.cur), AppendTo([]byte(tc.cur), plan)...))
			assert.Equal(t, tc.prefix+string(plan), got)
			plans := Parse([]byte(got))
			last := plans[len(plans)-1]
			assert.Equal(t, StatePlan, last.State, "PLAN is a keyword of the file")
		})
	}
}

func TestEditsKeepEveryOtherByte(t *testing.T) {
	src := apply(t, nil, AppendTo(nil, Render(testFiling()))...)
	src = append(src, []byte("\n\n* PLAN another\n:PROPERTIES:\n:ID: x\n:END:\n")...)
	p := Parse(src)[0]
	at := time.Date(2026, 11, 22, 9, 0, 0, 0, time.Local)
	out := apply(t, src, p.SetState(StateDone), p.Note(src, at, "DONE: exit status 0", "ok\n* fine\n"))
	want := strings.Replace(string(src), "* PLAN Run", "* DONE Run", 1)
	want = strings.Replace(want, "#+end_src\n", "#+end_src\n- [2026-11-22 Sun 09:00] DONE: exit status 0\n#+begin_example\nok\n,* fine\n#+end_example\n", 1)
	assert.Equal(t, want, string(out))
	plans := Parse(out)
	require.Len(t, plans, 2)
	assert.Equal(t, StateDone, plans[0].State)
	assert.False(t, plans[0].Edited(), "notes below the block do not change the action")
	assert.Equal(t, "another", plans[1].Title)

	// Properties: replaced in place, or added before :END:.
	p = Parse(out)[0]
	out2 := apply(t, out, p.SetProperty(out, "ACTION_HASH", "sha256:new"), p.SetProperty(out, "EDITED", "[x]"))
	p2 := Parse(out2)[0]
	assert.Equal(t, "sha256:new", p2.ActionHash)
	v, ok := p2.drawer.Get("EDITED")
	assert.True(t, ok)
	assert.Equal(t, "[x]", v)
	assert.Equal(t, len(out)+len(":EDITED:      [x]\n")+len("sha256:new")-len(p.ActionHash), len(out2))
}

func TestEditedPlans(t *testing.T) {
	src := string(apply(t, nil, AppendTo(nil, Render(testFiling()))...))
	for _, tc := range []struct {
		name   string
		edit   func(string) string
		edited bool
		decode bool
	}{
		{"unchanged", func(s string) string { return s }, false, true},
		{"reindented", func(s string) string { return strings.ReplaceAll(s, "\n  \"", "\n      \"") }, false, true},
		{"command changed", func(s string) string { return strings.Replace(s, `"make test"`, `"make deploy"`, 1) }, true, true},
		{"explanation changed", func(s string) string { return strings.Replace(s, `release.\n`, `release!\n`, 1) }, true, true},
		{"not JSON", func(s string) string { return strings.Replace(s, `"tool": "shell"`, `tool: shell`, 1) }, true, false},
		{"block removed", func(s string) string { return s[:strings.Index(s, "#+begin_src")] }, true, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := Parse([]byte(tc.edit(src)))[0]
			assert.Equal(t, tc.edited, p.Edited())
			assert.Equal(t, tc.decode, p.Action != nil, "%v", p.ActionErr)
		})
	}
}

func TestFindRefusesDuplicates(t *testing.T) {
	one := string(Render(testFiling()))
	src := []byte(Header + one + one)
	_, err := Find(Parse(src), testID)
	assert.ErrorContains(t, err, "two Flight Plans carry the ID")
	_, err = Find(Parse(src), "nope")
	assert.ErrorContains(t, err, "no Flight Plan")
	p, err := Find(Parse([]byte(Header+one)), testID)
	require.NoError(t, err)
	assert.Equal(t, testID, p.ID)
}

func TestClaimIsExclusive(t *testing.T) {
	s := testStore(t)
	var wins atomic.Int32
	var wg sync.WaitGroup
	for range 16 {
		wg.Go(func() {
			err := s.Claim(testID, "sha256:x", time.Now())
			if err == nil {
				wins.Add(1)
			} else {
				assert.ErrorIs(t, err, ErrAlreadyRan)
			}
		})
	}
	wg.Wait()
	assert.EqualValues(t, 1, wins.Load())
	claimed, err := s.Claimed(testID)
	require.NoError(t, err)
	assert.True(t, claimed)
	assert.ErrorContains(t, s.Claim("../../etc/passwd", "", time.Now()), "not a UUID")
}

func TestStoreRecords(t *testing.T) {
	s := testStore(t)
	_, ok, err := s.Load(testID)
	require.NoError(t, err)
	assert.False(t, ok)
	v := &gates.Verdict{Verdict: "ask", Gate: "permissions", Reason: "no rule", Trace: []gates.TraceEntry{{Gate: "permissions", Priority: 600, Result: "approval"}}}
	require.NoError(t, s.Save(Record{ID: testID, ActionHash: "sha256:x", Verdict: v}))
	r, ok, err := s.Load(testID)
	require.NoError(t, err)
	assert.True(t, ok)
	assert.Equal(t, v, r.Verdict)
}

func TestDiagnosticsAndHover(t *testing.T) {
	s := testStore(t)
	f := testFiling()
	v := &gates.Verdict{Verdict: "ask", Gate: "permissions", Reason: "no permission rule allows this shell action",
		Trace: []gates.TraceEntry{{Gate: "permissions", Priority: 600, Result: "approval"}, {Gate: "validator", Priority: 95, Result: "passed"}}}
	require.NoError(t, s.Save(Record{ID: testID, ActionHash: f.Action.Hash(), Verdict: v}))
	require.NoError(t, s.SaveFiling(FilingRecord{ID: testID, ActionHash: f.Action.Hash(), Gate: f.Gate, Filed: f.Created}))
	src := apply(t, nil, AppendTo(nil, Render(f))...)

	ds := Diagnostics(src, src, s)
	require.Len(t, ds, 1)
	assert.Equal(t, SeverityInformation, ds[0].Severity)
	assert.Contains(t, ds[0].Message, "permissions approval, validator passed")
	assert.Equal(t, 2, ds[0].Line)

	h, ok := Hover(src, 2, s)
	require.True(t, ok)
	assert.Contains(t, h, "| permissions | 600 | approval |")
	assert.Contains(t, h, "is the one filed")
	_, ok = Hover(src, 3, s)
	assert.False(t, ok)

	edited := []byte(strings.Replace(string(src), `"make test"`, `"make deploy"`, 1))
	ds = Diagnostics(edited, edited, s)
	require.Len(t, ds, 1)
	assert.Equal(t, SeverityWarning, ds[0].Severity)
	assert.Contains(t, ds[0].Message, "edited after filing")
	h, _ = Hover(edited, 2, s)
	assert.Contains(t, h, "**edited**")

	// Approved in the buffer, not on disk: it says to save.
	approved := []byte(strings.Replace(string(src), "* PLAN ", "* APPROVED ", 1))
	ds = Diagnostics(approved, src, s)
	require.Len(t, ds, 1)
	assert.Contains(t, ds[0].Message, "approved in this buffer only: save the file")
	ds = Diagnostics(approved, approved, s)
	require.Len(t, ds, 1)
	assert.Contains(t, ds[0].Message, "approved: it runs at the next pickup")

	// The same plan where this install never filed it: foreign.
	other := testStore(t)
	ds = Diagnostics(approved, approved, other)
	require.Len(t, ds, 1)
	assert.Equal(t, SeverityError, ds[0].Severity)
	assert.Contains(t, ds[0].Message, "not filed by pp-lsp (there is no filing record of it in the data directory")
	h, _ = Hover(approved, 2, other)
	assert.Contains(t, h, "**Not filed by pp-lsp**")
	assert.NotEmpty(t, Diagnostics(approved, approved, nil), "no store: foreign too")
}

func testStore(t *testing.T) *Store {
	t.Helper()
	dir := t.TempDir()
	k, err := seal.LoadOrCreate(dir)
	require.NoError(t, err)
	return OpenStore(dir, k)
}

func TestFilingRecords(t *testing.T) {
	s := testStore(t)
	f := testFiling()
	src := apply(t, nil, AppendTo(nil, Render(f))...)
	p := &Parse(src)[0]
	st := s.Standing(p)
	assert.Contains(t, st.Foreign, "no filing record")

	rec := FilingRecord{ID: testID, ActionHash: f.Action.Hash(), Gate: "permissions", Filed: f.Created}
	require.NoError(t, s.SaveFiling(rec))
	st = s.Standing(p)
	assert.Empty(t, st.Foreign)
	assert.False(t, st.Edited)
	assert.Equal(t, "permissions", st.Record.Gate)
	fi, err := os.Stat(filepath.Join(s.filings, testID))
	require.NoError(t, err)
	assert.Equal(t, os.FileMode(0o600), fi.Mode().Perm())

	// The block edited and its :ACTION_HASH: recomputed: still edited.
	edited := strings.Replace(string(src), `"make test"`, `"make deploy"`, 1)
	q := Parse([]byte(edited))[0]
	edited = strings.Replace(edited, q.ActionHash, q.Action.Hash(), 1)
	q = Parse([]byte(edited))[0]
	require.False(t, q.Edited(), "the property agrees with the block")
	assert.True(t, s.Standing(&q).Edited, "the filing record does not")

	// Forgeries: a record rewritten, one copied to another plan's name, one
	// sealed with another install's key.
	path := filepath.Join(s.filings, testID)
	orig, err := os.ReadFile(path)
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, []byte(strings.Replace(string(orig), f.Action.Hash(), q.Action.Hash(), 1)), 0o600))
	assert.Contains(t, s.Standing(&q).Foreign, "seal does not verify")
	require.NoError(t, os.WriteFile(path, orig, 0o600))

	const otherID = "1b6f2d1e-3c4a-4e5f-8a9b-0c1d2e3f4a5b"
	require.NoError(t, os.WriteFile(filepath.Join(s.filings, otherID), orig, 0o600))
	copied := &Plan{ID: otherID, Action: p.Action}
	assert.Contains(t, s.Standing(copied).Foreign, "is plan "+testID+"'s, not its own")

	other := testStore(t)
	require.NoError(t, other.SaveFiling(rec))
	b, err := os.ReadFile(filepath.Join(other.filings, testID))
	require.NoError(t, err)
	require.NoError(t, os.WriteFile(path, b, 0o600))
	assert.Contains(t, s.Standing(p).Foreign, "seal does not verify")

	require.NoError(t, os.WriteFile(path, []byte("{not json"), 0o600))
	assert.Contains(t, s.Standing(p).Foreign, "damaged")
	assert.Contains(t, s.Standing(&Plan{ID: "../../key"}).Foreign, "not a UUID")
	assert.ErrorIs(t, OpenStore(t.TempDir(), nil).SaveFiling(rec), ErrNoKey)
}

func TestSetTitle(t *testing.T) {
	src := apply(t, nil, AppendTo(nil, Render(testFiling()))...)
	p := Parse(src)[0]
	a := gates.Build(gates.ShellArgs{Cmd: "make deploy", Cwd: "."}, "x")
	out := apply(t, src, p.SetTitle(src, TitleFor(a)))
	q := Parse(out)[0]
	assert.Equal(t, "Run `make deploy` in .", q.Title)
	assert.Equal(t, StatePlan, q.State)
	assert.Equal(t, len(Parse(src)), len(Parse(out)))

	// No keyword at all: SetState and SetTitle together make a plain PLAN headline.
	bare := []byte("* something\n:PROPERTIES:\n:ID: " + testID + "\n:END:\n")
	p = Parse(bare)[0]
	out = apply(t, bare, p.SetState(StatePlan), p.SetTitle(bare, "Run it"))
	assert.True(t, strings.HasPrefix(string(out), "* PLAN Run it\n"), "%q", out)
}

func TestDiffBlockAndWritesRoundTrip(t *testing.T) {
	f := testFiling()
	f.Writes = []string{"out/a.txt", "out/a b%.txt"}
	f.Diff = "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-* old\n+#+end_src\n"
	src := apply(t, nil, AppendTo(nil, Render(f))...)
	assert.Contains(t, string(src), ":WRITES:      out/a.txt out/a%20b%25.txt\n")
	plans := Parse(src)
	require.Len(t, plans, 1)
	p := plans[0]
	assert.Equal(t, f.Writes, p.Writes)
	assert.Equal(t, f.Diff, p.Diff, "the diff reads back, its Org-looking lines escaped in the file")
	assert.False(t, p.Edited())

	cases := []struct{ name, diff string }{
		{"replaced", "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"},
		{"removed", ""},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			out := apply(t, src, p.SetDiff(c.diff), p.Note(src, f.Created, "a note", ""))
			q := Parse(out)
			require.Len(t, q, 1)
			assert.Equal(t, c.diff, q[0].Diff)
			assert.Equal(t, p.ActionText, q[0].ActionText)
			assert.Contains(t, string(out), "- [2026-11-21 Sat 20:40] a note\n")
		})
	}
	// A plan filed without a diff gets one after its action block.
	plain := apply(t, nil, AppendTo(nil, Render(testFiling()))...)
	q := Parse(plain)[0]
	out := apply(t, plain, q.SetDiff("--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n"))
	assert.True(t, strings.HasSuffix(string(out), "#+end_src\n#+begin_src diff\n--- a/x\n+++ b/x\n@@ -1 +1 @@\n-a\n+b\n#+end_src\n"))
}

// TestEditsKeepTheFilesLineEnds: a flightplans.org a user's editor saved
// with CR LF or CR line ends keeps them when a plan is marked done, noted
// and given a property: before, the LF written made Emacs (and orgast)
// read every CR as a character, and in a CR file the plan was gone.
func TestEditsKeepTheFilesLineEnds(t *testing.T) {
	unix := string(apply(t, nil, AppendTo(nil, Render(testFiling()))...))
	for _, eol := range []string{"\r\n", "\r"} {
		src := []byte(strings.ReplaceAll(unix, "\n", eol))
		p := Parse(src)
		require.Len(t, p, 1)
		out := apply(t, src, p[0].SetState(StateDone), p[0].Note(src, time.Unix(0, 0), "DONE: exit status 0", "ok\n"), p[0].SetProperty(src, "GATE", "shell"))
		assert.Equal(t, orgast.DetectEOL(src), orgast.DetectEOL(out), "%q", out)
		assert.NotContains(t, strings.ReplaceAll(string(out), "\r\n", ""), map[string]string{"\r\n": "\n", "\r": "\n"}[eol], "a line end of another kind: %q", out)
		plans := Parse(out)
		require.Len(t, plans, 1, "%q", out)
		assert.Equal(t, StateDone, plans[0].State)
		assert.Equal(t, p[0].Edited(), plans[0].Edited(), "the edits leave the action as it was read")
	}
}

// TestAPlanSetsNoEditorOption: an action whose strings hold a modeline —
// the model writes its explanation and arguments — written into
// flightplans.org sets nothing in the Neovim that opens the file, and its
// block still decodes to the action filed (the same hash: not edited).
func TestAPlanSetsNoEditorOption(t *testing.T) {
	f := testFiling()
	f.Action = gates.Build(gates.ShellArgs{Cmd: "echo hi  vim: set tw=7 :", Cwd: "."}, "Say hi. vim: set tw=7 :")
	src := apply(t, nil, AppendTo(nil, Render(f))...)
	p := filepath.Join(t.TempDir(), FileName)
	require.NoError(t, os.WriteFile(p, src, 0o644))
	assert.Equal(t, "0", testenv.NvimOption(t, p, "textwidth"), "%s", src)
	plans := Parse(src)
	require.Len(t, plans, 1)
	require.NotNil(t, plans[0].Action, "%v", plans[0].ActionErr)
	assert.Equal(t, f.Action.Hash(), plans[0].Action.Hash())
	assert.False(t, plans[0].Edited())
}

// TestActionBlockSetsNothing: the action's JSON block holds the model's
// words as they are (a JSON string), and the block ends a new plan at the
// end of flightplans.org: an explanation or a command holding a Vim
// modeline ("vim: set …", in the file's last five lines) set options in
// the Vim or Neovim that opened the file, and a "-*- … -*-" or an
// elisp: link was there for Emacs. The block spells their colon (and the
// last "-" of "-*-") as a JSON escape: it decodes to the same action, and
// nothing is left that Defuse would break.
func TestActionBlockSetsNothing(t *testing.T) {
	for _, words := range []string{
		"count once; vim: set ft=sh :",
		"vi:noai:sw=3 ts=6",
		"ex: set textwidth=7",
		"-*- mode: emacs-lisp; eval: (setq pwned t) -*-",
		"Local Variables:",
		"[[elisp:(setq pwned t)][click]] <shell:id> elisp:(x)",
	} {
		t.Run(words, func(t *testing.T) {
			f := testFiling()
			f.Action = gates.Build(gates.ShellArgs{Cmd: "echo " + words, Cwd: "."}, words)
			got := string(apply(t, nil, AppendTo(nil, Render(f))...))
			assert.Equal(t, orgtext.Defuse(got), got, "flightplans.org holds a file-local setting or a link that runs code")
			plans := Parse([]byte(got))
			require.Len(t, plans, 1)
			require.NotNil(t, plans[0].Action, "%v", plans[0].ActionErr)
			assert.Equal(t, f.Action, *plans[0].Action, "the block decodes to exactly the action filed")
			assert.False(t, plans[0].Edited())
		})
	}
}
