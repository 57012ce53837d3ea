package protname

import (
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
)

// TestMatchKnowsEveryName: Match's quick refusal by the first letter
// never hides a name of the table, in any case.
func TestMatchKnowsEveryName(t *testing.T) {
	for _, e := range Table {
		for _, n := range []string{e.Name, strings.ToUpper(e.Name)} {
			got, ok := Match(n, 0)
			if assert.True(t, ok, n) {
				assert.Equal(t, e.Name, got.Name)
			}
		}
	}
	_, ok := Match("journal.org", 1)
	assert.False(t, ok, "journal.org is protected at a root's top only")
	_, ok = Match("notes.org", 0)
	assert.False(t, ok)
}
