package gates

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"

	"pp-lsp/internal/protname"
)

// TestPlanOrJournalIsProtnamesTop: the files whose reading the shell
// analysis records as a protected read (the Flight Plans and the journal)
// are internal/protname's Top entries, in any case, at a root's top only.
func TestPlanOrJournalIsProtnamesTop(t *testing.T) {
	tops := 0
	for _, e := range protname.Table {
		for _, name := range []string{e.Name, strings.ToUpper(e.Name)} {
			assert.Equal(t, e.Kind == protname.Top, isPlanOrJournal(name), name)
			assert.False(t, isPlanOrJournal("notes/"+name), "notes/"+name)
		}
		if e.Kind == protname.Top {
			tops++
		}
	}
	assert.Equal(t, 2, tops, "the Flight Plans and the journal")
	for _, rel := range []string{"", "flightplans.org.bak", "journal.org~", "a.org"} {
		assert.False(t, isPlanOrJournal(rel), rel)
	}
}
