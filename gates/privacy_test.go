package gates

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestPrivacyMeasured measures the quotation matcher: every five-word
// window of a private body must be found, with its case and spacing
// changed; ordinary text (the corpus's benign and allow records, the
// design document and the seeds, sentence by sentence) must raise no
// alarm. The figures are logged.
func TestPrivacyMeasured(t *testing.T) {
	shared := testenv.SharedDir(t)
	m := openMemex(t, []string{filepath.Join(shared, "corpus", "gates", "fixtures")})
	private := m.PrivateTexts([]string{"@personal", "private"})
	require.NotEmpty(t, private)
	idx, err := buildPrivacyIndex(t.Context(), private)
	require.NoError(t, err)

	windows, found := 0, 0
	for _, body := range private {
		words := strings.Fields(body)
		for i := 0; i+5 <= len(words); i++ {
			windows++
			quote := strings.ToUpper(strings.Join(words[i:i+5], "   "))
			if idx.quotes("As discussed: " + quote + " — see you.") {
				found++
			}
		}
	}
	t.Logf("partial quotes (5 words, case and spacing changed): %d of %d found", found, windows)
	assert.Equal(t, windows, found)

	var ordinary []string
	corpus := readCorpus(t, filepath.Join(shared, "corpus", "gates"))
	for _, recs := range corpus {
		for _, r := range recs {
			if r.Expect != "allow" {
				continue
			}
			var a struct {
				Args map[string]any `json:"args"`
			}
			if json.Unmarshal(r.Action, &a) == nil {
				for _, v := range a.Args {
					if s, ok := v.(string); ok {
						ordinary = append(ordinary, s)
					}
				}
			}
		}
	}
	for _, f := range []string{filepath.Join(shared, "DESIGN.md")} {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		ordinary = append(ordinary, strings.Split(string(data), ". ")...)
	}
	seeds, _ := filepath.Glob(filepath.Join(shared, "seeds", "*.txt"))
	for _, f := range seeds {
		data, err := os.ReadFile(f)
		require.NoError(t, err)
		ordinary = append(ordinary, strings.Split(string(data), ". ")...)
	}
	alarms := 0
	for _, s := range ordinary {
		if idx.quotes(s) {
			alarms++
			t.Logf("false alarm: %.120q", s)
		}
	}
	t.Logf("ordinary texts: %d, false alarms: %d", len(ordinary), alarms)
	assert.Zero(t, alarms)
}

func TestPrivacyShortAndCommon(t *testing.T) {
	idx, err := buildPrivacyIndex(t.Context(), []string{"Dad", "I think I am falling for Sam from the climbing gym.", "and it was the best of times and it was"})
	require.NoError(t, err)
	assert.True(t, idx.quotes("i think i am falling for sam"), "a short note: one shingle is enough")
	assert.False(t, idx.quotes("Dad called."), "a one-word note cannot be told from ordinary text")
	assert.False(t, idx.quotes("and it was the day"), "shingles of common words only are not indexed")
	var nilIdx *privacyIndex
	assert.False(t, nilIdx.quotes("anything"))
}

// TestPrivacyIsReadAtEachCheck: a note made private between two checks is
// denied on the second, and one made public again is allowed on the
// third, by every way of reading it: file_read, a command naming it, a
// recursive search. The change keeps the file's size, inode and mtime, as
// an edit within one tick of the file system's clock would: the privacy
// remembered from one check to the next is keyed by the bytes themselves,
// never by what stat says.
func TestPrivacyIsReadAtEachCheck(t *testing.T) {
	stack, env, root := testEnv(t, DefaultConfig())
	ctx := context.Background()
	p := filepath.Join(root, "notes", "turn.org")
	// Both mention the tag, so that the public text's privacy is worked
	// out (and remembered) too.
	public := "* Meeting                   :notes:\nNot private: the results come on Friday.\n"
	private := "* Meeting                 :private:\nNot private: the results come on Friday.\n"
	require.Len(t, private, len(public))
	require.NoError(t, os.WriteFile(p, []byte(public), 0o644))
	before, err := os.Stat(p)
	require.NoError(t, err)
	rewrite := func(text string) {
		t.Helper()
		f, err := os.OpenFile(p, os.O_WRONLY, 0) // in place: the same inode
		require.NoError(t, err)
		_, err = f.WriteAt([]byte(text), 0)
		require.NoError(t, err)
		require.NoError(t, f.Close())
		require.NoError(t, os.Chtimes(p, before.ModTime(), before.ModTime()))
		after, err := os.Stat(p)
		require.NoError(t, err)
		require.True(t, os.SameFile(before, after))
		require.Equal(t, before.Size(), after.Size())
		require.Equal(t, before.ModTime(), after.ModTime())
	}
	reads := []Action{
		act(ToolFileRead, "path", "notes/turn.org"),
		sh("cat notes/turn.org"),
		sh("grep -rn Friday notes"),
	}
	for round, text := range []string{public, private, public, private} {
		if round > 0 {
			rewrite(text)
		}
		for _, a := range reads {
			v := stack.Check(ctx, a, env)
			if text == private {
				assert.Equal(t, VerdictDeny, v.Verdict, "round %d, %v: %s", round, a.Args, v.Reason)
				assert.Contains(t, v.Reason, "private note")
			} else {
				assert.NotContains(t, v.Reason, "private", "round %d, %v", round, a.Args)
				assert.NotEqual(t, VerdictDeny, v.Verdict, "round %d, %v: %s", round, a.Args, v.Reason)
			}
		}
	}
}

// TestWalksOfOneCheckAreBounded: each relative read from a folder known
// only when it runs, and each recursive read, walks the roots. A command
// naming hundreds of them took seconds a check (4.5 s for 300 names over
// 19,000 files, measured with pp-lsp gate); all the walks of a check now
// share one limit, and a command past it is refused — a private read
// padded with many names must not come out as an ask.
func TestWalksOfOneCheckAreBounded(t *testing.T) {
	root := t.TempDir()
	for d := range 10 {
		dir := filepath.Join(root, fmt.Sprintf("d%d", d))
		require.NoError(t, os.MkdirAll(dir, 0o755))
		for f := range 600 {
			require.NoError(t, os.WriteFile(filepath.Join(dir, fmt.Sprintf("f%d.txt", f)), nil, 0o644))
		}
	}
	require.NoError(t, os.WriteFile(filepath.Join(root, "d5", "diary.org"), []byte("* Diary :private:\nsecret\n"), 0o644))
	stack, err := New(DefaultConfig())
	require.NoError(t, err)
	env, err := stack.NewEnv(t.Context(), World{Roots: []string{root}, Home: t.TempDir()})
	require.NoError(t, err)
	t.Cleanup(func() { env.Close() })
	names := func(n int) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, " x%d", i)
		}
		return b.String()
	}
	for _, tc := range []struct {
		name, cmd string
		verdict   string
		reason    string
	}{
		{"a private read padded with names", `cd "$(cat f)"; cat` + names(40) + ` diary.org`, VerdictDeny, "more folders and files to check for private notes than one check reads"},
		{"many recursive reads", strings.Repeat(`grep -r secret .; `, 20), VerdictDeny, "more folders and files to check"},
		{"a private read among a few names", `cd "$(cat f)"; cat x1 x2 diary.org`, VerdictDeny, "it may be d5/diary.org, a private note"},
		{"a few names, twin", `cd "$(cat f)"; cat x1 x2 x3`, VerdictAsk, ""},
		{"a few recursive reads, twin", `grep -r secret d1; grep -r secret d2`, VerdictAllow, ""},
	} {
		t.Run(tc.name, func(t *testing.T) {
			v := stack.Check(t.Context(), act(ToolShell, "cmd", tc.cmd, "cwd", "."), env)
			assert.Equal(t, tc.verdict, v.Verdict, "%s: %s", v.Gate, v.Reason)
			assert.Contains(t, v.Reason, tc.reason)
			// What the check's analysis read, as the stack runs it.
			ce := stack.beginCheck(env)
			defer stack.endCheck(ce)
			shellOf(t.Context(), &ce.env, tc.cmd, ".")
			assert.LessOrEqual(t, ce.state.walkedEntries, maxCheckWalkEntries+1, "entries read by the check's walks")
		})
	}
}

// TestSetupFilesTheGatesCannotReadWholeAsk: a note's #+SETUPFILE: too
// large to read whole (its #+FILETAGS: past the bound), or a FIFO a writer
// fills as Org reads it, makes the note's privacy unknown to the gates, as
// it does to the output filters (PrivateSpansOf): reading it asks.
func TestSetupFilesTheGatesCannotReadWholeAsk(t *testing.T) {
	root := t.TempDir()
	big := filepath.Join(root, "big.setup")
	f, err := os.Create(big)
	require.NoError(t, err)
	require.NoError(t, f.Truncate(maxPrivacyScan))
	_, err = f.WriteAt([]byte("\n#+FILETAGS: :private:\n"), maxPrivacyScan)
	require.NoError(t, err)
	require.NoError(t, f.Close())
	testenv.MakeFIFO(t, filepath.Join(root, "pipe.setup"))
	for name, text := range map[string]string{
		"big.org":  "#+SETUPFILE: big.setup\nThe biopsy.\n",
		"pipe.org": "#+SETUPFILE: pipe.setup\nThe biopsy.\n",
	} {
		require.NoError(t, os.WriteFile(filepath.Join(root, name), []byte(text), 0o644))
	}
	stack, env := defaultEnv(t, root)
	for _, note := range []string{"big.org", "pipe.org"} {
		v := stack.Check(context.Background(), sh("cat "+note), env)
		assert.NotEqual(t, VerdictAllow, v.Verdict, "%s: %s: %s", note, v.Gate, v.Reason)
		assert.Contains(t, v.Reason, "SETUPFILE", note)
		src, err := os.ReadFile(filepath.Join(root, note))
		require.NoError(t, err)
		_, whole := PrivateSpansOf(filepath.Join(root, note), src, []string{"private"}, "")
		assert.True(t, whole, note)
	}
}
