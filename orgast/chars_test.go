package orgast

import (
	"bufio"
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestWordStartMatchesEmacs checks \< between pairs of characters of many
// scripts against what Emacs's (string-match "\\<" …) answered
// (testdata/wordboundary.txt: "C1 C2 B" when a word starts at C2).
func TestWordStartMatchesEmacs(t *testing.T) {
	f, err := os.Open("testdata/wordboundary.txt")
	require.NoError(t, err)
	defer f.Close()
	sc := bufio.NewScanner(f)
	n := 0
	for sc.Scan() {
		fields := strings.Fields(sc.Text())
		require.Len(t, fields, 3)
		c1, err1 := strconv.Atoi(fields[0])
		c2, err2 := strconv.Atoi(fields[1])
		require.NoError(t, err1)
		require.NoError(t, err2)
		p := newParser([]byte(string([]rune{rune(c1), rune(c2)})))
		_, size := p.runeAt(0)
		assert.Equal(t, fields[2] == "B", p.wordStartAt(size, 0), "\\< between %U and %U", c1, c2)
		n++
	}
	require.NoError(t, sc.Err())
	require.Greater(t, n, 100)
}

func TestCharClasses(t *testing.T) {
	tests := []struct {
		r                  rune
		space, word, alnum bool
		punct              bool
	}{
		{' ', true, false, false, false},
		{'\t', true, false, false, false},
		{'\n', true, false, false, false},
		{'\v', false, false, false, false},
		{'a', false, true, true, false},
		{'$', false, true, false, true},
		{'\'', false, true, false, true},
		{'_', false, false, false, true},
		{0xa0, true, false, false, true}, // NBSP: whitespace syntax
		{'é', false, true, true, false},
		{'中', false, true, true, false},
		{0x1F600, false, true, false, false}, // emoji: word syntax, not alnum
		{0x2019, false, false, false, true},
		{rawByte0 + 0xe9, false, true, false, false},
	}
	for _, tt := range tests {
		t.Run(strconv.QuoteRune(tt.r), func(t *testing.T) {
			assert.Equal(t, tt.space, isSpaceSyntax(tt.r), "space")
			assert.Equal(t, tt.word, isWord(tt.r), "word")
			assert.Equal(t, tt.alnum, isAlnum(tt.r), "alnum")
			assert.Equal(t, tt.punct, isPunct(tt.r), "punct")
		})
	}
}

// TestTablesMatchEmacs regenerates emacs_tables.go from the Emacs on this
// machine and checks that the committed file is what it prints.
func TestTablesMatchEmacs(t *testing.T) {
	testenv.SkipShort(t, "runs Emacs over every character")
	testenv.NeedCommand(t, "emacs")
	goCmd := testenv.NeedCommand(t, "go")
	out := filepath.Join(t.TempDir(), "tables.go")
	cmd := exec.CommandContext(t.Context(), goCmd, "run", "./internal/mkchartab", "-o", out)
	msg, err := cmd.CombinedOutput()
	require.NoError(t, err, "%s", msg)
	want, err := os.ReadFile(out)
	require.NoError(t, err)
	got, err := os.ReadFile("emacs_tables.go")
	require.NoError(t, err)
	assert.True(t, bytes.Equal(want, got), "emacs_tables.go is stale: run go generate ./orgast/")
}
