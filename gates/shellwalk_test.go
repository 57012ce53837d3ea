package gates

import (
	"fmt"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"
)

// walkScripts hold every kind of node the bash parser makes.
var walkScripts = []string{
	`c=(1 [3]=y "$z"); b[2]=x; a=1 d+=2 cmd "w$x" 'q' $'e' $"l" ${p:-$(q)} ${p/a/$(b)} ${p:1:$((2+x))} ${#p} ${!p} ${p[$(i)]} ${p@Q} 3>f <g 2>&1 <<<h`,
	"cat <<EOF\nx $(y) ${z}\nEOF\n",
	`if a; then b; elif c; then d; else e; fi; while f; do g; done; until h; do i; done`,
	`for x in a "b" $(c); do d; done; for ((i=0; i<3; i++)); do e; done; for y; do :; done`,
	`f() { g | h && i || j; }; function k { (l); { m; }; }; n & o |& p`,
	`case $x in a|b) c ;; "d"*) e ;& f) g ;;& *) ;; esac`,
	`[[ -f a && ( b == c* || ! -z $d ) && e =~ ^f$ && 1 -lt $((2)) ]]; (( x = y++ + -z, w ? 1 : 2 )); let a=1+2 b++`,
	`declare -A m=([k]=v); local -r x=1 y; export z; readonly w; typeset -i n; time { a; }; time -p b; coproc c { d; }; coproc e`,
	`echo @(a|b) !(c) +(d) *(e) ?(f) <(g) >(h) ~/x {a,b} {1..3} a\ b`,
	`x=$(( a[1] + ${b} + $(c) + (d*2) )); echo $((e)) $[f] "${g:-"$(h)"}" ${i:=j} ${k:?l} ${m:+n} ${o^^} ${p,} ${q#r} ${s%%t}`,
	"echo `a \\`b\\`` $( (c) ) $(<d)",
	`select x in a b; do c; done; ! d; e &>f; g &>>h; i >|j; k <>l`,
}

// visits lists the nodes a walk calls f with, in order, as their types
// and offsets (nil and comments left out); prune stops at each node it
// says so of, as the analysis's walks do.
func visits(walk func(syntax.Node, func(syntax.Node) bool), root syntax.Node, prune func(syntax.Node) bool) []string {
	var out []string
	walk(root, func(n syntax.Node) bool {
		if n == nil {
			return true
		}
		if _, ok := n.(*syntax.Comment); ok {
			return true
		}
		out = append(out, strings.TrimPrefix(strings.TrimPrefix(typeName(n), "*"), "syntax.")+"@"+n.Pos().String())
		return !prune(n)
	})
	return out
}

func typeName(n syntax.Node) string {
	return strings.SplitN(strings.TrimPrefix(fmtType(n), "*syntax."), " ", 2)[0]
}

// TestWalkSyntaxIsWalk: walkSyntax visits what syntax.Walk visits, in the
// same order, whole or pruned where the analysis prunes (at a
// substitution, at a statement), over constructs of every node type and
// every shell command of the corpus.
func TestWalkSyntaxIsWalk(t *testing.T) {
	prunes := map[string]func(syntax.Node) bool{
		"none": func(syntax.Node) bool { return false },
		"substitutions": func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				return true
			}
			return false
		},
		"calls": func(n syntax.Node) bool { _, ok := n.(*syntax.CallExpr); return ok },
	}
	n := 0
	for _, cmd := range append(append([]string(nil), walkScripts...), corpusShellCommands(t)...) {
		for _, keep := range []bool{false, true} {
			f, err := syntax.NewParser(syntax.Variant(syntax.LangBash), syntax.KeepComments(keep)).Parse(strings.NewReader(cmd), "")
			if err != nil {
				continue
			}
			for name, prune := range prunes {
				want := visits(syntax.Walk, f, prune)
				got := visits(walkSyntax, f, prune)
				if !assert.Equal(t, want, got, "%s, pruned at %s", cmd, name) {
					return
				}
				n += len(want)
			}
		}
	}
	require.Greater(t, n, 100000)
	// A node type walkSyntax leaves to syntax.Walk (a bats test here).
	f, err := syntax.NewParser(syntax.Variant(syntax.LangBats)).Parse(strings.NewReader("@test \"$(a)\" { b $(c); }"), "")
	require.NoError(t, err)
	for name, prune := range prunes {
		assert.Equal(t, visits(syntax.Walk, f, prune), visits(walkSyntax, f, prune), name)
	}
	for _, cmd := range walkScripts {
		_, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		require.NoError(t, err, cmd)
	}
}

func fmtType(n syntax.Node) string { return fmt.Sprintf("%T", n) }

// FuzzWalkSyntaxIsWalk: for any command, walkSyntax visits what
// syntax.Walk visits.
func FuzzWalkSyntaxIsWalk(f *testing.F) {
	for _, s := range walkScripts {
		f.Add(s)
	}
	prune := func(n syntax.Node) bool { _, ok := n.(*syntax.CmdSubst); return ok }
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 4096 {
			return
		}
		file, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil {
			return
		}
		assert.Equal(t, visits(syntax.Walk, file, prune), visits(walkSyntax, file, prune))
	})
}
