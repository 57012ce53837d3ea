package actuate

import (
	"context"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"sort"
	"strings"

	"pp-lsp/gates"
	"pp-lsp/server/actuate/sandbox"
)

// shell runs cmd with bash (sh where there is no bash) in cwd, inside the
// roots, in the sandbox. Its output goes back to the model.
func (a *Actuators) shell(ctx context.Context, req Request) (Result, error) {
	args := req.Action.Typed().(gates.ShellArgs)
	dir, err := a.paths.dir(args.Cwd)
	if err != nil {
		return Result{}, fmt.Errorf("shell: %w", err)
	}
	sh := "/bin/sh"
	for _, p := range []string{"/bin/bash", "/usr/bin/bash"} {
		if fi, err := os.Stat(p); err == nil && fi.Mode().IsRegular() {
			sh = p
			break
		}
	}
	res, err := a.runConfined(ctx, "shell", sandbox.Command{Argv: []string{sh, "-c", args.Cmd}, Dir: dir}, a.cfg.Shell)
	res.Feedback = true
	return res, err
}

// DefaultInterpreters run eval's languages: the code on standard input, or
// in a temp file where an argument is "{file}".
var DefaultInterpreters = map[string][]string{
	"python":     {"python3", "-"},
	"python3":    {"python3", "-"},
	"sh":         {"sh", "-s"},
	"bash":       {"bash", "-s"},
	"javascript": {"node", "-"},
	"node":       {"node", "-"},
	"ruby":       {"ruby", "-"},
	"perl":       {"perl", "-"},
	"lisp":       {"sbcl", "--script"},
	"emacs-lisp": {"emacs", "-Q", "--batch", "-l", "{file}"},
	"elisp":      {"emacs", "-Q", "--batch", "-l", "{file}"},
}

// eval runs code with the interpreter of its language, in the first root,
// in the sandbox.
func (a *Actuators) eval(ctx context.Context, req Request) (Result, error) {
	args := req.Action.Typed().(gates.EvalArgs)
	lang := strings.ToLower(strings.TrimSpace(args.Lang))
	argv, ok := a.cfg.Eval.Interpreters[lang]
	if !ok {
		argv, ok = DefaultInterpreters[lang]
	}
	if !ok || len(argv) == 0 {
		known := map[string]bool{}
		for k := range DefaultInterpreters {
			known[k] = true
		}
		for k := range a.cfg.Eval.Interpreters {
			known[k] = true
		}
		names := make([]string, 0, len(known))
		for k := range known {
			names = append(names, k)
		}
		sort.Strings(names)
		return Result{}, fmt.Errorf("eval: no interpreter is known for the language %q (known: %s)", args.Lang, strings.Join(names, ", "))
	}
	c := sandbox.Command{Argv: slices.Clone(argv), Dir: a.paths.roots[0], Stdin: strings.NewReader(args.Code)}
	if i := slices.Index(c.Argv, "{file}"); i >= 0 {
		// The code goes into the command's own temporary folder, the one
		// place outside the roots it may read.
		name := "code" + extension(lang)
		c.Files = map[string][]byte{name: []byte(args.Code)}
		c.Argv[i] = sandbox.TempDir + "/" + name
		c.Stdin = nil
	}
	return a.runConfined(ctx, "eval "+lang, c, a.cfg.Eval.Limits)
}

func extension(lang string) string {
	switch lang {
	case "emacs-lisp", "elisp":
		return ".el"
	}
	return filepath.Ext("x." + lang)
}
