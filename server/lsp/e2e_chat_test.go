package lsp

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/providers/providertest"
)

// chatTranscript answers the two questions of the chat scripts.
const chatTranscript = `{"match":{"last_contains":"first question"},"reply":{"text":"The first answer.","usage":{"input_tokens":900,"output_tokens":4}}}
{"match":{"last_contains":"second one"},"reply":{"text":"The second answer.","usage":{"input_tokens":950,"output_tokens":4}}}
{"match":{"last_contains":"from elsewhere"},"reply":{"text":"The third answer."}}
{"match":{"last_contains":"from no file"},"reply":{"text":"The fourth answer."}}
{"match":{"last_contains":"with an override"},"reply":{"text":"Read this: \u202eevil"}}
{"match":{"last_contains":"with no reason"},"repeat":true,"reply":{"text":"Adding it.","tool_calls":[{"name":"file_write","arguments":{"path":"inbox.org","content":"* TODO Buy milk\n"}}]}}
{"match":{"last_contains":"with settings"},"reply":{"text":"Settings:\n# Local Variables:\n# fill-column: 7\n# End:\nvim: set textwidth=7 :\n[[elisp:(setq e2e-link-ran t)][a link]]"}}
`

// newChatE2E is newE2E with the chat scripts' model.
func newChatE2E(t *testing.T) e2eEnv {
	t.Helper()
	e := newE2E(t)
	transcript := filepath.Join(t.TempDir(), "chat.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(chatTranscript), 0o644))
	e.env = append(e.env, "PASSEPARTOUT_PROVIDERS=replay:"+transcript)
	return e
}

// chatWant are the lines both chat scripts must print: the second
// question, asked from the chat file, went into the same conversation,
// whose open buffer got the turn; a third, asked from a file that is no
// note of the memex, and a fourth, from a buffer with no file, are
// answered without a place, and the answer buffer says so.
func chatWant() []string {
	return []string{
		"ASK1 answered",
		"CHAT1 chats/",
		"FIGURES shown: true",
		"ASK2 answered",
		"SAME CHAT true",
		"ANSWER2 The second answer.",
		"TURNS 2",
		"SECOND ANSWER in the file: true",
		"CHATS 1, turns 2",
		"ASK3 answered: The third answer.",
		"ASIDE (tool.py is not a note of the memex: asked without the context",
		"ASK4 answered: The fourth answer.",
		"ASIDE (this buffer is not a note of the memex: asked without the context",
		// An answer's file-local settings are written so that the editor
		// opening its chat file takes none of them.
		"SETTINGS the chat file sets nothing",
		"EXIT 0",
	}
}

func TestEmacsChat(t *testing.T) {
	needEglot(t)
	e := newChatE2E(t)
	out := runEditor(t, e, "emacs", "--batch", "-Q", "-l", filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "eglot-chat.el"))
	t.Logf("emacs:\n%s", strings.Join(out, "\n"))
	for _, want := range chatWant() {
		has(t, out, want)
	}
	// Emacs obeys bidirectional controls; the answer buffer shows them.
	has(t, out, "BIDI shown: t, obeyed: nil")
	hasWaiting(t, out)
	has(t, out, "BIDI in the chat file kept: t, shown: t")
	has(t, out, "BIDI typed next to it shown as typed: t")
	// An answer's elisp link runs nothing when clicked, even for a person
	// who turned Org's confirmation off: in the answer buffer or the chat file.
	has(t, out, "LINK in the answer buffer ran: nil")
	has(t, out, "LINK in the chat file ran: nil")
	has(t, out, "REFUSED Refused: the action was denied by the policy gate (the action has no explanation; every action must say why it is proposed).")
}

// hasWaiting: until the model's first word, the answer buffer says it
// waits, and how to cancel.
func hasWaiting(t *testing.T, out []string) {
	t.Helper()
	has(t, out, "WAITING said: true")
	has(t, out, "WAITING said after the answer: false")
}

func TestNeovimChat(t *testing.T) {
	testenv.NeedCommand(t, "nvim")
	e := newChatE2E(t)
	out := runEditor(t, e, "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-c",
		"luafile "+filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "nvim-chat.lua"))
	t.Logf("nvim:\n%s", strings.Join(out, "\n"))
	for _, want := range chatWant() {
		has(t, out, want)
	}
	hasWaiting(t, out)
}

// TestNeovimServerStops: a question waits for a slow model when the
// server stops; the answer buffer ends it saying so (Neovim 0.7 never
// answers a gone client's requests), and the question is over.
func TestNeovimServerStops(t *testing.T) {
	testenv.NeedCommand(t, "nvim")
	e := newE2E(t)
	transcript := filepath.Join(t.TempDir(), "slow.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(`{"match":{},"repeat":true,"reply":{"text":"late","pace_ms":10000}}`+"\n"), 0o644))
	e.env = append(e.env, "PASSEPARTOUT_PROVIDERS=replay:"+transcript)
	out := runEditor(t, e, "nvim", "--headless", "-u", "NONE", "-i", "NONE", "-c",
		"luafile "+filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "nvim-killed.lua"))
	t.Logf("nvim:\n%s", strings.Join(out, "\n"))
	// pp-lsp ends on the SIGTERM that stops it with exit code 1.
	has(t, out, "ENDED error: Failed: pp-lsp stopped before answering (exit code 1); ask again to start it.")
	has(t, out, "BUFFER ends Failed: pp-lsp stopped before answering (exit code 1); ask again to start it.")
	has(t, out, "RESTARTED true")
}

// TestEmacsServerStops: as TestNeovimServerStops, in Emacs: the answer
// buffer says what happened and what to do, not jsonrpc's bare "Server
// died", and asking again from the note starts the server again.
func TestEmacsServerStops(t *testing.T) {
	needEglot(t)
	e := newE2E(t)
	transcript := filepath.Join(t.TempDir(), "slow.jsonl")
	require.NoError(t, os.WriteFile(transcript, []byte(`{"match":{},"repeat":true,"reply":{"text":"late","pace_ms":10000}}`+"\n"), 0o644))
	e.env = append(e.env, "PASSEPARTOUT_PROVIDERS=replay:"+transcript)
	out := runEditor(t, e, "emacs", "--batch", "-Q", "-l", filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "eglot-killed.el"))
	t.Logf("emacs:\n%s", strings.Join(out, "\n"))
	const why = "pp-lsp stopped before answering (exit code 1); ask again from a note to start it."
	has(t, out, "ENDED error: "+why)
	has(t, out, "BUFFER ends Failed: "+why)
	has(t, out, "RESTARTED true")
	has(t, out, "EXIT 0")
}

// TestEmacsAskTimeout: a question that outlasts pp-lsp-ask-timeout ends
// in the answer buffer saying so; nothing there still says it waits; and
// the server is told to stop it, so the model call ends too: the model's
// loopback server sees its client go away while the server still runs
// (before, Emacs stopped waiting and the model call went on, and cost, for
// as long as the model took).
func TestEmacsAskTimeout(t *testing.T) {
	needEglot(t)
	e := newE2E(t)
	// A model that accepted the question and never answers.
	model := providertest.NewServer(t, providertest.Reply{Silent: true})
	for i, kv := range e.env {
		if strings.HasPrefix(kv, "PASSEPARTOUT_PROVIDERS=") {
			e.env[i] = "PASSEPARTOUT_PROVIDERS=ollama:m@" + model.URL
		}
	}
	gone := filepath.Join(t.TempDir(), "model-call-gone")
	e.env = append(e.env, "E2E_MODEL_GONE="+gone)
	done := make(chan struct{})
	defer close(done)
	go func() {
		select {
		case path := <-model.ClientGone():
			_ = os.WriteFile(gone, []byte(path), 0o644)
		case <-done:
		}
	}()
	out := runEditor(t, e, "emacs", "--batch", "-Q", "-l", filepath.Join(e.module, "server", "lsp", "testdata", "e2e", "eglot-timeout.el"))
	t.Logf("emacs:\n%s", strings.Join(out, "\n"))
	const why = "no answer after 2 seconds (pp-lsp-ask-timeout)"
	has(t, out, "ENDED error: "+why)
	has(t, out, "BUFFER ends Failed: "+why)
	has(t, out, "WAITING still said: false")
	has(t, out, "MODEL CALL STOPPED true")
	require.NotEmpty(t, model.Requests(), "the model was asked")
}
