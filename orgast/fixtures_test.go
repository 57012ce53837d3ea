package orgast

import (
	"bytes"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

const fixtureDir = "testdata/outline"

// fixtures lists the Org files of testdata/outline: one per rule, each
// with the JSON Emacs printed for it (regen.sh writes those).
func fixtures(t *testing.T) []string {
	t.Helper()
	names, err := filepath.Glob(filepath.Join(fixtureDir, "*.org"))
	require.NoError(t, err)
	require.NotEmpty(t, names)
	return names
}

// TestOutlineFixtures checks orgast's outline of every fixture byte for
// byte against what Emacs printed.
func TestOutlineFixtures(t *testing.T) {
	for _, path := range fixtures(t) {
		name := filepath.Base(path)
		t.Run(strings.TrimSuffix(name, ".org"), func(t *testing.T) {
			src, err := os.ReadFile(path)
			require.NoError(t, err)
			want, err := os.ReadFile(strings.TrimSuffix(path, ".org") + ".json")
			require.NoError(t, err, "no Emacs reference: run testdata/outline/regen.sh")
			got := Outlines([]string{name}, []*File{Parse(src)})
			if bytes.Equal(want, got) {
				return
			}
			// Say which fields differ before showing the bytes.
			w, err := decodeOutline(bytes.TrimSuffix(bytes.TrimPrefix(want, []byte("[")), []byte("]\n")), false)
			require.NoError(t, err)
			g, err := decodeOutline(bytes.TrimSuffix(bytes.TrimPrefix(got, []byte("[")), []byte("]\n")), false)
			require.NoError(t, err)
			var a agreement
			a.add(name, w, g)
			assert.Equal(t, string(want), string(got), "mismatches: %s", strings.Join(a.mismatches, "\n"))
		})
	}
}

// TestFixturesAgainstEmacs runs Emacs on the fixtures and checks that the
// committed references are what it prints today, so that a fixture cannot
// silently disagree with Org.
func TestFixturesAgainstEmacs(t *testing.T) {
	emacs := testenv.NeedCommand(t, "emacs")
	tool := filepath.Join(testenv.SharedDir(t), "tools", "org-outline.el")
	paths := fixtures(t)
	args := []string{"--batch", "-Q", "-l", tool}
	for _, p := range paths {
		args = append(args, filepath.Base(p))
	}
	cmd := exec.CommandContext(t.Context(), emacs, args...)
	cmd.Dir = fixtureDir
	out, err := cmd.Output()
	require.NoError(t, err)
	var want bytes.Buffer
	want.WriteByte('[')
	for i, p := range paths {
		ref, err := os.ReadFile(strings.TrimSuffix(p, ".org") + ".json")
		require.NoError(t, err)
		if i > 0 {
			want.WriteByte(',')
		}
		want.Write(bytes.TrimSuffix(bytes.TrimPrefix(ref, []byte("[")), []byte("]\n")))
	}
	want.WriteString("]\n")
	assert.Equal(t, want.String(), string(out), "a fixture's reference is stale: run testdata/outline/regen.sh")
}
