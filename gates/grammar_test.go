package gates

import (
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestGrammarTablesCompile: every table in grammars.go is well formed.
func TestGrammarTablesCompile(t *testing.T) {
	m, err := grammarTable()
	require.NoError(t, err)
	assert.NotEmpty(t, m)
}

func parseWith(t *testing.T, prog string, args ...string) parsedCmd {
	t.Helper()
	g, ok, err := grammarFor(prog)
	require.NoError(t, err)
	require.True(t, ok, prog)
	return g.parse(args)
}

func usesOf(pc parsedCmd, eff effect) []string {
	var out []string
	for _, u := range pc.uses {
		if u.eff == eff {
			out = append(out, u.word)
		}
	}
	return out
}

// TestGrammarParsesAsGetopt: clusters, attached values, unique prefixes,
// "--", options after operands.
func TestGrammarParsesAsGetopt(t *testing.T) {
	pc := parseWith(t, "sort", "-rno/tmp/out", "in.txt")
	assert.Equal(t, []string{"/tmp/out"}, usesOf(pc, effWrite))
	assert.Equal(t, []operand{{"in.txt", opdRead}}, pc.operands)

	pc = parseWith(t, "sort", "--compress-prog=./payload", "a")
	assert.Equal(t, []string{"./payload"}, usesOf(pc, effRun))

	pc = parseWith(t, "sort", "in.txt", "--out", "x")
	assert.Equal(t, []string{"x"}, usesOf(pc, effWrite), "GNU getopt permutes")

	pc = parseWith(t, "sort", "--", "--output=x")
	assert.Empty(t, usesOf(pc, effWrite))
	assert.Equal(t, []operand{{"--output=x", opdRead}}, pc.operands)

	pc = parseWith(t, "tail", "--s", "1", "f")
	assert.NotEmpty(t, pc.unknown, "--s is ambiguous (--silent, --sleep-interval)")

	pc = parseWith(t, "tail", "--si", "f")
	assert.Empty(t, pc.unknown, "--si is --silent")

	pc = parseWith(t, "ls", "--col")
	assert.Empty(t, pc.unknown, "--col is --color")

	pc = parseWith(t, "uniq", "a", "b")
	assert.Equal(t, []operand{{"a", opdRead}, {"b", opdWrite}}, pc.operands)

	pc = parseWith(t, "grep", "-e", "x", "a", "b")
	assert.Equal(t, []operand{{"a", opdRead}, {"b", opdRead}}, pc.operands)
	pc = parseWith(t, "grep", "x", "a")
	assert.Equal(t, []operand{{"x", opdText}, {"a", opdRead}}, pc.operands)
	pc = parseWith(t, "grep", "-rfpats", "a")
	assert.Equal(t, []string{"pats"}, usesOf(pc, effRead))
	assert.NotZero(t, pc.modes&effRecurse)

	pc = parseWith(t, "head", "-20", "f")
	assert.Empty(t, pc.unknown)
	pc = parseWith(t, "tail", "-20f", "f")
	assert.NotEmpty(t, usesOf(pc, effAsk))

	pc = parseWith(t, "jq", "-r", "--rawfile", "a", "secret.txt", ".", "in.json")
	assert.Equal(t, []string{"secret.txt"}, usesOf(pc, effRead))
	assert.Equal(t, []operand{{".", opdFilter}, {"in.json", opdRead}}, pc.operands)

	pc = parseWith(t, "tree", "-aoL", "out.txt", "2", "dir")
	assert.Equal(t, []string{"out.txt"}, usesOf(pc, effWrite))
	assert.Equal(t, []operand{{"dir", opdMeta}}, pc.operands)

	pc = parseWith(t, "timeout", "-k", "5", "10", "rm", "-rf", "x")
	assert.Equal(t, []string{"rm", "-rf", "x"}, pc.command)

	pc = parseWith(t, "rg", "--pre", "./x", "pat")
	assert.Equal(t, []string{"./x"}, usesOf(pc, effRun))
	pc = parseWith(t, "rg", "-g=*.org", "pat")
	assert.Empty(t, pc.unknown)
}
