package demo

import (
	"bytes"
	"context"
	"net"
	"os"
	"path/filepath"
	"regexp"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/providers/providertest"
)

// steps are the headings every tour shows, whatever the model does.
var steps = []string{
	"1. The outline, as Emacs sees it", "2. The memex", "3. What the model sees from your cursor",
	"4. A question", "5. A proposal, gated", "6. Approval", "7. The audit journal", "8. Skills: notes that shape answers", "That is the loop",
}

// runTour runs a tour with env as the whole environment (HOME and PATH
// added) and the temporary directory under the test's own.
func runTour(t *testing.T, env map[string]string, keep bool) string {
	t.Helper()
	t.Setenv("TMPDIR", t.TempDir())
	full := map[string]string{"HOME": t.TempDir(), "PATH": os.Getenv("PATH")}
	for k, v := range env {
		full[k] = v
	}
	var out bytes.Buffer
	err := Run(context.Background(), Options{Out: &out, Keep: keep, Getenv: func(k string) string { return full[k] }})
	require.NoError(t, err, out.String())
	tour := out.String()
	rest := tour
	for _, s := range steps {
		i := strings.Index(rest, s)
		require.GreaterOrEqual(t, i, 0, "the tour lacks (in order) %q:\n%s", s, tour)
		rest = rest[i:]
	}
	return tour
}

// TestTour runs the whole tour with the recorded model and checks that each
// step showed what it is there to show: the pipeline is real (memex, gates,
// agent, Flight Plans, journal), only the model is a transcript.
func TestTour(t *testing.T) {
	tour := runTour(t, nil, false)
	for _, want := range []string{
		"The model is the replay provider",
		"* NEXT [#A] Ship the outline parser  :orgast:",
		"1 broken id link, 0 duplicate IDs",
		"** TODO Gate every proposal",
		":SEMANTIC_SCORE:",
		"related: \"Chapter 2: Deterministic verification\"",
		"Two things are open",
		"Applied: Cite the notes",
		"* Gardener report",
		"broken-id-link: no node in the memex carries the ID",
		"→ DENY by dispatcher",
		"outside the roots",
		"the number is the priority",
		"\"approval\" can stand in a DENY's trace",
		"→ ASK by permissions",
		"* PLAN Run `mkdir -p notes/archive",
		"M-x pp-lsp-approve in Emacs, :PassepartoutApprove in Neovim",
		"): DONE — exit status 0",
		"* DONE Run `mkdir -p notes/archive",
		"Chain verified: 8 entries",
		"`pp-lsp demo --keep` keeps the",
		"start sandbox ",
	} {
		assert.Contains(t, tour, want)
	}
	assert.Equal(t, 1, strings.Count(tour, "the number is the priority"), "the trace is explained once")
	assert.NotContains(t, tour, "passepartout.approve", "the editor commands, not the server's")
	assert.NotContains(t, tour, "DONE — DONE")
	// What is private never reaches the model's context, which the tour quotes.
	for _, private := range []string{"Accounts", "credit union", "Running log", "Book the dentist", "hard conversation"} {
		assert.NotContains(t, tour, private)
	}
	// The second try's words start on their own line.
	assert.Contains(t, tour, "dated file.\n")
	// Without --keep, no command points at the removed memex.
	assert.NotRegexp(t, `pp-lsp \w+ [^\n]*pp-lsp-demo-`, tour)
}

func TestTourKeepsNothingByDefault(t *testing.T) {
	tmp := t.TempDir()
	t.Setenv("TMPDIR", tmp)
	var out bytes.Buffer
	require.NoError(t, Run(context.Background(), Options{Out: &out, Getenv: func(string) string { return "" }}))
	entries, err := os.ReadDir(tmp)
	require.NoError(t, err)
	assert.Empty(t, entries, "the tour removes its temporary directory")
}

// TestTourKeep: with --keep the tour names its memex and data dir, and the
// commands to explore them; every path it prints exists afterwards.
func TestTourKeep(t *testing.T) {
	tour := runTour(t, nil, true)
	cd := regexp.MustCompile(`(?m)^   cd (\S+)$`).FindStringSubmatch(tour)
	data := regexp.MustCompile(`(?m)^   export PASSEPARTOUT_DATA_DIR=(\S+)$`).FindStringSubmatch(tour)
	require.NotNil(t, cd, tour)
	require.NotNil(t, data, tour)
	assert.DirExists(t, cd[1])
	assert.DirExists(t, data[1])
	assert.FileExists(t, filepath.Join(cd[1], "journal.org"))
	assert.FileExists(t, filepath.Join(cd[1], "flightplans.org"))
	assert.DirExists(t, filepath.Join(data[1], "journal", "heads"), "the journal's head is in the data dir named")
	for _, m := range regexp.MustCompile(`(?m)^   pp-lsp (?:outline --json|context) (\S+?)(?::\d+)?$`).FindAllStringSubmatch(tour, -1) {
		assert.FileExists(t, filepath.Join(cd[1], m[1]))
	}
	for _, m := range regexp.MustCompile(`(?m)^   (?:memex|data dir) +(\S+)`).FindAllStringSubmatch(tour, -1) {
		assert.DirExists(t, m[1])
	}
}

// TestTourWithAnUnreachableModel: PASSEPARTOUT_PROVIDERS names a server
// that is not there. One sentence says so, and the tour goes on, to its
// end, with the recorded model.
func TestTourWithAnUnreachableModel(t *testing.T) {
	ln, err := net.Listen("tcp", "127.0.0.1:0")
	require.NoError(t, err)
	dead := "http://" + ln.Addr().String()
	require.NoError(t, ln.Close())
	tour := runTour(t, map[string]string{"PASSEPARTOUT_PROVIDERS": "ollama:llama3.2@" + dead}, false)
	assert.Contains(t, tour, "Your model (PASSEPARTOUT_PROVIDERS=ollama:llama3.2@"+dead+") is not ready: not reachable: the connection to "+dead+" was refused")
	assert.Contains(t, tour, "The tour goes on with the recorded model instead")
	assert.Contains(t, tour, "Chain verified: 8 entries")
}

// TestTourWithAModelThatAnswersOtherwise: a real (loopback) model that
// answers what the tour does not expect — words where it wants actions,
// denied commands, errors, bytes that are no API's format, an action
// that never ends — and the tour still shows each step and ends well.
func TestTourWithAModelThatAnswersOtherwise(t *testing.T) {
	words := providertest.Reply{Frames: providertest.OllamaFrames(providertest.Answer{Model: "llama3.2", Text: []string{"I would ", "rather not."}})}
	call := func(name, args string) providertest.Reply {
		return providertest.Reply{Frames: providertest.OllamaFrames(providertest.Answer{Model: "llama3.2", Calls: []providertest.Call{{Name: name, Args: args}}})}
	}
	cases := []struct {
		name  string
		chat  providertest.Reply
		wants []string
	}{
		{"words only", words, []string{"I would rather not.", "No Flight Plan this time", "There is no plan to approve", "Chain verified"}},
		{"a command denied every time", call("shell", `{"cmd":"rm -rf ~","cwd":".","explanation":"start afresh"}`),
			[]string{"try 3: shell `rm -rf ~` in .", "→ denied after 3 tries: nothing ran", "There is no plan to approve", "Chain verified"}},
		{"an action allowed again and again", call("file_read", `{"path":"inbox.org","explanation":"look at it"}`),
			[]string{"→ the gates allowed it, so it ran", "→ dropped: it went deeper than", "Chain verified"}},
		{"a server error", providertest.Reply{Status: 500, Body: providertest.OllamaError("llama runner process has terminated")},
			[]string{"The model did not answer in words", "→ no proposal: ", "llama runner process has terminated", "journal.org was not started"}},
		{"not the API's format", providertest.Reply{Body: "<html>Bad gateway</html>"},
			[]string{"→ no proposal: ", "journal.org was not started"}},
	}
	for _, tc := range cases {
		t.Run(tc.name, func(t *testing.T) {
			srv := providertest.NewServer(t)
			srv.Route("GET /api/tags", providertest.Reply{Body: `{"models":[{"name":"llama3.2:latest","model":"llama3.2:latest"}]}`})
			srv.Route("POST /api/chat", tc.chat)
			tour := runTour(t, map[string]string{"PASSEPARTOUT_PROVIDERS": "ollama:llama3.2@" + srv.URL}, false)
			assert.Contains(t, tour, "The model is yours (PASSEPARTOUT_PROVIDERS=ollama:llama3.2@"+srv.URL+")")
			for _, w := range tc.wants {
				assert.Contains(t, tour, w)
			}
			assert.NotEmpty(t, srv.Requests())
		})
	}
}
