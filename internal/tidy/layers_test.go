package tidy

import (
	"bufio"
	"bytes"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// module is the module's path, which `go list` prefixes every package
// with.
const module = "pp-lsp"

// layering is ARCHITECTURE.md's layers block, read: each package's layer
// (0 is the highest) and unit, and the packages set aside (test support
// and tools), which no package's own code may import.
type layering struct {
	names []string          // the layers' names, highest first
	layer map[string]int    // package → its layer
	unit  map[string]string // package → its unit (the first package listed in it)
	aside map[string]bool
}

// readLayers reads the fenced block of ARCHITECTURE.md that starts with
// "```layers": one layer a line, highest first, "name: units"; the units of
// a layer are separated by "|", the packages of a unit by spaces; the line
// "aside: …" lists the packages set aside.
func readLayers(doc []byte) (*layering, error) {
	l := &layering{layer: map[string]int{}, unit: map[string]string{}, aside: map[string]bool{}}
	sc := bufio.NewScanner(bytes.NewReader(doc))
	in := false
	for sc.Scan() {
		line := strings.TrimSpace(sc.Text())
		switch {
		case line == "```layers":
			in = true
			continue
		case !in:
			continue
		case line == "```":
			if len(l.names) == 0 {
				return nil, fmt.Errorf("the layers block is empty")
			}
			return l, nil
		case line == "":
			continue
		}
		name, units, ok := strings.Cut(line, ":")
		if !ok {
			return nil, fmt.Errorf("the layers block's line %q has no \"name:\"", line)
		}
		name = strings.TrimSpace(name)
		if name == "aside" {
			for _, p := range strings.Fields(units) {
				l.aside[p] = true
			}
			continue
		}
		l.names = append(l.names, name)
		for _, u := range strings.Split(units, "|") {
			pkgs := strings.Fields(u)
			if len(pkgs) == 0 {
				return nil, fmt.Errorf("layer %s has an empty unit", name)
			}
			for _, p := range pkgs {
				if _, dup := l.layer[p]; dup || l.aside[p] {
					return nil, fmt.Errorf("%s is placed twice", p)
				}
				l.layer[p], l.unit[p] = len(l.names)-1, pkgs[0]
			}
		}
	}
	return nil, fmt.Errorf("ARCHITECTURE.md has no ```layers block")
}

// pkg is what the checks need of one package.
type pkg struct {
	path    string   // without the module's prefix
	imports []string // the module's packages its own code imports
	deps    []string // every package its own code depends on, directly or not
}

// check returns every way pkgs break the layering, one sentence each.
func (l *layering) check(pkgs []pkg) []string {
	var out []string
	for _, p := range pkgs {
		from, placed := l.layer[p.path]
		if !placed && !l.aside[p.path] {
			out = append(out, fmt.Sprintf("%s is in no layer of ARCHITECTURE.md: place it", p.path))
			continue
		}
		for _, q := range p.imports {
			switch to, ok := l.layer[q]; {
			case l.aside[q]:
				out = append(out, fmt.Sprintf("%s imports %s, which is set aside for tests and tools", p.path, q))
			case !placed || !ok:
				// an aside package, or an unplaced one (reported above)
			case l.unit[q] == l.unit[p.path]:
			case to == from:
				out = append(out, fmt.Sprintf("%s imports %s: both are in the layer %q, and its units never import each other", p.path, q, l.names[from]))
			case to < from:
				out = append(out, fmt.Sprintf("%s (layer %q) imports %s from the layer %q above it", p.path, l.names[from], q, l.names[to]))
			}
		}
		if placed && from > l.frontEnds() {
			for _, d := range p.deps {
				if strings.HasPrefix(d, "go.lsp.dev/") {
					out = append(out, fmt.Sprintf("%s depends on %s: only the front ends speak LSP", p.path, d))
					break
				}
			}
		}
		if placed && from > 0 && slices.Contains(p.deps, "flag") {
			out = append(out, fmt.Sprintf("%s depends on the flag package: only the commands (the first layer) read flags", p.path))
		}
	}
	return out
}

// frontEnds is the layer of the front ends.
func (l *layering) frontEnds() int { return slices.Index(l.names, "front ends") }

// listPackages runs `go list -deps` on the module: its packages, the
// module's packages each imports, and everything each depends on.
func listPackages(t *testing.T, root string) []pkg {
	t.Helper()
	cmd := exec.Command("go", "list", "-f", `{{.ImportPath}}|{{join .Imports " "}}|{{join .Deps " "}}`, "./...")
	cmd.Dir = root
	cmd.Stderr = os.Stderr
	out, err := cmd.Output()
	require.NoError(t, err, "go list")
	var pkgs []pkg
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		f := strings.Split(line, "|")
		require.Len(t, f, 3, "go list printed %q", line)
		p := pkg{path: strings.TrimPrefix(f[0], module+"/"), deps: strings.Fields(f[2])}
		for _, i := range strings.Fields(f[1]) {
			if rest, ok := strings.CutPrefix(i, module+"/"); ok {
				p.imports = append(p.imports, rest)
			}
		}
		pkgs = append(pkgs, p)
	}
	return pkgs
}

// TestLayers: every package is where ARCHITECTURE.md's layers put it, and
// imports only what lies below it or in its own unit.
func TestLayers(t *testing.T) {
	root := testenv.ModuleRoot(t)
	doc, err := os.ReadFile(filepath.Join(root, "ARCHITECTURE.md"))
	require.NoError(t, err)
	l, err := readLayers(doc)
	require.NoError(t, err)
	require.GreaterOrEqual(t, l.frontEnds(), 0, "the layers name a layer \"front ends\"")
	pkgs := listPackages(t, root)
	require.NotEmpty(t, pkgs)
	for _, bad := range l.check(pkgs) {
		t.Error(bad)
	}
	for p := range l.layer {
		assert.True(t, slices.ContainsFunc(pkgs, func(q pkg) bool { return q.path == p }), "ARCHITECTURE.md places %s, which does not exist", p)
	}
}

// TestTheCheckCatchesWhatItMust: the check itself, on a module that breaks
// each rule once.
func TestTheCheckCatchesWhatItMust(t *testing.T) {
	l, err := readLayers([]byte("text\n```layers\ncmd: cmd/x\nfront ends: server/lsp server/lsp/transport | server/bridge\nagent: server/agent\ncore: memory | gates\naside: internal/testenv\n```\n"))
	require.NoError(t, err)
	got := l.check([]pkg{
		{path: "cmd/x", imports: []string{"server/lsp", "gates"}, deps: []string{"flag", "go.lsp.dev/protocol"}},
		{path: "server/lsp", imports: []string{"server/lsp/transport", "server/agent"}, deps: []string{"go.lsp.dev/protocol"}},
		{path: "server/lsp/transport"},
		{path: "server/bridge", imports: []string{"server/lsp"}},
		{path: "server/agent", imports: []string{"server/bridge", "memory"}},
		{path: "memory", imports: []string{"gates", "internal/testenv"}, deps: []string{"go.lsp.dev/uri", "flag"}},
		{path: "gates"},
		{path: "internal/testenv"},
		{path: "newpkg"},
	})
	assert.ElementsMatch(t, []string{
		`server/bridge imports server/lsp: both are in the layer "front ends", and its units never import each other`,
		`server/agent (layer "agent") imports server/bridge from the layer "front ends" above it`,
		`memory imports gates: both are in the layer "core", and its units never import each other`,
		`memory imports internal/testenv, which is set aside for tests and tools`,
		`memory depends on go.lsp.dev/uri: only the front ends speak LSP`,
		`memory depends on the flag package: only the commands (the first layer) read flags`,
		`newpkg is in no layer of ARCHITECTURE.md: place it`,
	}, got)

	for _, bad := range []string{"no block", "```layers\n```", "```layers\na: x\nb: x\n```", "```layers\na: x |\n```", "```layers\njust words\n```"} {
		_, err := readLayers([]byte(bad))
		assert.Error(t, err, bad)
	}
}
