package gates

import (
	"encoding/hex"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// gitIndexRepo makes a repository of a few files, some in folders with
// shared prefixes (index version 4 compresses them), all staged.
func gitIndexRepo(t testing.TB) string {
	t.Helper()
	testenv.NeedCommand(t, "git")
	dir := t.TempDir()
	for _, name := range []string{"a.org", "notes/b.org", "notes/bb.org", "notes/deep/c.org", "z with space.txt"} {
		p := filepath.Join(dir, filepath.FromSlash(name))
		require.NoError(t, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(t, os.WriteFile(p, []byte("* "+name+"\n"), 0o644))
	}
	out, err := gitRun(dir, "init", "-q", ".")
	require.NoError(t, err, out)
	out, err = gitRun(dir, "add", ".")
	require.NoError(t, err, out)
	return dir
}

// TestParseGitIndexAsGit: every version of the index git writes is read
// as git itself lists it (git ls-files -s: mode, object, stage, path).
func TestParseGitIndexAsGit(t *testing.T) {
	dir := gitIndexRepo(t)
	for _, version := range []string{"2", "3", "4"} {
		t.Run("version "+version, func(t *testing.T) {
			out, err := gitRun(dir, "update-index", "--index-version", version)
			require.NoError(t, err, out)
			want, err := gitRun(dir, "ls-files", "-s")
			require.NoError(t, err, want)
			data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
			require.NoError(t, err)
			entries, err := parseGitIndex(data)
			require.NoError(t, err)
			var got strings.Builder
			for _, e := range entries {
				got.WriteString(strings.Join([]string{
					strings.TrimLeft(octal(e.mode), "0"), hex.EncodeToString(e.oid[:]), string(rune('0' + e.stage)),
				}, " ") + "\t" + e.path + "\n")
			}
			assert.Equal(t, strings.ReplaceAll(want, `"z with space.txt"`, "z with space.txt"), got.String())
		})
	}
}

func octal(v uint32) string {
	var b []byte
	for ; v > 0; v /= 8 {
		b = append([]byte{byte('0' + v%8)}, b...)
	}
	return string(b)
}

// TestGitStagedVersions: a file changed since it was staged is returned
// with its staged bytes; an unchanged one, even touched, is not; a
// deleted one is.
func TestGitStagedVersions(t *testing.T) {
	dir := gitIndexRepo(t)
	files, err := gitStagedVersions(dir)
	require.NoError(t, err)
	assert.Empty(t, files, "nothing changed since it was staged")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.org"), []byte("* changed\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "notes", "bb.org")))
	require.NoError(t, os.Chtimes(filepath.Join(dir, "notes", "b.org"), time.Unix(1e9, 0), time.Unix(1e9, 0)))
	files, err = gitStagedVersions(dir)
	require.NoError(t, err)
	got := map[string]string{}
	for _, f := range files {
		got[f.path] = string(f.data)
	}
	assert.Equal(t, map[string]string{"a.org": "* a.org\n", "notes/bb.org": "* notes/bb.org\n"}, got)
}

// FuzzParseGitIndex: any bytes as an index give entries or an error,
// never a panic, and never more entries than the header says.
func FuzzParseGitIndex(f *testing.F) {
	f.Add([]byte("DIRC\x00\x00\x00\x02\x00\x00\x00\x00" + strings.Repeat("\x00", 20)))
	f.Add([]byte("DIRC\x00\x00\x00\x04\x00\x00\x00\x01" + strings.Repeat("\xff", 80)))
	dir := gitIndexRepo(f)
	for _, version := range []string{"2", "4"} {
		if out, err := gitRun(dir, "update-index", "--index-version", version); err != nil {
			f.Fatal(out)
		}
		data, err := os.ReadFile(filepath.Join(dir, ".git", "index"))
		if err != nil {
			f.Fatal(err)
		}
		f.Add(data)
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		entries, err := parseGitIndex(data)
		if err != nil {
			return
		}
		if len(data) < 12 || uint32(len(entries)) != uint32(data[8])<<24|uint32(data[9])<<16|uint32(data[10])<<8|uint32(data[11]) {
			t.Fatalf("%d entries, not the header's count", len(entries))
		}
	})
}
