package testenv

import (
	"go/ast"
	"go/parser"
	"go/token"
	"io/fs"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestLongTestsAreListed: every test that -short cuts down or skips is in
// the Makefile's LONG_TESTS, its package in LONG_PKGS, and nothing else is
// — so `make test-long` (CI) runs each of them whole, and only them. A
// test that reads testing.Short() itself is refused: it would be cut
// without being listed.
func TestLongTestsAreListed(t *testing.T) {
	root := ModuleRoot(t)
	mk, err := os.ReadFile(filepath.Join(root, "Makefile"))
	require.NoError(t, err)
	listed := strings.Fields(makeVar(t, string(mk), "LONG_TESTS"))
	pkgs := strings.Fields(makeVar(t, string(mk), "LONG_PKGS"))

	var found, foundPkgs, readsShort []string
	err = filepath.WalkDir(root, func(path string, d fs.DirEntry, err error) error {
		if err != nil {
			return err
		}
		if d.IsDir() && path != root && (strings.HasPrefix(d.Name(), ".") || d.Name() == "testdata") {
			return filepath.SkipDir
		}
		if d.IsDir() || !strings.HasSuffix(path, "_test.go") {
			return nil
		}
		f, err := parser.ParseFile(token.NewFileSet(), path, nil, 0)
		if err != nil {
			return err
		}
		for _, decl := range f.Decls {
			fn, ok := decl.(*ast.FuncDecl)
			if !ok || fn.Body == nil || !strings.HasPrefix(fn.Name.Name, "Test") || fn.Recv != nil {
				continue
			}
			ast.Inspect(fn.Body, func(n ast.Node) bool {
				sel, ok := n.(*ast.SelectorExpr)
				if !ok {
					return true
				}
				x, ok := sel.X.(*ast.Ident)
				switch {
				case ok && x.Name == "testenv" && (sel.Sel.Name == "Scale" || sel.Sel.Name == "SkipShort"):
					rel, _ := filepath.Rel(root, filepath.Dir(path))
					found = append(found, fn.Name.Name)
					foundPkgs = append(foundPkgs, "./"+filepath.ToSlash(rel)+"/")
				case ok && x.Name == "testing" && sel.Sel.Name == "Short":
					readsShort = append(readsShort, fn.Name.Name+" ("+path+")")
				}
				return true
			})
		}
		return nil
	})
	require.NoError(t, err)
	assert.Empty(t, readsShort, "cut a test with testenv.Scale or testenv.SkipShort, so that it is listed")
	assert.ElementsMatch(t, compact(found), listed, "the Makefile's LONG_TESTS")
	assert.ElementsMatch(t, compact(foundPkgs), pkgs, "the Makefile's LONG_PKGS")
}

// makeVar is the value of a `NAME := …` line of a Makefile, with its
// backslash continuations.
func makeVar(t *testing.T, mk, name string) string {
	t.Helper()
	m := regexp.MustCompile(`(?m)^` + name + `\s*:=((?:.*\\\n)*.*)$`).FindStringSubmatch(mk)
	require.NotNil(t, m, "no %s in the Makefile", name)
	return strings.ReplaceAll(m[1], "\\\n", " ")
}

func compact(s []string) []string {
	slices.Sort(s)
	return slices.Compact(s)
}
