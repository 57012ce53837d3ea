package gates

import (
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// resolveByEvalSymlinks is the reference: EvalSymlinks on the path, then
// on each parent, until one succeeds (how the gates resolved paths before
// the per-check view).
func resolveByEvalSymlinks(p string) string {
	if r, err := filepath.EvalSymlinks(p); err == nil {
		return r
	}
	dir, rest := filepath.Dir(p), filepath.Base(p)
	for dir != "/" && dir != "." {
		if r, err := filepath.EvalSymlinks(dir); err == nil {
			return filepath.Join(r, rest)
		}
		rest = filepath.Join(filepath.Base(dir), rest)
		dir = filepath.Dir(dir)
	}
	return p
}

// symlinkMaze builds a tree with every kind of symlink the walk must get
// right: relative and absolute, through "..", chained, looping, dangling,
// to a file, to a directory with a trailing slash, to the root.
func symlinkMaze(t *testing.T) string {
	t.Helper()
	root, err := filepath.EvalSymlinks(t.TempDir())
	require.NoError(t, err)
	mk := func(rel string) { require.NoError(t, os.MkdirAll(filepath.Join(root, rel), 0o755)) }
	file := func(rel string) { require.NoError(t, os.WriteFile(filepath.Join(root, rel), []byte("x"), 0o644)) }
	link := func(target, rel string) { require.NoError(t, os.Symlink(target, filepath.Join(root, rel))) }
	mk("a/b/c")
	mk("d")
	file("a/f")
	file("a/b/g")
	link("b", "a/rel")                         // relative, same folder
	link("../d", "a/up")                       // through ..
	link(filepath.Join(root, "a/b"), "abs")    // absolute
	link("a/rel/c", "chain")                   // a chain of links
	link("loop2", "loop1")                     // a loop
	link("loop1", "loop2")                     //
	link("nowhere/x", "dangling")              // a dangling link
	link("a/f", "tofile")                      // a link to a file
	link("a/b/", "slash")                      // a trailing slash
	link("./a/./b/../b", "dots")               // dots inside the target
	link("/", "toroot")                        // the file-system root
	link("../../../../../../../..", "a/b/far") // far above the root
	link("g", "a/b/self")                      // to a file beside it
	link("../rel/../up", "a/b/mixed")          // links inside a link's target
	return root
}

// TestFSViewResolvesAsEvalSymlinks checks the one-walk resolution against
// EvalSymlinks on the path and its parents, over every path of up to four
// components drawn from the maze's names (existing or not, through
// files, links and loops), each asked twice of one view so that the
// remembered answers are checked too.
func TestFSViewResolvesAsEvalSymlinks(t *testing.T) {
	root := symlinkMaze(t)
	names := []string{"a", "b", "c", "d", "f", "g", "rel", "up", "abs", "chain", "loop1", "dangling", "tofile", "slash", "dots", "toroot", "far", "self", "mixed", "x", "tmp"}
	var paths []string
	var gen func(prefix string, depth int)
	gen = func(prefix string, depth int) {
		paths = append(paths, prefix)
		if depth == 4 {
			return
		}
		for _, n := range names {
			gen(prefix+"/"+n, depth+1)
		}
	}
	for _, n := range names[:8] {
		gen(root+"/"+n, 1)
	}
	paths = append(paths, "/", "/tmp", root, filepath.Dir(root), "/proc/self/root/etc", "/nonexistent/x/y")
	require.Greater(t, len(paths), 10000)
	view := &fsView{}
	// A second view has listed every folder first, and answers the
	// names their listings lack without asking.
	listed := &fsView{}
	for _, d := range append([]string{"/", "/tmp", filepath.Dir(root), root}, paths...) {
		if fi, err := os.Stat(d); err == nil && fi.IsDir() {
			listed.list(d)
		}
	}
	for _, p := range paths {
		want := resolveByEvalSymlinks(p)
		got, _ := view.resolveExisting(p)
		require.Equal(t, want, got, "path %s", p)
		fromListings, _ := listed.resolveExisting(p)
		require.Equal(t, want, fromListings, "path %s, its folders listed", p)
		_, _, whole := view.resolve(p)
		_, evalErr := filepath.EvalSymlinks(p)
		require.Equal(t, evalErr == nil, whole, "path %s: the whole path resolves", p)
		if fi, err := os.Lstat(got); !whole && err == nil {
			require.False(t, fi.Mode().IsRegular(), "path %s: a walk that stopped short resolved to a file, %s", p, got)
		}
		again, _ := view.resolveExisting(p)
		require.Equal(t, want, again, "path %s, asked again", p)
		uncached, _ := (*fsView)(nil).resolveExisting(p)
		require.Equal(t, want, uncached, "path %s, without a view", p)
		if r, err := filepath.EvalSymlinks(p); err == nil {
			got, _, err := view.evalSymlinks(p)
			require.NoError(t, err, "path %s", p)
			assert.Equal(t, r, got, "path %s", p)
		} else {
			_, _, err := view.evalSymlinks(p)
			assert.Error(t, err, "path %s", p)
		}
	}
}

// TestFSViewSawLink: a path whose walk meets no symlink cannot be refused
// by os.Root, which is why the gates skip that proof for it; every path
// os.Root refuses as escaping must have met a link.
func TestFSViewSawLink(t *testing.T) {
	root := symlinkMaze(t)
	r, err := os.OpenRoot(root)
	require.NoError(t, err)
	defer r.Close()
	for _, rel := range []string{"a", "a/b/c", "a/rel/c", "abs", "abs/c", "a/up", "a/b/far/etc", "toroot/etc", "dangling", "loop1/x", "a/f/x", "x/y", "tofile", "slash/c", "a/b/mixed"} {
		_, saw := (&fsView{}).resolveExisting(filepath.Join(root, rel))
		_, err := r.Lstat(rel)
		escapes := err != nil && strings.Contains(err.Error(), "escapes")
		assert.False(t, escapes && !saw, "%s escapes the root, so its walk must have met a link", rel)
	}
	_, saw := (&fsView{}).resolveExisting(filepath.Join(root, "a/b/c/new.org"))
	assert.False(t, saw, "a walk through plain folders meets no link")
	_, saw = (&fsView{}).resolveExisting(filepath.Join(root, "abs/c"))
	assert.True(t, saw)
}

// TestFSViewGlobsAsFilepathGlob checks the view's glob, answered from its
// listings, against filepath.Glob: the same matches in the same order and
// the same errors, over patterns in folders reached through links, in
// files, in missing folders, with hidden names and malformed classes, each
// asked twice of one view; a pattern the listing cannot answer says so.
func TestFSViewGlobsAsFilepathGlob(t *testing.T) {
	root := symlinkMaze(t)
	for _, n := range []string{".hidden", "a/b/c/x.org", "a/b/c/y.org", "a/b/c/x.org~", "a/b/c/[x].org", "d/a*b", `d/a\b`} {
		require.NoError(t, os.WriteFile(filepath.Join(root, n), []byte("x"), 0o644))
	}
	dirs := []string{"", "a", "a/b", "a/b/c", "a/rel", "a/rel/c", "abs", "chain", "slash", "dots", "a/up", "d", "dangling", "loop1", "tofile", "a/f", "x", "a/b/far", "a/b/../b/c"}
	pats := []string{"*", "*.org", "?.org", "*.org~", "[xy].org", "[!x]*", "[^x]*", ".*", "*a*", `a\*b`, `a\\b`, "[", "[]", "a[", "*[", `\`, "x.org", "[x].org", `\[x\].org`, "*/", "[a-c]", "[c-a]*"}
	view := &fsView{}
	asked := 0
	for _, d := range dirs {
		for _, p := range pats {
			pattern := filepath.Join(root, d) + "/" + p
			want, wantErr := filepath.Glob(pattern)
			for range 2 {
				got, ok, err := view.glob(pattern)
				if !ok {
					continue
				}
				asked++
				assert.Equal(t, wantErr, err, "pattern %s", pattern)
				assert.Equal(t, want, got, "pattern %s", pattern)
			}
		}
	}
	assert.Greater(t, asked, len(dirs)*len(pats), "the listing answers most of the patterns")
	for _, p := range []string{root + "/*/*.org", root + "/a/b/c/x.org", "*.org"} {
		if _, ok, _ := view.glob(p); ok && strings.Contains(filepath.Dir(p), "*") {
			t.Errorf("the listing of one folder answered %s, a pattern over several", p)
		}
	}
	_, ok, _ := (*fsView)(nil).glob(root + "/*")
	assert.False(t, ok, "without a view the caller asks filepath.Glob")
}
