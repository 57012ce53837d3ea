package agent

import (
	"context"
	"os"
	"path/filepath"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/checkpoint"
	"pp-lsp/server/flightplan"
	"pp-lsp/server/workspace/workspacetest"
)

// TestUndoWithTheFileOpen: a file_write to a file open in the editor went
// through the editor; its undo does too, and nothing is written behind
// the buffer. Once the buffer changed since, undo is refused, naming the
// file, and nothing changes.
func TestUndoWithTheFileOpen(t *testing.T) {
	ed := workspacetest.New()
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "draft.org": "* Draft\nfirst\n"}, replay(t,
		`{"match":{"last_contains":"rewrite"},"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"draft.org","content":"* Draft\nsecond\n","explanation":"rewrite it"}}]}}`,
		`{"match":{"last_role":"tool"},"repeat":true,"reply":{"text":"Done."}}`),
		func(o *Options) { o.Workspace = ed })
	p := fx.path("draft.org")
	ed.Open(p, "* Draft\nfirst (unsaved)\n")
	_, _, err := fx.ask(t, "notes.org", 1, "rewrite the draft")
	require.NoError(t, err)
	require.Equal(t, "* Draft\nsecond\n", ed.Text(p), "written through the editor")
	require.Equal(t, "* Draft\nfirst\n", fx.read(t, "draft.org"))

	edits := len(ed.Edits())
	res, err := fx.agent.Undo(context.Background(), "")
	require.NoError(t, err)
	assert.Equal(t, "undo of Write `draft.org`: restored draft.org", res.Summary)
	assert.Equal(t, "* Draft\nfirst (unsaved)\n", ed.Text(p), "the buffer holds what it held before")
	assert.Equal(t, "* Draft\nfirst\n", fx.read(t, "draft.org"), "nothing written behind the buffer")
	require.Len(t, ed.Edits(), edits+1, "through workspace/applyEdit")

	// The user types in the buffer: redoing would overwrite that.
	ed.Open(p, "* Draft\nfirst (unsaved), and more\n")
	_, err = fx.agent.Undo(context.Background(), "")
	require.ErrorIs(t, err, ErrUndoRefused)
	assert.ErrorContains(t, err, "draft.org is not what")
	assert.Equal(t, "* Draft\nfirst (unsaved), and more\n", ed.Text(p))
	assert.Len(t, ed.Edits(), edits+1, "no edit was asked for")

	// An editor that declines the edit: the undo fails, the buffer keeps
	// the user's text.
	ed.Open(p, "* Draft\nfirst (unsaved)\n")
	ed.Decline(true)
	_, err = fx.agent.Undo(context.Background(), "")
	require.Error(t, err)
	assert.Equal(t, "* Draft\nfirst (unsaved)\n", ed.Text(p))
	kinds := fx.verifyJournal(t)
	assert.Contains(t, kinds, "undo")
}

// TestUndoNeverWritesOutsideTheRootsNorAProtectedPlace: even a checkpoint
// sealed with the install key (which only the server can make) is not
// restored into flightplans.org, the journal, the data directory or a file
// outside the roots; and a forged one, without the key, is not read.
func TestUndoNeverWritesOutsideTheRootsNorAProtectedPlace(t *testing.T) {
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, nil)
	outside := filepath.Join(fx.home, "outside.txt")
	require.NoError(t, os.WriteFile(outside, []byte("after"), 0o644))
	require.NoError(t, os.WriteFile(fx.path(flightplan.FileName), []byte("after"), 0o644))
	for _, target := range []string{outside, fx.path(flightplan.FileName), fx.path("journal.org"), filepath.Join(fx.data, "key"), fx.path("../home/outside.txt")} {
		t.Run(filepath.Base(target), func(t *testing.T) {
			before, _ := os.ReadFile(target)
			id, err := fx.agent.checkpoints.Save(checkpoint.Checkpoint{Title: "crafted", Files: []checkpoint.File{
				{Path: target, Existed: true, Before: []byte("PWNED"), Exists: true, After: before}}})
			require.NoError(t, err)
			_, err = fx.agent.Undo(context.Background(), id)
			require.ErrorIs(t, err, ErrUndoRefused)
			after, _ := os.ReadFile(target)
			assert.Equal(t, string(before), string(after))
		})
	}
}

// TestUndoOfAFileMadeThatIsNowOpen: a file the change made is not removed
// from under the buffer showing it: undo asks for it to be closed first.
func TestUndoOfAFileMadeThatIsNowOpen(t *testing.T) {
	ed := workspacetest.New()
	fx := newFixture(t, map[string]string{"notes.org": notesOrg}, replay(t,
		`{"match":{"last_contains":"make"},"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"made.org","content":"* Made\n","explanation":"a note"}}]}}`,
		`{"match":{"last_role":"tool"},"repeat":true,"reply":{"text":"Done."}}`),
		func(o *Options) { o.Workspace = ed })
	_, _, err := fx.ask(t, "notes.org", 1, "make a note")
	require.NoError(t, err)
	p := fx.path("made.org")
	require.FileExists(t, p)
	ed.Open(p, "* Made\n")
	_, err = fx.agent.Undo(context.Background(), "")
	require.ErrorIs(t, err, ErrUndoRefused)
	assert.ErrorContains(t, err, "made.org is open in the editor and the change made it: close it, then undo again")
	assert.FileExists(t, p)

	ed.Close(p)
	res, err := fx.agent.Undo(context.Background(), "")
	require.NoError(t, err)
	assert.Equal(t, "undo of Write `made.org`: removed made.org, which it made", res.Summary)
	assert.NoFileExists(t, p)
}
