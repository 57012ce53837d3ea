package main

import (
	"bytes"
	"encoding/json"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
	"pp-lsp/server/skills"
)

// TestSkillsCommand lists the skills of a memex in the order they apply,
// then the unusable ones with why; a private skill is not listed.
func TestSkillsCommand(t *testing.T) {
	root := t.TempDir()
	testenv.WriteTree(t, root, map[string]string{"skills/s.org": `* Cite :skill:
:PROPERTIES:
:ID: cite
:TRIGGER: (?i)sources
:PRIORITY: 300
:DEPENDS_ON: "House style"
:END:
Cite.
* House style :skill:
SCHEDULED: <2026-11-27 Fri +1w>
:PROPERTIES:
:TRIGGER: tag:style
:END:
Plain.
* Broken :skill:
:PROPERTIES:
:TRIGGER: (oops
:END:
* Diary :skill:private:
:PROPERTIES:
:TRIGGER: .
:END:
`})
	var stdout, stderr bytes.Buffer
	c := &cli{stdin: strings.NewReader(""), stdout: &stdout, stderr: &stderr, getenv: func(string) string { return "" }}
	require.Equal(t, 0, run(t.Context(), c, []string{"skills", "--json", "--root", root}), stderr.String())
	var all, got []skills.Entry
	require.NoError(t, json.Unmarshal(stdout.Bytes(), &all))
	var titles, builtins []string
	for _, e := range all {
		if e.Builtin {
			builtins = append(builtins, e.Title)
			continue
		}
		got = append(got, e)
		titles = append(titles, e.Title)
	}
	assert.Equal(t, []string{"Gardener", "Scribe"}, builtins)
	require.Equal(t, []string{"House style", "Cite", "Broken"}, titles)
	file := filepath.Join(root, "skills", "s.org")
	assert.Equal(t, skills.Entry{ID: "cite", Title: "Cite", File: file, Line: 1, Trigger: "(?i)sources", Priority: 300,
		DependsOn: []string{"House style"}, State: "ok"}, got[1])
	assert.Equal(t, "<2026-11-27 Fri +1w>", got[0].Scheduled)
	assert.Equal(t, "error", got[2].State)
	assert.Contains(t, got[2].Problem, "not a valid regular expression")
	assert.NotContains(t, stdout.String(), "Diary")

	stdout.Reset()
	require.Equal(t, 0, run(t.Context(), c, []string{"skills", "--root", root}), stderr.String())
	assert.Contains(t, stdout.String(), "ok     100  House style  ("+file+":9; trigger tag:style; scheduled <2026-11-27 Fri +1w>)")
	assert.Contains(t, stdout.String(), "error  100  Broken")
}
