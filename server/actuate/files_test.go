package actuate

import (
	"context"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
)

func TestFileWrite(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes/a.org": "* a\n", "flightplans.org": "", "sub/x": ""}, nil)
	require.NoError(t, os.Symlink(fx.root, filepath.Join(fx.root, "loop")))
	for _, tc := range []struct{ path, errText string }{
		{"notes/new.org", ""},
		{filepath.Join(fx.root, "notes/abs.md"), ""},
		{"deep/er/file.txt", ""},
		{"flightplans.org", "only a human changes"},
		{"journal.org", "only a human changes"},
		{"loop/flightplans.org", "only a human changes"},
		{"../escape.txt", "outside the memex roots"},
		{"/etc/passwd", "outside the memex roots"},
		{"~/x", "outside the memex roots"},
	} {
		t.Run(tc.path, func(t *testing.T) {
			res, err := run(t, fx, gates.Build(gates.FileWriteArgs{Path: tc.path, Content: "* written\n"}, "t"), nil)
			if tc.errText != "" {
				assert.ErrorContains(t, err, tc.errText)
				return
			}
			require.NoError(t, err)
			require.Len(t, res.Changed, 1)
			b, err := os.ReadFile(res.Changed[0])
			require.NoError(t, err)
			assert.Equal(t, "* written\n", string(b))
		})
	}
	_, ok := fx.mx.Snapshot().File(filepath.Join(fx.root, "notes/new.org"))
	assert.True(t, ok, "the memex read the new file")
	entries, _ := os.ReadDir(filepath.Join(fx.root, "notes"))
	for _, e := range entries {
		assert.False(t, strings.HasSuffix(e.Name(), ".tmp"), "no temp file left")
	}

	// An open file is changed through the editor, not behind it.
	p := filepath.Join(fx.root, "notes/a.org")
	fx.ed.Open(p, "* a (buffer)\n")
	_, err := run(t, fx, gates.Build(gates.FileWriteArgs{Path: "notes/a.org", Content: "* b\n"}, "t"), nil)
	require.NoError(t, err)
	disk, _ := os.ReadFile(p)
	assert.Equal(t, "* a\n", string(disk))
	d, _ := fx.ed.OpenDocument(p)
	assert.Equal(t, "* b\n", string(d.Text))
}

func TestMemoryEdit(t *testing.T) {
	const notes = "#+TITLE: Notes\n* Project\n:PROPERTIES:\n:ID: proj\n:END:\nold body\nmore\n\n** Child\n:PROPERTIES:\n:ID: child\n:END:\nchild body\n\n* Other\nkeep\n"
	const roam = ":PROPERTIES:\n:ID: roam\n:END:\n#+title: Roam\nroam body\n* H\n"
	fx := newFixture(t, map[string]string{"notes.org": notes, "roam.org": roam, "flightplans.org": "* PLAN p\n:PROPERTIES:\n:ID: plan1\n:END:\n"}, nil)
	for _, tc := range []struct {
		name, id, content, file, want, errText string
	}{
		{name: "headline with children", id: "proj", content: "new body", file: "notes.org",
			want: strings.Replace(notes, "old body\nmore\n", "new body\n", 1)},
		{name: "leaf", id: "child", content: "x\ny\n", file: "notes.org",
			want: strings.Replace(strings.Replace(notes, "old body\nmore\n", "new body\n", 1), "child body\n", "x\ny\n", 1)},
		{name: "file node", id: "roam", content: "fresh\n", file: "roam.org", want: strings.Replace(roam, "roam body\n", "fresh\n", 1)},
		{name: "headline in content", id: "proj", content: "* sneaky\n", errText: "is a headline"},
		{name: "unknown id", id: "nope", content: "x", errText: "no node has"},
		{name: "a Flight Plan", id: "plan1", content: "x", errText: "only a human changes"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := run(t, fx, gates.Build(gates.MemoryEditArgs{ID: tc.id, Content: tc.content}, "t"), nil)
			if tc.errText != "" {
				assert.ErrorContains(t, err, tc.errText)
				return
			}
			require.NoError(t, err)
			b, _ := os.ReadFile(filepath.Join(fx.root, tc.file))
			assert.Equal(t, tc.want, string(b))
		})
	}
	n, ok := fx.mx.Snapshot().NodeByID("child")
	require.True(t, ok)
	assert.Equal(t, "x\ny\n", n.Body(), "the memex saw the edit")
}

func TestFileRead(t *testing.T) {
	const mixed = "* Public\nvisible\n* Diary :private:\nsecret diary\n** Sub\nalso secret\n* After\nshown\n"
	outside := filepath.Join(t.TempDir(), "outside.txt")
	require.NoError(t, os.WriteFile(outside, []byte("out"), 0o644))
	upper := strings.ReplaceAll(mixed, ":private:", ":PRIVATE:")
	fx := newFixture(t, map[string]string{
		"mixed.org": mixed, "all.org": "#+FILETAGS: :@personal:\n* x\n", "a.txt": "plain",
		"upper.org": upper, "mixed.org~": mixed, "#mixed.org#": mixed, "mixed.org_archive": mixed,
		"later.org": "* x\n#+FILETAGS: :Private:\n",
		"copy.txt":  "pasted: secret diary also secret\n",
		// Private by their #+SETUPFILE:'s #+FILETAGS: (Org reads it as
		// the file's own), or by one that cannot be read here.
		"bysetup.org":       "#+SETUPFILE: ./private-setup.org\n* Harbour\nmarzipan under the stair\n",
		"bysetup.txt":       "#+SETUPFILE: conf/priv.setup\n* Harbour\nmarzipan under the stair\n",
		"byurl.org":         "#+SETUPFILE: https://example.org/setup.org\n* Harbour\nmarzipan under the stair\n",
		"pubsetup.org":      "#+SETUPFILE: conf/pub.setup\n* Harbour\nshown\n",
		"private-setup.org": "#+FILETAGS: :private:\n", "conf/priv.setup": "#+SETUPFILE: ../private-setup.org\n",
		"conf/pub.setup": "#+FILETAGS: :work:\n",
	}, nil)
	for _, tc := range []struct {
		name, path string
		approved   bool
		want       string
		errText    string
	}{
		{name: "text", path: "a.txt", want: "plain"},
		{name: "private subtrees left out", path: "mixed.org", want: "* Public\nvisible\n* After\nshown\n"},
		{name: "private file", path: "all.org", errText: "whole file is private"},
		{name: "a privacy tag in capitals", path: "upper.org", want: "* Public\nvisible\n* After\nshown\n"},
		{name: "an Emacs backup", path: "mixed.org~", want: "* Public\nvisible\n* After\nshown\n"},
		{name: "an Emacs auto-save", path: "#mixed.org#", want: "* Public\nvisible\n* After\nshown\n"},
		{name: "an Org archive", path: "mixed.org_archive", want: "* Public\nvisible\n* After\nshown\n"},
		{name: "a later #+FILETAGS:", path: "later.org", errText: "whole file is private"},
		{name: "private text copied into another file", path: "copy.txt", want: "pasted: [private]\n"},
		{name: "private by its setup file", path: "bysetup.org", errText: "whole file is private"},
		{name: "private by its setup file's setup file", path: "bysetup.txt", errText: "whole file is private"},
		{name: "a setup file at a URL", path: "byurl.org", errText: "whole file is private"},
		{name: "a setup file without a privacy tag", path: "pubsetup.org", want: "#+SETUPFILE: conf/pub.setup\n* Harbour\nshown\n"},
		{name: "outside, unapproved", path: outside, errText: "approved Flight Plan"},
		{name: "outside, approved", path: outside, approved: true, want: "out"},
		{name: "missing", path: "nope.txt", errText: "no such file"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			a := gates.Build(gates.FileReadArgs{Path: tc.path}, "t")
			var ap *Approval
			if tc.approved {
				ap = approve(a)
			}
			res, err := run(t, fx, a, ap)
			if tc.errText != "" {
				assert.ErrorContains(t, err, tc.errText)
				return
			}
			require.NoError(t, err)
			assert.Equal(t, tc.want, res.Output)
			assert.True(t, res.Feedback)
		})
	}
}

func TestMessageIsShownNeverWritten(t *testing.T) {
	const text = "#+TITLE: t\n* Question here\nWhat is it?\n** Child\n"
	fx := newFixture(t, map[string]string{"q.org": text, "flightplans.org": "* PLAN x\n"}, nil)
	a := gates.Build(gates.MessageArgs{Text: "It is 42.\n* not a headline"}, "answer")
	for _, tc := range []struct {
		name, file string
		open       bool
	}{
		{name: "no editor has the file", file: "q.org"},
		{name: "the file is open", file: "q.org", open: true},
		{name: "asked from flightplans.org", file: "flightplans.org", open: true},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(fx.root, tc.file)
			before, err := os.ReadFile(p)
			require.NoError(t, err)
			if tc.open {
				fx.ed.Open(p, string(before))
			}
			res, err := fx.act.Run(context.Background(), Request{Action: a, File: p, Line: 2, Question: "what?"})
			require.NoError(t, err)
			assert.True(t, res.OK)
			assert.Equal(t, "answer shown", res.Summary)
			assert.Equal(t, "It is 42.\n* not a headline", res.Shown)
			assert.Empty(t, res.Changed)
			assert.Empty(t, fx.ed.Edits(), "no edit is offered to the editor")
			after, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.Equal(t, string(before), string(after), "nothing written on disk")
			if d, ok := fx.ed.OpenDocument(p); ok {
				assert.Equal(t, string(before), string(d.Text), "nothing written into the buffer")
			}
		})
	}
}

func TestCapture(t *testing.T) {
	c := newCapture(10)
	c.Write([]byte("abc"))
	assert.Equal(t, "abc", c.String())
	c = newCapture(10)
	for i := range 100 {
		c.Write([]byte{byte('a' + i%26)})
	}
	assert.Equal(t, "\n[… 100 bytes cut …]\n", c.String(), "a run the cut goes through is cut with it")
	c = newCapture(10)
	for i := range 100 {
		c.Write([]byte{" abcdefgh"[i%9]})
	}
	assert.Equal(t, " \n[… 98 bytes cut …]\n ", c.String())
}

// TestCaptureCutsNoSecretInTwo: a secret the output's cut goes through
// reaches no one in part — the piece each side is cut with it, so what
// the redactor is given holds neither, and the words around are kept.
func TestCaptureCutsNoSecretInTwo(t *testing.T) {
	const awsKey = "AKIAZ5R2WQ7PLM3XK4TV"
	for cut := 1; cut < len(awsKey); cut++ {
		c := newCapture(64)
		before := strings.Repeat("word ", 6) + "key " // 34 bytes: the head's 32 end inside "key "
		c.Write([]byte(before[:32-cut+2] + awsKey))
		c.Write([]byte(" and more words here " + strings.Repeat("x ", 100) + "tail words end\n"))
		out := gates.RedactSecrets(c.String())
		for n := 4; n <= len(awsKey); n++ {
			assert.NotContains(t, out, awsKey[:n], "cut %d: no prefix of the key", cut)
			assert.NotContains(t, out, awsKey[len(awsKey)-n:], "cut %d: no suffix of the key", cut)
		}
		assert.Contains(t, out, "word word")
		assert.Contains(t, out, "tail words end")
	}
}

// TestPreviewIsWhatTheRunChanges holds Preview to the run: the text
// after is what the file holds once the action ran, and a run approved
// for a text the file no longer holds changes nothing.
func TestPreviewIsWhatTheRunChanges(t *testing.T) {
	fx := newFixture(t, map[string]string{
		"notes/a.org": "* A\n:PROPERTIES:\n:ID: n1\n:END:\nold body\n* B\n",
		"conf/x.yaml": "k: 1\n",
	}, nil)
	for _, tc := range []struct {
		name   string
		action gates.Action
		file   string
	}{
		{"file_write", gates.Build(gates.FileWriteArgs{Path: "conf/x.yaml", Content: "k: 2\n"}, "t"), "conf/x.yaml"},
		{"file_write of a new file", gates.Build(gates.FileWriteArgs{Path: "conf/new.yaml", Content: "n: 1\n"}, "t"), "conf/new.yaml"},
		{"memory_edit", gates.Build(gates.MemoryEditArgs{ID: "n1", Content: "new body\n"}, "t"), "notes/a.org"},
	} {
		t.Run(tc.name, func(t *testing.T) {
			p := filepath.Join(fx.root, tc.file)
			e, ok, err := fx.act.Preview(tc.action)
			require.NoError(t, err)
			require.True(t, ok)
			before, rerr := os.ReadFile(p)
			assert.Equal(t, rerr == nil, e.Existed)
			assert.Equal(t, string(before), string(e.Before))

			// Approved for another text: nothing changes.
			stale := approve(tc.action)
			stale.Before = HashOf(true, []byte("something else\n"))
			_, err = run(t, fx, tc.action, stale)
			require.ErrorIs(t, err, ErrTargetChanged)
			now, _ := os.ReadFile(p)
			assert.Equal(t, string(before), string(now))

			ok2 := approve(tc.action)
			ok2.Before = HashOf(e.Existed, e.Before)
			res, err := run(t, fx, tc.action, ok2)
			require.NoError(t, err)
			after, err := os.ReadFile(p)
			require.NoError(t, err)
			assert.Equal(t, string(e.After), string(after))
			require.Len(t, res.Edits, 1)
			assert.Equal(t, string(before), string(res.Edits[0].Before))
			assert.Equal(t, string(after), string(res.Edits[0].After))
		})
	}
	_, ok, err := fx.act.Preview(gates.Build(gates.ShellArgs{Cmd: "ls", Cwd: "."}, "t"))
	assert.False(t, ok)
	assert.NoError(t, err)
}
