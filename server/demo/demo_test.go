package demo

import (
	"bytes"
	"context"
	"os"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestTour runs the whole tour with the recorded model and checks that each
// step showed what it is there to show: the pipeline is real (memex, gates,
// agent, Flight Plans, journal), only the model is a transcript.
func TestTour(t *testing.T) {
	var out bytes.Buffer
	env := map[string]string{"HOME": t.TempDir(), "PATH": os.Getenv("PATH")}
	err := Run(context.Background(), Options{Out: &out, Getenv: func(k string) string { return env[k] }})
	require.NoError(t, err, out.String())
	tour := out.String()

	for _, want := range []string{
		"The model is the replay provider",
		"* NEXT [#A] Ship the outline parser  :orgast:",
		"1 broken id link, 0 duplicate IDs",
		"** TODO Gate every proposal",
		":SEMANTIC_SCORE:",
		"related: \"Chapter 2: Deterministic verification\"",
		"Two things are open",
		"→ DENY by dispatcher",
		"outside the roots",
		"→ ASK by permissions",
		"* PLAN Run `mkdir -p notes/archive",
		"* DONE Run `mkdir -p notes/archive",
		"start sandbox ",
		"Chain verified: 8 entries",
	} {
		assert.Contains(t, tour, want)
	}
	// What is private never reaches the model's context, which the tour quotes.
	for _, private := range []string{"Accounts", "credit union", "Running log", "Book the dentist", "hard conversation"} {
		assert.NotContains(t, tour, private)
	}
	// The second try's words start on their own line.
	assert.Contains(t, tour, "dated file.\n")
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
