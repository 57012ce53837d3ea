package gitobj

import (
	"encoding/hex"
	"fmt"
	"os"
	"os/exec"
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

// gitRun runs git in dir with no configuration of the machine's or the
// user's, and returns what it printed.
func gitRun(dir string, args ...string) (string, error) {
	cmd := exec.Command("git", args...)
	cmd.Dir = dir
	cmd.Env = []string{"LC_ALL=C", "PATH=/usr/bin:/bin", "HOME=" + dir, "GIT_CONFIG_NOSYSTEM=1", "GIT_PAGER=cat", "PAGER=cat"}
	out, err := cmd.CombinedOutput()
	return string(out), err
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
			entries, err := parseIndex(data)
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
	files, err := StagedVersions(dir, nil)
	require.NoError(t, err)
	assert.Empty(t, files, "nothing changed since it was staged")
	require.NoError(t, os.WriteFile(filepath.Join(dir, "a.org"), []byte("* changed\n"), 0o644))
	require.NoError(t, os.Remove(filepath.Join(dir, "notes", "bb.org")))
	require.NoError(t, os.Chtimes(filepath.Join(dir, "notes", "b.org"), time.Unix(1e9, 0), time.Unix(1e9, 0)))
	files, err = StagedVersions(dir, nil)
	require.NoError(t, err)
	got := map[string]string{}
	for _, f := range files {
		got[f.Path] = string(f.Data)
	}
	assert.Equal(t, map[string]string{"a.org": "* a.org\n", "notes/bb.org": "* notes/bb.org\n"}, got)
	// A file added with git add -N is diffed as new, all from the
	// working tree: nothing of the index is shown.
	require.NoError(t, os.WriteFile(filepath.Join(dir, "new.org"), []byte("* new\n"), 0o644))
	out, err := gitRun(dir, "add", "-N", "new.org")
	require.NoError(t, err, out)
	paths, err := stagedPaths(dir)
	require.NoError(t, err)
	assert.ElementsMatch(t, []string{"a.org", "notes/bb.org"}, paths)
}

func stagedPaths(dir string) ([]string, error) {
	files, err := StagedVersions(dir, nil)
	var paths []string
	for _, f := range files {
		paths = append(paths, f.Path)
	}
	return paths, err
}

// TestReadBlobAsGit: every blob of a repository, loose or packed whole
// or as a chain of deltas, is read as git cat-file reads it.
func TestReadBlobAsGit(t *testing.T) {
	dir := gitIndexRepo(t)
	git := func(args ...string) string {
		out, err := gitRun(dir, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
		return out
	}
	git("commit", "-qm", "one")
	var text strings.Builder
	for i := range 40 {
		fmt.Fprintf(&text, "* Heading %d\nSome text of the note, line %d, long enough to be worth a delta.\n", i, i)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.org"), []byte(text.String()), 0o644))
		git("commit", "-qam", fmt.Sprint(i))
	}
	require.NoError(t, os.WriteFile(filepath.Join(dir, "loose.org"), []byte("* Loose\n"), 0o644))
	check := func(t *testing.T) {
		t.Helper()
		n := 0
		for _, line := range strings.Split(strings.TrimSpace(git("cat-file", "--batch-all-objects", "--batch-check=%(objectname) %(objecttype)")), "\n") {
			name, typ, _ := strings.Cut(line, " ")
			if typ != "blob" {
				continue
			}
			raw, err := hex.DecodeString(name)
			require.NoError(t, err)
			var oid [20]byte
			copy(oid[:], raw)
			got, why := readBlob(filepath.Join(dir, ".git"), oid)
			require.Empty(t, why, name)
			assert.Equal(t, git("cat-file", "blob", name), string(got), name)
			n++
		}
		assert.Greater(t, n, 40)
	}
	t.Run("loose", check)
	git("repack", "-adfq", "--window=50", "--depth=50")
	git("add", "loose.org") // one loose object beside the pack
	packs, err := filepath.Glob(filepath.Join(dir, ".git", "objects", "pack", "*.idx"))
	require.NoError(t, err)
	require.Len(t, packs, 1)
	deltas := 0
	for _, line := range strings.Split(git("verify-pack", "-v", packs[0]), "\n") {
		if f := strings.Fields(line); len(f) >= 7 && f[1] == "blob" {
			deltas++ // a delta: its depth and base follow
		}
	}
	require.Positive(t, deltas, "the pack holds blobs stored as deltas")
	t.Run("packed, deltas by offset", check)
	// Deltas naming their base by its name (as fetched packs may).
	git("-c", "repack.useDeltaBaseOffset=false", "repack", "-adfq", "--window=50", "--depth=50")
	t.Run("packed, deltas by name", check)
}

// FuzzApplyDelta: any delta applied to any source gives bytes of the
// size the delta declares, or an error; never a panic.
func FuzzApplyDelta(f *testing.F) {
	f.Add([]byte("hello world"), []byte("\x0b\x05\x90\x05"))
	f.Add([]byte("abc"), []byte("\x03\x06\x03xyz\x90\x03"))
	f.Add([]byte(""), []byte("\x00\x00"))
	f.Fuzz(func(t *testing.T, src, delta []byte) {
		out, err := applyDelta(src, delta)
		if err == nil && len(out) > MaxBytes {
			t.Fatalf("%d bytes out", len(out))
		}
	})
}

// TestIsBranch: a name is a branch where git would take refs/heads/…
// for it (main, heads/main, refs/heads/main), loose or packed, and not
// where a tag or another ref of that name comes first, where the branch
// is a symbolic ref, or where it could be an object's abbreviated name.
func TestIsBranch(t *testing.T) {
	dir := gitIndexRepo(t)
	git := func(args ...string) {
		out, err := gitRun(dir, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
	}
	git("commit", "-qm", "one")
	git("branch", "-M", "main")
	git("branch", "feature/x")
	git("branch", "both")
	git("tag", "both")
	git("tag", "v1")
	git("branch", "cafe")
	git("symbolic-ref", "refs/heads/evil", "refs/tags/v1")
	// Branches whose files, written by hand, name a blob, a tree or a tag:
	// git show prints the blob (git's update-ref refuses to write them).
	blob, err := gitRun(dir, "rev-parse", "HEAD:a.org")
	require.NoError(t, err, blob)
	tree, err := gitRun(dir, "rev-parse", "HEAD^{tree}")
	require.NoError(t, err, tree)
	git("tag", "-a", "-m", "m", "annotated", strings.TrimSpace(blob))
	tag, err := gitRun(dir, "rev-parse", "annotated")
	require.NoError(t, err, tag)
	for name, id := range map[string]string{"blob": blob, "tree": tree, "tagged": tag} {
		require.NoError(t, os.WriteFile(filepath.Join(dir, ".git", "refs", "heads", name), []byte(strings.TrimSpace(id)+"\n"), 0o644))
	}
	shown, err := gitRun(dir, "show", "--stat", "blob")
	require.NoError(t, err, shown)
	blobText, err := gitRun(dir, "cat-file", "blob", "HEAD:a.org")
	require.NoError(t, err, blobText)
	require.Contains(t, shown, strings.TrimSpace(blobText), "git show --stat of the branch prints the blob")
	for _, packed := range []bool{false, true} {
		if packed {
			git("pack-refs", "--all")
			git("repack", "-adq") // and the objects
		}
		for name, want := range map[string]bool{
			"main": true, "feature/x": true, "both": false, "v1": false, "cafe": false, "nothing": false,
			"HEAD": false, "config": false, "main..x": false, "-main": false, "": false,
			"heads/main": true, "refs/heads/main": true, "heads/feature/x": true, "refs/heads/both": true,
			"tags/v1": false, "refs/tags/v1": false, "refs/heads/nothing": false, "heads": false, "refs/heads": false,
			"evil": false, "heads/evil": false, "refs/heads/evil": false,
			"blob": false, "heads/blob": false, "tree": false, "tagged": false, "refs/heads/tagged": false,
		} {
			assert.Equal(t, want, IsBranch(dir, name), "%s (packed refs: %v)", name, packed)
			if want {
				// What git itself takes the name for.
				full, err := gitRun(dir, "rev-parse", "--symbolic-full-name", name)
				require.NoError(t, err, full)
				assert.True(t, strings.HasPrefix(full, "refs/heads/"), "git takes %s for %s", name, full)
			}
		}
	}
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
		entries, err := parseIndex(data)
		if err != nil {
			return
		}
		if len(data) < 12 || uint32(len(entries)) != uint32(data[8])<<24|uint32(data[9])<<16|uint32(data[10])<<8|uint32(data[11]) {
			t.Fatalf("%d entries, not the header's count", len(entries))
		}
	})
}

// BenchmarkStagedVersions: what git diff costs the gates in a work tree
// of 2,000 notes, none changed (one stat each) and, in the second, 20
// changed since staged (each hashed, its staged version inflated), and
// those 20 again with every object in a pack.
func BenchmarkStagedVersions(b *testing.B) {
	testenv.NeedCommand(b, "git")
	dir := b.TempDir()
	past := time.Now().Add(-time.Hour)
	for i := range 2000 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%50), fmt.Sprintf("n%04d.org", i))
		require.NoError(b, os.MkdirAll(filepath.Dir(p), 0o755))
		require.NoError(b, os.WriteFile(p, []byte(strings.Repeat(fmt.Sprintf("* Note %d\nSome text of it.\n", i), 40)), 0o644))
		require.NoError(b, os.Chtimes(p, past, past))
	}
	for _, args := range [][]string{{"init", "-q", "."}, {"add", "."}} {
		out, err := gitRun(dir, args...)
		require.NoError(b, err, out)
	}
	run := func(b *testing.B, want int) {
		for b.Loop() {
			files, err := StagedVersions(dir, nil)
			if err != nil || len(files) != want {
				b.Fatalf("%d files, %v", len(files), err)
			}
		}
	}
	b.Run("unchanged", func(b *testing.B) { run(b, 0) })
	for i := range 20 {
		p := filepath.Join(dir, fmt.Sprintf("d%02d", i%50), fmt.Sprintf("n%04d.org", i))
		require.NoError(b, os.WriteFile(p, []byte("* changed\n"), 0o644))
	}
	b.Run("20 changed", func(b *testing.B) { run(b, 20) })
	// The staged versions in a pack: its index is read once for all 20.
	for _, args := range [][]string{{"repack", "-adq"}, {"prune-packed"}} {
		out, err := gitRun(dir, args...)
		require.NoError(b, err, out)
	}
	b.Run("20 changed, packed", func(b *testing.B) { run(b, 20) })
}

// TestHeadIsCommit: HEAD on a branch or detached at a commit names a
// commit, and one on a branch not born yet nothing git show prints; HEAD
// or its branch written by hand to name a blob does not.
func TestHeadIsCommit(t *testing.T) {
	dir := gitIndexRepo(t)
	git := func(args ...string) string {
		out, err := gitRun(dir, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
		return strings.TrimSpace(out)
	}
	assert.True(t, HeadIsCommit(dir), "a branch not born")
	git("commit", "-qm", "one")
	assert.True(t, HeadIsCommit(dir), "on a branch")
	branch := git("branch", "--show-current")
	blob := git("rev-parse", "HEAD:a.org")
	head := filepath.Join(dir, ".git", "HEAD")
	write := func(p, text string) { require.NoError(t, os.WriteFile(p, []byte(text), 0o644)) }
	write(head, git("rev-parse", "HEAD")+"\n")
	assert.True(t, HeadIsCommit(dir), "detached at a commit")
	write(head, blob+"\n")
	assert.False(t, HeadIsCommit(dir), "detached at a blob")
	write(head, "ref: refs/heads/hand\n")
	write(filepath.Join(dir, ".git", "refs", "heads", "hand"), blob+"\n")
	assert.False(t, HeadIsCommit(dir), "on a branch naming a blob")
	git("pack-refs", "--all")
	assert.False(t, HeadIsCommit(dir), "on a packed branch naming a blob")
	write(head, "ref: refs/heads/"+branch+"\n")
	git("repack", "-adq")
	assert.True(t, HeadIsCommit(dir), "on a branch, objects packed")
}

// TestReflogIsCommit: a reflog entry git writes names a commit; one
// written by hand to name a blob, a name that is not a plain ref, or an
// entry past the log's start does not.
func TestReflogIsCommit(t *testing.T) {
	dir := gitIndexRepo(t)
	git := func(args ...string) string {
		out, err := gitRun(dir, append([]string{"-c", "user.name=t", "-c", "user.email=t@example.com"}, args...)...)
		require.NoError(t, err, "git %s: %s", strings.Join(args, " "), out)
		return strings.TrimSpace(out)
	}
	git("commit", "-qm", "one")
	git("commit", "-qm", "two", "--allow-empty")
	branch := git("branch", "--show-current")
	blob := git("rev-parse", "HEAD:a.org")
	for word, want := range map[string]bool{
		"HEAD@{0}": true, "HEAD@{1}": true, "@{1}": true, branch + "@{0}": true, "HEAD@{2}": false,
		"HEAD@{yesterday}": false, "@{-1}": false, "@{u}": false, "x..y@{0}": false,
	} {
		assert.Equal(t, want, ReflogIsCommit(dir, word), word)
	}
	f, err := os.OpenFile(filepath.Join(dir, ".git", "logs", "HEAD"), os.O_APPEND|os.O_WRONLY, 0)
	require.NoError(t, err)
	_, err = f.WriteString(strings.Repeat("0", 40) + " " + blob + " t <t@example.com> 1700000000 +0000\thand\n")
	require.NoError(t, err)
	require.NoError(t, f.Close())
	assert.False(t, ReflogIsCommit(dir, "HEAD@{0}"), "an entry naming a blob")
	assert.True(t, ReflogIsCommit(dir, "HEAD@{1}"))
}

// TestAFIFOInTheRepositoryIsRefused: a FIFO where the index or a staged
// blob's loose object should be is refused at once as something this
// reader cannot tell (ErrUnknown for the index, no Data for the blob),
// never waited on for a writer.
func TestAFIFOInTheRepositoryIsRefused(t *testing.T) {
	t.Run("the index", func(t *testing.T) {
		dir := gitIndexRepo(t)
		index := filepath.Join(dir, ".git", "index")
		require.NoError(t, os.Remove(index))
		testenv.MakeFIFO(t, index)
		err := testenv.Promptly(t, index, func() error {
			_, err := StagedVersions(dir, nil)
			return err
		})
		assert.ErrorIs(t, err, ErrUnknown)
	})
	t.Run("a loose object", func(t *testing.T) {
		dir := gitIndexRepo(t)
		id, err := gitRun(dir, "rev-parse", ":a.org")
		require.NoError(t, err, id)
		id = strings.TrimSpace(id)
		obj := filepath.Join(dir, ".git", "objects", id[:2], id[2:])
		require.NoError(t, os.Remove(obj))
		testenv.MakeFIFO(t, obj)
		require.NoError(t, os.WriteFile(filepath.Join(dir, "a.org"), []byte("* changed\n"), 0o644))
		var files []Staged
		err = testenv.Promptly(t, obj, func() error {
			files, err = StagedVersions(dir, nil)
			return err
		})
		require.NoError(t, err)
		require.Len(t, files, 1)
		assert.Equal(t, "a.org", files[0].Path)
		assert.Nil(t, files[0].Data, "its staged version cannot be read")
	})
}
