package orgsetup

import (
	"fmt"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

func readFile(p string) ([]byte, error) { return os.ReadFile(p) }

// TestFollow: the setup files Org would read the keywords of, from real
// files: where each line points, a chain, how deep a chain is followed,
// what is never read (a URL), and what brings no keyword (a missing file).
func TestFollow(t *testing.T) {
	dir, home := t.TempDir(), t.TempDir()
	write := func(base, name, text string) {
		p := filepath.Join(base, name)
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte(text), 0o644))
	}
	write(dir, "priv.org", "#+FILETAGS: :x:Private:\n")
	write(dir, "work.org", "#+FILETAGS: :work:\n")
	write(dir, "sub/chain.setup", "#+SETUPFILE: ../priv.org\n")
	write(home, "h.org", "  #+filetags: private\n")
	// A chain of MaxDepth+1 setup files, the last private.
	for i := 0; i <= MaxDepth; i++ {
		next := "#+SETUPFILE: d" + string(rune('a'+i+1)) + ".org\n"
		if i == MaxDepth {
			next = "#+FILETAGS: :private:\n"
		}
		write(dir, "d"+string(rune('a'+i))+".org", next)
	}
	tags := []string{":private:"}
	tests := []struct {
		name, src        string
		private, unknown bool
	}{
		{"beside", "#+SETUPFILE: priv.org\n", true, false},
		{"quoted, in capitals, after text", "* x\n  #+setupfile: \"./priv.org\"\n", true, false},
		{"a chain", "#+SETUPFILE: sub/chain.setup\n", true, false},
		{"home", "#+SETUPFILE: ~/h.org\n", true, false},
		{"absolute", "#+SETUPFILE: " + filepath.Join(dir, "priv.org") + "\n", true, false},
		{"no privacy tag", "#+SETUPFILE: work.org\n", false, false},
		{"the second line", "#+SETUPFILE: work.org\n#+SETUPFILE: priv.org\n", true, false},
		{"missing", "#+SETUPFILE: nope.org\n", false, false},
		{"a URL", "#+SETUPFILE: https://example.org/s.org\n", false, true},
		{"too deep", "#+SETUPFILE: da.org\n", false, true},
		{"none", "#+TITLE: x\n* SETUPFILE\n", false, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r := Follow(filepath.Join(dir, "note.org"), []byte(tc.src), home, tags, readFile)
			assert.Equal(t, tc.private, r.Private, "%+v", r)
			assert.Equal(t, tc.unknown, r.Unknown != "", "%+v", r)
			assert.Equal(t, strings.Contains(strings.ToLower(tc.src), "#+setupfile:"), Mentions([]byte(tc.src)))
		})
	}
	for _, v := range []string{"~root/h.org", "~", "~/h.org"} {
		r := Follow(filepath.Join(dir, "note.org"), []byte("#+SETUPFILE: "+v+"\n"), "", tags, readFile)
		assert.NotEmpty(t, r.Unknown, "%s with no home known: %+v", v, r)
	}
	assert.Equal(t, Result{}, Follow(filepath.Join(dir, "note.org"), []byte("#+SETUPFILE: priv.org\n"), home, nil, readFile), "no privacy tags")
}

// TestFollowReadsEachSetupFileOncePerDepth: a malicious folder of setup
// files each naming the next many times would have Follow read them a
// number of times exponential in the chain's length; each is read once at
// each depth, and the answer is the one the whole walk gives.
func TestFollowReadsEachSetupFileOncePerDepth(t *testing.T) {
	const fan, length = 6, MaxDepth - 1
	for _, last := range []struct {
		name, text string
		private    bool
	}{{"public", "#+TITLE: end\n", false}, {"private", "#+FILETAGS: :private:\n", true}} {
		t.Run(last.name, func(t *testing.T) {
			dir := t.TempDir()
			for i := 1; i <= length; i++ {
				text := last.text
				if i < length {
					text = strings.Repeat("#+SETUPFILE: f"+string(rune('0'+i+1))+".org\n", fan)
				}
				require.NoError(t, os.WriteFile(filepath.Join(dir, "f"+string(rune('0'+i))+".org"), []byte(text), 0o644))
			}
			reads := 0
			counted := func(p string) ([]byte, error) { reads++; return os.ReadFile(p) }
			src := strings.Repeat("#+SETUPFILE: f1.org\n", fan)
			r := Follow(filepath.Join(dir, "note.org"), []byte(src), "", []string{"private"}, counted)
			assert.Equal(t, last.private, r.Private, "%+v", r)
			assert.Empty(t, r.Unknown)
			assert.LessOrEqual(t, reads, length*(MaxDepth+1))
		})
	}
}

// TestAWrappedErrUnknownIsUnknown: a reader that wraps ErrUnknown (with
// %w, as errors are wrapped here) leaves the note's privacy unknown — each
// caller then fails closed — not read as a file that brings no keyword.
func TestAWrappedErrUnknownIsUnknown(t *testing.T) {
	read := func(p string) ([]byte, error) {
		return nil, fmt.Errorf("reading the setup file %s: %w", p, ErrUnknown{Why: "a FIFO"})
	}
	r := Follow("/n/note.org", []byte("#+SETUPFILE: x.setup\n"), "", []string{"private"}, read)
	assert.False(t, r.Private)
	assert.Contains(t, r.Unknown, "a FIFO")
	assert.Equal(t, "/n/x.setup", r.Setup)
}
