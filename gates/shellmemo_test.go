package gates

import (
	"context"
	"encoding/json"
	"fmt"
	"path/filepath"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"

	"pp-lsp/internal/testenv"
)

// memoScripts are commands whose functions read and change what a replay
// must get right: globals set and read between calls, the working
// directory, downloads, functions declared by functions, recursion,
// redefinition, calls past the limits.
func memoScripts() []string {
	many := strings.Repeat("f a\n", maxInlineCalls+8)
	return []string{
		"f() { cat \"$1\"; }\nf notes/todo.org\nf private.org\nf notes/todo.org",
		"f() { \"$@\"; }\nf echo a\nf echo a\nf cat private.org\nf rm -rf ~",
		"g() { \"$@\"; }\nf() { g \"$@\"; }\nf echo a\nf cat private.org\ng echo a\ng cd /\nrm -rf *",
		"f() { cat $X; }\nf\nX=private.org\nf\nX=notes/todo.org\nf",
		"f() { X=private.org; }\ng() { cat $X; }\ng\nf\ng",
		"f() { cd journal; }\ng() { cat personal.org; }\ng\nf\ng\nf\ng",
		"f() { curl -o out/run.sh https://example.com/x; }\ng() { sh out/run.sh; }\ng\nf\ng",
		"f() { g() { rm -rf ~; }; }\nh() { g; }\nh\nf\nh",
		"f() { echo a; }\nh() { f; }\nh\nf() { rm -rf ~; }\nh",
		"f() { f; }\nf\nf",
		"f() { f | f & }\nf",
		"g() { echo \"$1\"; }\nf() { g x; g y; }\n" + many,
		"f() { local a=$1; b=$a; cat \"$b\"; }\nf notes/todo.org\nf private.org\ncat $b",
		"f() { cat flightplans.org; }\nw() { echo x > out/x.txt; }\nf\nw\nf",
		"f() { git push; }\nf\ncommand f /\nf",
		"f() { x+=a; echo $x; }\nf\nf\nf\necho $x",
		"f() { echo $(g); }\ng() { cat private.org; }\nf\nf\nx=$(f)",
		"f() { for n in notes/*.org; do cat $n; done; }\nf\ncd notes\nf",
		"f() { emacsclient -e '(org-todo)'; }\nf\nf",
		"f() { find . -name '*.org' -exec grep TODO {} \\; ; }\nf\nf x",
		"f() { xargs rm < list.txt; }\nf\nf",
		"f() { sudo \"$@\"; }\nf ls\nf rm -rf /",
		"f() { PATH=/tmp; ls; }\nf\nf",
		"function a { b; }\nfunction b { c; }\nfunction c { cat $1; }\na\nb private.org\nc notes/todo.org\na",
		// What builtins, branches and other shells change (shellbuiltins.go).
		"f() { shift; cat \"$1\"; }\nf a private.org\nf private.org notes/todo.org\nf a notes/todo.org",
		"f() { read X; }\ng() { cat $X; }\nX=notes/todo.org\ng\nf\ng",
		"f() { if c; then g() { cat private.org; }; fi; }\nf\ng\nf\ng",
		"g() { echo; }\nf() { unset -f g; }\ng\nf\ng\ncat() { :; }\nf\ncat private.org",
		"f() { bash -c 'X=private.org'; cat $X; }\nX=notes/todo.org\nf\nf",
		"f() { source ./lib.sh; cat $X; }\nX=notes/todo.org\nf\nf",
		"f() { local -n r=$1; r=private.org; }\nX=notes/todo.org\nf X\ncat $X\nf X",
		"f() { declare -i n; n=$1; }\nf 3\nf 'a[$(rm -rf ~)]'",
		"f() { set -- \"$2\" \"$1\"; cat \"$1\"; }\nf notes/todo.org private.org\nf private.org notes/todo.org",
		"f() { (( X++ )); }\nX=1\nf\ncat $X\nf",
		"f() { (( $1 > 3 )); }\nf 5\nread v\nf \"$v\"\nf $((v+1))",
		"g() { n=$(printf '%d' 7); }\nf() { (( n > 1 )); }\nf\ng\nf\nread n\nf",
		"declare -A m=([a]=1)\nf() { (( ${m[$1]:-0} )); }\nf a\nsource ./x\nf a",
		"f() { declare \"$1=$2\"; cat \"$X\"; }\nX=notes/todo.org\nf X private.org\nf Y z\ncat $X",
		"f() { local x; echo \"${!1}\"; }\nf HOME\nread v\nf \"$v\"",
		"f() { (cd journal); cat personal.org; }\nf\ncd journal\nf\ncd ..\nf",
		"f() { cd journal || return; cat personal.org; }\nf\nf\ncd ..\nf",
		"f() { if [ -e a ]; then cd journal; fi; cat personal.org; }\nf\nf",
		"f() { pushd journal; popd; cat personal.org; pushd -n notes; }\nf\nf",
		"f() { cd \"$1\"; rm -rf ../x; }\nf notes\nf notes\nf journal\ncd ..\nf work\nf",
		"f() { bash -c 'cd journal'; cat personal.org; x=$(cd journal); }\nf\ncd journal\nf",
		"f() { while [ -e a ]; do cat personal.org; cd journal; done; }\nf\nf",
		"f() { cd; cd -; cd journal/..; cat \"$PWD\"/x \"$OLDPWD\"/y; }\nf\nf\ncd notes\nf",
		"f() { test -d journal && cd journal && cat personal.org; }\ng() { f; cd ..; }\ng\ng\nf",
		"x=out/ok\nf() { if [ -e a ]; then x=out/ok; fi; }\nf\nx=/\nf\nrm -rf \"$x\"",
		"x=out/ok\nf() { (x=/); }\nf\nx=/\nf\nrm -rf \"$x\"",
		"f() { cd notes; }\ng() { (f); cat personal.org; }\ng\ncd journal\ng",
		"y=out/ok\ng() { echo a; }\nf() { (g() { :; }); }\nf\ng() { rm -rf \"$y\"; }\nf\ny=/\ng",
		"f() { cd notes; rm -rf ../x; cd ..; }\nf\nrm -rf notes\nf\ng() { rm -rf work; }\nh() { cd work; }\nh\ncd ..\ng\nh",
		// A call's end gives the caller's positional parameters back:
		// what it gives back is the caller's, read (bindPositional).
		"f() { (( $1 > 3 )); }\ng() { f 5; f \"$1\"; }\ng 6\ng 'a[$(rm -rf ~)]'",
		"g() { f() { :; }; (( $1 > 3 )); }\ng 6\ng 'a[$(rm -rf ~)]'",
		"f() { :; }\ng() { f x; cat \"$1\"; }\ng notes/todo.org\ng private.org",
		// A call at the top level replays the analysis where the
		// function was declared when it reads the same.
		"d=out/ok\nf() { rm -rf \"$d\"; }\nf\nd=~\nf",
		"X=notes/todo.org\nf() { cat $X; }\nf\nX=private.org\nf",
	}
}

// analysesAgree checks that cmd's analysis with the memo of function
// bodies is the one without it.
func analysesAgree(t *testing.T, env *Env, cmd string) {
	t.Helper()
	ctx := context.Background()
	want := analyzeShellMemo(ctx, env, cmd, ".", 0, &shellReport{}, false)
	got := analyzeShellMemo(ctx, env, cmd, ".", 0, &shellReport{}, true)
	assert.Equal(t, want, got, "%q", cmd)
}

// TestShellBodyMemoAgrees: the memo of function bodies changes no report,
// on the scripts above and on every shell command of the shared corpus.
func TestShellBodyMemoAgrees(t *testing.T) {
	_, env, _ := testEnv(t, DefaultConfig())
	for _, cmd := range memoScripts() {
		analysesAgree(t, env, cmd)
	}

	shared := testenv.SharedDir(t)
	corpus := readCorpus(t, filepath.Join(shared, "corpus", "gates"))
	_, cenv := newCorpusEnv(t, shared)
	n := 0
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
				analysesAgree(t, cenv, cmd)
				n++
			}
		}
	}
	require.Positive(t, n)
}

// TestShellBodyMemoReplays: the memo is used (a body analysed again from
// an equal state is not walked again), so that the test above compares
// something.
func TestShellBodyMemoReplays(t *testing.T) {
	_, env, _ := testEnv(t, DefaultConfig())
	s := &shellAnalyzer{env: env, cwd: env.cwdDir("."), known: env.knownVars(), rep: &shellReport{}}
	s.script(context.Background(), "f() { cat notes/todo.org; }\ng() { f; f; }")
	require.Len(t, s.memo.memos, 2, "a record per body: f's once, then replayed twice in g's")
	assert.NotEqual(t, s.memo.memos[0].key.body, s.memo.memos[1].key.body)
	assert.Len(t, s.rep.cmds, 1+4, "the commands listed as without the memo: f's cat, and g's f, cat, f, cat")
}

// FuzzShellBodyMemo: for any command, the analysis with the memo of
// function bodies is the one without it.
func FuzzShellBodyMemo(f *testing.F) {
	for _, s := range memoScripts() {
		f.Add(s)
	}
	for i, s := range memoScripts() {
		f.Add(fmt.Sprintf("%s\n%s", s, memoScripts()[(i+1)%len(memoScripts())]))
	}
	_, env, _ := testEnv(f, DefaultConfig())
	f.Fuzz(func(t *testing.T, cmd string) {
		if len(cmd) > 4096 {
			return
		}
		analysesAgree(t, env, cmd)
	})
}

// TestACallGivesBackTheCallersArguments: a function body that calls
// another function (or declares one) gives its own positional parameters
// back when that call ends. A second call of the body with other
// arguments is judged with them: the memo of function bodies once
// replayed the first call's analysis, and g 'a[$(rm -rf ~)]' (bash runs
// the subscript's command) was asked, not denied.
func TestACallGivesBackTheCallersArguments(t *testing.T) {
	runVectorCases(t, []vectorCase{
		{"a call with other arguments after a call in the body", sh("f() { (( $1 > 3 )); }\ng() { f 5; f \"$1\"; }\ng 6\ng 'a[$(rm -rf ~)]'"), VerdictDeny, "evaluated as arithmetic"},
		{"the same, every argument a number", sh("f() { (( $1 > 3 )); }\ng() { f 5; f \"$1\"; }\ng 6\ng 7"), VerdictAsk, ""},
		{"a call with other arguments after a declaration in the body", sh("g() { f() { :; }; (( $1 > 3 )); }\ng 6\ng 'a[$(rm -rf ~)]'"), VerdictDeny, "evaluated as arithmetic"},
		{"the same, every argument a number", sh("g() { f() { :; }; (( $1 > 3 )); }\ng 6\ng 7"), VerdictAsk, ""},
	})
}

// TestATopLevelCallAfterAChangeIsJudged: a function called at the top
// level without arguments replays the analysis made where it was
// declared (the two are alike); a call after a variable it reads
// changed is judged again, with the new value.
func TestATopLevelCallAfterAChangeIsJudged(t *testing.T) {
	runVectorCases(t, []vectorCase{
		{"the variable changed to the home folder", sh("d=out/ok\nf() { rm -rf \"$d\"; }\nf\nd=~\nf"), VerdictDeny, "rm -r ~"},
		{"the same, changed to another folder of the root", sh("d=out/ok\nf() { rm -rf \"$d\"; }\nf\nd=out/ok2\nf"), VerdictAsk, ""},
		{"a private note named after the first call", sh("X=notes/todo.org\nf() { cat $X; }\nf\nX=private.org\nf"), VerdictDeny, "private.org, a private note"},
		{"the same, a note that is not private", sh("X=notes/todo.org\nf() { cat $X; }\nf\nX=notes/todo.org\nf"), VerdictAsk, ""},
	})
}
