package actuate

import (
	"bytes"
	"fmt"
	"path/filepath"
	"slices"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/server/protect"
)

// watching reports whether a guard watches.
func (o *OwnWrites) watching() bool {
	o.mu.Lock()
	defer o.mu.Unlock()
	return len(o.watches) > 0
}

// TestAWatchKeepsOnlyWhatTheGuardPutsBack: while a command runs, the
// agent's own changes of flightplans.org are kept for its guard; those of
// other files (a conversation's turns, each the whole conversation) and a
// flightplans.org larger than the guard puts back are not copied.
func TestAWatchKeepsOnlyWhatTheGuardPutsBack(t *testing.T) {
	dir := t.TempDir()
	plans, chat := filepath.Join(dir, "flightplans.org"), filepath.Join(dir, "chats", "a.org")
	own := &OwnWrites{}
	var w *ownWatch
	own.Locked(func() { w = own.watch(plans) })
	defer own.unwatch(w)
	write := func(p string, base, text []byte) {
		_, err := own.Write(p, base, true, func() ([]byte, error) { return text, nil })
		require.NoError(t, err)
	}
	write(plans, nil, []byte("* PLAN one\n"))
	turn := bytes.Repeat([]byte("a turn\n"), 1000)
	write(chat, nil, turn)
	write(chat, turn, append(slices.Clone(turn), "another\n"...))
	write(plans, []byte("* PLAN one\n"), make([]byte, maxKeep+1))

	last, stepped := w.follow(protect.Canonical(plans), nil)
	assert.True(t, stepped)
	assert.Equal(t, "* PLAN one\n", string(last), "the plan filed is kept, the one too large to put back is not")
	var kept []string
	for p, steps := range w.steps {
		kept = append(kept, fmt.Sprintf("%s: %d", p, len(steps)))
	}
	assert.Equal(t, []string{protect.Canonical(plans) + ": 1"}, kept, "only flightplans.org's changes are kept, and not the one too large")
	_, stepped = w.follow(protect.Canonical(chat), nil)
	assert.False(t, stepped, "a conversation's turns are not copied")
}
