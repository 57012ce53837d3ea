package udiff

import (
	"bytes"
	"fmt"
	"math/rand/v2"
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

// gnuHunks runs the real `diff -u` on a and b and returns its hunks (the
// output without the two file header lines).
func gnuHunks(t testing.TB, a, b []byte) string {
	t.Helper()
	dir := t.TempDir()
	pa, pb := filepath.Join(dir, "a"), filepath.Join(dir, "b")
	require.NoError(t, os.WriteFile(pa, a, 0o600))
	require.NoError(t, os.WriteFile(pb, b, 0o600))
	out, err := exec.Command("diff", "-u", pa, pb).Output()
	if ee, ok := err.(*exec.ExitError); !ok || ee.ExitCode() != 1 {
		require.NoError(t, err, "diff -u")
		return ""
	}
	lines := strings.SplitAfterN(string(out), "\n", 3)
	require.Len(t, lines, 3)
	return lines[2]
}

func TestHunksAreDiffUs(t *testing.T) {
	testenv.NeedCommand(t, "diff")
	many := func(n int, f string) string {
		var b strings.Builder
		for i := range n {
			fmt.Fprintf(&b, f, i)
		}
		return b.String()
	}
	cases := []struct{ name, a, b string }{
		{"one line changed", "a\nb\nc\n", "a\nB\nc\n"},
		{"from nothing", "", "a\nb\n"},
		{"to nothing", "a\nb\n", ""},
		{"appended", "a\nb\n", "a\nb\nc\n"},
		{"prepended", "b\nc\n", "a\nb\nc\n"},
		{"no newline at the end, both", "a\nb", "a\nc"},
		{"newline added at the end", "a\nb", "a\nb\n"},
		{"newline removed at the end", "a\nb\n", "a\nb"},
		{"far apart: two hunks", many(20, "line %d\n"), strings.Replace(strings.Replace(many(20, "line %d\n"), "line 2\n", "two\n", 1), "line 17\n", "seventeen\n", 1)},
		{"six apart: one hunk", many(20, "line %d\n"), strings.Replace(strings.Replace(many(20, "line %d\n"), "line 3\n", "three\n", 1), "line 10\n", "ten\n", 1)},
		{"seven apart: two hunks", many(20, "line %d\n"), strings.Replace(strings.Replace(many(20, "line %d\n"), "line 3\n", "three\n", 1), "line 11\n", "eleven\n", 1)},
		{"inserted in a run of equal lines", "x\nx\nx\n", "x\nx\nx\nx\n"},
		{"deleted in a run of equal lines", "a\nx\nx\nx\nb\n", "a\nx\nx\nb\n"},
		{"a paragraph moved", "# t\nalpha\nbeta\n\ngamma\ndelta\n", "# t\ngamma\ndelta\n\nalpha\nbeta\n"},
		{"an org node's body replaced", "* A\n:PROPERTIES:\n:ID: x\n:END:\nold body\nmore\n* B\ntext\n", "* A\n:PROPERTIES:\n:ID: x\n:END:\nnew body\n* B\ntext\n"},
		{"carriage returns", "a\r\nb\r\n", "a\r\nc\r\n"},
		{"blank lines", "\n\n\n", "\n\n"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			got := Hunks([]byte(c.a), []byte(c.b))
			assert.Equal(t, gnuHunks(t, []byte(c.a), []byte(c.b)), got)
			assert.Equal(t, c.b, string(apply(t, []byte(c.a), got)))
		})
	}
}

func TestDiffHeadsTheHunksAndIsEmptyForEqualTexts(t *testing.T) {
	assert.Equal(t, "", Diff("a/x", "b/x", []byte("same\n"), []byte("same\n")))
	assert.Equal(t, "--- a/x\n+++ b/x\n@@ -1 +1 @@\n-old\n+new\n", Diff("a/x", "b/x", []byte("old\n"), []byte("new\n")))
}

// TestRandomTextsAgainstDiffU compares random small texts (lines from a
// tiny alphabet, so that many alignments are possible) with the real
// `diff -u`: the same number of lines taken out and put in (both are
// shortest scripts), and the patch gives the new text back.
func TestRandomTextsAgainstDiffU(t *testing.T) {
	testenv.NeedCommand(t, "diff")
	rnd := rand.New(rand.NewPCG(1, 2))
	text := func() []byte {
		var b bytes.Buffer
		for range rnd.IntN(14) {
			b.WriteString(string(rune('a'+rnd.IntN(4))) + "\n")
		}
		if rnd.IntN(5) == 0 {
			b.WriteString("z")
		}
		return b.Bytes()
	}
	count := func(h string) (del, ins int) {
		for _, l := range strings.Split(h, "\n") {
			switch {
			case strings.HasPrefix(l, "-"):
				del++
			case strings.HasPrefix(l, "+"):
				ins++
			}
		}
		return
	}
	same := 0
	n := 200
	for i := range n {
		a, b := text(), text()
		ours, gnu := Hunks(a, b), gnuHunks(t, a, b)
		od, oi := count(ours)
		gd, gi := count(gnu)
		require.Equal(t, [2]int{gd, gi}, [2]int{od, oi}, "case %d: %q → %q\nours:\n%s\ndiff -u:\n%s", i, a, b, ours, gnu)
		require.Equal(t, string(b), string(apply(t, a, ours)), "case %d", i)
		if ours == gnu {
			same++
		}
	}
	t.Logf("%d of %d random diffs are byte for byte diff -u's", same, n)
}

// apply applies hunks (Hunks' output) to a, checking every context and
// deleted line against a.
func apply(t testing.TB, a []byte, hunks string) []byte {
	t.Helper()
	al := Lines(a)
	var out []string
	next := 0 // the next line of a not yet copied
	lines := Lines([]byte(hunks))
	for i := 0; i < len(lines); {
		h := lines[i]
		require.True(t, strings.HasPrefix(h, "@@ -"), "a hunk header, not %q", h)
		aStart := hunkStart(t, h) - 1 // 1-based
		if strings.HasSuffix(strings.Fields(h)[1], ",0") {
			aStart++ // "l,0": nothing taken out, after line l
		}
		require.GreaterOrEqual(t, aStart, next, "hunks in order")
		out = append(out, al[next:aStart]...)
		next = aStart
		i++
		for i < len(lines) && !strings.HasPrefix(lines[i], "@@") {
			l := lines[i]
			i++
			noEOL := i < len(lines) && strings.HasPrefix(lines[i], `\ No newline`)
			body := l[1:]
			if noEOL {
				body = strings.TrimSuffix(body, "\n")
				i++
			}
			switch l[0] {
			case ' ', '-':
				require.Less(t, next, len(al), "the hunk runs past the text")
				require.Equal(t, al[next], body, "line %d", next+1)
				next++
				if l[0] == ' ' {
					out = append(out, body)
				}
			case '+':
				out = append(out, body)
			default:
				t.Fatalf("a hunk line starting with %q", l[0])
			}
		}
	}
	out = append(out, al[next:]...)
	return []byte(strings.Join(out, ""))
}

func hunkStart(t testing.TB, header string) int {
	f := strings.Fields(header)
	require.GreaterOrEqual(t, len(f), 3)
	n, err := strconv.Atoi(strings.SplitN(strings.TrimPrefix(f[1], "-"), ",", 2)[0])
	require.NoError(t, err)
	return n
}

// FuzzHunks holds any two texts to a diff that turns the first into the
// second, with every kept and deleted line the first's.
func FuzzHunks(f *testing.F) {
	f.Add([]byte("a\nb\nc\n"), []byte("a\nB\nc\n"))
	f.Add([]byte(""), []byte("x"))
	f.Add([]byte("x\nx\nx"), []byte("x\n\nx\n"))
	f.Add([]byte("\r\n\n\r"), []byte("\n\r\n"))
	f.Fuzz(func(t *testing.T, a, b []byte) {
		h := Hunks(a, b)
		if bytes.Equal(a, b) {
			require.Empty(t, h)
			return
		}
		require.Equal(t, string(b), string(apply(t, a, h)))
	})
}

// TestLongTextsStayBounded: texts too different (or too long) for the
// shortest-script search still get a correct diff.
func TestLongTextsStayBounded(t *testing.T) {
	var a, b strings.Builder
	for i := range 3 * MaxEdits {
		fmt.Fprintf(&a, "a line %d\n", i)
		fmt.Fprintf(&b, "b line %d\n", i)
	}
	h := Hunks([]byte(a.String()), []byte(b.String()))
	assert.Equal(t, b.String(), string(apply(t, []byte(a.String()), h)))
	assert.True(t, strings.HasPrefix(h, fmt.Sprintf("@@ -1,%d +1,%d @@\n", 3*MaxEdits, 3*MaxEdits)), "one hunk")
}
