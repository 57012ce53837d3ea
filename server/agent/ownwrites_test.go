package agent

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/flightplan"
	"pp-lsp/server/protect"
	"pp-lsp/server/workspace/workspacetest"
)

// heldTranscript: "tidy the note" writes notes.org (open in the editor,
// whose user does not answer); "count it" files a plan; anything else is
// answered in words.
var heldTranscript = []string{
	`{"match":{"last_contains":"tidy the note"},"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"notes.org","content":"#+TITLE: Notes\n* Project\nTidied.\n","explanation":"tidy the note"}}]}}`,
	`{"match":{"last_contains":"count it"},"repeat":true,"reply":{"tool_calls":[{"name":"shell","arguments":{"cmd":"make count","explanation":"count once"}}]}}`,
	`{"match":{},"repeat":true,"reply":{"text":"Done."}}`,
}

// holdAnAction starts an action that writes notes.org through the editor,
// which holds it as a user who has not answered, and returns once it
// waits there: release lets the editor answer, and done reports the
// question's end.
func holdAnAction(t *testing.T, fx *fixture, ed *workspacetest.Editor) (release func(), done <-chan error) {
	t.Helper()
	p := fx.path("notes.org")
	ed.Open(p, notesOrg)
	waiting, release := ed.Hold()
	t.Cleanup(release)
	asked := make(chan error, 1)
	go func() {
		_, err := fx.agent.Ask(context.Background(), AskRequest{Source: SourceLSP, File: p, Line: 2, Text: "tidy the note", RequestID: "held"}, nil)
		asked <- err
	}()
	select {
	case <-waiting:
	case <-time.After(30 * time.Second):
		t.Fatal("the action never reached the editor")
	}
	return release, asked
}

// TestOwnWritesNeverWaitForAnActionHeldByTheEditor: an action that writes
// a file open in the editor waits while the editor asks its user (up to a
// timeout). The agent's own writes of other files meanwhile — a
// conversation's turn, a Flight Plan filed, a schedule moved on — must not
// wait for it (they used to take the action's lock), and none of them is
// undone or taken for the action's once it ends.
func TestOwnWritesNeverWaitForAnActionHeldByTheEditor(t *testing.T) {
	for _, tc := range []struct {
		name string
		// write makes the own write; check what it left on disk.
		write func(t *testing.T, fx *fixture) error
		check func(t *testing.T, fx *fixture)
	}{
		{"a conversation's turn", func(t *testing.T, fx *fixture) error {
			out, err := fx.agent.Ask(context.Background(), AskRequest{Source: SourceCLI, Text: "what is new?", NewChat: true}, nil)
			if err == nil {
				assert.NotEmpty(t, out.Chat)
			}
			return err
		}, func(t *testing.T, fx *fixture) {
			chats, err := filepath.Glob(filepath.Join(fx.root, "chats", "*.org"))
			require.NoError(t, err)
			require.Len(t, chats, 1)
			b, err := os.ReadFile(chats[0])
			require.NoError(t, err)
			assert.Contains(t, string(b), "what is new?")
			assert.Contains(t, string(b), "Done.", "the turn is in the conversation")
		}},
		{"a Flight Plan filed", func(t *testing.T, fx *fixture) error {
			out, _, err := fx.ask(t, "Makefile", 1, "count it")
			if err == nil {
				assert.Equal(t, StatusFiled, out.Status)
			}
			return err
		}, func(t *testing.T, fx *fixture) {
			assert.Contains(t, fx.read(t, flightplan.FileName), "* PLAN Run `make count`")
		}},
		{"a schedule moved on", func(t *testing.T, fx *fixture) error {
			// The due time already ran (another process): only the
			// timestamp moves on.
			for _, k := range fx.agent.Skills().Usable() {
				if k.Due(fixedNow(), time.Local) {
					if _, err := fx.agent.claim(k); err != nil {
						return err
					}
				}
			}
			for _, r := range fx.agent.RunSchedules(context.Background()) {
				if r.Err != nil {
					return r.Err
				}
			}
			return nil
		}, func(t *testing.T, fx *fixture) {
			assert.Contains(t, fx.read(t, "skills/review.org"), "SCHEDULED: <2026-11-27 Fri 09:00 +1d>")
		}},
	} {
		for _, declined := range []bool{false, true} {
			name := tc.name
			if declined {
				name += ", the held edit declined"
			}
			t.Run(name, func(t *testing.T) {
				ownWriteBesideAHeldAction(t, tc.write, tc.check, declined)
			})
		}
	}
}

// ownWriteBesideAHeldAction makes an own write while an action waits for
// the editor, then lets the editor answer (declined: the user refuses the
// edit, the action fails and is rolled back) and checks that the own
// write stands and is no part of the action's change.
func ownWriteBesideAHeldAction(t *testing.T, write func(*testing.T, *fixture) error, check func(*testing.T, *fixture), declined bool) {
	ed := workspacetest.New()
	fx := newFixture(t, map[string]string{"notes.org": notesOrg, "Makefile": makefile, "out/.keep": "", "skills/review.org": reviewOrg},
		replay(t, heldTranscript...), func(o *Options) { o.Workspace = ed; o.Now = fixedNow })
	release, asked := holdAnAction(t, fx, ed)

	wrote := make(chan error, 1)
	go func() { wrote <- write(t, fx) }()
	select {
	case err := <-wrote:
		require.NoError(t, err)
	case <-time.After(20 * time.Second):
		t.Fatal("the own write waited for an action held up by the editor")
	}
	select {
	case <-asked:
		t.Fatal("the held action ended before the editor answered")
	default:
	}
	check(t, fx)

	ed.Decline(declined)
	release()
	require.NoError(t, <-asked)
	changes, err := fx.agent.Changes(context.Background())
	require.NoError(t, err)
	if declined {
		assert.Equal(t, notesOrg, ed.Text(fx.path("notes.org")), "the user declined the edit")
		assert.Empty(t, changes, "the action changed nothing")
	} else {
		assert.Equal(t, "#+TITLE: Notes\n* Project\nTidied.\n", ed.Text(fx.path("notes.org")), "the held edit went through once the editor answered")
		require.Len(t, changes, 1, "only the action's change is its")
		assert.Equal(t, []string{"notes.org"}, changes[0].Files)
	}
	check(t, fx)
}

// TestWritersOfOneFileStillSerialise: an action waiting for the editor on
// a file (an approved plan's write of a skill's file) holds that file: the schedule moved on in the same file waits for
// it, then reads the file again and writes on top of it — neither change
// is lost or refused (both at the buffer's first version, one of them
// would be).
func TestWritersOfOneFileStillSerialise(t *testing.T) {
	ed := workspacetest.New()
	skill := "skills/review.org"
	tidied := strings.Replace(reviewOrg, "MANDATE-LATER", "MANDATE-LATER, tidied", 1)
	content, err := json.Marshal(tidied)
	require.NoError(t, err)
	transcript := []string{
		`{"match":{"last_contains":"tidy the skills"},"reply":{"tool_calls":[{"name":"file_write","arguments":{"path":"` + skill + `","content":` + string(content) + `,"explanation":"tidy the skills"}}]}}`,
		`{"match":{},"repeat":true,"reply":{"text":"Done."}}`,
	}
	fx := newFixture(t, map[string]string{skill: reviewOrg, "notes.org": notesOrg}, replay(t, transcript...),
		func(o *Options) { o.Workspace = ed; o.Now = fixedNow })
	p := fx.path(skill)
	// A skill's file is written only from an approved plan.
	out, _, err := fx.ask(t, "notes.org", 1, "tidy the skills")
	require.NoError(t, err)
	require.Equal(t, StatusFiled, out.Status)
	ed.Open(p, reviewOrg)
	waiting, release := ed.Hold()
	defer release()
	asked := make(chan error, 1)
	go func() {
		_, err := fx.agent.Approve(context.Background(), out.PlanID)
		asked <- err
	}()
	select {
	case <-waiting:
	case <-time.After(30 * time.Second):
		t.Fatal("the action never reached the editor")
	}
	// The due time already ran (another process): only the timestamp
	// moves on, in the file the action is writing.
	for _, k := range fx.agent.Skills().Usable() {
		if k.Due(fixedNow(), time.Local) {
			_, err := fx.agent.claim(k)
			require.NoError(t, err)
		}
	}
	moved := make(chan []SkillRun, 1)
	go func() { moved <- fx.agent.RunSchedules(context.Background()) }()
	// The schedule reaches the file and waits for the action (were it not
	// to, its edit would be made at the buffer's first version too, and
	// one of the two refused).
	waitForLock(t, &fx.agent.locks, p, 2)
	release()
	require.NoError(t, <-asked)
	var runs []SkillRun
	select {
	case runs = <-moved:
	case <-time.After(20 * time.Second):
		t.Fatal("the schedule never moved on")
	}
	require.NotEmpty(t, runs)
	for _, r := range runs {
		require.NoError(t, r.Err, r.Skill)
	}
	buf := ed.Text(p)
	assert.Contains(t, buf, "MANDATE-LATER, tidied", "the action's write is in the buffer")
	assert.Contains(t, buf, "SCHEDULED: <2026-11-27 Fri 09:00 +1d>", "the schedule moved on on top of it")
}

// waitForLock waits until n writers hold or wait for the lock of p.
func waitForLock(t *testing.T, l *fileLocks, p string, n int) {
	t.Helper()
	deadline := time.Now().Add(20 * time.Second)
	for {
		l.mu.Lock()
		fl := l.held[protect.Canonical(p)]
		got := 0
		if fl != nil {
			got = fl.refs
		}
		l.mu.Unlock()
		if got >= n {
			return
		}
		if time.Now().After(deadline) {
			t.Fatalf("%d writers of %s, never %d: the second never waited for the first", got, p, n)
		}
		time.Sleep(5 * time.Millisecond)
	}
}
