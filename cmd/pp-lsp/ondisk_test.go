package main

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"go.lsp.dev/uri"

	"pp-lsp/internal/testenv"
	"pp-lsp/providers/providertest"
)

// TestANoteMadePrivateOnDiskReachesNoModel: a note made private outside
// the editor — its setup file (not named .org, so watched by no editor)
// given #+FILETAGS: :private:, or the note itself so tagged on disk — is
// private to the next question through `pp-lsp --stdio`, whether the
// client watches the files (eglot: **/*.org only) or cannot (Neovim 0.7:
// a rescan now and then, here once an hour), and however long the
// heartbeat sleeps: the loopback model's request holds none of its text,
// nor does passepartout.context, whose text is what a model would be sent
// (an editor may hand it to one).
func TestANoteMadePrivateOnDiskReachesNoModel(t *testing.T) {
	const (
		note  = "#+SETUPFILE: ./x.setup\n* Harbour marzipan\n:PROPERTIES:\n:ID: harbour\n:END:\nThe keeper hides marzipan under the third stair.\n"
		plans = "* Lighthouse plans\nThe lamp gets new glass; see [[id:harbour]] for the keeper's note.\n"
	)
	watching := `{"workspace":{"didChangeWatchedFiles":{"dynamicRegistration":true}}}`
	for _, tc := range []struct {
		name, caps string
		file, text string
	}{
		{"setup file, a client that watches", watching, "x.setup", "#+TITLE: Setup\n#+FILETAGS: :private:\n"},
		{"setup file, a client that cannot watch", `{}`, "x.setup", "#+TITLE: Setup\n#+FILETAGS: :private:\n"},
		{"the note itself, a client that cannot watch", `{}`, "a.org", "#+FILETAGS: :private:\n" + note},
	} {
		t.Run(tc.name, func(t *testing.T) {
			answer := providertest.Reply{Frames: providertest.OpenAIFrames(providertest.Answer{Model: "m1", Text: []string{"Ask the keeper."}, InputTokens: 30, OutputTokens: 3})}
			srv := providertest.NewServer(t, answer, answer)
			env, getenv := serveEnv(t)
			env["PASSEPARTOUT_DATA_DIR"] = filepath.Join(t.TempDir(), "data")
			env["PASSEPARTOUT_PROVIDERS"] = "openai:m1@" + srv.URL + "/v1"
			env["HEARTBEAT_INTERVAL"] = "3600"
			root := t.TempDir()
			testenv.WriteTree(t, root, map[string]string{
				"a.org":   note,
				"x.setup": "#+TITLE: Setup\n",
				"b.org":   plans,
			})
			p := startStdio(t, getenv)
			p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":1,"method":"initialize","params":{"processId":null,"rootUri":%q,"capabilities":%s,"initializationOptions":{"rescanInterval":3600}}}`, uri.File(root), tc.caps))
			p.answer("1")
			p.send(`{"jsonrpc":"2.0","method":"initialized","params":{}}`)
			p.send(`{"jsonrpc":"2.0","id":2,"method":"workspace/symbol","params":{"query":"lighthouse"}}`)
			require.Contains(t, string(p.answer("2")["result"]), "Lighthouse plans", p.logs.String())

			ask := func(id string) string {
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"workspace/executeCommand","params":{"command":"passepartout.ask","arguments":[{"uri":%q,"position":{"line":1,"character":0},"text":"Who keeps the harbour?","noChat":true}]}}`,
					id, uri.File(filepath.Join(root, "b.org"))))
				return string(p.answer(id)["result"])
			}
			viewText := func(id string) string {
				p.send(fmt.Sprintf(`{"jsonrpc":"2.0","id":%s,"method":"workspace/executeCommand","params":{"command":"passepartout.context","arguments":[{"uri":%q,"position":{"line":1,"character":0}}]}}`,
					id, uri.File(filepath.Join(root, "b.org"))))
				return string(p.answer(id)["result"])
			}
			require.Contains(t, viewText("30"), "marzipan", "before: the note is public and in the context")
			require.Contains(t, ask("3"), "Ask the keeper", p.logs.String())
			reqs := srv.Requests()
			require.Len(t, reqs, 1)
			require.Contains(t, string(reqs[0].Body), "marzipan", "before: the note is public and in the view")

			require.NoError(t, os.WriteFile(filepath.Join(root, tc.file), []byte(tc.text), 0o644))
			// The question first: its own check of the disk, not the
			// context's, keeps the note from the model.
			got := ask("4")
			view := viewText("40")
			assert.NotContains(t, view, "marzipan")
			assert.NotContains(t, view, "third stair")
			reqs = srv.Requests()
			for i, r := range reqs[1:] {
				body := string(r.Body)
				assert.False(t, strings.Contains(body, "marzipan") || strings.Contains(body, "third stair"),
					"request %d holds the note's text", i+2)
			}
			assert.True(t, len(reqs) == 2 || !strings.Contains(got, "Ask the keeper"), got)
			assert.Equal(t, 0, p.exitCode(true), p.logs.String())
		})
	}
}
