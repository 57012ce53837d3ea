package gates

import (
	"os/exec"
	"strings"
	"testing"

	"github.com/stretchr/testify/assert"
	"github.com/stretchr/testify/require"
)

// TestShellStateChanges: what a builtin, a function declaration or
// another shell changes of the shell's state holds only where bash keeps
// it. Each hostile case hides a destructive or private command behind a
// setting the analysis would otherwise believe; each has a benign twin
// whose answer stays what it is.
func TestShellStateChanges(t *testing.T) {
	runVectorCases(t, []vectorCase{
		// Builtins that set the variables they name.
		{"read sets its variable", sh(`x=out/ok; read -r x < notes/todo.org; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"read, twin", sh(`x=out/ok; read -r y < notes/todo.org; rm -rf "$x"`), VerdictAsk, "rm deletes files"},
		{"read -a", sh(`x=out/ok; read -ra x; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"read with no name sets REPLY", sh(`REPLY=out/ok; read; rm -rf "$REPLY"`), VerdictDeny, "known only when it runs"},
		{"readarray", sh(`x=out/ok; readarray x < f; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"mapfile callback runs", sh(`mapfile -C 'rm -rf' -c 1 lines < notes/todo.org`), VerdictDeny, "known only when it runs"},
		{"getopts", sh(`x=out/ok; getopts a: x; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"getopts, twin", sh(`x=out/ok; getopts a: opt; rm -rf "$x"`), VerdictAsk, "rm deletes files"},
		{"wait -p", sh(`x=out/ok; wait -n -p x; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"builtin read", sh(`x=out/ok; builtin read x; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"command read", sh(`x=out/ok; command read x; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"builtin declare", sh(`x=out/ok; builtin declare x=/; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"command export", sh(`x=out/ok; command export x=/; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"builtin printf -v", sh(`x=out/ok; builtin printf -v x /; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"read of PATH", sh(`read PATH < f; ls`), VerdictDeny, "PATH"},
		{"compgen -C runs", sh(`compgen -C 'rm -rf ~' x`), VerdictDeny, ""},
		// unset, arithmetic, ${x:=…}.
		{"unset empties", sh(`x=out/ok; unset x; rm -rf "$x"/`), VerdictDeny, "known only when it runs"},
		{"unset, twin", sh(`x=out/ok; unset y; rm -rf "$x"/`), VerdictAsk, "rm deletes files"},
		{"let assigns", sh(`x=out/ok; let x=0; rm -rf "${x/0//}"`), VerdictDeny, ""},
		{"(( )) assigns", sh(`x=out/ok; (( x = 0 )); rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"$(( )) assigns", sh(`x=out/ok; : $(( x++ )); rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"subscript assigns", sh(`x=out/ok; a[x=0]=1; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"for (( )) assigns", sh(`x=out/ok; for ((x=0; x<3; x++)); do :; done; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"arithmetic, twin", sh(`x=out/ok; y=$(( 1 + 2 )); rm -rf "$x"`), VerdictAsk, "rm deletes files"},
		{"arithmetic runs a value's subscript", sh(`v='a[$(rm -rf ~)]'; (( v > 1 ))`), VerdictDeny, "evaluated as arithmetic"},
		{"[[ -eq ]] evaluates a value", sh(`v='a[$(rm -rf ~)]'; [[ $v -eq 1 ]]`), VerdictDeny, "evaluated as arithmetic"},
		{"declare -i evaluates", sh(`declare -i n; n='a[$(rm -rf ~)]'`), VerdictDeny, "evaluated as arithmetic"},
		{"arithmetic value, twin", sh(`v=3; (( v > 1 )) && echo big`), VerdictAllow, ""},
		// Arithmetic evaluates a value known only when it runs.
		{"arithmetic of a value read from a file", sh(`read n < out/n; (( n > 3 )) && echo big`), VerdictDeny, "arithmetic evaluates n"},
		{"arithmetic of a file's text", sh(`echo 'a[$(rm -rf ~)]' > out/n; n=$(cat out/n); echo $(( n + 1 ))`), VerdictDeny, "arithmetic evaluates n"},
		{"arithmetic of an argument known only when it runs", sh(`read v; f(){ (( $1 > 3 )) && echo big; }; f "$v"`), VerdictDeny, "arithmetic evaluates 1"},
		{"[[ -gt ]] of a value read", sh(`read n; [[ $n -gt 3 ]] && echo big`), VerdictDeny, "as arithmetic"},
		{"declare -i and read", sh(`declare -i n; read n`), VerdictDeny, "arithmetic evaluates n"},
		{"arithmetic, a number printed", sh(`n=$(printf '%d' "'$c"); (( n > 3 )) && echo big`), VerdictAllow, ""},
		{"arithmetic, a counter", sh(`i=0; while (( i < 3 )); do i=$((i+1)); done; echo "$i"`), VerdictAllow, ""},
		{"arithmetic, for (( ))", sh(`for ((i=0; i<3; i++)); do echo $((i*2)); done`), VerdictAllow, ""},
		{"arithmetic, a function's number", sh(`f(){ (( $1 > 3 )) && echo big; }; f 5`), VerdictAsk, ""},
		{"arithmetic, an array of numbers", sh(`declare -A m=([a]=1 [b]=2); k=$1; echo $(( ${m[$k]:--1} + 1 ))`), VerdictAllow, ""},
		{"arithmetic, a variable never set", sh(`(( count++ )); echo "$count"`), VerdictAllow, ""},
		{"arithmetic after source", sh(`source ./f.sh; (( count++ ))`), VerdictDeny, "arithmetic evaluates count"},
		{"${x:=} assigns an empty variable", sh(`x=; : ${x:=/}; rm -rf "$x"`), VerdictDeny, "rm -r /"},
		{"${x:=}, twin", sh(`x=out/ok; : ${x:=/}; rm -rf "$x"`), VerdictAsk, "rm deletes files"},
		{"${x@P} runs the value", sh(`x='$(rm -rf ~)'; echo "${x@P}"`), VerdictDeny, ""},
		{"${x@P} of an unknown value", sh(`read x; echo "${x@P}"`), VerdictDeny, "prompt"},
		{"substitution in a subscript", sh(`echo "${a[$(rm -rf ~)]}"`), VerdictDeny, ""},
		// A declaration's quoted words, and names whose subscript runs.
		{"quoted declaration", sh(`x=out/ok; declare "x=/"; rm -rf "$x"`), VerdictDeny, "rm -r /"},
		{"quoted export of PATH", sh(`export "PATH=/tmp"; ls`), VerdictDeny, "PATH"},
		{"declaration of a name known only when it runs", sh(`read y; declare "$y=/tmp"; ls`), VerdictDeny, "name is known only when it runs"},
		{"bare declaration keeps the value", sh(`x=/; declare x; rm -rf "$x"`), VerdictDeny, "rm -r /"},
		{"quoted declaration, twin", sh(`declare "x=out/ok"; rm -rf "$x"`), VerdictAsk, "rm deletes files"},
		{"read into a subscript that runs", sh(`read 'a[$(rm -rf ~)]'`), VerdictDeny, "rm -r ~"},
		{"printf -v into a subscript that runs", sh(`printf -v 'a[$(rm -rf ~)]' x`), VerdictDeny, "rm -r ~"},
		{"test -v of a subscript that runs", sh(`test -v 'a[$(rm -rf ~)]'`), VerdictDeny, "rm -r ~"},
		{"nameref to a subscript that runs", sh(`declare -n r='a[$(rm -rf ~)]'; echo "$r"`), VerdictDeny, "rm -r ~"},
		{"indirection to a subscript that runs", sh(`x='a[$(rm -rf ~)]'; echo "${!x}"`), VerdictDeny, "rm -r ~"},
		{"indirection to a name read", sh(`read x; echo "${!x}"`), VerdictDeny, "named only when it runs"},
		{"indirection, twin", sh(`x=HOME; echo "${!x}"`), VerdictAllow, ""},
		{"subscript, twin", sh(`read 'a[1]' < notes/todo.org`), VerdictAsk, ""},
		// A variable named by a value known only when it runs: bash expands
		// a subscript in that name (checked with bash 5.2: each of these
		// runs the $(…) of n='a[$(touch f)]').
		{"read into a name read", sh(`read n < notes/todo.org; read "$n" <<< x`), VerdictDeny, "named by a value known only when it runs"},
		{"printf -v into a name read", sh(`read n < notes/todo.org; printf -v "$n" x`), VerdictDeny, "named by a value known only when it runs"},
		{"wait -p into a name read", sh(`read n < notes/todo.org; wait -p "$n"`), VerdictDeny, "named by a value known only when it runs"},
		{"test -v of a name read", sh(`read n < notes/todo.org; test -v "$n"`), VerdictDeny, "named by a value known only when it runs"},
		{"[[ -v ]] of a name read", sh(`read n < notes/todo.org; [[ -v $n ]]`), VerdictDeny, "named by a value known only when it runs"},
		{"[[ -v ]] of a subscript that runs", sh(`[[ -v 'a[$(rm -rf ~)]' ]]`), VerdictDeny, "rm -r ~"},
		{"[[ -v ]], twin", sh(`[[ -v HOME ]] && echo set`), VerdictAllow, ""},
		{"unset of a name read", sh(`declare -a a; read n < notes/todo.org; unset "$n"`), VerdictDeny, "named by a value known only when it runs"},
		{"unset of a subscript that runs", sh(`declare -a a; unset 'a[$(rm -rf ~)]'`), VerdictDeny, "rm -r ~"},
		{"unset, of a known name, twin", sh(`n=x; unset "$n"; echo ok`), VerdictAsk, ""},
		{"nameref to a name read", sh(`read n < notes/todo.org; declare -n r="$n"; echo "$r"`), VerdictDeny, "name reference refers to a variable named only when it runs"},
		{"nameref to a name read, in a function", sh(`f(){ local -n r=$1; r=1; }; read n < notes/todo.org; f "$n"`), VerdictDeny, "named only when it runs"},
		{"read into a name, twin", sh(`n=line; read -r "$n" < notes/todo.org; echo "$line"`), VerdictAsk, ""},
		{"read into a caller's name, twin", sh(`get(){ read -r "$1" < notes/todo.org; }; get line; echo "$line"`), VerdictAsk, ""},
		{"read into a caller's name read", sh(`get(){ read -r "$1" < notes/todo.org; }; read n; get "$n"`), VerdictDeny, "named by a value known only when it runs"},
		{"read into a numbered name, twin", sh(`read -r line < notes/todo.org; read -r "x_${#line}" < notes/todo.org`), VerdictAsk, ""},
		{"nameref to a numbered name, twin", sh(`f(){ local -n r=x_$1; echo "$r"; }; f 2`), VerdictAsk, ""},
		{"builtin declare -n to a name read", sh(`read n; builtin declare -n r="$n"; echo "$r"`), VerdictDeny, "named only when it runs"},
		// Positional parameters.
		{"shift", sh(`f(){ shift; kill -9 "$1"; }; f 1234 -1`), VerdictDeny, "every process"},
		{"shift, twin", sh(`f(){ shift; kill -9 "$1"; }; f -1 1234`), VerdictAsk, "kill"},
		{"set --", sh(`f(){ set -- /; rm -rf "$1"; }; f out/ok`), VerdictDeny, "rm -r /"},
		{"set -- in a subshell", sh(`f(){ (set -- out/ok); rm -rf "$1"; }; f /`), VerdictDeny, "rm -r /"},
		{"set --, twin", sh(`f(){ set -- out/ok; rm -rf "$1"; }; f /`), VerdictAsk, "rm deletes files"},
		// Name references.
		{"nameref assigns its target", sh(`x=out/ok; declare -n r=x; r=/; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"nameref reads its target", sh(`declare -n r=x; x=/; rm -rf "$r"`), VerdictDeny, "known only when it runs"},
		{"local -n in a function", sh(`x=out/ok; f(){ local -n r=$1; r=/; }; f x; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"nameref, twin", sh(`a=(out/ok); f(){ local -n arr=$1; echo "${arr[0]}"; }; f a`), VerdictAsk, ""},
		{"export -n is not a nameref", sh(`x=out/ok; export -n x; rm -rf "$x"`), VerdictAsk, "rm deletes files"},
		// Settings of a subshell, a substitution or another shell stay there.
		{"command substitution", sh(`x=/; echo $(x=out/ok); rm -rf "$x"`), VerdictDeny, "rm -r /"},
		{"process substitution", sh(`x=/; cat <(x=out/ok); rm -rf "$x"`), VerdictDeny, "rm -r /"},
		{"function called in a substitution", sh(`x=/; f(){ x=out/ok; }; echo $(f); rm -rf "$x"`), VerdictDeny, "rm -r /"},
		{"bash -c", sh(`x=/; bash -c 'x=out/ok'; rm -rf "$x"`), VerdictDeny, "rm -r /"},
		{"eval holds, twin", sh(`x=/; eval 'x=out/ok'; rm -rf "$x"`), VerdictAsk, "rm deletes files"},
		{"another shell does not see the variables", sh(`x=out/ok; bash -c 'rm -rf "$x"/..'`), VerdictDeny, "known only when it runs"},
		{"another shell does not see the functions", sh(`cat(){ :; }; bash -c 'cat private.org'`), VerdictDeny, "private note"},
		{"coproc sets its name", sh(`x=out/ok; coproc x { cat; }; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		// Functions.
		{"function in a subshell", sh(`(cat(){ :; }); cat private.org`), VerdictDeny, "private note"},
		{"function in a substitution", sh(`echo $(cat(){ :; }); cat private.org`), VerdictDeny, "private note"},
		{"function in a branch", sh(`if false; then cat(){ :; }; fi; cat private.org`), VerdictDeny, "private note"},
		{"function removed", sh(`cat(){ :; }; unset -f cat; cat private.org`), VerdictDeny, "private note"},
		{"function removed by unset", sh(`cat(){ :; }; unset cat; cat private.org`), VerdictDeny, "private note"},
		{"function declared in a pipeline", sh(`cat(){ :; } | true; cat private.org`), VerdictDeny, "pipeline"},
		{"function, twin", sh(`cat(){ :; }; cat private.org`), VerdictAsk, ""},
		{"function bodies differ by branch", sh(`f(){ ls; }; if c; then f(){ rm -rf out/b; }; fi; f`), VerdictDeny, "declared differently"},
		{"function maybe declared", sh(`if c; then f(){ rm -rf out/b; }; fi; f`), VerdictAsk, "rm deletes files"},
		{"special builtin before a function", sh(`eval(){ :; }; set -o posix; eval 'rm -rf ~'`), VerdictDeny, ""},
		// A function whose command word is "$@" runs its arguments, as a
		// wrapper does: each call is judged as the command they name.
		{"\"$@\" runs the call's arguments", sh(`f(){ "$@"; }; f rm -rf ~`), VerdictDeny, "rm -r ~"},
		{"\"$@\" handed on to another function", sh(`g(){ "$@"; }; f(){ g "$@"; }; f rm -rf ~`), VerdictDeny, "rm -r ~"},
		{"\"$@\" after calls that were fine", sh(`f(){ "$@"; }; f echo a; f echo a; f rm -rf ~`), VerdictDeny, "rm -r ~"},
		{"\"$@\" runs a builtin in the shell", sh(`f(){ "$@"; }; f cd /; rm -rf *`), VerdictDeny, "rm -r *"},
		{"\"$@\" called twice is no function declared differently", sh(`f(){ "$@"; }; f echo hi; f echo ho`), VerdictAsk, ""},
		{"\"$@\" handed on, called twice", sh(`g(){ "$@"; }; f(){ g "$@"; }; f echo hi; f ls`), VerdictAsk, ""},
		{"\"$@\" after shift is known only when it runs", sh(`f(){ shift; "$@"; }; f x echo hi`), VerdictAsk, "known only when it runs"},
		{"\"$@\" of arguments known only when they run", sh(`f(){ "$@"; }; f $x`), VerdictAsk, "known only when it runs"},
		// Whatever a script or a program known only when it runs may set.
		{"source", sh(`x=out/ok; source ./f.sh; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"dynamic program", sh(`x=out/ok; $c x; rm -rf "$x"`), VerdictDeny, "known only when it runs"},
		{"dynamic program may be cd", sh(`$c out; rm -rf ../x`), VerdictDeny, "outside the roots"},
		{"source, twin", sh(`x=out/ok; rm -rf "$x"; source ./f.sh`), VerdictAsk, "sources"},
		// [ is the test builtin, not a glob: a lone [ matches nothing.
		{"[ is test", sh(`[ -d notes ] && ls notes`), VerdictAllow, ""},
		{"a glob verb", sh(`/bin/r[m] -rf ~`), VerdictDeny, ""},
		// Builtins that change what runs.
		{"hash -p", sh(`hash -p /bin/rm ls; ls -rf ~`), VerdictDeny, "hash -p"},
		{"hash -r, twin", sh(`hash -r; ls`), VerdictAsk, ""},
		{"enable -f", sh(`enable -f ./evil.so evil`), VerdictDeny, "enable"},
		{"enable -n cd", sh(`enable -n cd; cd out; rm -rf ../x`), VerdictDeny, "enable"},
		{"fc -s", sh(`history -s 'rm -rf ~'; fc -s`), VerdictDeny, "history"},
		{"fc -l, twin", sh(`fc -l`), VerdictAsk, ""},
	})
}

// TestBashBuiltinsAreListed holds bashBuiltins to the bash installed: a
// builtin the table lacks would be taken for a program that changes
// nothing of the shell's.
func TestBashBuiltinsAreListed(t *testing.T) {
	bash, err := exec.LookPath("bash")
	if err != nil {
		t.Skip("no bash on this machine")
	}
	out, err := exec.Command(bash, "-c", "enable -a").Output()
	require.NoError(t, err)
	n := 0
	for _, line := range strings.Split(strings.TrimSpace(string(out)), "\n") {
		name := strings.TrimPrefix(strings.TrimPrefix(line, "enable "), "-n ")
		_, ok := bashBuiltins[name]
		assert.True(t, ok, "bash has the builtin %q; bashBuiltins does not list it", name)
		n++
	}
	assert.Greater(t, n, 50, "enable -a listed too few builtins: %q", out)
}
