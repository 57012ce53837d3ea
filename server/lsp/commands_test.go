package lsp

import (
	"maps"
	"os"
	"path/filepath"
	"regexp"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// TestCommandListsFollowTheTable reads the editors' sources, the README
// and this package's doc, and holds each to the command table: every
// editor calls exactly the table's commands, each from a command a person
// runs, and every list of those commands written for people names exactly
// the ones the editor defines.
func TestCommandListsFollowTheTable(t *testing.T) {
	root := testenv.ModuleRoot(t)
	read := func(rel string) string {
		t.Helper()
		data, err := os.ReadFile(filepath.Join(root, filepath.FromSlash(rel)))
		require.NoError(t, err)
		return string(data)
	}
	var table []string
	for _, c := range (&Server{}).commandTable() {
		table = append(table, c.name)
	}
	// The plans lists' A and u call passepartout.approveAlways and
	// passepartout.undo, which branch undo adds to the table; the union
	// keeps this test true before and after that merge.
	called := append(slices.Clone(table), "passepartout.approveAlways", "passepartout.undo")
	sorted := func(xs []string) []string { return slices.Compact(slices.Sorted(slices.Values(xs))) }
	lspCommands := regexp.MustCompile(`["'](passepartout\.[A-Za-z]+)["']`)
	literals := func(src string) []string {
		var out []string
		for _, m := range lspCommands.FindAllStringSubmatch(src, -1) {
			out = append(out, m[1])
		}
		return sorted(out)
	}

	t.Run("package doc", func(t *testing.T) {
		var listed []string
		for _, m := range regexp.MustCompile(`(?m)^//\t(passepartout\.[A-Za-z]+) `).FindAllStringSubmatch(read("server/lsp/doc.go"), -1) {
			listed = append(listed, m[1])
		}
		assert.Equal(t, table, listed, "doc.go lists the commands in the table's order")
	})

	t.Run("emacs", func(t *testing.T) {
		els, err := filepath.Glob(filepath.Join(root, "editors", "emacs", "*.el"))
		require.NoError(t, err)
		require.NotEmpty(t, els)
		var all strings.Builder
		for _, el := range els {
			data, err := os.ReadFile(el)
			require.NoError(t, err)
			all.Write(data)
		}
		assert.Equal(t, sorted(called), literals(all.String()), "the LSP commands editors/emacs calls")

		src := read("editors/emacs/pp-lsp.el")
		// The interactive commands, and the LSP commands their bodies name.
		defuns := map[string]string{}
		starts := regexp.MustCompile(`(?m)^\(defun (pp-lsp-[a-z-]+) `).FindAllStringSubmatchIndex(src, -1)
		for k, m := range starts {
			end := len(src)
			if k+1 < len(starts) {
				end = starts[k+1][0]
			}
			if body := src[m[0]:end]; strings.Contains(body, "(interactive") {
				defuns[src[m[2]:m[3]]] = body
			}
		}
		interactive := slices.Sorted(maps.Keys(defuns))
		require.NotEmpty(t, interactive)
		reached := ""
		for _, body := range defuns {
			reached += body
		}
		assert.Equal(t, sorted(called), literals(reached), "each LSP command is run by an interactive command of pp-lsp.el")

		var commentary []string
		for _, m := range regexp.MustCompile("(?m)^;;   `(pp-lsp-[a-z-]+)'").FindAllStringSubmatch(src, -1) {
			commentary = append(commentary, m[1])
		}
		assert.Equal(t, interactive, sorted(commentary), "pp-lsp.el's commentary lists its commands")
		readme := section(t, read("README.md"), "### Emacs", "Commands:", "Settings:")
		assert.Equal(t, interactive, sorted(backquoted(readme, `pp-lsp-[a-z-]+`)), "README lists pp-lsp.el's commands")
	})

	t.Run("neovim", func(t *testing.T) {
		var all strings.Builder
		require.NoError(t, filepath.WalkDir(filepath.Join(root, "editors", "nvim"), func(p string, d os.DirEntry, err error) error {
			if err == nil && !d.IsDir() && strings.HasSuffix(p, ".lua") {
				data, err := os.ReadFile(p)
				all.Write(data)
				return err
			}
			return err
		}))
		assert.Equal(t, sorted(called), literals(all.String()), "the LSP commands editors/nvim calls")

		src := read("editors/nvim/lua/passepartout/init.lua")
		// The user commands and the module functions they call.
		userCommands := map[string]string{}
		for _, m := range regexp.MustCompile(`(?m)^\s*cmd\('(Passepartout[A-Za-z]+)', function\([a-z]*\) (?:M\.([a-z_]+)\(|vim\.)`).FindAllStringSubmatch(src, -1) {
			userCommands[m[1]] = m[2]
		}
		names := slices.Sorted(maps.Keys(userCommands))
		require.NotEmpty(t, names)
		// The module functions' bodies: from "function M.x(" to the next
		// top-level function.
		bodies := map[string]string{}
		starts := regexp.MustCompile(`(?m)^(?:local )?function (?:M\.)?([a-z_]+)\(`).FindAllStringSubmatchIndex(src, -1)
		for k, m := range starts {
			end := len(src)
			if k+1 < len(starts) {
				end = starts[k+1][0]
			}
			bodies[src[m[2]:m[3]]] = src[m[0]:end]
		}
		reached := ""
		for _, fn := range userCommands {
			reached += bodies[fn]
		}
		assert.Equal(t, sorted(called), literals(reached), "each LSP command is run by a user command of init.lua")

		var header []string
		for _, m := range regexp.MustCompile(`(?m)^--   :(Passepartout[A-Za-z]+)`).FindAllStringSubmatch(src, -1) {
			header = append(header, m[1])
		}
		assert.Equal(t, names, sorted(header), "init.lua's header lists its user commands")
		readme := section(t, read("README.md"), "### Neovim", "Commands:", "\n\n")
		var listed []string
		for _, c := range backquoted(readme, `:Passepartout[A-Za-z]+`) {
			listed = append(listed, strings.TrimPrefix(c, ":"))
		}
		assert.Equal(t, names, sorted(listed), "README lists init.lua's user commands")
	})
}

// section is the text of doc after heading, from the first from to the
// next until.
func section(t *testing.T, doc, heading, from, until string) string {
	t.Helper()
	i := strings.Index(doc, heading)
	require.GreaterOrEqual(t, i, 0, "no %q", heading)
	doc = doc[i:]
	i = strings.Index(doc, from)
	require.GreaterOrEqual(t, i, 0, "no %q after %q", from, heading)
	doc = doc[i:]
	if j := strings.Index(doc, until); j >= 0 {
		doc = doc[:j]
	}
	return doc
}

// backquoted are the `code` spans of text that match re, or begin with a
// match (the first word of "`:PassepartoutAsk {question}`").
func backquoted(text, re string) []string {
	var out []string
	for _, m := range regexp.MustCompile("`("+re+")[^`]*`").FindAllStringSubmatch(text, -1) {
		out = append(out, m[1])
	}
	return out
}
