package main

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/journal"
)

// An entry appended after the recorded head, with a correct :PREV_HASH:,
// is named by doctor, and stays named after pp-lsp appends again.
func TestDoctorNamesAnEntryAppendedAfterTheHead(t *testing.T) {
	m := newMemexEnv(t, map[string]string{"notes.org": "* n\n", "Makefile": countMakefile})
	filePlan(t, m)
	code, out, _ := m.run(t, "doctor", "--root", m.root)
	require.Equal(t, 0, code, out)

	// The forger appends an approval that chains to the last entry.
	jp := m.path(journal.FileName)
	b, err := os.ReadFile(jp)
	require.NoError(t, err)
	last := string(b)[strings.LastIndex(string(b), "\n* ")+1:]
	forged := "* [2026-11-21 Sat 20:41] approval Run `make count` in . (approved in flightplans.org)\n:PROPERTIES:\n" +
		":ID:          0c0c0c0c-0000-4000-8000-000000000000\n:KIND:        approval\n:STATUS:      APPROVED\n" +
		":PREV_HASH:   " + journal.HashOf([]byte(last)) + "\n:END:\n"
	require.NoError(t, os.WriteFile(jp, append(b, forged...), 0o644))

	code, out, _ = m.run(t, "doctor", "--root", m.root)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAIL  journal "+jp+": entry 4 (line ")
	assert.Contains(t, out, "approval Run `make count` in . (approved in flightplans.org)\") is unrecorded: it follows the head recorded in the data directory (entry 3): pp-lsp did not record it")

	// pp-lsp appends after it: the finding stays.
	filePlan(t, m)
	code, out, _ = m.run(t, "doctor", "--root", m.root)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAIL  journal "+jp+": entry 4 is unrecorded or was changed")
	assert.Contains(t, out, "1 unrecorded entries followed the recorded head (entry 3)")
}

// A flightplans.org that is a symlink into a synced folder is named by
// doctor, and nothing is filed into it.
func TestDoctorNamesASymlinkedFlightPlansFile(t *testing.T) {
	m := newMemexEnv(t, map[string]string{"notes.org": "* n\n", "Makefile": countMakefile})
	filePlan(t, m)
	synced := filepath.Join(filepath.Dir(m.root), "Sync", "flightplans.org")
	require.NoError(t, os.MkdirAll(filepath.Dir(synced), 0o755))
	require.NoError(t, os.Rename(m.path("flightplans.org"), synced))
	require.NoError(t, os.Symlink(synced, m.path("flightplans.org")))
	before, err := os.ReadFile(synced)
	require.NoError(t, err)

	code, out, _ := m.run(t, "doctor", "--root", m.root)
	assert.Equal(t, 1, code, out)
	assert.Contains(t, out, "FAIL  flightplans.org "+m.path("flightplans.org")+": "+m.path("flightplans.org")+" is a symlink (to "+synced+")")
	assert.Contains(t, out, "ok    journal.org "+m.path("journal.org")+": a regular file of yours with one link, that only you can write")
	assert.Contains(t, out, "ok    data dir "+m.data+": outside every memex root")

	code, _, stderr := m.run(t, "plans", "--root", m.root, "--run-approved")
	assert.Equal(t, 1, code)
	assert.Contains(t, stderr, "is a symlink")
	after, err := os.ReadFile(synced)
	require.NoError(t, err)
	assert.Equal(t, string(before), string(after))
}
