package gates

import (
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
	"mvdan.cc/sh/v3/syntax"

	"pp-lsp/internal/testenv"
)

// endlessPlanScripts call functions where their output is captured,
// piped or redirected, with bodies whose answer depends on the state at
// the call, on the input, on nested substitutions, or on a redefinition.
func endlessPlanScripts() []string {
	return []string{
		"f(){ echo hi; }; a=$(f); f(){ cat /dev/zero; }; b=$(f)",
		"f(){ cat /dev/zero; }; f(){ echo hi; }; b=$(f)",
		"f(){ cat $x; }; y=$(f); x=/dev/zero; z=$(f)",
		"f(){ cat \"/dev/$1\"; }; y=$(f null); z=$(f zero)",
		"f(){ echo a; yes; }; f | head -1 > out",
		"f(){ cat; }; cat /dev/zero | f > out",
		"f(){ cat; }; x=$(f < /dev/zero)",
		"f(){ cat /dev/fd/3; }; f 3</dev/zero > out",
		"f(){ cat $(echo /dev/zero); }; x=$(f)",
		"f(){ cat <(cat /dev/zero) > out; }; x=$(f)",
		"f(){ g(){ yes; }; echo \"$1\"; }; x=$(f a)",
		"f(){ for i in 1 2; do echo \"$i\" | tr 1 2; done; seq 1 $n; }; n=5; a=$(f); n=1e9; b=$(f)",
		"f(){ printf '%s' \"$1\"; }; a=$(f x); b=$(f '%999999999d')",
		"f(){ printf \"$1\" 1; }; a=$(f x); b=$(f '%999999999d')",
		"f(){ head -c \"$1\" /dev/zero; }; a=$(f 5); b=$(f 5G)",
		"f(){ { echo a; cat < /dev/urandom; }; }; x=$(f)",
		"f(){ echo a; }; exec 3</dev/zero; x=$(f); f > out",
		"for b in 'echo hi' 'cat /dev/zero'; do eval \"f(){ $b; }\"; x=$(f); done",
		"f=public.txt; for r in 1 2; do x=$(for i in 1; do cat $f; done); f=/dev/zero; done",
		"f=public.txt; for r in 1 2; do { cat $f; } > out; f=/dev/zero; done",
		"x=$( (yes) ); { echo a; } | cat > out; while read -r l; do echo \"$l\"; done < /dev/zero > out",
	}
}

// endlessPlanAgrees analyses cmd twice, bodies judged by their plan and
// walked whole at each call, and wants the same report.
func endlessPlanAgrees(t *testing.T, env *Env, cmd string) {
	t.Helper()
	var reps [2]*shellReport
	for i, walk := range []bool{true, false} {
		s := &shellAnalyzer{env: env, cwd: env.cwdDir("."), known: env.knownVars(), rep: &shellReport{}, walkBodies: walk}
		for j := 1; j <= 9; j++ {
			s.pos[j] = varVal{num: true}
		}
		s.script(context.Background(), cmd)
		reps[i] = s.rep
	}
	assert.Equal(t, reps[0], reps[1], "%q", cmd)
}

// TestEndlessPlanAgrees: judging a function body's endless output by its
// plan (bodyEndless) changes no report, on the scripts above and on every
// shell command of the shared corpus.
func TestEndlessPlanAgrees(t *testing.T) {
	_, env, _ := testEnv(t, DefaultConfig())
	for _, cmd := range endlessPlanScripts() {
		endlessPlanAgrees(t, env, cmd)
	}
	_, cenv := newCorpusEnv(t, testenv.SharedDir(t))
	n := 0
	for _, cmd := range corpusShellCommands(t) {
		endlessPlanAgrees(t, cenv, cmd)
		n++
	}
	require.Positive(t, n)
}

// TestEndlessPlanIsPerBodyAndState: a function's endless output is judged
// at each call, by the body declared last and with the state there — a
// plan remembered per body (not per name) and holding no answer that a
// variable, an argument or the input can change.
func TestEndlessPlanIsPerBodyAndState(t *testing.T) {
	stack, env, root := testEnv(t, DefaultConfig())
	require.NoError(t, os.WriteFile(filepath.Join(root, "public.txt"), []byte("needle\n"), 0o644))
	for _, tc := range []struct {
		cmd     string
		endless bool
	}{
		// The first body answered no; the second is the one run.
		{"f(){ echo hi; }; a=$(f); f(){ cat /dev/zero; }; b=$(f)", true},
		{"f(){ echo hi; }; a=$(f); f(){ yes; }; f | sort", true},
		{"f(){ echo hi; }; f > out; f(){ cat /dev/urandom; }; f > out", true},
		{"for b in 'echo hi' 'cat /dev/zero'; do eval \"f(){ $b; }\"; x=$(f); done", true},
		// A variable changed after a first call.
		{"f(){ cat $x; }; y=$(f); x=/dev/zero; z=$(f)", true},
		{"f(){ head -c \"$n\" /dev/zero; }; n=5; a=$(f); n=5G; b=$(f)", true},
		{"f(){ seq 1 $n; }; n=5; a=$(f); n=1e9; b=$(f)", true},
		// A compound command judged again in a loop's second round.
		{"f=public.txt; for r in 1 2; do x=$(for i in 1; do cat $f; done); f=/dev/zero; done", true},
		{"f=public.txt; for r in 1 2; do { cat $f; } > out; f=/dev/zero; done", true},
		// The same body, given an endless input after a bounded one.
		{"f(){ cat; }; x=$(echo a | f); cat /dev/zero | f > out", true},
		{"f(){ cat; }; x=$(f < public.txt); y=$(f < /dev/zero)", true},
		// Twins: the first body answered yes, the second, run, does not;
		// the state at each call bounds the stream.
		{"f(){ cat /dev/zero; }; f(){ echo hi; }; b=$(f)", false},
		{"f(){ cat $x; }; x=public.txt; y=$(f); z=$(f)", false},
		{"f(){ head -c \"$n\" /dev/zero; }; n=5; a=$(f); n=6; b=$(f)", false},
		{"f(){ cat; }; x=$(echo a | f); cat public.txt | f > out", false},
	} {
		t.Run(tc.cmd, func(t *testing.T) {
			v := stack.Check(t.Context(), sh(tc.cmd), env)
			if tc.endless {
				assert.Equal(t, VerdictDeny, v.Verdict, "%s: %s", v.Gate, v.Reason)
				assert.Contains(t, v.Reason, "endless stream")
			} else {
				assert.NotContains(t, v.Reason, "endless")
			}
		})
	}
}

// TestWordHasSubstAgrees: the hand-written wordHasSubst answers as a walk
// of the whole word does, on every word of the corpus's shell commands
// and on words that hide a substitution in each place a word can hold one.
func TestWordHasSubstAgrees(t *testing.T) {
	walked := func(w *syntax.Word) bool {
		found := false
		syntax.Walk(w, func(n syntax.Node) bool {
			switch n.(type) {
			case *syntax.CmdSubst, *syntax.ProcSubst:
				found = true
			}
			return !found
		})
		return found
	}
	cmds := append(corpusShellCommands(t),
		`echo a"b$(c)" 'x$(y)' $z ${z} "$z" "${z}"`,
		`echo ${a:-$(b)} ${a/$(b)/c} ${a/b/$(c)} ${a:$(b):1} ${a[$(b)]} "${a[$(b)]}" ${#a} ${!a}`,
		`echo $(( $(b) + 1 )) $((a[$(b)])) "$((1+$(b)))" <(a) >(b) @(a|b) x{a,$(b)}`,
		"echo `b` \"`c`\" $'\\n' $\"x\" ${a:-\"$(b)\"} ${a:-${b:-$(c)}}",
	)
	n := 0
	for _, cmd := range cmds {
		f, err := syntax.NewParser(syntax.Variant(syntax.LangBash)).Parse(strings.NewReader(cmd), "")
		if err != nil {
			continue
		}
		syntax.Walk(f, func(node syntax.Node) bool {
			if w, ok := node.(*syntax.Word); ok {
				n++
				assert.Equal(t, walked(w), wordHasSubst(w), "a word of %q", cmd)
			}
			return true
		})
	}
	require.Greater(t, n, 1000)
}

// corpusShellCommands are the commands of the shared corpus's shell
// actions.
func corpusShellCommands(t *testing.T) []string {
	t.Helper()
	corpus := readCorpus(t, filepath.Join(testenv.SharedDir(t), "corpus", "gates"))
	var out []string
	for _, recs := range corpus {
		for _, r := range recs {
			var rec struct {
				Tool string         `json:"tool"`
				Args map[string]any `json:"args"`
			}
			if json.Unmarshal(r.Action, &rec) != nil || rec.Tool != "shell" {
				continue
			}
			if cmd, ok := rec.Args["cmd"].(string); ok {
				out = append(out, cmd)
			}
		}
	}
	return out
}

// FuzzEndlessPlanAgrees: for any command, judging function bodies'
// endless output by their plans gives the report walking them whole does.
func FuzzEndlessPlanAgrees(f *testing.F) {
	for _, s := range endlessPlanScripts() {
		f.Add(s)
	}
	_, env, _ := testEnv(f, DefaultConfig())
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 4096 {
			return
		}
		endlessPlanAgrees(t, env, cmd)
	})
}
