package agent

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/gates"
	"pp-lsp/internal/testenv"
	"pp-lsp/providers"
	"pp-lsp/providers/providertest"
)

var gardenFiles = map[string]string{
	"a.org":       "* A\n:PROPERTIES:\n:ID: dup\n:END:\nSee [[id:nowhere]] and [[file:gone.org][gone]] and [[file:b.org][b]].\n",
	"b.org":       "* B\n:PROPERTIES:\n:ID: dup\n:END:\nBack to [[file:a.org][a]].\n",
	"old.org":     "* TODO renew the passport\n* DONE old thing\n* TODO call the bank\n",
	"private.org": "#+filetags: :private:\n* TODO secret errand\nSee [[id:hidden-target]].\n",
}

// TestGardenerReportsWhatIndexFinds: the Gardener needs no model; its
// report lists exactly the memex's findings (what `pp-lsp index
// --findings` prints), the orphans and the stale TODOs, names nothing
// private, and waits as a Flight Plan appending to today's daily note.
func TestGardenerReportsWhatIndexFinds(t *testing.T) {
	fx := newFixture(t, gardenFiles, nil, func(o *Options) { o.Now = fixedNow })
	old := fixedNow().Add(-100 * 24 * time.Hour)
	require.NoError(t, os.Chtimes(fx.path("old.org"), old, old))

	run, err := fx.agent.RunSkill(context.Background(), "gardener")
	require.NoError(t, err)
	require.NoError(t, run.Err)
	require.Len(t, run.Passes, 1)
	p := run.Passes[0]
	require.Equal(t, StatusFiled, p.Status, "%+v", p)
	require.NotNil(t, p.Action)
	assert.Equal(t, gates.ToolFileWrite, p.Action.Tool)
	assert.Equal(t, "daily/2026-11-26.org", p.Action.Arg("path"))
	report := p.Action.Arg("content")

	var want []string
	for _, f := range fx.mx.Snapshot().Findings() {
		if strings.HasSuffix(f.Path, "private.org") {
			continue
		}
		rel, _ := filepath.Rel(fx.root, f.Path)
		want = append(want, fmt.Sprintf("- [[file:%s::%d][%s:%d]] %s: %s", rel, f.Line+1, rel, f.Line+1, f.Code, f.Message))
	}
	require.NotEmpty(t, want)
	var got []string
	in := false
	for _, l := range strings.Split(report, "\n") {
		switch {
		case strings.HasPrefix(l, "** Findings"):
			in = true
		case strings.HasPrefix(l, "** "):
			in = false
		case in:
			got = append(got, l)
		}
	}
	assert.Equal(t, want, got, "the report's findings are the index's")
	assert.Contains(t, report, "** Findings (broken links, duplicate IDs): "+fmt.Sprint(len(want)))
	assert.Contains(t, report, "old.org:1]] old", "old.org is an orphan")
	assert.NotContains(t, report, "b.org:1]] b\n", "b.org is linked from a.org")
	assert.Contains(t, report, "[[file:old.org::1][old.org:1]] TODO renew the passport")
	assert.Contains(t, report, "[[file:old.org::3][old.org:3]] TODO call the bank")
	assert.NotContains(t, report, "old thing")
	assert.NotContains(t, report, "secret errand")
	assert.NotContains(t, report, "hidden-target")
	assert.True(t, strings.HasPrefix(report, ":PROPERTIES:\n:ID:"), "a new daily note starts as the daily command makes it")
	assert.Contains(t, fx.read(t, "flightplans.org"), "daily/2026-11-26.org")
	assert.NoFileExists(t, fx.path("daily/2026-11-26.org"), "nothing is written before the user approves")
	assert.Equal(t, []string{"proposal", "plan"}, fx.verifyJournal(t))
}

// TestScribeDistilsYesterday: the Scribe hands the model yesterday's
// conversations and journal entries (not today's, nothing private), and
// its proposal waits as a Flight Plan; a secret in that material reaches
// the model as its mark.
func TestScribeDistilsYesterday(t *testing.T) {
	write := providertest.Answer{Calls: []providertest.Call{{ID: "c1", Name: "file_write",
		Args: `{"path":"daily/2026-11-26.org","content":"* Scribe summary\n- talked\n","explanation":"the Scribe's summary of yesterday"}`}}}
	provider, srv := openAI(t, write)
	fx := newFixture(t, map[string]string{
		"chats/2026-11-25-taxes.org":  "#+title: When are taxes due?\n* When are taxes due?\n:PROPERTIES:\n:ASKED: [2026-11-25 Wed 09:00]\n:END:\nYESTERDAY-ANSWER: by the end of May, with the token " + githubToken + " kept.\n* Private turn :private:\nPRIVATE-TURN-TEXT\n* Later turn\n:PROPERTIES:\n:ASKED: [2026-11-25 Wed 09:05]\n:END:\nLATER-TURN-TEXT: as the private turn said\n",
		"chats/2026-11-26-today.org":  "#+title: Today\n* Today's question\nTODAY-ANSWER\n",
		"chats/2026-11-25-secret.org": "#+filetags: :private:\n* Secret chat\nSECRET-CHAT-TEXT\n",
	}, provider, func(o *Options) { o.Now = fixedNow })
	require.NoError(t, os.WriteFile(fx.path("journal.org"), []byte("* [2026-11-25 Wed 09:01] proposal shell: allow by permissions\n* [2026-11-26 Thu 08:00] proposal message: allow\n"), 0o644))

	run, err := fx.agent.RunSkill(context.Background(), "Scribe")
	require.NoError(t, err)
	require.NoError(t, run.Err)
	require.Len(t, run.Passes, 1)
	assert.Equal(t, StatusFiled, run.Passes[0].Status, "the Scribe's write waits for approval")
	reqs := srv.Requests()
	require.Len(t, reqs, 1)
	body := string(reqs[0].Body)
	assert.Contains(t, body, "YESTERDAY-ANSWER: by the end of May, with the token [secret github-token] kept.")
	assert.Contains(t, body, "proposal shell: allow by permissions")
	assert.Contains(t, body, "You are the Scribe", "the built-in's mandate")
	// A turn after a private one was answered by a model that saw it.
	for _, never := range []string{"TODAY-ANSWER", "PRIVATE-TURN-TEXT", "LATER-TURN-TEXT", "SECRET-CHAT-TEXT", "proposal message: allow", githubToken} {
		assert.NotContains(t, body, never)
	}
}

// TestScribeReadsOnlyItsOwnJournal: a journal.org that is a symlink (or a
// FIFO, which a plain read would wait on for ever) is not the server's own
// file: none of what it leads to reaches the model, and the Scribe still
// runs.
func TestScribeReadsOnlyItsOwnJournal(t *testing.T) {
	outside := filepath.Join(t.TempDir(), "elsewhere.org")
	require.NoError(t, os.WriteFile(outside, []byte("* [2026-11-25 Wed 09:01] OUTSIDE-LINE\n"), 0o600))
	for _, tc := range []struct {
		name  string
		plant func(t *testing.T, p string)
	}{
		{"symlink", func(t *testing.T, p string) { require.NoError(t, os.Symlink(outside, p)) }},
		{"fifo", func(t *testing.T, p string) { testenv.MakeFIFO(t, p) }},
	} {
		t.Run(tc.name, func(t *testing.T) {
			write := providertest.Answer{Calls: []providertest.Call{{ID: "c1", Name: "file_write",
				Args: `{"path":"daily/2026-11-26.org","content":"* Scribe summary\n","explanation":"the Scribe's summary of yesterday"}`}}}
			provider, srv := openAI(t, write)
			fx := newFixture(t, map[string]string{
				"chats/2026-11-25-taxes.org": "#+title: Taxes\n* Taxes\nYESTERDAY-ANSWER\n",
			}, provider, func(o *Options) { o.Now = fixedNow })
			tc.plant(t, fx.path("journal.org"))

			run, err := fx.agent.RunSkill(context.Background(), "Scribe")
			require.NoError(t, err)
			require.NoError(t, run.Err)
			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			body := string(reqs[0].Body)
			assert.Contains(t, body, "YESTERDAY-ANSWER")
			assert.NotContains(t, body, "OUTSIDE-LINE")
		})
	}
}

// TestScribeHandsOverNothingOfAPrivateConversation: a private
// conversation's follow-up goes to a local model only, and what the
// journal kept of it — its chat file's name, which is its first
// question's words, and a plan its local model filed, in words of its own
// that no filter of quotes can find — never reaches the remote model the
// Scribe asks the next day; nor does a conversation made private after
// its turn was journalled.
func TestScribeHandsOverNothingOfAPrivateConversation(t *testing.T) {
	today := time.Now()
	clock := today
	chatFile := func(name, tags string) (string, string) {
		return "chats/" + today.Format(time.DateOnly) + "-" + name + ".org",
			"#+title: " + name + "?\n" + tags + "* " + name + "?\n:PROPERTIES:\n:ASKED: [2026-11-25 Wed 09:00]\n:END:\nWait until the results are in, and talk to the doctor about what comes next.\n"
	}
	private, privateText := chatFile("biopsy", "#+filetags: :private:\n")
	later, laterText := chatFile("divorce", "")
	public, publicText := chatFile("tomatoes", "")
	call := func(name, args string) providertest.Reply {
		return providertest.Reply{Frames: providertest.OllamaFrames(providertest.Answer{
			Calls: []providertest.Call{{ID: "c1", Name: name, Args: args}}, InputTokens: 1, OutputTokens: 1})}
	}
	local := providertest.NewServer(t,
		call("file_write", `{"path":"reminders/oncology.txt","content":"friday\n","explanation":"a reminder"}`),
		call("http", `{"method":"GET","url":"https://clinic.example/hematology/friday","explanation":"the appointment"}`))
	answer := func(text string) providertest.Reply {
		return providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Text: []string{text}})}
	}
	remote := providertest.NewServer(t, answer("fine"), answer("water them"),
		providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Calls: []providertest.Call{{ID: "c1", Name: "file_write",
			Args: `{"path":"daily/x.org","content":"* Scribe summary\n","explanation":"the Scribe's summary of yesterday"}`}}})})
	p := cascade(t, providers.ProviderConfig{Kind: providers.ProviderOpenAI, Model: "remote", BaseURL: remote.URL + "/v1"}, wireFormats[0].config(local.URL))
	fx := newFixture(t, map[string]string{"notes.org": chatNotes, private: privateText, later: laterText, public: publicText}, p,
		func(o *Options) { o.Now = func() time.Time { return clock } })

	for _, q := range []string{"and when?", "and where?"} {
		_, err := fx.askChat(t, private, "notes.org", 2, q)
		require.NoError(t, err)
	}
	require.NotEmpty(t, local.Requests(), "the private follow-up went to the local model")
	require.Empty(t, remote.Requests())
	for _, name := range []string{later, public} {
		_, err := fx.askChat(t, name, "notes.org", 2, "and then?")
		require.NoError(t, err)
	}
	journal := fx.read(t, "journal.org")
	for _, name := range []string{"biopsy", "oncology", "hematology", "divorce", "tomatoes"} {
		require.Contains(t, journal, name, "the journal names it")
	}
	_, err := fx.agent.Undo(context.Background(), "")
	require.NoError(t, err, "the private conversation's write is undone")
	require.Contains(t, fx.read(t, "journal.org"), "undo of Write `reminders/oncology.txt`")
	// The second conversation is made private after its turn.
	fx.write(t, later, "#+filetags: :private:\n"+fx.read(t, later))

	clock = today.AddDate(0, 0, 1)
	run, err := fx.agent.RunSkill(context.Background(), "Scribe")
	require.NoError(t, err)
	require.NoError(t, run.Err)
	reqs := remote.Requests()
	require.Len(t, reqs, 3)
	body := string(reqs[2].Body)
	assert.Contains(t, body, "tomatoes.org", "a public conversation's turn is handed over")
	for _, never := range []string{"biopsy", "oncology", "hematology", "divorce"} {
		assert.False(t, strings.Contains(body, never), "the remote model got %q of a private conversation", never)
	}
}

// TestGardenerNamesNothingOfANoteMadePrivateOnDisk: a note whose setup
// file (not named .org, so watched by no editor) was given a privacy tag
// outside the editor after the memex read it is private to the Gardener's
// report, which goes into a public daily note that models later read: its
// stale TODO is not listed.
func TestGardenerNamesNothingOfANoteMadePrivateOnDisk(t *testing.T) {
	fx := newFixture(t, map[string]string{
		"errand.org": "#+SETUPFILE: ./x.setup\n* TODO collect the biopsy results\n",
		"x.setup":    "#+TITLE: setup\n",
		"notes.org":  "* TODO water the tomatoes\n",
	}, nil, func(o *Options) { o.Now = fixedNow })
	old := fixedNow().Add(-100 * 24 * time.Hour)
	for _, f := range []string{"errand.org", "notes.org"} {
		require.NoError(t, os.Chtimes(fx.path(f), old, old))
	}
	require.NoError(t, os.WriteFile(fx.path("x.setup"), []byte("#+FILETAGS: :private:\n"), 0o644))

	run, err := fx.agent.RunSkill(context.Background(), "gardener")
	require.NoError(t, err)
	require.NoError(t, run.Err)
	require.Len(t, run.Passes, 1)
	require.NotNil(t, run.Passes[0].Action, "%+v", run.Passes[0])
	report := run.Passes[0].Action.Arg("content")
	assert.Contains(t, report, "water the tomatoes", "the public stale TODO is listed")
	assert.NotContains(t, report, "biopsy")
	assert.NotContains(t, report, "errand")
}
