package journal

import (
	"context"
	"os"
	"path/filepath"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestHeadlinesReadWhatAppendWrote: every entry Append writes is read
// back with its kind, plan, privacy and text; a property line in the
// text is not the drawer's.
func TestHeadlinesReadWhatAppendWrote(t *testing.T) {
	dir := t.TempDir()
	data := filepath.Join(dir, "data")
	j := Open(filepath.Join(dir, FileName), data, mustKey(t, data))
	entries := []Entry{
		{Kind: KindTurn, Title: "a.org: 3 tokens in", Text: "/memex/chats/a.org", Private: true},
		{Kind: KindPlan, Title: "Run `ls`", PlanID: "0b6f3a52-8d4b-4c55-9b6e-3f2b2a9c0d11"},
		{Kind: KindResult, Title: "shell: ok", Text: ":PRIVATE: t\n:KIND: turn\n* not a headline\n#+end_example"},
	}
	for _, e := range entries {
		e.Time = time.Date(2026, 11, 25, 9, 0, 0, 0, time.Local)
		_, err := j.Append(context.Background(), e)
		require.NoError(t, err)
	}
	text, err := os.ReadFile(j.Path())
	require.NoError(t, err)
	got := Headlines(text)
	require.Len(t, got, 3)
	assert.Equal(t, Headline{Line: "[2026-11-25 Wed 09:00] turn a.org: 3 tokens in", Kind: KindTurn, Private: true, Text: "/memex/chats/a.org"}, got[0])
	assert.Equal(t, Headline{Line: "[2026-11-25 Wed 09:00] plan Run `ls`", Kind: KindPlan, PlanID: "0b6f3a52-8d4b-4c55-9b6e-3f2b2a9c0d11"}, got[1])
	assert.Equal(t, KindResult, got[2].Kind)
	assert.False(t, got[2].Private, "a property line in the text is not the entry's")
	assert.Equal(t, ":PRIVATE: t\n:KIND: turn\n* not a headline\n#+end_example", got[2].Text)
}
